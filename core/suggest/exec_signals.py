"""What the two results say about the cause, when the database is there.

An error message names its cause; an extra column is a redundant attribute; the same rows with
duplicates are a DISTINCT; every gold row present plus others is a missing filter; results that agree by
chance (both empty, both a zero count) make a passing EX worth a second look.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from sqltriage.core.verdicts.exec_result import ExecResult

# arithmetic spelt as a function (`DIVIDE(a, b)`, as datasets' hints write it): the math is what is wrong
ARITHMETIC_FUNCTIONS = {"divide", "subtract", "multiply", "add", "minus", "sub", "div", "mul"}
DATE_FUNCTIONS = {"year", "month", "day", "datediff", "date_format", "now", "curdate", "datepart", "to_date"}


# not frozen: built for every pair, and a frozen dataclass is built several times slower
@dataclass(slots=True)
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


def exec_signals(gold: ExecResult | None, pred: ExecResult | None) -> ExecSignals | None:
    """The comparison of two successful results, or None when either is missing or failed.

    Rows are compared as returned (hashable tuples, no per-row work in Python beyond building sets), so
    the cost stays small next to running the queries.
    """
    if gold is None or pred is None or not gold.ok or not pred.ok:
        return None
    trivial = all(len(rows) == 0 or rows in (((0,),), ((None,),)) for rows in (gold.rows, pred.rows))
    counts = (len(gold.rows), len(pred.rows), len(gold.columns), len(pred.columns))
    if gold.rows == pred.rows:
        return ExecSignals(*counts, same_bag=True, same_set=True, pred_has_all_gold=True,
                           gold_has_all_pred=True, trivial=trivial)  # fmt: skip
    g, p = set(gold.rows), set(pred.rows)
    same_set = g == p
    same_bag = same_set and len(gold.rows) == len(pred.rows) and Counter(gold.rows) == Counter(pred.rows)
    return ExecSignals(*counts, same_bag=same_bag, same_set=same_set, pred_has_all_gold=g <= p,
                       gold_has_all_pred=p <= g, trivial=trivial)  # fmt: skip


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
        if m.group(1) in ARITHMETIC_FUNCTIONS:  # arithmetic written as a function SQLite does not have
            why = f"execution failed: {error}; the arithmetic needs its operator"
            return [("Function: math", why, 0.9), ("Other: other", f"execution failed: {error}", 0.85)]
        tag = "Function: date/time" if m.group(1) in DATE_FUNCTIONS else "Other: other"
        return [(tag, f"execution failed: {error}", 0.9)]
    if "ambiguous column" in text:
        return [("Other: other", f"execution failed: {error}", 0.85)]
    if any(w in text for w in ("syntax error", "does not parse", "incomplete input", "unrecognized token")):
        return [("Other: other", f"the prediction is not valid SQL: {error}", 0.85)]
    return []
