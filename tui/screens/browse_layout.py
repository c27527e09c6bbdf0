"""The browse screen's widget tree, shared with the first screen that stands in for it while the frame loads,
so that the swap moves nothing on the terminal. Imports no polars: the first screen is drawn before it."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Input, Static

from sqltriage.tui.widgets.detail_pane import DetailPane
from sqltriage.tui.widgets.facet_panel import FacetPanel


def browse_layout(sections: tuple[Sequence[str], Sequence[str]], status: str, table: Widget) -> ComposeResult:
    """Facets on the left, their `sections` (opened, closed) as remembered; search, the status line
    ("n of N"), `table` (id "examples") and the detail pane."""
    opened, closed = sections
    with Horizontal():
        with Vertical(id="sidebar"):
            yield Input(placeholder="/ filter facet values", id="facet-filter")
            yield FacetPanel(opened=opened, closed=closed, id="facets")
        with Vertical(id="main"):
            yield Input(placeholder="/ search question and SQL", id="search")
            yield Static(status, id="status")
            yield table
            yield DetailPane(id="detail")
