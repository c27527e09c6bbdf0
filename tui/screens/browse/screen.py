"""The browse screen itself: its widgets, the keys that move focus or resize panes, the table's messages.

`BrowseScreen` combines the concerns of this package, each a mixin over the shared state
(`state.BrowseState`, whose constructor it keeps: the frame, its sources, models and the app's
`session.BrowseSession`): filtering, detail, triage and export run their work
in thread workers that post messages (`messages`), and only the handlers touch widgets. A triage change
is shown as saved only once its transaction has committed.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.widgets import Footer, Input
from textual_fastdatatable import DataTable

from sqltriage.tui.screens.browse.detail import DetailMixin
from sqltriage.tui.screens.browse.export import ExportMixin
from sqltriage.tui.screens.browse.filtering import FilteringMixin
from sqltriage.tui.screens.browse.keys import BINDINGS
from sqltriage.tui.screens.browse.loading import LoadingMixin
from sqltriage.tui.screens.browse.triage import TriageMixin
from sqltriage.tui.screens.browse_layout import browse_layout
from sqltriage.tui.widgets.detail_pane import DetailPane
from sqltriage.tui.widgets.examples_table import ExamplesTable
from sqltriage.tui.widgets.facet_panel import FacetPanel

DETAIL_STEP = 3  # rows the detail pane grows or shrinks per key
MIN_DETAIL = 6  # the detail pane keeps its tabs and a few lines
MIN_TABLE = 4  # the table keeps its header and a few rows


class BrowseScreen(FilteringMixin, DetailMixin, TriageMixin, ExportMixin, LoadingMixin):
    """Facets, the examples table with "n of N", the detail of the highlighted row, triage and export."""

    BINDINGS: ClassVar[list[BindingType]] = BINDINGS  # keys.py: one list, with the ids the keymap uses

    # --- widgets, start and stop ------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield from browse_layout(self.session.facet_sections, "", ExamplesTable(id="examples"))
        # the Footer is mounted after the first paint (`_show_footer`)

    async def _show_footer(self) -> None:
        """Mount the key footer once the rows are drawn.

        A footer rebuilds its keys on every change of focus or bindings, and the screen's start makes
        several (about 20 ms each, before the rows could be drawn); mounted afterwards it builds them once.
        """
        await self.mount(Footer(compact=True))  # the keys of the browse screen fit one line more nearly
        self.refresh_bindings()

    def on_mount(self) -> None:
        self.query_one(ExamplesTable).focus()
        self.read_accepted_golds()
        self.show_first_rows()
        if (collector := self.session.idle_gc) is not None:
            collector.start(self)

    def on_unmount(self) -> None:
        if (collector := self.session.idle_gc) is not None:
            collector.stop(self)

    # --- the table's messages: to the detail pane -------------------------------------------------

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._row_changed()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open_detail()

    # --- focus ------------------------------------------------------------------------------------

    def action_search(self) -> None:
        self.query_one("#search", Input).focus()

    def action_focus_facets(self) -> None:
        self.query_one(FacetPanel).focus()

    def action_focus_table(self) -> None:
        self.query_one(ExamplesTable).focus()

    def action_open_detail(self) -> None:
        self.query_one(DetailPane).focus_body()

    def action_leave_box(self) -> None:
        """`down` in the sidebar's filter box goes to the values, in the search box to the table."""
        if self.query_one("#facet-filter", Input).has_focus:
            self.query_one(FacetPanel).focus()
        elif self.query_one("#search", Input).has_focus:
            self.query_one(ExamplesTable).focus()

    def action_back(self) -> None:
        facet_filter = self.query_one("#facet-filter", Input)
        if facet_filter.has_focus and facet_filter.value:
            facet_filter.value = ""  # first escape clears the facet filter, the next leaves it
            return
        if self.maximized is not None:
            self.action_toggle_maximize()
            return
        self.query_one(ExamplesTable).focus()

    # --- the detail pane: maximise, restore, resize -----------------------------------------------

    def action_toggle_maximize(self) -> None:
        """The detail pane over the whole screen, or back in its place (the key that did it undoes it)."""
        detail = self.query_one(DetailPane)
        if self.maximized is detail:
            self.minimize()
            self.query_one(ExamplesTable).focus()
        else:
            self.maximize(detail, container=False)
            detail.focus_body()

    def action_grow_detail(self) -> None:
        self.resize_detail(self.detail_lines() + DETAIL_STEP)

    def action_shrink_detail(self) -> None:
        self.resize_detail(self.detail_lines() - DETAIL_STEP)

    def detail_lines(self) -> int:
        return self.query_one(DetailPane).outer_size.height

    def resize_detail(self, lines: int) -> None:
        """Give the detail pane `lines` rows (kept between a few rows for it and for the table)."""
        main = self.query_one("#main").size.height
        fixed = sum(self.query_one(sel).outer_size.height for sel in ("#search", "#status"))
        lines = max(MIN_DETAIL, min(lines, main - fixed - MIN_TABLE))
        self.query_one(DetailPane).styles.height = lines

    @on(DetailPane.DragSplit)
    def _drag_split(self, message: DetailPane.DragSplit) -> None:
        main = self.query_one("#main").region
        self.resize_detail(main.bottom - message.screen_y)

    def action_show_tab(self, key: str) -> None:
        self.query_one(DetailPane).active = f"tab-{key}"

    # --- other models of the example, the summary -------------------------------------------------

    def action_next_model(self) -> None:
        self._step_model(+1)

    def action_prev_model(self) -> None:
        self._step_model(-1)

    def _step_model(self, step: int) -> None:
        """The same example under the previous / next model (in the workspace's model order)."""
        self._row_changed()
        if self.current is None or len(self.models) < 2:
            return
        index, model = self.current
        pos = self.models.index(model) if model in self.models else 0
        for i in range(1, len(self.models)):
            other = self.models[(pos + step * i) % len(self.models)]
            row = self._row_of((index, other))
            if row is not None:
                self.query_one(ExamplesTable).move_cursor(row=row)
                return
        self.notify(f"example #{index} has no other model under the current filter", severity="warning")

    def action_summary(self) -> None:
        from sqltriage.tui.screens.summary import SummaryScreen

        if self.wait_for_rest(self.action_summary):  # the summary's metrics, once they are read
            return

        self.app.push_screen(SummaryScreen(self.frame, self.models, ex_mode=self.ex_mode))
