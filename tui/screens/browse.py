"""The browse screen: facets, the examples table with "n of N", and the detail of the highlighted row.

State lives here (the full frame, the filters, the sort); filtering, detail analysis and live queries
run in thread workers that post messages, and only the handlers below touch widgets.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import polars as pl
import pyarrow as pa
from rich.console import RenderableType
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Input, Static, TabbedContent
from textual.worker import get_current_worker
from textual_fastdatatable import DataTable

from sqltriage.core import facets
from sqltriage.core.model import Schema
from sqltriage.tui.widgets.detail_pane import DetailPane
from sqltriage.tui.widgets.examples_table import SORT_COLUMNS, ExamplesTable, display_arrow
from sqltriage.tui.widgets.facet_panel import FacetPanel

RowKey = tuple[int, str]  # (example index, model)


@dataclass(frozen=True, slots=True)
class Sources:
    """Where the detail tabs find schemas and databases (the loaded dataset), and live-run limits."""

    schemas: Mapping[str, Schema]
    databases: Mapping[str, Path | None]
    timeout: float
    max_rows: int


class FiltersApplied(Message):
    def __init__(self, generation: int, view: pl.DataFrame, data: pa.Table, counts: dict) -> None:
        super().__init__()
        self.generation = generation
        self.view = view
        self.data = data
        self.counts = counts


class DetailReady(Message):
    def __init__(self, key: RowKey, tabs: dict[str, RenderableType]) -> None:
        super().__init__()
        self.key = key
        self.tabs = tabs


class LiveResult(Message):
    def __init__(self, key: RowKey, renderable: RenderableType, outcomes: dict[str, int | None]) -> None:
        super().__init__()
        self.key = key
        self.renderable = renderable
        self.outcomes = outcomes


class BrowseScreen(Screen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "search", "Search", id="browse.search"),
        Binding("f", "focus_facets", "Facets", id="browse.facets"),
        Binding("t", "focus_table", "Table", id="browse.table"),
        Binding("enter", "open_detail", "Detail", id="browse.detail"),
        Binding("left_square_bracket", "prev_model", "Prev model", id="browse.prev_model", key_display="["),
        Binding("right_square_bracket", "next_model", "Next model", id="browse.next_model", key_display="]"),
        Binding("s", "sort", "Sort", id="browse.sort"),
        Binding("S", "reverse_sort", "Reverse sort", show=False, id="browse.reverse_sort"),
        Binding("c", "clear_filters", "Clear filters", id="browse.clear"),
        Binding("1", "show_tab('sql')", "SQL tab", show=False, id="browse.tab_sql"),
        Binding("2", "show_tab('breakdown')", "Breakdown tab", show=False, id="browse.tab_breakdown"),
        Binding("3", "show_tab('results')", "Results tab", show=False, id="browse.tab_results"),
        Binding("4", "show_tab('question')", "Question tab", show=False, id="browse.tab_question"),
        Binding("escape", "back", "Back", show=False, id="browse.back"),
    ]

    def __init__(self, frame: pl.DataFrame, sources: Sources, models: list[str]) -> None:
        super().__init__()
        self.frame = frame  # prepared (core.facets.prepare), every (example, model)
        self.sources = sources
        self.models = models
        self.filters = facets.Filters()
        self.sort_column: str | None = None
        self.sort_descending = False
        self.view = frame.head(0)
        self.generation = 0
        self.current: RowKey | None = None
        self._pending_cursor: RowKey | None = None
        self._live_key: RowKey | None = None
        self.last_outcomes: dict[str, int | None] = {}

    # --- layout -----------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield FacetPanel(id="facets")
            with Vertical(id="main"):
                yield Input(placeholder="/ search question and SQL", id="search")
                yield Static("", id="status")
                yield ExamplesTable(id="examples")
                yield DetailPane(id="detail")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(ExamplesTable).focus()
        self.refilter()

    # --- filtering --------------------------------------------------------------------------------

    def refilter(self, keep: RowKey | None = None) -> None:
        """Recompute the view and counts in a worker; the newest request wins."""
        self.generation += 1
        self._pending_cursor = keep or self.current
        self._filter_worker(self.generation, self.filters, self.sort_column, self.sort_descending)

    @work(thread=True, exclusive=True, group="filter")
    def _filter_worker(
        self, generation: int, filters: facets.Filters, column: str | None, desc: bool
    ) -> None:
        view = facets.sort_frame(facets.apply(self.frame, filters), column, desc)
        if get_current_worker().is_cancelled:
            return
        counts = facets.facet_counts(self.frame, filters)
        data = display_arrow(view)
        self.post_message(FiltersApplied(generation, view, data, counts))

    def on_filters_applied(self, message: FiltersApplied) -> None:
        if message.generation != self.generation:
            return  # a newer filter is on its way
        self.view = message.view
        row = self._row_of(self._pending_cursor) if self._pending_cursor else None
        self.query_one(ExamplesTable).show(message.data, row or 0)
        self.query_one(FacetPanel).show(message.counts, self.filters.selected)
        self._update_status()
        self._row_changed()

    def _update_status(self) -> None:
        sort = ""
        if self.sort_column:
            sort = f" · sorted by {self.sort_column}{' ↓' if self.sort_descending else ' ↑'}"
        status = Text()
        status.append(f"{self.view.height:,} of {self.frame.height:,}", style="bold")
        status.append(
            f" (example, model) rows · {self.filters.describe()}{sort} · EX in spider mode", style=""
        )
        self.query_one("#status", Static).update(status)

    @property
    def status_text(self) -> str:
        return str(self.query_one("#status", Static).render())

    def _row_of(self, key: RowKey | None) -> int | None:
        if key is None or self.view.is_empty():
            return None
        hits = (
            self.view.select(pl.int_range(pl.len()).alias("_row"), "index", "model")
            .filter((pl.col("index") == key[0]) & (pl.col("model") == key[1]))
            .get_column("_row")
        )
        return int(hits[0]) if len(hits) else None

    @on(FacetPanel.Toggled)
    def _toggle(self, message: FacetPanel.Toggled) -> None:
        self.filters = self.filters.toggled(message.facet, message.value)
        self.refilter()

    @on(FacetPanel.ClearFacet)
    def _clear_facet(self, message: FacetPanel.ClearFacet) -> None:
        self.filters = self.filters.cleared(message.facet)
        self.refilter()

    @on(Input.Changed, "#search")
    def _search_changed(self, event: Input.Changed) -> None:
        self.filters = self.filters.with_search(event.value)
        self.refilter()

    @on(Input.Submitted, "#search")
    def _search_done(self) -> None:
        self.query_one(ExamplesTable).focus()

    # --- the highlighted row ----------------------------------------------------------------------

    def row_at(self, row: int) -> dict[str, Any] | None:
        if not 0 <= row < self.view.height:
            return None
        return self.view.row(row, named=True)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._row_changed()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open_detail()

    def _row_changed(self) -> None:
        table = self.query_one(ExamplesTable)
        row = self.row_at(table.cursor_row) if table.row_count else None
        detail = self.query_one(DetailPane)
        if row is None:
            self.current = None
            for key in ("sql", "breakdown", "results", "question"):
                detail.set_tab(key, Text("no row matches the filter", style="dim"))
            return
        key = (row["index"], row["model"])
        if key == self.current:
            return
        self.current = key
        detail.editor.text = row.get("pred_sql") or ""
        self._live_key = None
        self._detail_worker(key, row)
        if detail.active == "tab-results":
            self.run_live(row.get("pred_sql") or "")

    @work(thread=True, exclusive=True, group="detail")
    def _detail_worker(self, key: RowKey, row: dict[str, Any]) -> None:
        from sqltriage.core.sql.partial_match import partial_match
        from sqltriage.tui.widgets.detail_render import render_breakdown, render_question
        from sqltriage.tui.widgets.sql_diff import render_sql_diff, sql_diff

        schema = self.sources.schemas.get(row["db_id"])
        gold, pred = row.get("gold_sql") or "", row.get("pred_sql") or ""
        tabs: dict[str, RenderableType] = {
            "sql": render_sql_diff(sql_diff(gold, pred), error=row.get("error"))
        }
        if get_current_worker().is_cancelled:
            return
        tabs["breakdown"] = render_breakdown(partial_match(gold, pred, schema))
        tabs["question"] = render_question(row, self.sources.databases.get(row["db_id"]))
        self.post_message(DetailReady(key, tabs))

    def on_detail_ready(self, message: DetailReady) -> None:
        if message.key != self.current:
            return
        detail = self.query_one(DetailPane)
        for key, renderable in message.tabs.items():
            detail.set_tab(key, renderable)

    @on(TabbedContent.TabActivated, "#detail-tabs")
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == "tab-results" and self.current is not None and self._live_key != self.current:
            self.run_live(self.query_one(DetailPane).editor.text)

    def run_live(self, pred_sql: str) -> None:
        row = self._current_row()
        if row is None:
            return
        key = (row["index"], row["model"])
        self._live_key = key
        self.query_one(DetailPane).set_tab("results", Text("running both queries…", style="dim"))
        self._live_worker(key, row["db_id"], row.get("gold_sql") or "", pred_sql)

    @work(thread=True, exclusive=True, group="live")
    def _live_worker(self, key: RowKey, db_id: str, gold_sql: str, pred_sql: str) -> None:
        from sqltriage.core.execution import run_pair
        from sqltriage.tui.widgets.detail_render import render_results

        db_path = self.sources.databases.get(db_id)
        if db_path is None:
            text = Text(f"database {db_id!r} is missing: nothing can run", style="bold red")
            self.post_message(LiveResult(key, text, {}))
            return
        run = run_pair(
            db_path, gold_sql, pred_sql, timeout=self.sources.timeout, max_rows=self.sources.max_rows
        )
        if get_current_worker().is_cancelled:
            return
        self.post_message(LiveResult(key, render_results(run), dict(run.outcomes)))

    def on_live_result(self, message: LiveResult) -> None:
        if message.key != self.current:
            return
        self.last_outcomes = message.outcomes
        self.query_one(DetailPane).set_tab("results", message.renderable)

    def _current_row(self) -> dict[str, Any] | None:
        row = self._row_of(self.current)
        return self.row_at(row) if row is not None else None

    # --- actions ----------------------------------------------------------------------------------

    def action_search(self) -> None:
        self.query_one("#search", Input).focus()

    def action_focus_facets(self) -> None:
        self.query_one(FacetPanel).focus()

    def action_focus_table(self) -> None:
        self.query_one(ExamplesTable).focus()

    def action_open_detail(self) -> None:
        self.query_one(DetailPane).focus()

    def action_back(self) -> None:
        self.query_one(ExamplesTable).focus()

    def action_show_tab(self, key: str) -> None:
        self.query_one(DetailPane).active = f"tab-{key}"

    def action_run_edited(self) -> None:
        """Run the edited prediction: a what-if that never changes the stored prediction."""
        detail = self.query_one(DetailPane)
        detail.active = "tab-results"
        self.run_live(detail.editor.text)

    def action_clear_filters(self) -> None:
        self.filters = facets.Filters()
        search = self.query_one("#search", Input)
        with search.prevent(Input.Changed):
            search.value = ""
        self.refilter()

    def action_sort(self) -> None:
        """Cycle the sort column through the table's columns (then back to dataset order)."""
        order = [None, *SORT_COLUMNS]
        self.sort_column = order[(order.index(self.sort_column) + 1) % len(order)]
        self.refilter()

    def action_reverse_sort(self) -> None:
        self.sort_descending = not self.sort_descending
        self.refilter()

    def sort_by(self, column: str | None, descending: bool = False) -> None:
        self.sort_column, self.sort_descending = column, descending
        self.refilter()

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        column = SORT_COLUMNS[event.column_index]
        self.sort_by(column, not self.sort_descending if column == self.sort_column else False)

    def action_next_model(self) -> None:
        self._step_model(+1)

    def action_prev_model(self) -> None:
        self._step_model(-1)

    def _step_model(self, step: int) -> None:
        """The same example under the previous / next model (in the workspace's model order)."""
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
