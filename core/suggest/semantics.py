"""What the dataset's own EX ignores is no error cause.

Each dataset compares results its own way (core/verdicts/exec_compare.py): Spider's evaluator removes every
DISTINCT before running both queries and matches columns in any order; BIRD compares the sets of rows, so
duplicates and row order never count; Archer compares row and column counts, and row order only when gold
sorts. A suggestion about a difference the comparison cannot see would name a cause of nothing.
"""

from __future__ import annotations

from sqltriage.core.suggest.facts import QueryFacts
from sqltriage.core.suggest.suggestion import Suggestion

DISTINCT = "Other: DISTINCT"
ORDER = "Other: ASC/DESC"


def ex_ignores(s: Suggestion, gold: QueryFacts, pred: QueryFacts, mode: str | None) -> bool:
    """True when `mode`'s EX cannot see the difference `s` names (None: the mode is unknown, keep all)."""
    if mode is None:
        return False
    if s.tag == DISTINCT:
        if mode == "spider":
            return True  # the official evaluator strips DISTINCT from both queries, COUNT(DISTINCT) too
        if mode == "bird":  # sets of rows: only a DISTINCT inside a count changes a value
            return gold.count_distinct == pred.count_distinct
        return False
    if s.tag == ORDER:
        limited = bool(gold.limit or pred.limit)
        if mode == "bird":
            return not limited  # row order never counts; the direction matters only for what LIMIT keeps
        return not gold.order and not limited  # Spider / Archer compare order only when gold sorts
    return False


def respecting(
    found: list[Suggestion], gold: QueryFacts, pred: QueryFacts, mode: str | None
) -> list[Suggestion]:
    return [s for s in found if not ex_ignores(s, gold, pred, mode)]
