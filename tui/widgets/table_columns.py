"""The examples table's columns and the text of their cells, without the UI.

Apart from the widget (`examples_table`) so that the cells of a workspace's frame can be made before
Textual is even imported (`tui.opening`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sqltriage.tui.widgets.names import short_labels

if (
    TYPE_CHECKING
):  # only `display_arrow` needs them: the first screen's cells are made without (`display_row`)
    import polars as pl
    import pyarrow as pa

# (frame column, header, width)
COLUMNS: tuple[tuple[str, str, int], ...] = (
    ("index", "#", 5),
    ("db_id", "db", 16),
    ("question", "question", 46),
    ("model", "model", 16),
    ("judgement", "call", 8),
    ("ex", "EX", 4),
    ("em", "EM", 4),
    ("pm", "PM", 5),
    ("structural", "structural", 14),
    ("operators", "operators", 12),
    ("hardness", "hardness", 8),
    ("tags", "tags", 16),
)
SORT_COLUMNS = tuple(c for c, _, _ in COLUMNS)
MARKS = {1: "✓", 0: "✗"}  # an outcome passed or failed; blank where it does not apply
DOUBTED = " ⚑"  # after the judgement: the example's gold is doubted (`gold_flags`, docs/judgement.md)


def display_arrow(frame: pl.DataFrame) -> pa.Table:
    """The table's cells as text: outcomes as ✓/✗ (blank where not applicable), scores to 2 places.

    Model names are cut in the middle to the column's width, one label per model of the frame, so that
    models sharing a long prefix stay apart (`nl2sql…Llama-13B`).
    """
    import polars as pl

    cols = []
    for name, _, _ in COLUMNS:
        col = pl.col(name)
        if name == "model":
            models = frame.get_column("model").drop_nulls().unique().to_list()
            expr = col.cast(pl.Utf8).replace(model_labels(models)).fill_null("")
        elif name in ("ex", "em"):
            expr = col.replace_strict(MARKS, default="", return_dtype=pl.Utf8)
        elif name == "pm":
            expr = col.round(2).cast(pl.Utf8).fill_null("")
        elif name == "question":
            expr = col.fill_null("").str.replace_all("\n", " ")
        elif name == "judgement" and "gold_flags" in frame.columns:
            flagged = pl.col("gold_flags").fill_null("") != ""
            expr = col.fill_null("") + pl.when(flagged).then(pl.lit(DOUBTED)).otherwise(pl.lit(""))
        else:
            expr = col.cast(pl.Utf8).fill_null("")
        cols.append(expr.alias(name))
    return frame.select(cols).to_arrow().combine_chunks()  # one chunk: a cell is then read in O(1)


def display_row(row: Mapping[str, Any], labels: Mapping[str, str]) -> tuple[str, ...]:
    """One row's cells as `display_arrow` makes them, from plain values (a row read straight from SQLite),
    with `labels` the model labels of the whole frame (`model_labels`)."""
    out: list[str] = []
    for name, _, _ in COLUMNS:
        value = row.get(name)
        if name == "model":
            out.append(labels.get(value, value) if value is not None else "")
        elif name in ("ex", "em"):
            out.append(MARKS.get(value, "") if isinstance(value, int) else "")
        elif name == "pm":
            # polars rounds the scaled value half to even, as Python's round does
            out.append("" if value is None else str(round(value * 100) / 100))
        elif name == "question":
            out.append("" if value is None else str(value).replace("\n", " "))
        elif name == "judgement":
            out.append(("" if value is None else str(value)) + (DOUBTED if row.get("gold_flags") else ""))
        else:
            out.append("" if value is None else str(value))
    return tuple(out)


def model_labels(models: Sequence[str]) -> dict[str, str]:
    """The model column's labels for a frame holding these models."""
    width = next(w for name, _, w in COLUMNS if name == "model")
    return short_labels(models, width)
