"""Where a model fails: the slices (conjunctions of facet values) with the most errors for their size.

SliceLine (Sagadeeva and Boehm, SIGMOD 2021), reimplemented from the paper for 0/1 errors. A slice S
of the n rows scores

    α · (ē_S / ē − 1) − (1 − α) · (n / |S| − 1)

with ē the overall error rate and ē_S the slice's: above 0 when the slice is worse than average by more
than its smallness costs. The search walks the lattice level by level (one predicate, two, …, up to
`max_predicates`): a slice of level L+1 joins two of level L that share L−1 predicates and is only
built when all its L+1 parents survived, when their smallest size reaches the minimum support, and when
the upper bound of its score (from its parents' sizes and errors) can still beat the k-th best slice
found so far. Rows are bit sets, so a candidate costs one AND and a popcount. A slice whose extra
predicate removes no row of a parent is dropped: it says nothing its parent does not.

Written here rather than taken from the `sliceline` package, which needs scikit-learn and scipy.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from sqltriage.core.errors import UsageError
from sqltriage.core.reporting.significance import check_metric, check_models
from sqltriage.core.reporting.slice_features import Predicates, build, pack, popcount

ALPHA = 0.95  # weight of the error rate against the size (the paper's default)
TOP = 10
MAX_PREDICATES = 3
_BATCH = 4096  # candidates evaluated at once (batch × words × 8 bytes of bit sets)


@dataclass(frozen=True, slots=True)
class Slice:
    predicates: dict[str, str]  # column -> value, in the order the columns were found
    size: int
    errors: int
    error_rate: float
    score: float

    def to_json(self) -> dict[str, Any]:
        return {
            "predicates": self.predicates,
            "size": self.size,
            "errors": self.errors,
            "error_rate": round(self.error_rate, 6),
            "score": round(self.score, 6),
        }


@dataclass(frozen=True, slots=True)
class SliceSearch:
    """What `find_slices` found and with which settings."""

    slices: list[Slice]
    overall_error_rate: float | None
    rows: int
    errors: int
    metric: str
    model: str | None
    min_support: int
    max_predicates: int
    alpha: float
    levels: list[dict[str, int]] = field(default_factory=list)  # per level: candidates, evaluated, valid

    def to_json(self) -> dict[str, Any]:
        return {
            "slices": [s.to_json() for s in self.slices],
            "overall_error_rate": None
            if self.overall_error_rate is None
            else round(self.overall_error_rate, 6),
            "rows": self.rows,
            "errors": self.errors,
            "metric": self.metric,
            "model": self.model,
            "min_support": self.min_support,
            "max_predicates": self.max_predicates,
            "alpha": self.alpha,
        }


def default_min_support(rows: int) -> int:
    """1 % of the rows, at least 10: smaller slices are anecdotes."""
    return max(10, math.ceil(rows / 100))


def scores(size: np.ndarray, errors: np.ndarray, n: int, mean: float, alpha: float) -> np.ndarray:
    size = size.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = alpha * ((errors / size) / mean - 1) - (1 - alpha) * (n / size - 1)
    return np.where(size > 0, out, -np.inf)


def upper_bounds(
    size_ub: np.ndarray, errors_ub: np.ndarray, n: int, mean: float, alpha: float, sigma: int
) -> np.ndarray:
    """The best score any slice within these bounds can have (errors are 0/1, so at most one per row).

    The score of a slice of size s with e = min(errors_ub, s) errors is monotone between the points
    where e stops growing with s, so its maximum over s in [sigma, size_ub] is at sigma, errors_ub
    or size_ub.
    """
    best = np.full(size_ub.shape, -np.inf)
    for s in (np.full(size_ub.shape, float(sigma)), np.clip(errors_ub, sigma, size_ub), size_ub):
        s = s.astype(np.float64)
        e = np.minimum(errors_ub, s)
        best = np.maximum(best, scores(s, e, n, mean, alpha))
    return np.where((size_ub >= sigma) & (errors_ub > 0), best, -np.inf)


def find_slices(
    frame: pl.DataFrame,
    *,
    model: str | None = None,
    metric: str = "ex",
    max_predicates: int = MAX_PREDICATES,
    min_support: int | None = None,
    top: int = TOP,
    alpha: float = ALPHA,
) -> SliceSearch:
    """The `top` slices of the frame's rows (one model's, or every model's with `model` a facet)."""
    if max_predicates < 1:
        raise UsageError("--max-predicates must be at least 1", where=str(max_predicates))
    if not 0 < alpha <= 1:
        raise UsageError("alpha must be in (0, 1]", where=str(alpha))
    check_metric(frame, metric)
    if model is not None:
        check_models(frame, [model])
        frame = frame.filter(pl.col("model") == model)
    rows = frame.filter(pl.col(metric).is_not_null())
    n = rows.height
    sigma = default_min_support(n) if min_support is None else max(1, min_support)
    errors = (rows.get_column(metric) == 0).to_numpy()
    k = int(errors.sum())
    done = SliceSearch([], k / n if n else None, n, k, metric, model, sigma, max_predicates, alpha)
    if n == 0 or k == 0:
        return done
    with_model = model is None and rows.get_column("model").n_unique() > 1
    preds = build(rows, with_model=with_model)
    found, levels = _search(preds, pack(errors), k / n, sigma, max_predicates, top, alpha)
    return SliceSearch(
        [_slice(preds, ids, size, err, sc) for ids, size, err, sc in found],
        k / n,
        n,
        k,
        metric,
        model,
        sigma,
        max_predicates,
        alpha,
        levels,
    )


def _slice(preds: Predicates, ids: tuple[int, ...], size: int, errors: int, score: float) -> Slice:
    return Slice(
        {preds.columns[i]: preds.values[i] for i in ids}, size, errors, errors / size if size else 0.0, score
    )


class _Top:
    """The best slices so far (score > 0), ties going to fewer predicates, then larger slices."""

    def __init__(self, k: int) -> None:
        self.k, self.items = k, []  # type: list[tuple[float, int, int, int, tuple[int, ...]]]

    def offer(self, ids: np.ndarray, size: np.ndarray, errors: np.ndarray, score: np.ndarray) -> None:
        keep = np.flatnonzero(score > max(0.0, self.threshold))
        if keep.size > self.k:
            keep = keep[np.argsort(-score[keep], kind="stable")[: self.k]]
        for i in keep:
            self.items.append(
                (float(score[i]), ids.shape[1], int(size[i]), int(errors[i]), tuple(int(x) for x in ids[i]))
            )
        self.items.sort(key=lambda t: (-t[0], t[1], -t[2], t[4]))
        del self.items[self.k :]

    @property
    def threshold(self) -> float:
        return self.items[-1][0] if len(self.items) >= self.k else 0.0

    def result(self) -> list[tuple[tuple[int, ...], int, int, float]]:
        return [(ids, size, err, sc) for sc, _, size, err, ids in self.items]


def _search(
    preds: Predicates,
    error_bits: np.ndarray,
    mean: float,
    sigma: int,
    max_level: int,
    k: int,
    alpha: float,
) -> tuple[list[tuple[tuple[int, ...], int, int, float]], list[dict[str, int]]]:
    n, groups = preds.n, preds.groups
    best = _Top(k)
    size = popcount(preds.bits)
    errs = popcount(preds.bits & error_bits)
    valid = np.flatnonzero((size >= sigma) & (errs > 0))
    ids = valid[:, None]
    bits, size, errs = preds.bits[valid], size[valid], errs[valid]
    best.offer(ids, size, errs, scores(size, errs, n, mean, alpha))
    levels = [
        {"level": 1, "candidates": len(preds.columns), "evaluated": len(preds.columns), "valid": len(valid)}
    ]
    for level in range(2, max_level + 1):
        if len(ids) < 2:
            break
        left, right, size_ub, err_ub = _candidates(ids, size, errs, groups)
        generated = len(left)
        ub = upper_bounds(size_ub, err_ub, n, mean, alpha, sigma)
        keep = ub > best.threshold
        left, right, size_ub, err_ub = left[keep], right[keep], size_ub[keep], err_ub[keep]
        new_ids = np.concatenate([ids[left], ids[right][:, -1:]], axis=1)
        if level > 2 and len(new_ids):  # every other parent must have survived too
            ok, size_ub, err_ub = _other_parents(new_ids, ids, size, errs, size_ub, err_ub)
            ok &= upper_bounds(size_ub, err_ub, n, mean, alpha, sigma) > best.threshold
            left, right, new_ids, size_ub = left[ok], right[ok], new_ids[ok], size_ub[ok]
        out_bits, out_size, out_errs = [], [], []
        for start in range(0, len(left), _BATCH):
            b = bits[left[start : start + _BATCH]] & bits[right[start : start + _BATCH]]
            out_bits.append(b)
            out_size.append(popcount(b))
            out_errs.append(popcount(b & error_bits))
        evaluated = len(left)
        if not evaluated:
            levels.append({"level": level, "candidates": generated, "evaluated": 0, "valid": 0})
            break
        c_bits, c_size, c_errs = (np.concatenate(x) for x in (out_bits, out_size, out_errs))
        good = (c_size >= sigma) & (c_errs > 0) & (c_size < size_ub)  # size_ub == a parent's size: redundant
        ids, bits, size, errs = new_ids[good], c_bits[good], c_size[good], c_errs[good]
        best.offer(ids, size, errs, scores(size, errs, n, mean, alpha))
        levels.append({"level": level, "candidates": generated, "evaluated": evaluated, "valid": len(ids)})
    return best.result(), levels


def _candidates(
    ids: np.ndarray, size: np.ndarray, errs: np.ndarray, groups: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Pairs of slices sharing all but their last predicate (Apriori's join), last predicates of other columns.

    Returns the two parents' rows and the bounds their sizes and errors give.
    """
    order = np.lexsort(ids.T[::-1])
    ids_sorted = ids[order]
    prefix = ids_sorted[:, :-1]
    if prefix.shape[1]:
        change = np.any(prefix[1:] != prefix[:-1], axis=1)
        starts = np.concatenate([[0], np.flatnonzero(change) + 1, [len(ids_sorted)]])
    else:
        starts = np.array([0, len(ids_sorted)])
    lefts, rights = [], []
    last_group = groups[ids_sorted[:, -1]]
    for a, b in itertools.pairwise(starts):
        if b - a < 2:
            continue
        i, j = np.triu_indices(b - a, k=1)
        i, j = i + a, j + a
        differ = last_group[i] != last_group[j]
        lefts.append(order[i[differ]])
        rights.append(order[j[differ]])
    if not lefts:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, empty
    left, right = np.concatenate(lefts), np.concatenate(rights)
    return left, right, np.minimum(size[left], size[right]), np.minimum(errs[left], errs[right])


def _other_parents(
    new_ids: np.ndarray,
    ids: np.ndarray,
    size: np.ndarray,
    errs: np.ndarray,
    size_ub: np.ndarray,
    err_ub: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Whether each candidate's remaining parents (drop one prefix predicate) survived; bounds tightened."""
    where = {tuple(row): i for i, row in enumerate(ids.tolist())}
    ok = np.ones(len(new_ids), dtype=bool)
    size_ub, err_ub = size_ub.copy(), err_ub.copy()
    width = new_ids.shape[1]
    for c, row in enumerate(new_ids.tolist()):
        for drop in range(width - 2):
            parent = where.get(tuple(row[:drop] + row[drop + 1 :]))
            if parent is None:
                ok[c] = False
                break
            size_ub[c] = min(size_ub[c], size[parent])
            err_ub[c] = min(err_ub[c], errs[parent])
    return ok, size_ub, err_ub
