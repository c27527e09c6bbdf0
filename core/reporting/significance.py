"""Is a difference between two models real: McNemar's exact test and paired bootstrap intervals.

Both models answer the same questions, so the comparison is paired: only the examples where the two
disagree (the discordant pairs) carry evidence, and McNemar's exact test asks whether those split
evenly (a two-sided binomial test with p = 1/2, computed exactly with integers). Intervals are
percentile bootstraps over examples: one matrix of resampling counts (seeded, so the same seed gives
the same intervals) is shared by every statistic, which keeps a comparison of many models cheap.
Per category the difference gets its own interval and a McNemar p-value, Holm-adjusted within each
facet (the family of tests one reads together).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import polars as pl

from sqltriage.core.errors import UsageError
from sqltriage.core.reporting.report import HARDNESS_ORDER, top_categories

METRICS = ("ex", "ex_ts", "em")
CATEGORY_FACETS = ("hardness", "structural", "operators")
ROUNDS = 2000  # bootstrap resamples
SEED = 0
LEVEL = 0.95


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value: P(a split of the discordant pairs at least this uneven | p = 1/2)."""
    n = only_a + only_b
    if n == 0:
        return 1.0
    k = min(only_a, only_b)
    tail = sum(math.comb(n, i) for i in range(k + 1))
    return min(1.0, 2 * tail / 2**n)  # int / int is correctly rounded, however large the integers


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment: the adjusted p-values, in the input's order."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


@lru_cache(maxsize=4)
def resampling_counts(n: int, rounds: int = ROUNDS, seed: int = SEED) -> np.ndarray:
    """rounds × n: how often each of n items is drawn in each bootstrap resample (seeded; read-only, shared)."""
    rng = np.random.default_rng(seed)
    if n == 0:
        return np.zeros((rounds, 0), dtype=np.float64)
    draws = rng.integers(0, n, size=(rounds, n))
    flat = (draws + (np.arange(rounds)[:, None] * n)).ravel()
    counts = np.bincount(flat, minlength=rounds * n).reshape(rounds, n).astype(np.float64)
    counts.flags.writeable = False
    return counts


def percentile_interval(samples: np.ndarray, level: float = LEVEL) -> tuple[float, float] | None:
    """The central `level` interval of the bootstrap samples (NaNs, resamples without data, left out)."""
    return percentile_intervals(samples[:, None], level)[0]


def percentile_intervals(samples: np.ndarray, level: float = LEVEL) -> list[tuple[float, float] | None]:
    """Per column of rounds × k samples, the central interval: numpy's linear percentile, NaNs left out.

    One sort for every column at once: a report with hundreds of pairs would spend most of its
    time in per-column `np.percentile` calls.
    """
    ordered = np.sort(samples, axis=0)  # NaNs last
    finite = np.isfinite(ordered).sum(axis=0)
    tail = (1 - level) / 2
    out: list[tuple[float, float] | None] = []
    bounds = []
    for q in (tail, 1 - tail):
        pos = q * np.maximum(finite - 1, 0)
        lo = np.floor(pos).astype(np.int64)
        hi = np.minimum(lo + 1, np.maximum(finite - 1, 0))
        cols = np.arange(ordered.shape[1])
        frac = pos - lo
        low, high = ordered[lo, cols], ordered[hi, cols]
        bounds.append(low + (high - low) * frac)
    for col, k in enumerate(finite):
        out.append((float(bounds[0][col]), float(bounds[1][col])) if k else None)
    return out


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def check_metric(frame: pl.DataFrame, metric: str) -> None:
    if metric not in METRICS:
        raise UsageError(f"unknown metric {metric!r}", hint=f"one of {', '.join(METRICS)}")
    if metric not in frame.columns or frame.get_column(metric).is_null().all():
        hint = "evaluate with --neighbours K to score ex_ts" if metric == "ex_ts" else None
        raise UsageError(f"no row of this workspace has a {metric} verdict", hint=hint)


def check_models(frame: pl.DataFrame, models: Sequence[str]) -> None:
    known = frame.get_column("model").unique(maintain_order=True).to_list()
    unknown = [m for m in models if m not in known]
    if unknown:
        raise UsageError(
            f"no model named {', '.join(unknown)} in this workspace", hint=f"models: {', '.join(known)}"
        )


@dataclass(frozen=True, slots=True)
class Paired:
    """Two models' verdicts on the examples where both have one, aligned by example."""

    index: np.ndarray
    a: np.ndarray  # 0/1
    b: np.ndarray
    categories: pl.DataFrame  # one row per example: the category facets
    skipped: int  # examples where either model has no verdict


def paired(frame: pl.DataFrame, a: str, b: str, metric: str = "ex") -> Paired:
    check_metric(frame, metric)
    check_models(frame, [a, b])
    cats = [c for c in CATEGORY_FACETS if c in frame.columns]
    pick = frame.filter(pl.col("model").is_in([a, b])).select("index", "model", metric, *cats)
    wide = pick.pivot(on="model", index="index", values=metric, aggregate_function="first")
    all_examples = wide.height
    wide = wide.drop_nulls([a, b]).sort("index")
    labels = _category_labels(pick.unique("index", keep="first"), cats)
    labels = wide.select("index").join(labels, on="index", how="left", maintain_order="left")
    return Paired(
        wide.get_column("index").to_numpy(),
        wide.get_column(a).to_numpy().astype(np.int64),
        wide.get_column(b).to_numpy().astype(np.int64),
        labels,
        all_examples - wide.height,
    )


def _category_labels(examples: pl.DataFrame, cats: Sequence[str]) -> pl.DataFrame:
    """Per example its hardness and its structural / operator category (rare ones as "other")."""
    cols = [examples.get_column("index")]
    for c in cats:
        cols.append(top_categories(examples, c) if c != "hardness" else examples.get_column(c).fill_null(""))
    return pl.DataFrame(cols)


def _interval_dict(interval: tuple[float, float] | None) -> list[float] | None:
    return [round(interval[0], 6), round(interval[1], 6)] if interval else None


def compare(
    frame: pl.DataFrame,
    a: str,
    b: str,
    metric: str = "ex",
    *,
    rounds: int = ROUNDS,
    seed: int = SEED,
) -> dict[str, Any]:
    """The `sqltriage compare` document: 2×2 counts, McNemar's p, bootstrap intervals, per category."""
    if a == b:
        raise UsageError("compare needs two different models", where=f"{a} vs {b}")
    p = paired(frame, a, b, metric)
    n = len(p.index)
    both = int(((p.a == 1) & (p.b == 1)).sum())
    only_a = int(((p.a == 1) & (p.b == 0)).sum())
    only_b = int(((p.a == 0) & (p.b == 1)).sum())
    weights = resampling_counts(n, rounds, seed)
    size = weights.sum(axis=1)
    acc_a, acc_b = _ratio(weights @ p.a, size), _ratio(weights @ p.b, size)
    out: dict[str, Any] = {
        "a": a,
        "b": b,
        "metric": metric,
        "n": n,
        "both": both,
        "only_a": only_a,
        "only_b": only_b,
        "neither": n - both - only_a - only_b,
        "skipped": p.skipped,
        "accuracy_a": float(p.a.mean()) if n else None,
        "accuracy_b": float(p.b.mean()) if n else None,
        "delta": float(p.a.mean() - p.b.mean()) if n else None,
        "mcnemar_p": mcnemar_exact(only_a, only_b),
        "ci_a": _interval_dict(percentile_interval(acc_a)),
        "ci_b": _interval_dict(percentile_interval(acc_b)),
        "ci_delta": _interval_dict(percentile_interval(acc_a - acc_b)),
        "level": LEVEL,
        "rounds": rounds,
        "seed": seed,
        "by_category": by_category(p, weights),
    }
    return out


def by_category(p: Paired, weights: np.ndarray) -> list[dict[str, Any]]:
    """Per facet value: the difference, its interval and McNemar's p, Holm-adjusted within the facet."""
    diff = (p.a - p.b).astype(np.float64)
    cells: list[tuple[str, str, np.ndarray]] = []
    for facet in (c for c in CATEGORY_FACETS if c in p.categories.columns):
        labels = p.categories.get_column(facet).cast(pl.Utf8).fill_null("").to_numpy().astype(str)
        cells += [(facet, value, labels == value) for value in _ordered_values(facet, labels)]
    if not cells:
        return []
    masks = np.stack([m for _, _, m in cells], axis=1).astype(np.float64)  # examples × cells
    samples = _ratio(weights @ (masks * diff[:, None]), weights @ masks)  # one product for every cell
    intervals = percentile_intervals(samples)
    rows: list[dict[str, Any]] = []
    for (facet, value, mask), interval in zip(cells, intervals, strict=True):
        a, b = p.a[mask], p.b[mask]
        only_a, only_b = int(((a == 1) & (b == 0)).sum()), int(((a == 0) & (b == 1)).sum())
        rows.append(
            {
                "facet": facet,
                "value": value,
                "n": int(mask.sum()),
                "accuracy_a": float(a.mean()),
                "accuracy_b": float(b.mean()),
                "delta": float(a.mean() - b.mean()),
                "ci_delta": _interval_dict(interval),
                "only_a": only_a,
                "only_b": only_b,
                "mcnemar_p": mcnemar_exact(only_a, only_b),
            }
        )
    for facet in dict.fromkeys(r["facet"] for r in rows):
        family = [r for r in rows if r["facet"] == facet]
        for row, adjusted in zip(family, holm([r["mcnemar_p"] for r in family]), strict=True):
            row["p_holm"] = adjusted
            row["significant"] = adjusted < 1 - LEVEL
    return rows


def _ordered_values(facet: str, labels: np.ndarray) -> list[str]:
    values, counts = np.unique(labels, return_counts=True)
    order = [str(v) for v, _ in sorted(zip(values, counts, strict=True), key=lambda vc: (-vc[1], vc[0]))]
    if facet == "hardness":
        order.sort(key=lambda v: HARDNESS_ORDER.index(v) if v in HARDNESS_ORDER else len(HARDNESS_ORDER))
    return [v for v in order if v != "other"] + (["other"] if "other" in order else [])


# --- many models at once (the metrics table and the report) ----------------------------------------


def _wide(frame: pl.DataFrame, models: Sequence[str], metric: str) -> tuple[np.ndarray, np.ndarray]:
    """examples × models: verdicts (0/1, NaN where none) as floats, and the example indexes."""
    pick = frame.filter(pl.col("model").is_in(list(models))).select("index", "model", metric)
    wide = pick.pivot(on="model", index="index", values=metric, aggregate_function="first").sort("index")
    for m in models:
        if m not in wide.columns:
            wide = wide.with_columns(pl.lit(None, dtype=pl.Int64).alias(m))
    values = wide.select([pl.col(m).cast(pl.Float64) for m in models]).to_numpy()
    return values, wide.get_column("index").to_numpy()


def model_intervals(
    frame: pl.DataFrame, metric: str = "ex", *, rounds: int = ROUNDS, seed: int = SEED
) -> dict[str, tuple[float, float] | None]:
    """Each model's bootstrap interval of `metric` over the examples where it has a verdict."""
    if frame.is_empty() or metric not in frame.columns:
        return {}
    models = frame.get_column("model").unique(maintain_order=True).to_list()
    values, _ = _wide(frame, models, metric)
    known = ~np.isnan(values)
    weights = resampling_counts(values.shape[0], rounds, seed)
    samples = _ratio(weights @ np.where(known, values, 0.0), weights @ known.astype(np.float64))
    return dict(zip(models, percentile_intervals(samples), strict=True))


def pairwise(
    frame: pl.DataFrame,
    models: Sequence[str],
    metric: str = "ex",
    *,
    rounds: int = ROUNDS,
    seed: int = SEED,
) -> list[dict[str, Any]]:
    """Every pair of models: the difference, its interval, McNemar's p and Holm's over all pairs."""
    values, _ = _wide(frame, models, metric)
    weights = resampling_counts(values.shape[0], rounds, seed)
    pairs = [(i, j) for i in range(len(models)) for j in range(i + 1, len(models))]
    known = ~np.isnan(values)
    filled = np.where(known, values, 0.0)
    rows = []
    for start in range(0, len(pairs), 256):  # one matrix product per batch of pairs, not one per pair
        batch = pairs[start : start + 256]
        first, second = [i for i, _ in batch], [j for _, j in batch]
        both = known[:, first] & known[:, second]
        diff = np.where(both, filled[:, first] - filled[:, second], 0.0)
        samples = _ratio(weights @ diff, weights @ both.astype(np.float64))
        intervals = percentile_intervals(samples)
        x, y = filled[:, first], filled[:, second]
        counts = both.sum(axis=0)
        only_a = ((x == 1) & (y == 0) & both).sum(axis=0)
        only_b = ((x == 0) & (y == 1) & both).sum(axis=0)
        deltas = diff.sum(axis=0)
        for col, (i, j) in enumerate(batch):
            rows.append(
                {
                    "a": models[i],
                    "b": models[j],
                    "n": int(counts[col]),
                    "delta": float(deltas[col] / counts[col]) if counts[col] else None,
                    "ci_delta": _interval_dict(intervals[col]),
                    "only_a": int(only_a[col]),
                    "only_b": int(only_b[col]),
                    "mcnemar_p": mcnemar_exact(int(only_a[col]), int(only_b[col])),
                }
            )
    for row, adjusted in zip(rows, holm([r["mcnemar_p"] for r in rows]), strict=True):
        row["p_holm"] = adjusted
        row["significant"] = adjusted < 1 - LEVEL
    return rows
