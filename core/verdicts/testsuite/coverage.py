"""Coverage of a neighbour set: which golds return something worth comparing on at least one neighbour.

A neighbour tells a gold from a prediction only where the gold's result says something: a gold that
returns no row, only NULLs, or a zero count there is matched by many wrong queries. A gold is *covered*
when its result is non-trivial on at least one kept neighbour. It *can return rows* unless it is provably
empty (its filters contradict each other, LIMIT 0) or does not run at all; every gold that can return
rows and is not covered is listed with the reason the planter gives for it (or that no planted
combination survived).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sqltriage.core.verdicts.exec_result import ExecResult
from sqltriage.core.verdicts.execution import execute, steps_for
from sqltriage.core.verdicts.testsuite.plant import GoldPlan

COVERAGE_TIMEOUT = 2.0  # seconds per query, as SQLite steps: the coverage report is the same under load
COVERAGE_STEPS = steps_for(COVERAGE_TIMEOUT)


def trivial(result: ExecResult) -> bool:
    """No rows, or nothing but NULLs, or one row of zeros and NULLs (a count of 0, a sum over nothing)."""
    rows = result.rows
    if not rows:
        return True
    if all(v is None for r in rows for v in r):
        return True
    return len(rows) == 1 and all(v is None or (isinstance(v, int | float) and v == 0) for v in rows[0])


def _informative(db: Path, sql: str) -> tuple[bool, str | None]:
    """(non-trivial here, error text when the gold does not run)."""
    res = execute(db, sql, timeout=10 * COVERAGE_TIMEOUT, max_rows=1000, steps=COVERAGE_STEPS)
    if not res.ok:
        return False, res.error or "does not run"
    return not trivial(res), None


def coverage(
    original: Path, neighbours: Sequence[Path], plans: Sequence[GoldPlan], others: Sequence[Path] = ()
) -> dict[str, Any]:
    """Per distinct gold: covered or not, and why not. `others` are generated databases not kept."""
    covered = 0
    can = 0
    on_original = 0
    uncovered: list[dict[str, str]] = []
    excluded: list[dict[str, str]] = []
    for plan in plans:
        hit_original, error = _informative(original, plan.sql)
        on_original += hit_original
        empty = next((s.empty for s in plan.shapes if s.empty), None)
        if error is not None:
            excluded.append({"sql": plan.sql, "reason": f"gold does not run on the original: {error}"})
            continue
        if empty is not None and len(plan.shapes) == 1 and not hit_original:
            excluded.append({"sql": plan.sql, "reason": f"gold returns no rows on any database: {empty}"})
            continue
        can += 1
        if any(_informative(n, plan.sql)[0] for n in neighbours):
            covered += 1
            continue
        uncovered.append({"sql": plan.sql, "reason": _reason(plan, others)})
    return {
        "golds": len(plans),
        "informative_on_original": on_original,
        "can_return_rows": can,
        "covered": covered,
        "share": round(covered / can, 4) if can else 1.0,
        "uncovered": uncovered,
        "excluded": excluded,
    }


def _reason(plan: GoldPlan, others: Sequence[Path]) -> str:
    if plan.reason:
        return plan.reason
    if any(_informative(o, plan.sql)[0] for o in others):
        return "informative only on generated databases the distillation did not keep"
    notes = [n for s in plan.shapes for n in s.notes]
    if notes:
        return notes[0]
    return "planted rows do not make the result informative (aggregate, ordering or a condition not read)"
