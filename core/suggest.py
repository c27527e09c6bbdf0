"""Suggested error causes from the partial-match breakdown and the execution outcome.

Pure rules, one per kind of difference: a table only gold uses suggests "Table: missing", a differing
aggregate "Function: aggregate", and so on. The result is a list of suggestions with the reason for
each; the interface shows them and the user accepts or ignores them, nothing is applied silently.
Tag names are those of the default taxonomy.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqltriage.core.sql.partial_match import ComponentDiff, MatchBreakdown, SubqueryMatch

AGGREGATES = {"count", "sum", "avg", "min", "max", "group_concat", "total"}
COMPARISONS = {"=", "!=", ">", ">=", "<", "<=", "between", "not between", "like", "not like", "glob"}
COMPARISONS |= {"not glob", "in", "not in", "exists", "is null", "is not null"}
LOGICAL = {"and", "or", "not"}
ARITHMETIC = {"+", "-", "*", "/", "%"}
CLAUSES = {"group by", "having", "limit", "union", "intersect", "except", "order by"}
NEAR_EQUAL_PM = 0.999  # partial match this high means the sets agree: any EX failure lies elsewhere
LOW_PM = 0.5


@dataclass(frozen=True, slots=True)
class Suggestion:
    tag: str  # "Category: name", as the default taxonomy writes it
    reason: str  # what in the breakdown suggests it, shown next to it


def suggest_causes(
    breakdown: MatchBreakdown,
    *,
    ex: int | None = None,
    va: int | None = None,
    error: str | None = None,
) -> list[Suggestion]:
    """Suggestions for one (example, model), most specific first, each tag once.

    `ex` and `va` are the stored outcomes (1, 0 or None); `error` the execution error message, if any.
    """
    found: list[Suggestion] = []
    found += _from_error(va, error)
    top = [s for s in breakdown.subqueries if s.level == 0]
    for sub in breakdown.subqueries:
        if sub.gold_sql is not None and sub.pred_sql is not None:
            found += _tables(sub.variable)
            found += _columns(sub.variable)
            found += _values(sub.variable)
            found += _operators(sub.operator)
            found += _clauses(sub.structural, sub.operator)
    found += _subqueries(breakdown.subqueries)
    found += _evaluation(breakdown, ex, top)
    out: dict[str, Suggestion] = {}
    for s in found:
        out.setdefault(s.tag, s)
    return list(out.values())


def _items(items: Iterable[str], prefix: str) -> set[str]:
    return {i.removeprefix(prefix) for i in items if i.startswith(prefix)}


def _op_name(item: str) -> str:
    """`where:>=#2` → `>=`."""
    return item.split(":", 1)[-1].split("#", 1)[0]


def _from_error(va: int | None, error: str | None) -> list[Suggestion]:
    if va != 0 or not error:
        return []
    text = error.lower()
    if "no such column" in text:
        return [Suggestion("Attribute: mismatch", f"execution failed: {error}")]
    if "no such table" in text:
        return [Suggestion("Table: mismatch", f"execution failed: {error}")]
    if "no such function" in text:
        return [Suggestion("Other: other", f"execution failed: {error}")]
    return []


def _missing_redundant_mismatch(
    gold_only: set[str], pred_only: set[str], category: str, what: str
) -> list[Suggestion]:
    if gold_only and pred_only:
        detail = f"gold uses {', '.join(sorted(gold_only))}; the prediction {', '.join(sorted(pred_only))}"
        return [Suggestion(f"{category}: mismatch", f"{what}: {detail}")]
    if gold_only:
        return [Suggestion(f"{category}: missing", f"{what} only gold uses: {', '.join(sorted(gold_only))}")]
    if pred_only:
        return [
            Suggestion(
                f"{category}: redundant", f"{what} only the prediction uses: {', '.join(sorted(pred_only))}"
            )
        ]
    return []


def _tables(c: ComponentDiff) -> list[Suggestion]:
    return _missing_redundant_mismatch(
        _items(c.gold_only, "table:"), _items(c.pred_only, "table:"), "Table", "tables"
    )


def _columns(c: ComponentDiff) -> list[Suggestion]:
    gold = _items(c.gold_only, "column:") - {"*"}
    pred = _items(c.pred_only, "column:") - {"*"}
    return _missing_redundant_mismatch(gold, pred, "Attribute", "columns")


def _values(c: ComponentDiff) -> list[Suggestion]:
    gold, pred = _items(c.gold_only, "value:"), _items(c.pred_only, "value:")
    if not gold and not pred:
        return []
    if gold and pred and {v.lower().strip("%'\" ") for v in gold} == {v.lower().strip("%'\" ") for v in pred}:
        return [
            Suggestion("Value: data format", f"values differ in form only: {sorted(gold)} vs {sorted(pred)}")
        ]
    detail = f"gold {', '.join(sorted(gold)) or '—'}; prediction {', '.join(sorted(pred)) or '—'}"
    return [Suggestion("Value: mismatch", f"values differ: {detail}")]


def _operators(c: ComponentDiff) -> list[Suggestion]:
    differing = {*c.gold_only, *c.pred_only}
    out: list[Suggestion] = []
    rules = (
        (AGGREGATES, "Function: aggregate", "aggregates differ"),
        (COMPARISONS, "Operator: comparison", "comparison operators differ"),
        (LOGICAL, "Operator: logical", "logical operators differ"),
        (ARITHMETIC, "Function: math", "arithmetic differs"),
    )
    for group, tag, what in rules:
        hit = sorted(i for i in differing if _op_name(i) in group)
        if hit:
            out.append(Suggestion(tag, f"{what}: {', '.join(hit)}"))
    return out


def _clauses(structural: ComponentDiff, operator: ComponentDiff) -> list[Suggestion]:
    gold, pred = set(structural.gold_only), set(structural.pred_only)
    out: list[Suggestion] = []
    gold_order = {i for i in gold if i.startswith("order by")}
    pred_order = {i for i in pred if i.startswith("order by")}
    if gold_order and pred_order:
        out.append(
            Suggestion("Other: ASC/DESC", f"ordering differs: {sorted(gold_order)} vs {sorted(pred_order)}")
        )
    if "where" in gold:
        out.append(Suggestion("Condition: explicit missing", "gold has a WHERE clause, the prediction none"))
    if "where" in pred:
        out.append(
            Suggestion("Condition: explicit redundant", "the prediction filters with WHERE, gold does not")
        )
    if "where" in structural.both and any(
        i.startswith("where:") for i in (*operator.gold_only, *operator.pred_only)
    ):
        out.append(
            Suggestion("Condition: explicit mismatch", "both filter with WHERE, the conditions differ")
        )
    missing = sorted(i for i in gold if i in CLAUSES or (i.startswith("order by") and not pred_order))
    extra = sorted(i for i in pred if i in CLAUSES or (i.startswith("order by") and not gold_order))
    if missing:
        out.append(Suggestion("Clause: missing", f"clauses only gold has: {', '.join(missing)}"))
    if extra:
        out.append(Suggestion("Clause: redundant", f"clauses only the prediction has: {', '.join(extra)}"))
    return out


def _subqueries(subs: tuple[SubqueryMatch, ...]) -> list[Suggestion]:
    nested = [s for s in subs if s.level > 0]
    out: list[Suggestion] = []
    if any(s.pred_sql is None for s in nested):
        out.append(Suggestion("Subquery: missing", "gold nests a query the prediction does not have"))
    if any(s.gold_sql is None for s in nested):
        out.append(Suggestion("Subquery: mismatch", "the prediction nests a query gold does not have"))
    paired = [s for s in nested if s.gold_sql is not None and s.pred_sql is not None]
    if any(min(c.score for c in (s.structural, s.operator, s.variable)) < 1.0 for s in paired):
        out.append(Suggestion("Subquery: partial", "a nested query differs from gold's"))
    return out


def _evaluation(breakdown: MatchBreakdown, ex: int | None, top: list[SubqueryMatch]) -> list[Suggestion]:
    if breakdown.pm is None or breakdown.error:
        return []
    if ex == 1 and breakdown.pm < LOW_PM:
        return [
            Suggestion("Evaluation: EX false positive", f"EX passes though PM is only {breakdown.pm:.2f}")
        ]
    if ex == 0 and breakdown.pm >= NEAR_EQUAL_PM:
        return [
            Suggestion(
                "Evaluation: EX false negative (equivalent query)",
                "EX fails though every component matches gold (check DISTINCT, column order, values)",
            )
        ]
    return []
