"""Combine the tree findings, the execution signals and the error into a short ranked list.

The parse comparison proposes; the results confirm, demote or add. When the results agree (EX passes)
the row gets nothing unless the agreement is trivial (both empty, both a zero count) while the queries
clearly differ: then the first suggestion is "Evaluation: EX false positive". When EX fails yet the parse
comparison finds nothing of weight, the queries are likely equivalent and the evaluation is suspect.
"""

from __future__ import annotations

from sqltriage.core.suggest.exec_signals import ExecSignals, error_causes
from sqltriage.core.suggest.reason import Reason
from sqltriage.core.suggest.suggestion import GATE, MAX_SHOWN, Suggestion, merge, ranked

WEAK = 0.4  # a doubtful difference: shown only when the results differ and nothing surer explains it
STRONG = 0.6  # a structural finding this sure survives a passing EX as evidence of a false positive
SURE = 0.75  # … and this sure, when the agreement is a single row (a count, a top row) that can be chance
# differences that may leave a single row as it is without being wrong: a table joined on its key, a join
# type, duplicates, order
NOT_BY_CHANCE = ("Table: redundant", "Table: join type", "Other:")


def combine(
    found: list[Suggestion],
    signals: ExecSignals | None,
    *,
    ex: int | None,
    error: str | None,
    parsed: bool,
    duplicates_mean_distinct: bool = True,
    tie_sensitive: bool = False,
    lenient_ex: bool = True,
    generated: bool = False,
) -> list[Suggestion]:
    """The suggestions shown for one row, most confident first, nothing under the gate.

    `lenient_ex`: the dataset's EX mode is not known, so a pass whose raw results differ counts as a fail;
    `generated`: the results come from databases generated from the schema, where a difference nothing in
    the parses explains is no sign of a false negative."""
    if ex == 0 and tie_sensitive:
        why = "the prediction differs from gold only by which of the rows tied at gold's LIMIT it kept"
        return [Suggestion("Evaluation: EX false negative (equivalent query)", why, 0.9)]
    out = list(found)
    out += [Suggestion(tag, reason, conf) for tag, reason, conf in error_causes(error)]
    if error and not parsed and not error_causes(error):
        out.append(Suggestion("Other: other", f"the prediction does not parse: {error}", 0.8))
    lenient = lenient_ex and signals is not None
    if ex == 1 and lenient and signals.gold_cols == signals.pred_cols and not signals.same_bag:
        ex = 0  # EX passed leniently (Spider's evaluator drops DISTINCT, …) though the results differ
    if ex == 1:
        strong = [s for s in merge(out).values() if s.confidence >= STRONG]
        if signals is not None and signals.trivial and strong:
            why = "EX passes only because both results are empty or zero while the queries differ"
            return _false_positive(why, strong)
        sure = [s for s in strong if s.confidence >= SURE and not s.tag.startswith(NOT_BY_CHANCE)]
        if signals is not None and signals.gold_rows == 1 and sure:
            why = "EX passes on a single row while the queries differ where one row can agree by chance"
            return _false_positive(why, sure)
        return []
    if signals is not None and ex == 0:
        out = _with_results(out, signals, duplicates_mean_distinct, generated)
    return ranked(out)


def _false_positive(why: str, found: list[Suggestion]) -> list[Suggestion]:
    """The evaluation's verdict first, then what the parses show, ranked among themselves (the verdict's
    own confidence says nothing of theirs, so it must not push them under the margin)."""
    verdict = Suggestion("Evaluation: EX false positive", why, 0.95)
    return [verdict, *ranked(found, limit=MAX_SHOWN - 1)]


def _boost(found: list[Suggestion], tag: str, by: float, why: str) -> list[Suggestion]:
    return [
        Suggestion(s.tag, Reason("{}; {}", s.reason, why), min(0.99, s.confidence + by))
        if s.tag == tag
        else s
        for s in found
    ]


def with_results(found: list[Suggestion], sig: ExecSignals) -> list[Suggestion]:
    """What results on a database outside the dataset's (a witness) add to the parses' candidates: they
    confirm and rank what the parses show, and promote nothing doubtful."""
    return _with_results(found, sig, True, generated=True)


def _with_results(
    found: list[Suggestion], sig: ExecSignals, duplicates_mean_distinct: bool, generated: bool = False
) -> list[Suggestion]:
    out = list(found)
    tags = {s.tag for s in merge(out).values() if s.confidence >= GATE}
    if sig.pred_cols > sig.gold_cols:
        why = f"the prediction returns {sig.pred_cols} columns, gold {sig.gold_cols}"
        out = _boost(out, "Attribute: redundant", 0.1, why)
        out.append(Suggestion("Attribute: redundant", why, 0.7))
    elif sig.pred_cols < sig.gold_cols:
        why = f"the prediction returns {sig.pred_cols} columns, gold {sig.gold_cols}"
        out = _boost(out, "Attribute: missing", 0.1, why)
        out.append(Suggestion("Attribute: missing", why, 0.7))
    elif sig.same_set and sig.pred_rows != sig.gold_rows and duplicates_mean_distinct:
        why = (
            f"the same rows, {sig.gold_rows} in gold and {sig.pred_rows} in the prediction: duplicates differ"
        )
        # sure when nothing else differs; beside another difference, the duplicates may be its effect
        out.append(Suggestion("Other: DISTINCT", why, 0.5 if tags - {"Other: DISTINCT"} else 0.85))
    elif sig.pred_has_all_gold and sig.pred_rows > sig.gold_rows:
        why = f"every gold row is there plus {sig.pred_rows - sig.gold_rows} more: a filter is missing"
        out = _boost(out, "Condition: explicit missing", 0.1, why)
        out = _boost(out, "Condition: implicit missing", 0.1, why)
    elif sig.gold_has_all_pred and sig.pred_rows < sig.gold_rows:
        why = f"the prediction returns {sig.pred_rows} of gold's {sig.gold_rows} rows: it filters too much"
        out = _boost(out, "Condition: explicit redundant", 0.1, why)
    if sig.pred_rows == 0 and sig.gold_rows > 0:
        why = "the prediction returns no rows"
        out = _boost(out, "Value: mismatch", 0.05, why)
        out = _boost(out, "Value: data format", 0.05, why)
    if generated:
        # generated rows know nothing of the data's real correlations (a name and its code, a date and its
        # year): a difference there confirms what the parses show but promotes no doubtful candidate
        return out
    if not tags and not any(s.confidence >= GATE for s in out) and sig.pred_cols == sig.gold_cols:
        weak = [s for s in merge(out).values() if s.confidence >= WEAK]
        if weak:  # the results differ: the best of the doubtful differences becomes the likely cause
            best = max(weak, key=lambda s: s.confidence)
            why = Reason("{}; the results differ and nothing else does", best.reason)
            out.append(Suggestion(best.tag, why, 0.55))
        else:
            why = (
                "the results differ but the queries differ in nothing the engine weighs: check ties and order"
            )
            out.append(Suggestion("Evaluation: EX false negative (equivalent query)", why, 0.5))
    return out
