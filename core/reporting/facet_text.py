"""The text a column facet shows per row: the column's own, except where a facet reads two columns."""

from __future__ import annotations

import polars as pl


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
    if column == "gold_flags":  # '; '-separated ids as a combination of parts ("has models-agree")
        return pl.col(column).str.replace_all("; ", " ", literal=True)
    return pl.col(column)
