"""The browse screen's first look, drawn before its frame is read: the row count and the first rows.

Shown for a workspace opened with nothing to evaluate (`tui.opening.FirstPage`), with the browse
screen's layout, sidebar, search box, status line and detail pane, and a table drawn like the examples
table (its columns, widths, header, stripes and cursor). Nothing here imports polars, numpy or
pyarrow: the app reads the frame once this screen is drawn, then puts the browse screen in its place.
Keys pressed meanwhile wait in the app (`SqlTriageApp.on_event`) and reach the browse screen in order.
"""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.geometry import Size
from textual.message import Message
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.strip import Strip

from sqltriage.tui.opening import FirstPage
from sqltriage.tui.screens.browse_layout import browse_layout
from sqltriage.tui.widgets.table_columns import COLUMNS


def status_text(total: int, ex_mode: str) -> Text:
    """The status line of the browse screen with every row shown and no filter or sort."""
    status = Text()
    status.append(f"{total:,} of {total:,}", style="bold")
    status.append(f" (example, model) rows · no filter · EX in {ex_mode} mode", style="")
    return status


class FirstPageTable(ScrollView, can_focus=True):
    """The first rows, drawn as the examples table draws them, over a scroll area as tall as every row."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "datatable--header",
        "datatable--even-row",
        "datatable--odd-row",
        "datatable--cursor",
    }
    # the examples table's look (textual-fastdatatable's DataTable defaults)
    DEFAULT_CSS = """
    FirstPageTable:dark { background: initial; }
    FirstPageTable { background: $surface; color: $text; height: auto; max-height: 100vh; }
    FirstPageTable > .datatable--header { text-style: bold; background: $primary; color: $text; }
    FirstPageTable > .datatable--even-row { background: $primary 10%; }
    FirstPageTable:dark > .datatable--even-row { background: $primary 15%; }
    FirstPageTable > .datatable--cursor { background: $secondary; color: $text; }
    """

    def __init__(self, page: FirstPage, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.page = page
        self._widths = [w + 2 for _, _, w in COLUMNS]  # each cell padded by one on both sides
        self.virtual_size = Size(sum(self._widths), page.total + 1)

    def _line(self, texts: tuple[str, ...], style: Style) -> list[Segment]:
        console = self.app.console
        out = []
        for text, width in zip(texts, self._widths, strict=True):
            fitted = console.render_lines(Text(text), console.options.update_dimensions(width - 2, 1))[0]
            out.append(Segment(f" {''.join(s.text for s in fitted)} ", style))
        return out

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        if y == 0:
            style = base + self.get_component_rich_style("datatable--header")
            return Strip(self._line(tuple(h for _, h, _ in COLUMNS), style)).extend_cell_length(width, style)
        row = y - 1
        if row >= len(self.page.cells):
            return Strip.blank(width, base)
        kind = "datatable--cursor" if row == 0 else f"datatable--{'odd' if row % 2 else 'even'}-row"
        style = base + self.get_component_rich_style(kind)
        return Strip(self._line(self.page.cells[row], style)).extend_cell_length(width, style).crop(0, width)


class FirstScreen(Screen):
    """The browse screen's layout with the first rows and "N of N", until the browse screen replaces it."""

    class Drawn(Message):
        """The first screen is on the terminal: the app reads the frame now."""

    def __init__(self, page: FirstPage) -> None:
        super().__init__()
        self.page = page

    def compose(self) -> ComposeResult:
        table = FirstPageTable(self.page, id="examples")
        sections = getattr(self.app, "facet_sections", ((), ()))
        yield from browse_layout(sections, status_text(self.page.total, self.page.ex_mode), table)

    def on_mount(self) -> None:
        self.query_one(FirstPageTable).focus()
        self.call_after_refresh(self.post_message, self.Drawn())  # after this screen's first paint
