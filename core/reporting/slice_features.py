"""The predicates slices are made of: one boolean column per facet value, grouped by the column it tests.

A predicate tests one column of the evaluation frame, named as the export names it: `hardness = hard`,
`db_id = car_1`, `structural = S F W` (the whole category), `structural = has W` (a membership: the
query has a WHERE, whatever else it has), `tags = has <tag>`, `q_words = 9–11` (a question axis cut at
its quartiles over the examples). A slice holds at most one predicate per column: two values of one
column would be empty or, for memberships, read better as the whole category.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

MEMBERSHIP = "has "  # the value of a membership predicate starts so; no whole category does
# column -> separator of its members (the whole value is a predicate too where `whole` says so)
MEMBERSHIPS: dict[str, tuple[str, bool]] = {
    "structural": (" ", True),
    "operators": (" ", True),
    "reasoning": (" ", True),
    "tags": (", ", False),
    "gold_suspect": ("; ", False),
}
CATEGORICAL = ("hardness", "db_id")
QUESTION_AXES = ("q_words", "q_tree_depth", "q_lexical_density", "q_rarity", "q_flesch", "q_schema_linkage")
BINS = 4  # quartiles
NEEDED = ("index", "model", *CATEGORICAL, *MEMBERSHIPS, *QUESTION_AXES)


@dataclass(frozen=True, slots=True)
class Predicates:
    """Per predicate its column and value, and the rows it holds on as packed bits (one uint64 per 64 rows)."""

    columns: list[str]
    values: list[str]
    bits: np.ndarray  # predicates × words, uint64
    n: int  # rows

    @property
    def groups(self) -> np.ndarray:
        """Per predicate a number standing for its column (one predicate per column in a slice)."""
        names = {c: i for i, c in enumerate(dict.fromkeys(self.columns))}
        return np.array([names[c] for c in self.columns], dtype=np.int64)


def pack(mask: np.ndarray) -> np.ndarray:
    """A boolean row mask as little-endian uint64 words."""
    packed = np.packbits(mask.astype(bool), bitorder="little")
    pad = (-len(packed)) % 8
    if pad:
        packed = np.concatenate([packed, np.zeros(pad, dtype=np.uint8)])
    return packed.view("<u8")


def unpack(words: np.ndarray, n: int) -> np.ndarray:
    return np.unpackbits(words.view(np.uint8), bitorder="little")[:n].astype(bool)


if hasattr(np, "bitwise_count"):  # numpy >= 2

    def popcount(words: np.ndarray) -> np.ndarray:
        """Set bits per row of a 2-D uint64 array."""
        return np.bitwise_count(words).sum(axis=-1, dtype=np.int64)

else:  # pragma: no cover - numpy 1.x
    _BYTE_COUNTS = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)

    def popcount(words: np.ndarray) -> np.ndarray:
        return _BYTE_COUNTS[words.view(np.uint8)].reshape(*words.shape[:-1], -1).sum(axis=-1)


def quartile_labels(values: pl.Series, per_example: pl.Series) -> pl.Series:
    """Each row's quartile of an axis (cut over the examples, not the rows), labelled by its range."""
    present = per_example.drop_nulls().cast(pl.Float64)
    if present.is_empty():
        return pl.Series(values.name, [None] * len(values), dtype=pl.Utf8)
    top = float(present.max())  # type: ignore[arg-type]
    quantiles = (present.quantile(q / BINS, "nearest") for q in range(1, BINS))
    edges = sorted({float(e) for e in quantiles if e is not None and float(e) < top})
    labels = _range_labels(edges, values.dtype.is_integer())
    which = np.searchsorted(np.array(edges), values.cast(pl.Float64).to_numpy(), side="left")
    out = np.array(labels, dtype=object)[np.clip(which, 0, len(labels) - 1)]
    return pl.Series(values.name, out.tolist(), dtype=pl.Utf8).set(values.is_null(), None)  # type: ignore[arg-type]


def _range_labels(edges: list[float], is_int: bool) -> list[str]:
    """Labels of the bins (−∞, e1], (e1, e2], …, (ek, ∞): `≤ 7`, `8–10`, `≥ 14` (`0.25–0.40` for reals)."""
    if not edges:
        return ["all"]

    def fmt(x: float) -> str:
        return str(int(x)) if is_int else f"{x:.2f}"

    labels = [f"≤ {fmt(edges[0])}"]
    for lo, hi in itertools.pairwise(edges):
        first = fmt(lo + 1) if is_int else fmt(lo)
        labels.append(first if first == fmt(hi) else f"{first}–{fmt(hi)}")
    labels.append(f"≥ {fmt(edges[-1] + 1)}" if is_int else f"> {fmt(edges[-1])}")
    return labels


def build(frame: pl.DataFrame, *, with_model: bool) -> Predicates:
    """Every predicate over the frame's rows (values holding on no row or on every row left out)."""
    n = frame.height
    columns: list[str] = []
    values: list[str] = []
    masks: list[np.ndarray] = []

    def add(column: str, value: str, mask: np.ndarray) -> None:
        k = int(mask.sum())
        if 0 < k < n:
            columns.append(column)
            values.append(value)
            masks.append(mask)

    for column in (*(("model",) if with_model else ()), *CATEGORICAL):
        if column in frame.columns:
            _whole_values(frame.get_column(column), add)
    for column, (sep, whole) in MEMBERSHIPS.items():
        if column not in frame.columns:
            continue
        text = frame.get_column(column).cast(pl.Utf8).fill_null("")
        if whole:
            _whole_values(text, add)
        members = text.str.split(sep).list.eval(pl.element().str.strip_chars()).list.unique()
        codes = members.explode().drop_nulls().unique().sort().to_list()
        for code in codes:
            if code:
                add(column, MEMBERSHIP + code, members.list.contains(code).fill_null(False).to_numpy())
    per_example = frame.unique("index", keep="first", maintain_order=True)
    for axis in QUESTION_AXES:
        if axis in frame.columns and frame.get_column(axis).null_count() < n:
            _whole_values(quartile_labels(frame.get_column(axis), per_example.get_column(axis)), add)
    words = (n + 63) // 64
    bits = np.stack([pack(m) for m in masks]) if masks else np.zeros((0, words), dtype=np.uint64)
    return Predicates(columns, values, bits, n)


def _whole_values(series: pl.Series, add) -> None:  # type: ignore[no-untyped-def]
    text = series.cast(pl.Utf8)
    for value in text.drop_nulls().unique().sort().to_list():
        if value != "":
            add(series.name, value, (text == value).fill_null(False).to_numpy())


def rows_of(frame: pl.DataFrame, predicates: dict[str, str]) -> np.ndarray:
    """Row numbers of the frame where every predicate holds (what a slice is, for browsing it)."""
    mask = np.ones(frame.height, dtype=bool)
    per_example = frame.unique("index", keep="first", maintain_order=True)
    for column, value in predicates.items():
        series = frame.get_column(column)
        if column in QUESTION_AXES:
            hit = quartile_labels(series, per_example.get_column(column)) == value
        elif value.startswith(MEMBERSHIP) and column in MEMBERSHIPS:
            sep, _ = MEMBERSHIPS[column]
            members = (
                series.cast(pl.Utf8).fill_null("").str.split(sep).list.eval(pl.element().str.strip_chars())
            )
            hit = members.list.contains(value[len(MEMBERSHIP) :])
        else:
            hit = series.cast(pl.Utf8) == value
        mask &= hit.fill_null(False).to_numpy()
    return np.flatnonzero(mask)


def describe(predicates: dict[str, str]) -> str:
    """`hardness = hard ∧ structural has W`: a slice as one line for people."""
    parts = []
    for column, value in predicates.items():
        if value.startswith(MEMBERSHIP):
            parts.append(f"{column} {value}")
        else:
            parts.append(f"{column} = {value}")
    return " ∧ ".join(parts)


def columns_needed(extra: Sequence[str] = ()) -> list[str]:
    return [*NEEDED, *extra]
