"""Partial match: structural, operator and variable match, and the sets behind each score.

As the error-analysis paper defines them: subqueries are paired by their order within each nesting
level; for each pair and each component the score is the Jaccard similarity of the two item sets
(1.0 when both are empty; 0.0 for every component when one side has no subquery in that
slot); `sm`, `om` and `vm` average those
scores over all pairs (a flat mean over subqueries, which gives the paper's worked example sm = 0.2),
and `pm` is the mean of the three. The items themselves are described in `categories`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from sqltriage.core.model import Schema
from sqltriage.core.sql.categories import Subquery, subqueries
from sqltriage.core.sql.parse import ParsedQuery, ensure_parsed
from sqltriage.core.sql.sqlite_syntax import sqlite_syntax_error


@dataclass(frozen=True, slots=True)
class ComponentDiff:
    """One component of one subquery pair: what only gold has, only the prediction has, and both."""

    gold_only: tuple[str, ...]
    pred_only: tuple[str, ...]
    both: tuple[str, ...]
    score: float


@dataclass(frozen=True, slots=True)
class SubqueryMatch:
    level: int
    position: int
    gold: Subquery | None  # None when gold has no subquery in this slot
    pred: Subquery | None
    structural: ComponentDiff
    operator: ComponentDiff
    variable: ComponentDiff

    @property
    def gold_sql(self) -> str | None:
        """Gold's subquery text in this slot (generated when first shown, never for the scores)."""
        return self.gold.sql if self.gold is not None else None

    @property
    def pred_sql(self) -> str | None:
        return self.pred.sql if self.pred is not None else None

    def as_dict(self) -> dict[str, Any]:
        """The pair as plain data (the subqueries as their text), e.g. for a JSON document."""
        return {
            "level": self.level,
            "position": self.position,
            "gold_sql": self.gold_sql,
            "pred_sql": self.pred_sql,
            "structural": asdict(self.structural),
            "operator": asdict(self.operator),
            "variable": asdict(self.variable),
        }


@dataclass(frozen=True, slots=True)
class MatchBreakdown:
    """Scores in [0, 1]; None when the gold query cannot be read (then `error` says why)."""

    sm: float | None
    om: float | None
    vm: float | None
    pm: float | None
    subqueries: tuple[SubqueryMatch, ...]
    error: str | None = None


def partial_match(
    gold_sql: str | ParsedQuery,
    pred_sql: str | ParsedQuery,
    schema: Schema | None = None,
    *,
    values: bool = True,
    gold_subs: Sequence[Subquery] | None = None,
    pred_subs: Sequence[Subquery] | None = None,
) -> MatchBreakdown:
    """Compare a prediction with its gold query; never raises.

    A prediction that does not parse, is not a query, or is a syntax error to SQLite (which sqlglot may
    still read) scores 0.0 with `error` set; a gold query that does not parse gives None scores. `values=False` leaves literals out of the variable match, for
    models that predict no values (the paper's treatment of such models). `gold_subs` / `pred_subs`,
    when the caller already has `subqueries()` of a side, save walking its tree again.
    """
    gold = ensure_parsed(gold_sql, schema)
    if not gold.ok:
        return MatchBreakdown(None, None, None, None, (), f"gold query: {gold.error}")
    if gold_subs is None:
        gold_subs = subqueries(gold, schema)
    if not gold_subs or not gold_subs[0].structural:
        return MatchBreakdown(None, None, None, None, (), "gold query: not a query")
    pred = ensure_parsed(pred_sql, schema)
    rejected = sqlite_syntax_error(pred.sql) if pred.ok else None
    if pred_subs is None or not pred.ok:
        pred_subs = subqueries(pred, schema) if pred.ok else ()
    if not pred.ok or rejected or not pred_subs or not pred_subs[0].structural:
        reason = (
            pred.error if not pred.ok else f"SQLite rejects it ({rejected})" if rejected else "not a query"
        )
        pairs = compare_subqueries(gold_subs, (), values=values).subqueries
        return MatchBreakdown(0.0, 0.0, 0.0, 0.0, pairs, f"prediction: {reason}")
    return compare_subqueries(gold_subs, pred_subs, values=values)


def compare_subqueries(
    gold: Sequence[Subquery], pred: Sequence[Subquery], *, values: bool = True
) -> MatchBreakdown:
    """The breakdown from subqueries computed once (`categories.subqueries`), for batch evaluation."""
    gold_at = {(s.level, s.position): s for s in gold}
    pred_at = {(s.level, s.position): s for s in pred}
    pairs: list[SubqueryMatch] = []
    for level, position in sorted(gold_at.keys() | pred_at.keys()):
        g, p = gold_at.get((level, position)), pred_at.get((level, position))
        pairs.append(
            SubqueryMatch(
                level=level,
                position=position,
                gold=g,
                pred=p,
                structural=_diff(g.structural if g else (), p.structural if p else (), g, p),
                operator=_diff(g.operators if g else (), p.operators if p else (), g, p),
                variable=_diff(_vars(g, values), _vars(p, values), g, p),
            )
        )
    if not pairs:
        return MatchBreakdown(None, None, None, None, (), "no subqueries to compare")
    sm = _mean([m.structural.score for m in pairs])
    om = _mean([m.operator.score for m in pairs])
    vm = _mean([m.variable.score for m in pairs])
    return MatchBreakdown(sm, om, vm, (sm + om + vm) / 3, tuple(pairs))


def jaccard(a: Sequence[str], b: Sequence[str]) -> float:
    """|A ∩ B| / |A ∪ B|, and 1.0 for two empty sets (nothing to get wrong)."""
    sa, sb = set(a), set(b)
    union = sa | sb
    return len(sa & sb) / len(union) if union else 1.0


def _diff(
    gold: Sequence[str], pred: Sequence[str], gold_sub: Subquery | None, pred_sub: Subquery | None
) -> ComponentDiff:
    g, p = dict.fromkeys(gold), dict.fromkeys(pred)
    # A subquery one side lacks is wrong as a whole, even in a component both leave empty.
    score = jaccard(tuple(g), tuple(p)) if gold_sub is not None and pred_sub is not None else 0.0
    return ComponentDiff(
        gold_only=tuple(x for x in g if x not in p),
        pred_only=tuple(x for x in p if x not in g),
        both=tuple(x for x in g if x in p),
        score=score,
    )


def _vars(sub: Subquery | None, values: bool) -> tuple[str, ...]:
    if sub is None:
        return ()
    return sub.variables if values else tuple(v for v in sub.variables if not v.startswith("value:"))


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)
