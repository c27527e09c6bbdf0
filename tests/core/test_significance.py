"""McNemar's exact test against an independent computation, Holm, and reproducible bootstrap intervals."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import polars as pl
import pytest

from sqltriage.core.errors import UsageError
from sqltriage.core.reporting.significance import (
    compare,
    holm,
    mcnemar_exact,
    model_intervals,
    pairwise,
    percentile_intervals,
)


def _two_sided_by_enumeration(b: int, c: int) -> float:
    """Exact binomial test as R's binom.test defines it: the mass of every outcome no likelier than the observed."""
    n = b + c
    if n == 0:
        return 1.0
    prob = [Fraction(math.comb(n, k), 2**n) for k in range(n + 1)]
    observed = prob[b]
    return float(min(Fraction(1), sum(p for p in prob if p <= observed * (1 + Fraction(1, 10**7)))))


@pytest.mark.parametrize(
    ("b", "c"), [(0, 0), (0, 1), (3, 17), (17, 3), (10, 10), (64, 68), (5, 40), (120, 95)]
)
def test_mcnemar_is_the_exact_binomial_test(b: int, c: int) -> None:
    assert abs(mcnemar_exact(b, c) - _two_sided_by_enumeration(b, c)) < 1e-9


def test_mcnemar_known_values() -> None:
    # R: binom.test(3, 20)$p.value = 0.002576828; binom.test(64, 132)$p.value = 0.7941225
    assert mcnemar_exact(3, 17) == pytest.approx(0.002576828, abs=1e-9)
    assert mcnemar_exact(64, 68) == pytest.approx(0.7941225170, abs=1e-9)


def test_holm_step_down() -> None:
    assert holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])
    assert holm([]) == []


def test_percentile_intervals_agree_with_numpy() -> None:
    x = np.random.default_rng(3).normal(size=(500, 3))
    x[:50, 1] = np.nan
    got = percentile_intervals(x)
    for j in range(3):
        want = np.nanpercentile(x[:, j], [2.5, 97.5])
        assert got[j] == pytest.approx(tuple(want))


def _frame(a: list[int | None], b: list[int | None]) -> pl.DataFrame:
    n = len(a)
    return pl.DataFrame(
        {
            "index": list(range(n)) * 2,
            "model": ["A"] * n + ["B"] * n,
            "ex": a + b,
            "hardness": (["easy", "hard"] * n)[:n] * 2,
            "structural": ["S F"] * (2 * n),
            "operators": ["Ag"] * (2 * n),
        },
        schema_overrides={"ex": pl.Int64},
    )


def test_compare_counts_and_reproducible_intervals() -> None:
    rng = np.random.default_rng(7)
    a = rng.integers(0, 2, 300).tolist()
    b = rng.integers(0, 2, 300).tolist()
    b[0] = None  # no verdict: left out
    frame = _frame(a, b)
    doc = compare(frame, "A", "B", seed=11)
    pairs = [(x, y) for x, y in zip(a, b, strict=True) if y is not None]
    assert doc["n"] == 299 and doc["skipped"] == 1
    assert doc["both"] == sum(1 for x, y in pairs if x == 1 and y == 1)
    assert doc["only_a"] == sum(1 for x, y in pairs if x == 1 and y == 0)
    assert doc["only_b"] == sum(1 for x, y in pairs if x == 0 and y == 1)
    assert doc["both"] + doc["only_a"] + doc["only_b"] + doc["neither"] == 299
    assert doc["mcnemar_p"] == pytest.approx(
        _two_sided_by_enumeration(doc["only_a"], doc["only_b"]), abs=1e-9
    )
    assert doc["ci_a"][0] < doc["accuracy_a"] < doc["ci_a"][1]
    assert doc["ci_delta"][0] < doc["delta"] < doc["ci_delta"][1]
    assert compare(frame, "A", "B", seed=11) == doc  # same seed, same intervals
    assert compare(frame, "A", "B", seed=12)["ci_delta"] != doc["ci_delta"]
    hardness = [r for r in doc["by_category"] if r["facet"] == "hardness"]
    assert [r["value"] for r in hardness] == ["easy", "hard"]
    assert sum(r["n"] for r in hardness) == 299
    assert all(r["p_holm"] >= r["mcnemar_p"] for r in doc["by_category"])


def test_a_real_difference_is_significant_and_noise_is_not() -> None:
    n = 400
    a = [1] * n
    b = [1] * (n - 60) + [0] * 60  # A right on 60 examples B gets wrong, never the reverse
    doc = compare(_frame(a, b), "A", "B")
    assert doc["mcnemar_p"] < 1e-6 and doc["ci_delta"][0] > 0
    same = compare(_frame(a, a), "A", "B")
    assert same["mcnemar_p"] == 1.0 and same["ci_delta"] == [0.0, 0.0]


def test_many_models_agree_with_two() -> None:
    rng = np.random.default_rng(1)
    frames = []
    for m in ("A", "B", "C"):
        frames.append(pl.DataFrame({"index": range(200), "model": [m] * 200, "ex": rng.integers(0, 2, 200)}))
    frame = pl.concat(frames)
    rows = pairwise(frame, ["A", "B", "C"])
    assert [(r["a"], r["b"]) for r in rows] == [("A", "B"), ("A", "C"), ("B", "C")]
    ab = compare(frame.with_columns(pl.lit("x").alias("hardness")), "A", "B")
    assert rows[0]["mcnemar_p"] == ab["mcnemar_p"] and rows[0]["ci_delta"] == ab["ci_delta"]
    intervals = model_intervals(frame)
    assert list(intervals) == ["A", "B", "C"] and all(lo < hi for lo, hi in intervals.values())


def test_bad_requests_say_what_is_wrong() -> None:
    frame = _frame([1, 0], [0, 1])
    with pytest.raises(UsageError, match="no model named Z"):
        compare(frame, "A", "Z")
    with pytest.raises(UsageError, match="two different models"):
        compare(frame, "A", "A")
    with pytest.raises(UsageError, match="unknown metric"):
        compare(frame, "A", "B", "pm")
