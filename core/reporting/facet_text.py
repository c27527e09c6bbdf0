"""The text a column facet shows per row: the column's own, except where a facet reads two columns."""

from __future__ import annotations

import polars as pl


def facet_text(frame: pl.DataFrame, column: str) -> pl.Expr:
    """`equivalence` shows `unknown: <reason>` for a pair left unknown, so the facet counts each reason."""
    if column not in frame.columns:
        return pl.lit(None, dtype=pl.Utf8)
    if column == "equivalence" and "equivalence_note" in frame.columns:
        eq = pl.col("equivalence")
        reason = pl.lit("unknown: ") + pl.col("equivalence_note").fill_null("?")
        return pl.when(eq == "unknown").then(reason).otherwise(eq)
    return pl.col(column)
