"""The examples table's columns and the text of their cells, without the UI.

Apart from the widget (`examples_table`) so that the cells of a workspace's frame can be made before
Textual is even imported (`tui.opening`).
"""

from __future__ import annotations

import polars as pl
import pyarrow as pa

from sqltriage.tui.widgets.names import short_labels

# (frame column, header, width)
COLUMNS: tuple[tuple[str, str, int], ...] = (
    ("index", "#", 5),
    ("db_id", "db", 16),
    ("question", "question", 46),
    ("model", "model", 16),
    ("ex", "EX", 4),
    ("em", "EM", 4),
    ("pm", "PM", 5),
    ("structural", "structural", 14),
    ("operators", "operators", 12),
    ("hardness", "hardness", 8),
    ("tags", "tags", 16),
)
SORT_COLUMNS = tuple(c for c, _, _ in COLUMNS)


def display_arrow(frame: pl.DataFrame) -> pa.Table:
    """The table's cells as text: outcomes as ✓/✗ (blank where not applicable), scores to 2 places.

    Model names are cut in the middle to the column's width, one label per model of the frame, so that
    models sharing a long prefix stay apart (`nl2sql…Llama-13B`).
    """
    mark = {1: "✓", 0: "✗"}
    cols = []
    for name, _, width in COLUMNS:
        col = pl.col(name)
        if name == "model":
            models = frame.get_column("model").drop_nulls().unique().to_list()
            expr = col.cast(pl.Utf8).replace(short_labels(models, width)).fill_null("")
        elif name in ("ex", "em"):
            expr = col.replace_strict(mark, default="", return_dtype=pl.Utf8)
        elif name == "pm":
            expr = col.round(2).cast(pl.Utf8).fill_null("")
        elif name == "question":
            expr = col.fill_null("").str.replace_all("\n", " ")
        else:
            expr = col.cast(pl.Utf8).fill_null("")
        cols.append(expr.alias(name))
    return frame.select(cols).to_arrow().combine_chunks()  # one chunk: a cell is then read in O(1)
