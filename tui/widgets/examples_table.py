"""The examples table: a virtual table over an Arrow copy of the filtered frame.

Only visible rows are rendered (textual-fastdatatable), and a new filter or sort swaps the whole backend
at once instead of adding rows one by one, so 100k rows cost what a screenful costs.
"""

from __future__ import annotations

from typing import ClassVar

import polars as pl
import pyarrow as pa
from textual.binding import Binding, BindingType
from textual.coordinate import Coordinate
from textual_fastdatatable import DataTable
from textual_fastdatatable.backend import ArrowBackend

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
    """The table's cells as text: outcomes as ✓/✗ (blank where not applicable), scores to 2 places."""
    mark = {1: "✓", 0: "✗"}
    cols = []
    for name, _, _ in COLUMNS:
        col = pl.col(name)
        if name in ("ex", "em"):
            expr = col.replace_strict(mark, default="", return_dtype=pl.Utf8)
        elif name == "pm":
            expr = col.round(2).cast(pl.Utf8).fill_null("")
        elif name == "question":
            expr = col.fill_null("").str.replace_all("\n", " ")
        else:
            expr = col.cast(pl.Utf8).fill_null("")
        cols.append(expr.alias(name))
    return frame.select(cols).to_arrow()


class _FixedWidthBackend(ArrowBackend):
    """Arrow data with the widths we choose: measuring every cell of 100k rows would cost seconds."""

    def __init__(self, data: pa.Table, widths: list[int]) -> None:
        super().__init__(data)
        self._fixed_widths = widths

    @property
    def column_content_widths(self) -> list[int]:
        return self._fixed_widths


class ExamplesTable(DataTable):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False, id="table.down"),
        Binding("k", "cursor_up", "Up", show=False, id="table.up"),
        Binding("g", "cursor_table_start", "First row", show=False, id="table.first"),
        Binding("G", "cursor_table_end", "Last row", show=False, id="table.last"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        widths = [w for _, _, w in COLUMNS]
        super().__init__(
            backend=_FixedWidthBackend(display_arrow(_empty()), widths),
            column_labels=[h for _, h, _ in COLUMNS],
            column_widths=widths,
            cursor_type="row",
            show_row_labels=False,
            zebra_stripes=True,
            render_markup=False,
            id=id,
        )
        self._widths = widths

    def show(self, data: pa.Table, cursor_row: int = 0) -> None:
        """Replace every row with `data` (from `display_arrow`, made in a worker) and place the cursor."""
        self.backend = _FixedWidthBackend(data, self._widths)
        self.backend.render_markup = False
        self._ordered_columns = None
        self._clear_caches()
        self._update_count += 1
        self._require_update_dimensions = False
        self._update_dimensions([])
        row = max(0, min(cursor_row, self.row_count - 1))
        self.cursor_coordinate = Coordinate(row, 0)
        self.refresh()


def _empty() -> pl.DataFrame:
    return pl.DataFrame(
        {
            name: pl.Series(
                [],
                dtype=pl.Float64 if name == "pm" else pl.Int64 if name in ("index", "ex", "em") else pl.Utf8,
            )
            for name, _, _ in COLUMNS
        }
    )
