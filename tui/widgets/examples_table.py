"""The examples table: a virtual table over the display cells of every row, shown through row numbers.

The cells of the whole frame are made once per load (`display_arrow`); a filter or sort only hands the
table new row numbers, and only the visible rows are read (textual-fastdatatable renders a screenful),
so a keystroke costs the same at 100k rows as at 100.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, ClassVar, Literal

import numpy as np
import polars as pl
import pyarrow as pa
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.coordinate import Coordinate
from textual_fastdatatable import DataTable
from textual_fastdatatable.backend import DataTableBackend

from sqltriage.tui.widgets.table_columns import COLUMNS, SORT_COLUMNS, display_arrow

__all__ = ["COLUMNS", "SORT_COLUMNS", "ExamplesTable", "RowsBackend", "display_arrow"]

FITTED_CACHE = 20_000  # distinct (text, width) pairs kept; a screenful needs a few hundred


class RowsBackend(DataTableBackend[pa.Table]):
    """Some rows of a display table, by row number, without copying them: read-only.

    Building a backend is O(1) whatever the number of rows; only the rows drawn are converted.
    """

    def __init__(self, data: pa.Table, rows: np.ndarray | None, widths: list[int]) -> None:
        super().__init__(data)
        self.data = data
        self.rows = rows  # None: every row, in order
        self._widths = widths
        self._columns = [c.chunk(0) if c.num_chunks == 1 else c for c in data.columns]

    @classmethod
    def from_pydict(cls, data: Any, max_rows: int | None = None, column_names: Any = None) -> RowsBackend:
        table = pa.Table.from_pydict(dict(data))
        return cls(table, None, [0] * table.num_columns)

    def _row(self, index: int) -> int:
        if not 0 <= index < self.row_count:
            raise IndexError(index)
        return index if self.rows is None else int(self.rows[index])

    @property
    def source_data(self) -> pa.Table:
        return self.data if self.rows is None else self.data.take(pa.array(self.rows))

    @property
    def source_row_count(self) -> int:
        return self.row_count

    @property
    def row_count(self) -> int:
        return self.data.num_rows if self.rows is None else len(self.rows)

    @property
    def columns(self) -> Sequence[str]:
        return self.data.column_names

    @property
    def column_content_widths(self) -> list[int]:
        return self._widths  # measuring every cell of 100k rows would cost seconds

    def get_row_at(self, index: int) -> Sequence[Any]:
        row = self._row(index)
        return [column[row].as_py() for column in self._columns]

    def get_column_at(self, index: int) -> Sequence[Any]:
        column = self.data.column(index)
        return (column if self.rows is None else column.take(pa.array(self.rows))).to_pylist()

    def get_cell_at(self, row_index: int, column_index: int) -> Any:
        return self._columns[column_index][self._row(row_index)].as_py()

    def _read_only(self, *_: Any, **__: Any) -> Any:
        raise NotImplementedError("the examples table is read-only: filter or sort through the screen")

    def append_column(self, label: str, default: Any | None = None) -> int:
        return self._read_only()

    def append_rows(self, records: Iterable[Iterable[Any]]) -> list[int]:
        return self._read_only()

    def drop_row(self, row_index: int) -> None:
        self._read_only()

    def update_cell(self, row_index: int, column_index: int, value: Any) -> None:
        self._read_only()

    def sort(self, by: list[tuple[str, Literal["ascending", "descending"]]] | str) -> None:
        self._read_only()


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
            backend=RowsBackend(display_arrow(_empty()), None, widths),
            column_labels=[h for _, h, _ in COLUMNS],
            column_widths=widths,
            cursor_type="row",
            show_row_labels=False,
            zebra_stripes=True,
            render_markup=False,
            id=id,
        )
        self._widths = widths

    def _render_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
        in_range: bool = False,
    ) -> list[list[Segment]]:
        """A body cell as one segment, its text fitted once per distinct value and width.

        The table's own path runs every cell through rich's padding and wrapping machinery (about 50 µs
        a cell, 20-30 ms a screenful after each filter). Our cells are plain one-line text, so after the
        first time a value is seen at a width, the line is a dictionary lookup and one style sum. Anything
        else (header, multi-line or non-text values) takes the table's own path.
        """
        if row_index < 0 or column_index < 0 or width < 3 or self.fixed_rows or self.fixed_columns:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover, in_range)
        value = self.backend.get_cell_at(row_index, column_index) if self.backend else None
        if not isinstance(value, str) or "\n" in value or "\r" in value:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover, in_range)
        key = (
            row_index,
            column_index,
            base_style,
            cursor,
            hover,
            in_range,
            self._show_hover_cursor,
            self._update_count,
            self._pseudo_class_state,
        )
        lines = self._cell_render_cache.get(key)
        if lines is None:
            component_style, post_style = self._get_styles_to_render_cell(
                False,
                False,
                False,
                hover,
                cursor,
                in_range,
                self.show_cursor,
                self._show_hover_cursor,
                self.cursor_type == "range",
                self.cursor_foreground_priority == "css",
                self.cursor_background_priority == "css",
            )
            meta = Style.from_meta({"row": row_index, "column": column_index})
            style = base_style + meta + component_style + post_style
            lines = [[Segment(f" {self._fitted(value, width - 2)} ", style)]]
            self._cell_render_cache[key] = lines
        return lines

    def _fitted(self, value: str, width: int) -> str:
        """`value` as the one line rich would show in `width` cells (wrapped at words, padded)."""
        fitted = _FITTED.get((value, width))
        if fitted is None:
            console = self.app.console
            line = console.render_lines(Text(value), console.options.update_dimensions(width, 1))[0]
            fitted = "".join(segment.text for segment in line)
            if len(_FITTED) >= FITTED_CACHE:
                _FITTED.clear()
            _FITTED[(value, width)] = fitted
        return fitted

    def show(self, data: pa.Table, rows: np.ndarray | None = None, cursor_row: int = 0) -> None:
        """Show these `rows` of `data` (from `display_arrow`, made once per load) and place the cursor."""
        self.backend = RowsBackend(data, rows, self._widths)
        self.backend.render_markup = False
        self._ordered_columns = None
        self._clear_caches()
        self._update_count += 1
        self._require_update_dimensions = False
        self._update_dimensions([])
        row = max(0, min(cursor_row, self.row_count - 1))
        self.cursor_coordinate = Coordinate(row, 0)
        self.refresh()


_FITTED: dict[tuple[str, int], str] = {}


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
