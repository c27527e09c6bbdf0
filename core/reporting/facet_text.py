"""The text a column facet shows per row: the column's own, except where a facet reads two columns."""

from __future__ import annotations

import polars as pl

# the figures that come with responses (pipeline/candidates.py), binned on fixed bounds so that a facet reads
# the same in every workspace: (breaks, labels), each bin closed on its left
FIGURE_BINS: dict[str, tuple[list[float], list[str]]] = {
    "tokens": ([100, 1000, 10000], ["< 100", "100 – 1k", "1k – 10k", "≥ 10k"]),
    "latency": ([1, 10, 60], ["< 1 s", "1 – 10 s", "10 – 60 s", "≥ 60 s"]),
    "cost": ([0.001, 0.01, 0.1], ["< 0.001", "0.001 – 0.01", "0.01 – 0.1", "≥ 0.1"]),
    "confidence": ([0.25, 0.5, 0.75], ["< 0.25", "0.25 – 0.5", "0.5 – 0.75", "≥ 0.75"]),
    # BIRD Mini-Dev's per-row metrics (verdicts/minidev.py): a soft F1 of 0 and of 1 apart from the rest
    "soft_f1": ([1e-9, 0.5, 1.0], ["0", "0 – 0.5", "0.5 – 1", "1"]),
    # R-VES per row is the reward of its time ratio, one of Mini-Dev's buckets
    "r_ves": ([0.125, 0.375, 0.625, 0.875, 1.125], ["0", "0.25", "0.5", "0.75", "1", "1.25"]),
}


def facet_text(frame: pl.DataFrame, column: str) -> pl.Expr:
    """`equivalence` shows `unknown: <reason>` for a pair left unknown, so the facet counts each reason, and
    `verified: <note>` for a pair verified with a note (up to how ties fall)."""
    if column not in frame.columns:
        return pl.lit(None, dtype=pl.Utf8)
    if column == "equivalence" and "equivalence_note" in frame.columns:
        eq, note = pl.col("equivalence"), pl.col("equivalence_note")
        reason = pl.lit("unknown: ") + note.fill_null("?")
        qualified = pl.lit("verified: ") + note
        return (
            pl.when(eq == "unknown")
            .then(reason)
            .when((eq == "verified") & note.is_not_null())
            .then(qualified)
            .otherwise(eq)
        )
    if column in FIGURE_BINS:  # a figure given with responses: in fixed, readable bins
        breaks, labels = FIGURE_BINS[column]
        value = pl.col(column).cast(pl.Float64)
        binned = pl.when(value.is_null()).then(pl.lit(None, dtype=pl.Utf8))
        for bound, label in zip(breaks, labels, strict=False):
            binned = binned.when(value < bound).then(pl.lit(label))
        return binned.otherwise(pl.lit(labels[-1]))
    if column == "gold_flags":  # '; '-separated ids as a combination of parts ("has models-agree")
        return pl.col(column).str.replace_all("; ", " ", literal=True)
    return pl.col(column)
