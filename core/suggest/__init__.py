"""Suggested error causes a person can check: a clause-aware diff of the two queries, plus what their
results say when a database is there, ranked, each with a reason and a confidence.

`suggest_causes` is the one entry point; the interface shows its answer and the user accepts or ignores
each suggestion, nothing is applied silently. Tag names are those of the default taxonomy.

May import: core.sql, core.verdicts (results and their comparison), core.model, core.errors.
"""

from __future__ import annotations

from sqltriage.core.model import Schema
from sqltriage.core.sql.parse import ParsedQuery
from sqltriage.core.suggest.exec_signals import exec_signals
from sqltriage.core.suggest.facts import QueryFacts, query_facts
from sqltriage.core.suggest.rules import combine
from sqltriage.core.suggest.suggestion import Suggestion, format_suggested
from sqltriage.core.suggest.tree_diff import tree_findings
from sqltriage.core.verdicts.execution import ExecResult

__all__ = ["Suggestion", "format_suggested", "stored_suggestions", "suggest_causes"]


def suggest_causes(
    gold: str | ParsedQuery,
    pred: str | ParsedQuery,
    *,
    schema: Schema | None = None,
    evidence: str | None = None,
    gold_result: ExecResult | None = None,
    pred_result: ExecResult | None = None,
    ex: int | None = None,
    error: str | None = None,
    tie_sensitive: bool = False,
) -> list[Suggestion]:
    """Suggestions for one (example, prediction), most confident first; empty when nothing is surely wrong.

    `ex` is the stored outcome (1, 0 or None); `error` the prediction's execution or parse error, if any;
    the results, when given, add execution signals; `tie_sensitive` says the prediction differs from gold
    only by which of the rows tied at gold's LIMIT it kept.
    """
    if gold_result is not None and gold_result.error_kind in ("syntax", "runtime"):
        return [Suggestion("Evaluation: gold SQL wrong", f"gold itself fails: {gold_result.error}", 0.9)]
    signals = exec_signals(gold_result, pred_result)
    if ex == 1 and signals is not None and signals.same_bag and not signals.trivial:
        return []  # the same rows, and not by chance: nothing to suggest (and no parse work spent)
    g, p = _gold_facts(gold, schema), query_facts(pred, schema)
    found = tree_findings(g, p, evidence, schema) if g.ok and p.ok else []
    if error is None and not p.ok and g.ok:
        error = f"does not parse: {p.error}"
    # a set operator removes duplicates: with one only on one side, duplicates say nothing about DISTINCT
    dedup_differs = g.ok and p.ok and set(g.set_ops) != set(p.set_ops)
    return combine(
        found,
        signals,
        ex=ex,
        error=error,
        parsed=p.ok,
        duplicates_mean_distinct=not dedup_differs,
        tie_sensitive=tie_sensitive,
    )


def _gold_facts(gold: str | ParsedQuery, schema: Schema | None) -> QueryFacts:
    """An evaluation passes one gold parse for every model: its facts are read once per parse."""
    if not isinstance(gold, ParsedQuery):
        return query_facts(gold, schema)
    return gold.derived(("suggest_facts", schema), lambda: query_facts(gold, schema))


def stored_suggestions(text: str | None) -> list[Suggestion] | None:
    """The suggestions an evaluation stored (JSON), or None when none were stored or they cannot be read."""
    if not text:
        return None
    import json

    try:
        return [Suggestion(str(d["tag"]), str(d["reason"]), float(d["confidence"])) for d in json.loads(text)]
    except (ValueError, KeyError, TypeError):
        return None
