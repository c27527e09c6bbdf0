"""Facets over the evaluation frame: outcome definitions, filter expressions and live counts (pure polars).

A filter is a set of chosen values per facet plus a free-text search. Values of one facet combine with
OR, facets combine with AND. The count shown next to a value is the number of rows it would give under
every *other* active filter, so choosing it never surprises (the usual faceted-search convention).
The app and the CLI share these definitions, so "near miss" means the same thing everywhere.

The structural, operators and reasoning facets list combinations ("S F W", "J Ag C", "subtraction
commonsense"), the paper's view, and next to them membership options ("has J (join)", "needs
subtraction"): a membership option stands for every combination containing that part. It is one more
value of its facet, OR-ed with the others like any value: "has W" and "has G" give the rows with a WHERE
or a GROUP BY, "has J" and "S F" the rows with a join plus the rows that are exactly "S F".
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import polars as pl

from sqltriage.core.reporting.facet_names import (  # also imported from here by the app and the CLI
    _INFERRED_PREFIX,
    _INFERRED_SUFFIX,
    FACET_KEYS,
    FACETS,
    LOW_PM,
    MEMBERSHIP_FACETS,
    NEAR_MISS_PM,
    NONE_VALUE,
    SEARCH_COLUMNS,
    SELECTION_MISSED,
    TS_FALSE_POSITIVE,
    Filters,
    membership_key,
    membership_label,
    membership_part,
)
from sqltriage.core.reporting.facet_text import facet_text
from sqltriage.core.verdicts.ex_modes import EX_MODES
from sqltriage.core.verdicts.gold_audit import REASONS as GOLD_SUSPECT_REASONS


def parts_expr(facet: str, value: pl.Expr) -> pl.Expr:
    """The parts of a combination value, as a list: "S F W" → [S, F, W]; `NONE_VALUE` → []."""
    parts = value.str.split(" ")
    if facet == "reasoning":
        inferred = value.str.starts_with(_INFERRED_PREFIX) & value.str.ends_with(_INFERRED_SUFFIX)
        arithmetic = (
            value.str.strip_prefix(_INFERRED_PREFIX)
            .str.strip_suffix(_INFERRED_SUFFIX)
            .str.split(",")
            .list.eval(pl.element() + _INFERRED_SUFFIX)
        )
        parts = pl.when(inferred).then(arithmetic).otherwise(parts)
    return parts.list.eval(pl.element().filter((pl.element() != NONE_VALUE) & (pl.element() != "")))


def parts_of(facet: str, values: Iterable[str]) -> list[list[str]]:
    """The parts of each combination value (what membership options match), in order."""
    column = pl.Series("v", list(values), dtype=pl.Utf8).to_frame()
    return column.select(parts_expr(facet, pl.col("v"))).to_series().to_list()


def _split_chosen(facet: str, values: Iterable[str]) -> tuple[list[str], list[str]]:
    """(combinations, parts) among a facet's chosen values."""
    combos, parts = [], []
    for v in values:
        part = membership_part(facet, v)
        (combos if part is None else parts).append(v if part is None else part)
    return sorted(combos), sorted(parts)


def _is(col: str, value: int) -> pl.Expr:
    return (pl.col(col) == value).fill_null(False)


def _modes_disagree() -> pl.Expr:
    modes = [pl.col(c) for c in ("ex_spider", "ex_bird", "ex_archer")]
    known = pl.all_horizontal(*(m.is_not_null() for m in modes))
    same = pl.all_horizontal(*(m == modes[0] for m in modes[1:]))
    return (known & ~same).fill_null(False)


def outcome_exprs() -> dict[str, pl.Expr]:
    """Outcome name → boolean expression over the frame of `report.load_frame`; a row may have several."""
    return {
        "EX pass": _is("ex", 1),
        "EX fail": _is("ex", 0),
        "EM pass": _is("em", 1),
        "EM fail": _is("em", 0),
        "does not execute": _is("va", 0),
        "does not parse": _is("parse_ok", 0),
        "database missing": _is("db_missing", 1),
        "EX modes disagree": _modes_disagree(),
        "annotators disagree": _is("disagree", 1),
        "EX pass, EM fail (EM false negative?)": _is("ex", 1) & _is("em", 0),
        f"EX fail, PM ≥ {NEAR_MISS_PM} (near miss)": _is("ex", 0)
        & (pl.col("pm") >= NEAR_MISS_PM).fill_null(False),
        f"EX pass, PM < {LOW_PM} (EX false positive?)": _is("ex", 1)
        & (pl.col("pm") < LOW_PM).fill_null(False),
        TS_FALSE_POSITIVE: _is("ex_spider", 1) & _is("ex_ts", 0),
        "the official evaluator scores this differently": pl.col("ex_official")
        .ne_missing(pl.col("ex_spider"))
        .fill_null(False),
        "EX fail only by a row tied at gold's LIMIT (tie-sensitive)": _is("tie_sensitive", 1),
        "EX pass on an alternative gold": pl.col("gold_match").fill_null("gold") != "gold",
        SELECTION_MISSED: _is("ex", 0) & (pl.col("candidates_right") > 0).fill_null(False),
        **{
            f"gold suspect: {label}": pl.col("gold_suspect").fill_null("").str.contains(label, literal=True)
            for label in GOLD_SUSPECT_REASONS.values()
        },
    }


OUTCOMES: tuple[str, ...] = tuple(outcome_exprs())


def columns_read() -> frozenset[str]:
    """The frame's stored columns that facets, outcomes, counts and `use_ex_mode` read.

    A screen that shows only facets and a few columns first loads these (`report.load_frame(columns=...)`)
    and the rest afterwards; taken from the expressions themselves, so an outcome added above is covered.
    """
    used = {
        "index",
        "model",
        "tags",
        "equivalence_note",
        *_COLUMN_FACETS,
        *(f"ex_{mode}" for mode in EX_MODES),
    }
    for expr in outcome_exprs().values():
        used.update(expr.meta.root_names())
    return frozenset(used)


def outcome_column(name: str) -> str:
    return f"_o{OUTCOMES.index(name)}"


def tag_list(tags: pl.Expr) -> pl.Expr:
    tags = tags.fill_null("")
    return pl.when(tags == "").then(pl.lit([NONE_VALUE])).otherwise(tags.str.split(", "))


def prepare(frame: pl.DataFrame) -> pl.DataFrame:
    """The frame with what filtering needs computed once: facet text columns and outcome flags.

    Done once per load, so that every keystroke filters with cheap column comparisons only. The
    searched text is not made here: `FacetIndex` keeps it per distinct text, when a search first asks.
    """
    missing = [c for c in ("annotators", "disagree") if c not in frame.columns]  # a frame made elsewhere
    frame = frame.with_columns(
        pl.lit(None, dtype=pl.Utf8 if c == "annotators" else pl.Int64).alias(c) for c in missing
    )
    text_facets = [
        facet_text(frame, c).cast(pl.Utf8).fill_null("").replace("", NONE_VALUE).alias(f"_f_{c}")
        for c in _COLUMN_FACETS
    ]
    tags = tag_list(pl.col("tags"))
    outcomes = [expr.alias(outcome_column(name)) for name, expr in outcome_exprs().items()]
    ranked = (
        [judgement_rank().alias(JUDGEMENT_RANK)] if {"judgement", "gold_flags"} <= set(frame.columns) else []
    )
    return frame.with_columns(*text_facets, tags.alias("_f_tag"), *outcomes, *ranked)


def facet_expr(facet: str, values: frozenset[str] | set[str]) -> pl.Expr:
    """Rows having any of `values` in `facet` (a prepared frame)."""
    chosen = sorted(values)
    if facet == "outcome":
        return pl.any_horizontal(*(pl.col(outcome_column(v)) for v in chosen if v in OUTCOMES), pl.lit(False))
    if facet == "tag":
        return pl.col("_f_tag").list.set_intersection(pl.lit(chosen, dtype=pl.List(pl.Utf8))).list.len() > 0
    combos, parts = _split_chosen(facet, chosen)
    expr = pl.col(f"_f_{facet}").is_in(combos)
    if parts:
        has = parts_expr(facet, pl.col(f"_f_{facet}")).list.set_intersection(
            pl.lit(parts, dtype=pl.List(pl.Utf8))
        )
        expr = expr | (has.list.len() > 0)
    return expr


def search_expr(text: str) -> pl.Expr:
    """Case-insensitive literal match of every word of `text` in question, gold SQL or predicted SQL."""
    words = [w for w in text.lower().split() if w]
    if not words:
        return pl.lit(True)
    searched = pl.concat_str(
        [pl.col(c).fill_null("") for c in SEARCH_COLUMNS], separator="\n"
    ).str.to_lowercase()
    return pl.all_horizontal(*(searched.str.contains(w, literal=True) for w in words))


def filter_expr(filters: Filters, *, exclude: str | None = None) -> pl.Expr:
    """All active filters but `exclude`'s, as one expression."""
    parts = [facet_expr(f, v) for f, v in filters.selected.items() if v and f != exclude]
    parts.append(search_expr(filters.search))
    if filters.examples is not None:
        parts.append(pl.col("index").is_in(sorted(filters.examples)))
    return pl.all_horizontal(*parts)


def apply(frame: pl.DataFrame, filters: Filters) -> pl.DataFrame:
    """The rows of a prepared frame that pass every filter, in the frame's order."""
    if not filters.active:
        return frame
    return frame.filter(filter_expr(filters))


def facet_counts(frame: pl.DataFrame, filters: Filters) -> dict[str, list[tuple[str, int]]]:
    """For each facet, (value, live count) pairs: counts under every other filter, most frequent first.

    A selected value is always listed (with 0 when nothing is left), so it can be unselected. The
    membership options of a facet of `MEMBERSHIP_FACETS` are listed apart, under `membership_key(facet)`,
    most frequent first like the rest. The app keeps a `FacetIndex` per load instead of calling this on
    every key.
    """
    return FacetIndex(frame).counts(filters)


JUDGEMENT_RANK = "_judgement_rank"  # what a sort by judgement orders by (`judgement_rank`)


def judgement_rank() -> pl.Expr:
    """The judgement's triage order: unsure first, then wrong, then right; within each, a doubted gold
    (`gold_flags`) first. So an ascending sort puts what a person must look at on top."""
    call = pl.col("judgement").replace_strict(
        {"unsure": 0, "wrong": 2, "right": 4}, default=6, return_dtype=pl.Int64
    )
    return call + (pl.col("gold_flags").fill_null("") == "").cast(pl.Int64)


def _sorted_by(frame: pl.DataFrame, column: str) -> str:
    return JUDGEMENT_RANK if column == "judgement" and JUDGEMENT_RANK in frame.columns else column


def sort_frame(frame: pl.DataFrame, column: str | None, descending: bool = False) -> pl.DataFrame:
    """Sorted by `column` (nulls last), ties kept in load order; the frame unchanged for no column."""
    if not column or column not in frame.columns:
        return frame
    return frame.sort(_sorted_by(frame, column), descending=descending, nulls_last=True, maintain_order=True)


# --- the fast path: row numbers and live counts from numpy codes, built once per load ------------------

_COLUMN_FACETS = tuple(k for k, _ in FACETS if k not in ("outcome", "tag"))  # facets of a column
_RETAGGED = (
    "tags",
    "tags_by",
    "adjudicated_by",
    "annotators",
    "disagree",
    "note",
)  # the columns a frame of the same rows may have changed (`retagged`)
_WORD_CACHE = 64  # words whose matches are kept, so typing and erasing reuse earlier searches


def _codes(series: pl.Series) -> tuple[np.ndarray, list[str]]:
    """Integer codes of a text column and the labels they stand for (sorted)."""
    labels = series.unique().sort()
    if labels.is_empty():  # an empty workspace: no codes, no labels (numpy cannot count an object array)
        return np.zeros(0, dtype=np.int32), []
    new = pl.int_range(labels.len(), dtype=pl.Int32, eager=True)  # numpy input would import numpy.ma (~50 ms)
    return series.replace_strict(labels, new, return_dtype=pl.Int32).to_numpy(), labels.to_list()


def _part_matrix(facet: str, labels: list[str]) -> tuple[dict[str, int], np.ndarray]:
    """The parts found in a facet's values (→ column), and per value code whether it contains each.

    One row per label plus a spare, as `_lookup` has, so that its result can be OR-ed with a column.
    """
    per_label = parts_of(facet, labels)
    position = {p: i for i, p in enumerate(sorted({p for parts in per_label for p in parts}))}
    contains = np.zeros((len(labels) + 1, len(position)), dtype=bool)
    for row, parts in enumerate(per_label):
        contains[row, [position[p] for p in parts]] = True
    return position, contains


def _lookup(labels: list[str], chosen: Iterable[str]) -> np.ndarray:
    """A boolean per label: is it one of `chosen`."""
    pos = {v: i for i, v in enumerate(labels)}
    hit = np.zeros(len(labels) + 1, dtype=bool)  # one spare slot so an empty facet still indexes
    for v in chosen:
        if v in pos:
            hit[pos[v]] = True
    return hit


@dataclass(frozen=True, slots=True)
class _Texts:
    """Distinct lower-cased texts and, per row, which one the row has: each text is searched once."""

    texts: pl.Series
    of_row: np.ndarray


class FacetIndex:
    """A prepared frame's filter columns as integer codes, so that each keystroke costs milliseconds.

    Filtering and sorting give row numbers of the frame (never copies of its rows); counting is a
    `bincount` per facet. The question and gold SQL are searched once per example and the predicted
    SQL once per distinct text, and the matches of each word are kept, so that typing a longer word
    only searches what the shorter one matched. Agrees with `apply`, `facet_counts` and `sort_frame`.
    """

    def __init__(self, frame: pl.DataFrame, *, _shared: FacetIndex | None = None) -> None:
        self.frame = frame
        self.height = frame.height
        if _shared is not None:  # same rows in the same order: only tags, notes or columns it lacked changed
            for name in ("_codes", "_labels", "_parts", "_outcomes", "_index", "_texts"):
                setattr(self, name, getattr(_shared, name))
            self._recode_team(frame)
        else:
            self._codes: dict[str, np.ndarray] = {}
            self._labels: dict[str, list[str]] = {}
            for facet in _COLUMN_FACETS:
                self._codes[facet], self._labels[facet] = _codes(frame.get_column(f"_f_{facet}"))
            # per membership facet: its parts, and which of its values (codes) contains each part
            self._parts: dict[str, tuple[dict[str, int], np.ndarray]] = {
                facet: _part_matrix(facet, self._labels[facet]) for facet in MEMBERSHIP_FACETS
            }
            self._outcomes = np.stack(
                [frame.get_column(outcome_column(n)).to_numpy() for n in OUTCOMES]
            ).astype(bool)
            self._index = frame.get_column("index").to_numpy()
            # the searched texts, made when a search first needs them (or by `warm`): shared by `retagged`
            self._texts: list[tuple[_Texts, _Texts]] = []
        tags = frame.select(pl.int_range(pl.len(), dtype=pl.Int64).alias("_r"), "_f_tag").explode("_f_tag")
        self._tag_rows = tags.get_column("_r").to_numpy()
        self._tag_codes, self._tag_labels = _codes(tags.get_column("_f_tag").fill_null(NONE_VALUE))
        self._ranks: dict[str, tuple[np.ndarray, int]] = {}
        if _shared is not None:  # the sort keys of columns a retag cannot change stay
            with _shared._lock:
                self._ranks.update((c, r) for c, r in _shared._ranks.items() if c not in _RETAGGED)
        self._words: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._lock = threading.Lock()

    def _recode_team(self, frame: pl.DataFrame) -> None:
        """Who decided a row and whether they disagree change with its tags: those codes are made anew,
        in copies, so the index this one shares the rest with stays as it was."""
        if "_f_annotators" not in frame.columns:
            return
        self._codes, self._labels, self._parts = dict(self._codes), dict(self._labels), dict(self._parts)
        facet = "annotators"
        self._codes[facet], self._labels[facet] = _codes(frame.get_column(f"_f_{facet}"))
        self._parts[facet] = _part_matrix(facet, self._labels[facet])
        row = OUTCOMES.index("annotators disagree")
        self._outcomes = self._outcomes.copy()
        self._outcomes[row] = frame.get_column(outcome_column("annotators disagree")).to_numpy().astype(bool)

    def retagged(self, frame: pl.DataFrame) -> FacetIndex:
        """The index of `frame`: the same rows as this one, whose tags or notes changed (or which gained
        columns it did not have, `report.with_rest`); what else it computed stays."""
        return FacetIndex(frame, _shared=self)

    def _searched(self) -> tuple[_Texts, _Texts]:
        """The example texts (question and gold SQL, one per example) and the distinct predicted SQL
        texts, lower-cased, and which of each every row has; made once.

        An example's text is the same on all its rows and a prediction recurs across rows, so both are
        made from the distinct values, not once per row (at 100k rows that was 40 MB and 100 ms)."""
        with self._lock:
            if not self._texts:
                per_example = pl.concat_str(
                    [pl.col(c).fill_null("") for c in SEARCH_COLUMNS[:2]], separator="\n"
                ).str.to_lowercase()
                examples = self.frame.select("index", *SEARCH_COLUMNS[:2]).unique(
                    "index", maintain_order=True
                )
                of_row = self.frame.get_column("index").replace_strict(
                    examples.get_column("index"),
                    pl.int_range(examples.height, dtype=pl.Int32, eager=True),
                    return_dtype=pl.Int32,
                )
                texts = _Texts(examples.select(per_example).to_series(), of_row.to_numpy())
                codes, labels = _codes(self.frame.get_column("pred_sql").fill_null(""))
                preds = _Texts(pl.Series(labels, dtype=pl.Utf8).str.to_lowercase(), codes)
                self._texts.append((texts, preds))
            return self._texts[0]

    # --- masks ------------------------------------------------------------------------------------

    def _facet_mask(self, facet: str, values: frozenset[str]) -> np.ndarray:
        if facet == "outcome":
            rows = [OUTCOMES.index(v) for v in values if v in OUTCOMES]
            return self._outcomes[rows].any(axis=0) if rows else np.zeros(self.height, dtype=bool)
        if facet == "tag":
            hit = _lookup(self._tag_labels, values)[self._tag_codes]
            return np.bincount(self._tag_rows[hit], minlength=self.height) > 0
        if facet not in self._parts:
            return _lookup(self._labels[facet], values)[self._codes[facet]]
        combos, parts = _split_chosen(facet, values)
        hit = _lookup(self._labels[facet], combos)
        position, contains = self._parts[facet]
        columns = [position[p] for p in parts if p in position]
        if columns:  # a value is chosen when it is, or when it contains a chosen part
            hit = hit | contains[:, columns].any(axis=1)
        return hit[self._codes[facet]]

    def _word(self, word: str) -> tuple[np.ndarray, np.ndarray]:
        """Which distinct example texts and predicted texts contain `word`."""
        with self._lock:
            hit = self._words.get(word)
            # a text containing `word` contains every part of it: search only what the longest part matched
            part = max((w for w in self._words if w in word), key=len, default=None)
            priors = self._words[part] if hit is None and part is not None else (None, None)
        if hit is not None:
            return hit
        found = []
        for texts, prior in zip(self._searched(), priors, strict=True):
            if prior is None:
                found.append(texts.texts.str.contains(word, literal=True).to_numpy())
                continue
            out = np.zeros(len(texts.texts), dtype=bool)
            where = np.flatnonzero(prior)
            out[where] = texts.texts.gather(where).str.contains(word, literal=True).to_numpy()
            found.append(out)
        hit = (found[0], found[1])
        with self._lock:
            if len(self._words) >= _WORD_CACHE:
                self._words.pop(next(iter(self._words)))
            self._words[word] = hit
        return hit

    def _common_mask(self, filters: Filters) -> np.ndarray | None:
        """Search and chosen examples: the filters every facet count is under."""
        mask: np.ndarray | None = None
        for word in dict.fromkeys(w for w in filters.search.lower().split() if w):
            in_example, in_pred = self._word(word)
            examples, preds = self._searched()
            m = in_example[examples.of_row] | in_pred[preds.of_row]
            mask = m if mask is None else mask & m
        if filters.examples is not None:
            m = np.isin(self._index, np.fromiter(filters.examples, dtype=self._index.dtype))
            mask = m if mask is None else mask & m
        return mask

    def _masks(self, filters: Filters) -> dict[str, np.ndarray]:
        return {f: self._facet_mask(f, v) for f, v in filters.selected.items() if v and f in FACET_KEYS}

    # --- rows, counts, order ----------------------------------------------------------------------

    def rows(self, filters: Filters, column: str | None = None, descending: bool = False) -> np.ndarray:
        """Row numbers of the frame passing `filters`, in load order or sorted as `sort_frame` sorts."""
        mask = self._common_mask(filters)
        for m in self._masks(filters).values():
            mask = m if mask is None else mask & m
        rows = np.arange(self.height, dtype=np.int64) if mask is None else np.flatnonzero(mask)
        if column and column in self.frame.columns:
            key = self.sort_key(column, descending)[rows]
            rows = rows[np.argsort(key, kind="stable")]
        return rows

    def counts(self, filters: Filters) -> dict[str, list[tuple[str, int]]]:
        """What `facet_counts` gives, from the codes."""
        common = self._common_mask(filters)
        masks = self._masks(filters)
        out: dict[str, list[tuple[str, int]]] = {}
        for facet in FACET_KEYS:
            base = common
            for other, m in masks.items():
                if other != facet:
                    base = m if base is None else base & m
            out[facet], per_value = self._values(facet, base)
            chosen = filters.selected.get(facet, frozenset())
            if facet in self._parts:
                position, contains = self._parts[facet]
                per_part = per_value @ contains[: len(per_value)]  # each row has one value: sums are exact
                options = [(membership_label(facet, p), int(per_part[i])) for p, i in position.items()]
                key = membership_key(facet)
                out[key] = sorted(((v, n) for v, n in options if n), key=lambda p: (-p[1], p[0]))
                listed = {v for v, _ in out[key]}
                out[key] += [(v, 0) for v in sorted(chosen) if v not in listed and membership_part(facet, v)]
                chosen = frozenset(v for v in chosen if membership_part(facet, v) is None)
            listed = {v for v, _ in out[facet]}
            out[facet] += [(v, 0) for v in sorted(chosen) if v not in listed]
        return out

    def _values(self, facet: str, base: np.ndarray | None) -> tuple[list[tuple[str, int]], np.ndarray]:
        """(value, count) pairs with rows, most first; and the count of every value by code."""
        if facet == "outcome":
            sums = self._outcomes.sum(axis=1) if base is None else self._outcomes[:, base].sum(axis=1)
            return [(name, int(n)) for name, n in zip(OUTCOMES, sums, strict=True)], sums
        if facet == "tag":
            codes = self._tag_codes if base is None else self._tag_codes[base[self._tag_rows]]
            labels = self._tag_labels
        else:
            codes = self._codes[facet] if base is None else self._codes[facet][base]
            labels = self._labels[facet]
        counts = np.bincount(codes, minlength=len(labels))
        pairs = [(labels[i], int(counts[i])) for i in np.flatnonzero(counts)]
        return sorted(pairs, key=lambda p: (-p[1], p[0])), counts

    def sort_key(self, column: str, descending: bool = False) -> np.ndarray:
        """Per row an integer that orders rows as sorting by `column` does, nulls last either way."""
        with self._lock:
            known = self._ranks.get(column)
        if known is None:
            dense = self.frame.get_column(_sorted_by(self.frame, column)).rank("dense")  # 1..k, nulls null
            k = int(dense.max() or 0)
            known = (dense.fill_null(k + 1).to_numpy().astype(np.int64) - 1, k)
            with self._lock:
                self._ranks[column] = known
        rank, k = known  # 0..k-1, and k for a null
        return np.where(rank == k, k, k - 1 - rank) if descending else rank

    def row_number(self, index: int, model: str) -> int | None:
        """The frame's row of (example index, model), or None."""
        is_model = _lookup(self._labels["model"], [model])[self._codes["model"]]
        hit = np.flatnonzero((self._index == index) & is_model)
        return int(hit[0]) if len(hit) else None

    def warm(self, columns: Iterable[str], *, search: bool = True) -> None:
        """Compute the sort keys of `columns` (and the searched texts) now, in a worker, so that no
        keystroke waits for them."""
        for column in columns:
            if column in self.frame.columns:
                self.sort_key(column)
        if search and "pred_sql" in self.frame.columns:
            self._searched()


def outcome_names_matching(pattern: str) -> list[str]:
    """Outcome names containing `pattern` (case-insensitive), for commands that name an outcome loosely."""
    rx = re.compile(re.escape(pattern), re.I)
    return [n for n in OUTCOMES if rx.search(n)]


# --- EX mode, in-place updates after a triage change, model comparison ----------------------------------


def use_ex_mode(frame: pl.DataFrame, mode: str) -> pl.DataFrame:
    """The frame with `ex` taken from `ex_<mode>` (before `prepare`); the stored `ex` is kept as `_ex_stored`.

    The table, the facets and the summary then all speak of one mode; an export restores `ex`.
    """
    if mode not in EX_MODES:
        raise ValueError(f"unknown EX mode {mode!r} (one of {', '.join(EX_MODES)})")
    stored = frame.get_column("_ex_stored") if "_ex_stored" in frame.columns else frame.get_column("ex")
    return frame.with_columns(stored.alias("_ex_stored"), pl.col(f"ex_{mode}").alias("ex"))


def for_export(frame: pl.DataFrame) -> pl.DataFrame:
    """`ex` as stored (the default mode of the export contract), whatever mode the screen shows."""
    if "_ex_stored" in frame.columns:
        return frame.with_columns(pl.col("_ex_stored").alias("ex"))
    return frame


COMPARE_CELLS = ("both pass", "only A passes", "only B passes", "neither passes")


def compare_models(frame: pl.DataFrame, a: str, b: str) -> dict[str, frozenset[int]]:
    """The 2×2 of two models on EX (in the frame's mode): example indexes per cell.

    Examples where either model has no EX verdict (no database, not evaluated) are left out and
    returned under "not comparable".
    """
    pick = frame.filter(pl.col("model").is_in([a, b])).select("index", "model", "ex")
    wide = pick.pivot(on="model", index="index", values="ex", aggregate_function="first")
    for m in (a, b):
        if m not in wide.columns:
            wide = wide.with_columns(pl.lit(None, dtype=pl.Int64).alias(m))
    ca, cb = pl.col(a), pl.col(b)
    cells = {
        "both pass": (ca == 1) & (cb == 1),
        "only A passes": (ca == 1) & (cb == 0),
        "only B passes": (ca == 0) & (cb == 1),
        "neither passes": (ca == 0) & (cb == 0),
        "not comparable": ca.is_null() | cb.is_null(),
    }
    return {
        name: frozenset(wide.filter(expr.fill_null(name == "not comparable")).get_column("index").to_list())
        for name, expr in cells.items()
    }
