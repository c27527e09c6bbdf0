"""BIRD Mini-Dev's own metrics, as its evaluation code computes them: Soft F1 and R-VES (its EX is
`ex_bird`, the comparison of the two results as sets, in exec_compare).

Soft F1 compares rows *by position*: after dropping repeated rows (keeping first occurrences), the i-th
predicted row is matched with the i-th gold row, never with the gold row it best resembles; each pair
counts the values of one found in the other (by Python equality, so 1 == 1.0), divided by the gold row's
width; rows without a partner count whole. Two empty results score 1. A query that fails scores 0.

R-VES runs a pair whose results are equal as sets N more times, takes gold time over predicted time on each
run, drops ratios outside the mean ± 3 standard deviations (strictly: with N = 1, or runs all alike, nothing
is left and the evaluator's division fails, which it scores 0), averages the rest and maps the ratio to a
reward: ≥ 2 → 1.25, ≥ 1 → 1, ≥ 0.5 → 0.75, ≥ 0.25 → 0.5, else 0.25; 0 when the results differ. The
benchmark's R-VES is the mean of √reward × 100. A timing: its spread is kept beside it (`ves_ratio_sd`).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqltriage.core.verdicts.exec_result import ExecResult

Row = tuple
REWARDS = ((2.0, 1.25), (1.0, 1.0), (0.5, 0.75), (0.25, 0.5))  # (ratio at least, reward); below: 0.25


def soft_f1(gold: ExecResult, pred: ExecResult) -> float | None:
    """Mini-Dev's Soft F1 of one pair; None when the gold's database is missing (no verdict)."""
    if gold.error_kind in ("db_missing", "db_unreadable", "db_locked"):
        return None
    if not gold.ok or not pred.ok:
        return 0.0
    try:
        return soft_f1_rows(list(gold.rows), list(pred.rows))
    except (ZeroDivisionError, TypeError):  # a gold row of no column; values that cannot be compared
        return 0.0


def soft_f1_rows(gold: Sequence[Row], pred: Sequence[Row]) -> float:
    if not pred and not gold:
        return 1.0
    pred = list(dict.fromkeys(pred))
    gold = list(dict.fromkeys(gold))
    tp = fp = fn = 0.0
    for i, g in enumerate(gold):
        if i >= len(pred):
            fn += 1
            continue
        p = pred[i]
        width = len(g)
        tp += sum(1 for v in p if v in g) / width
        fp += sum(1 for v in p if v not in g) / width
        fn += sum(1 for v in g if v not in p) / width
    fp += max(0, len(pred) - len(gold))
    precision = tp / (tp + fp) if tp + fp > 0 else 0.0
    recall = tp / (tp + fn) if tp + fn > 0 else 0.0
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


def same_as_sets(gold: ExecResult, pred: ExecResult) -> bool:
    """Mini-Dev's EX: both ran and their rows are equal as sets (what R-VES is computed on)."""
    try:
        return gold.ok and pred.ok and set(gold.rows) == set(pred.rows)
    except TypeError:
        return False


def cleaned_mean(ratios: Sequence[float]) -> float | None:
    """The mean of the ratios within (mean − 3 sd, mean + 3 sd), population sd; None when none is left."""
    if not ratios:
        return None
    mean = statistics.fmean(ratios)
    sd = statistics.pstdev(ratios)
    kept = [r for r in ratios if mean - 3 * sd < r < mean + 3 * sd]
    return statistics.fmean(kept) if kept else None


def reward(ratio: float | None) -> float:
    if ratio is None or ratio == 0:
        return 0.0
    for least, value in REWARDS:
        if ratio >= least:
            return value
    return 0.25


@dataclass(frozen=True, slots=True)
class Ves:
    reward: float  # 0, 0.25, 0.5, 0.75, 1, 1.25
    ratio: float | None  # the cleaned mean of gold time / predicted time
    ratio_sd: float | None  # its spread over the runs


def r_ves(
    gold: ExecResult, pred: ExecResult, runs: int, run_gold: Callable[[], ExecResult],
    run_pred: Callable[[], ExecResult],
) -> Ves | None:  # fmt: skip
    """R-VES of one pair, running each query `runs` more times (alternately, as Mini-Dev does); None when the
    gold's database is missing."""
    if gold.error_kind in ("db_missing", "db_unreadable", "db_locked"):
        return None
    if runs < 1 or not same_as_sets(gold, pred):
        return Ves(0.0, None, None)
    ratios = []
    for _ in range(runs):
        p = run_pred()
        g = run_gold()
        if not (p.ok and g.ok) or p.elapsed <= 0:
            return Ves(0.0, None, None)  # a run that fails or times out: the evaluator scores 0
        ratios.append(g.elapsed / p.elapsed)
    ratio = cleaned_mean(ratios)
    sd = statistics.pstdev(ratios) if len(ratios) > 1 else None
    return Ves(reward(ratio), ratio, sd)


def r_ves_score(rewards: Sequence[float]) -> float:
    """The benchmark's R-VES: the mean of √reward, × 100."""
    return sum(math.sqrt(r) for r in rewards) / len(rewards) * 100 if rewards else 0.0
