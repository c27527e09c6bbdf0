"""What the two results say about the cause, when the database is there.

An error message names its cause; an extra column is a redundant attribute; the same rows with
duplicates are a DISTINCT; every gold row present plus others is a missing filter; results that agree by
chance (both empty, both a zero count) make a passing EX worth a second look.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from sqltriage.core.execution import ExecResult

DATE_FUNCTIONS = {"year", "month", "day", "datediff", "date_format", "now", "curdate", "datepart", "to_date"}


@dataclass(frozen=True, slots=True)
class ExecSignals:
    gold_rows: int
    pred_rows: int
    gold_cols: int
    pred_cols: int
    same_bag: bool  # the same rows, duplicates included, in any order
    same_set: bool  # the same distinct rows (column order as returned)
    pred_has_all_gold: bool  # every gold row is among the prediction's
    gold_has_all_pred: bool
    trivial: bool  # both results empty or a single zero / NULL value: agreement proves little


def _norm(row: tuple) -> tuple:
    return tuple(round(v, 6) if isinstance(v, float) else v for v in row)


def exec_signals(gold: ExecResult | None, pred: ExecResult | None) -> ExecSignals | None:
    """The comparison of two successful results, or None when either is missing or failed."""
    if gold is None or pred is None or not gold.ok or not pred.ok:
        return None
    g = Counter(_norm(r) for r in gold.rows)
    p = Counter(_norm(r) for r in pred.rows)
    trivial = all(len(rows) == 0 or rows in (((0,),), ((None,),)) for rows in (gold.rows, pred.rows))
    return ExecSignals(
        gold_rows=len(gold.rows),
        pred_rows=len(pred.rows),
        gold_cols=len(gold.columns),
        pred_cols=len(pred.columns),
        same_bag=g == p,
        same_set=set(g) == set(p),
        pred_has_all_gold=set(g) <= set(p),
        gold_has_all_pred=set(p) <= set(g),
        trivial=trivial,
    )


def error_causes(error: str | None) -> list[tuple[str, str, float]]:
    """(tag, reason, confidence) for a prediction that failed to run or parse."""
    if not error:
        return []
    text = error.lower()
    if "no such column" in text:
        return [("Attribute: mismatch", f"execution failed: {error}", 0.9)]
    if "no such table" in text:
        return [("Table: mismatch", f"execution failed: {error}", 0.9)]
    m = re.search(r"no such function: (\w+)", text)
    if m:
        tag = "Function: date/time" if m.group(1) in DATE_FUNCTIONS else "Other: other"
        return [(tag, f"execution failed: {error}", 0.9)]
    if "ambiguous column" in text:
        return [("Other: other", f"execution failed: {error}", 0.85)]
    if any(w in text for w in ("syntax error", "does not parse", "incomplete input", "unrecognized token")):
        return [("Other: other", f"the prediction is not valid SQL: {error}", 0.85)]
    return []
