"""Mini-Dev's Soft F1 and R-VES as its evaluation code computes them, quirks included; values derived by
hand from its documented behaviour."""

from __future__ import annotations

import math

import pytest

from sqltriage.core.verdicts.exec_result import ExecResult
from sqltriage.core.verdicts.minidev import cleaned_mean, r_ves, r_ves_score, reward, soft_f1, soft_f1_rows


def ok(*rows: tuple, elapsed: float = 0.01) -> ExecResult:
    return ExecResult(("c",), tuple(rows), elapsed)


FAILED = ExecResult((), (), 0.0, error="no such column", error_kind="syntax")
NO_DB = ExecResult((), (), 0.0, error="database file not found", error_kind="db_missing")


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        # rows are paired by position, not matched: the same set in another order scores 0
        ([(1, "a"), (2, "b")], [(2, "b"), (1, "a")], 0.0),
        ([(1, "a"), (2, "b")], [(1, "a"), (2, "b")], 1.0),
        # an extra predicted row counts as one false positive: p = 1/2, r = 1
        ([(1,)], [(1,), (2,)], 2 / 3),
        # a missing row counts as one false negative: p = 1, r = 1/2
        ([(1,), (2,)], [(1,)], 2 / 3),
        # repeated rows are dropped first (first occurrences kept, in order)
        ([(1,), (2,)], [(1,), (1,), (2,)], 1.0),
        # one value of two: tp = fp = fn = 1/2
        ([(1, "a")], [(1, "b")], 0.5),
        # values compare by Python equality: 1 == 1.0
        ([(1,)], [(1.0,)], 1.0),
        # values are looked up in the other row, so a swapped column order still matches
        ([(1, "a")], [("a", 1)], 1.0),
        # widths are the gold row's: a wider prediction adds its extra values to fp
        ([(1,)], [(1, 2)], 2 / 3),
        ([], [], 1.0),
        ([(1,)], [], 0.0),
        ([], [(1,)], 0.0),
    ],
)
def test_soft_f1_by_hand(gold: list[tuple], pred: list[tuple], expected: float) -> None:
    assert soft_f1_rows(gold, pred) == pytest.approx(expected)
    assert soft_f1(ok(*gold), ok(*pred)) == pytest.approx(expected)


def test_soft_f1_of_failures() -> None:
    assert soft_f1(ok((1,)), FAILED) == 0.0
    assert soft_f1(FAILED, ok((1,))) == 0.0  # the evaluator's exception: 0, not "no verdict"
    assert soft_f1(NO_DB, NO_DB) is None
    assert soft_f1(ok(()), ok((1,))) == 0.0  # a gold row of no column: its division fails, scored 0


def test_ratio_cleaning_and_buckets() -> None:
    assert cleaned_mean([1.0]) is None  # one run: sd 0, nothing strictly within mean ± 0
    assert cleaned_mean([1.0, 1.0, 1.0]) is None
    assert cleaned_mean([0.9, 1.0, 1.1]) == pytest.approx(1.0)
    many = [1.0] * 20 + [50.0]  # the outlier is beyond 3 sd and dropped
    assert cleaned_mean(many) == pytest.approx(1.0)
    assert [reward(r) for r in (None, 0.0, 2.0, 1.99, 1.0, 0.5, 0.49, 0.25, 0.2)] == [
        0, 0, 1.25, 1, 1, 0.75, 0.5, 0.5, 0.25]  # fmt: skip
    assert r_ves_score([1.25, 0.0]) == pytest.approx(math.sqrt(1.25) / 2 * 100)


def test_r_ves_runs_only_matching_pairs() -> None:
    times = iter([0.02, 0.01, 0.021, 0.01, 0.019, 0.01])  # pred, gold alternately: ratios about 0.5
    calls = []

    def run(kind: str):
        def go() -> ExecResult:
            calls.append(kind)
            return ok((1,), elapsed=next(times))

        return go

    found = r_ves(ok((1,)), ok((1,)), 3, run("gold"), run("pred"))
    assert calls == ["pred", "gold"] * 3
    assert found is not None and found.reward == 0.75 and found.ratio == pytest.approx(0.5, abs=0.03)
    assert found.ratio_sd is not None and found.ratio_sd > 0
    assert r_ves(ok((1,)), ok((2,)), 3, run("gold"), run("pred")).reward == 0.0  # results differ: not run
    assert r_ves(NO_DB, NO_DB, 3, run("gold"), run("pred")) is None
    single = r_ves(ok((1,)), ok((1,)), 1, lambda: ok((1,)), lambda: ok((1,)))
    assert single.reward == 0.0  # one run leaves no ratio (the evaluator's quirk)
