"""Blind mode (`--blind`): an annotator does not see others' tags on a row until they have tagged it.

The rows others decided and this annotator has not are shown untagged (their `tags`, `tags_by`,
adjudicator, review marks and disagreement hidden, `_hidden` set), so the first judgement of each row is
the annotator's own. Once they tag such a row, the save reads its tags back from the workspace and they
show in full.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from sqltriage.core.reporting import facets
from sqltriage.core.verdicts.review import REVIEW_COLUMN


def hidden_rows(ws: Any, viewer: str) -> pl.DataFrame:
    """(index, model) of the rows someone else decided and `viewer` has not."""
    rows = ws.rows_hidden_from(viewer)
    return pl.DataFrame(
        {"index": [i for i, _ in rows], "model": [m for _, m in rows], "_hide": [True] * len(rows)},
        schema={"index": pl.Int64, "model": pl.Utf8, "_hide": pl.Boolean},
    )


def blinded(frame: pl.DataFrame, hidden: pl.DataFrame) -> pl.DataFrame:
    """The prepared frame with the hidden rows' tags taken away (prepared again: facets follow)."""
    marked = frame.drop("_hidden", strict=False).join(hidden, on=["index", "model"], how="left")
    hide = pl.col("_hide").fill_null(False)
    masked = marked.with_columns(
        *(
            pl.when(hide).then(pl.lit(None, dtype=marked.schema[c])).otherwise(pl.col(c)).alias(c)
            for c in ("tags", "tags_by", "adjudicated_by", REVIEW_COLUMN)
            if c in marked.columns
        ),
        pl.when(hide).then(0).otherwise(pl.col("disagree")).alias("disagree"),
        hide.alias("_hidden"),
    ).drop("_hide")
    return facets.prepare(masked)


def revealed(frame: pl.DataFrame, rows: list[tuple[int, str]]) -> pl.DataFrame:
    """The frame with these rows no longer hidden (the annotator has tagged them)."""
    if "_hidden" not in frame.columns or not rows:
        return frame
    keys = pl.DataFrame(
        {"index": [i for i, _ in rows], "model": [m for _, m in rows]},
        schema={"index": pl.Int64, "model": pl.Utf8},
    )
    shown = frame.select("index", "model").with_row_index("_r").join(keys, on=["index", "model"], how="semi")
    at = shown.get_column("_r").to_list()
    return frame.with_columns(
        pl.int_range(pl.len()).is_in(at).not_().and_(pl.col("_hidden")).alias("_hidden")
    )
