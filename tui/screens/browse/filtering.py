"""Facets, search and sort on the browse screen: the rows shown, their live counts and "n of N".

The frame they are made from is written here only: triage patches it (tags, notes) or reads it again
(re-scored golds) and loading completes it, each through a method of this module.

A filter request runs `apply_filters`, a plain function of the frame, its facet index, the filters and
the sort, in a thread worker; one filter worker runs at a time and requests made meanwhile collapse
into one run with the newest state.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa
from rich.text import Text
from textual import on, work
from textual.widgets import Input, Static
from textual_fastdatatable import DataTable

from sqltriage.core.reporting import facets
from sqltriage.tui.screens.browse.messages import FiltersApplied
from sqltriage.tui.screens.browse.state import BrowseState, RowKey, freeze_long_lived
from sqltriage.tui.widgets.examples_table import SORT_COLUMNS, ExamplesTable, display_arrow
from sqltriage.tui.widgets.facet_panel import FacetPanel


def apply_filters(
    frame: pl.DataFrame,
    index: facets.FacetIndex | None,
    data: pa.Table | None,
    filters: facets.Filters,
    column: str | None,
    desc: bool,
) -> tuple[facets.FacetIndex, pa.Table, np.ndarray, dict[str, list[tuple[str, int]]]]:
    """The rows `filters` keep sorted by `column`, and each facet value's live count.

    Also returns the index and display cells they refer to: `index` and `data` as given while made from
    `frame`, else rebuilt (re-tagged only when the frame kept its rows: a tag change).
    """
    if index is None or index.frame is not frame:  # a new load, or tags changed
        same_rows = index is not None and index.height == frame.height
        index = index.retagged(frame) if same_rows else facets.FacetIndex(frame)
        data = display_arrow(frame)
    assert data is not None
    rows = index.rows(filters, column, desc)
    counts = index.counts(filters)
    return index, data, rows, counts


class FilteringMixin(BrowseState):
    """The frame, and its filters and sort made into rows, counts and the status line."""

    # --- the frame: written here only (triage patches it or reads it again, loading completes it) ---

    def patch_frame(self, frame: pl.DataFrame) -> None:
        """The same rows with some cells changed (tags, notes): the next filter run re-tags the index."""
        self.frame = frame

    def reread_frame(self, frame: pl.DataFrame) -> None:
        """The frame read again (re-scored rows): every column may have changed, so index and cells go."""
        self.frame, self.index, self.cells = frame, None, None

    def complete_frame(self, frame: pl.DataFrame) -> None:
        """The same rows with the columns the first screen did not need (`loading`)."""
        self.frame, self._view = frame, None
        if self.index is not None and self.index.height == frame.height:
            self.index = self.index.retagged(frame)  # the same rows: codes, counts and sort keys stay
            self._warm_worker(self.index)  # the searched texts, now that the predictions are here

    @property
    def view(self) -> pl.DataFrame:
        """The filtered, sorted rows themselves (for export, bulk tagging): gathered when asked for."""
        if self._view is None or self._view[0] is not self.rows:
            self._view = (self.rows, self.frame[self.rows] if len(self.rows) else self.frame.head(0))
        return self._view[1]

    def refilter(self, keep: RowKey | None = None) -> None:
        """Recompute the rows and counts in a worker.

        One filter worker runs at a time; requests made meanwhile (fast typing) collapse into one run
        with the newest state once it reports, so keys never queue up behind stale work.
        """
        self.generation += 1
        self._pending_cursor = keep or self.current
        if not self._filtering:
            self._start_filter()

    def show_first_rows(self) -> None:
        """The unfiltered rows and counts: at once when the facet index came with the frame (`tui.opening`),
        so that the first paint already shows them, else from a filter worker as any filter.

        Counting from a ready index takes milliseconds even at 100k rows; a worker's round trip would
        let the screen be drawn once without its rows first, which costs as much as drawing it with them.
        """
        if self.index is None or self.cells is None or self.index.frame is not self.frame:
            self.refilter()
            return
        self.generation += 1
        index, data, rows, counts = apply_filters(
            self.frame, self.index, self.cells, self.filters, self.sort_column, self.sort_descending
        )
        self.on_filters_applied(FiltersApplied(self.generation, index, data, rows, counts))

    def _start_filter(self) -> None:
        if self.filters.search.strip() and self.wait_for_rest(self.refilter):
            return  # the predictions searched are still being read: the newest filter runs then
        self._filtering = True
        state = (self.filters, self.sort_column, self.sort_descending)
        self._filter_worker(self.generation, self.frame, self.index, self.cells, *state)

    @work(thread=True, group="filter")
    def _filter_worker(
        self,
        generation: int,
        frame: pl.DataFrame,
        index: facets.FacetIndex | None,
        data: pa.Table | None,
        filters: facets.Filters,
        column: str | None,
        desc: bool,
    ) -> None:
        index, data, rows, counts = apply_filters(frame, index, data, filters, column, desc)
        self.post_message(FiltersApplied(generation, index, data, rows, counts))

    @work(thread=True, group="warm")
    def _warm_worker(self, index: facets.FacetIndex) -> None:
        index.warm(SORT_COLUMNS)

    def on_filters_applied(self, message: FiltersApplied) -> None:
        self._filtering = False
        fresh = self.index is None or not self._opened  # a new load (its index maybe made beforehand)
        self.index, self.cells = message.index, message.data
        if fresh:
            self._warm_worker(message.index)
            self.call_after_refresh(freeze_long_lived)
        if not self._opened:
            self._opened = True
            self.call_after_refresh(self._show_footer)
            self.call_after_refresh(self._load_rest)  # the columns the first screen did not need
        if message.generation != self.generation or message.index.frame is not self.frame:
            self._start_filter()  # newer requests came in meanwhile: run once more with the latest
            return
        with self.app.batch_update():
            self.rows = message.rows
            row = self._row_of(self._pending_cursor) if self._pending_cursor else None
            self.query_one(ExamplesTable).show(message.data, message.rows, row or 0)
            self.query_one(FacetPanel).show(message.counts, self.filters.selected)
            self._update_status()
            self._row_changed(first_paint=fresh)

    def _update_status(self) -> None:
        sort = ""
        if self.sort_column:
            sort = f" · sorted by {self.sort_column}{' ↓' if self.sort_descending else ' ↑'}"
        status = Text()
        status.append(f"{len(self.rows):,} of {self.frame.height:,}", style="bold")
        status.append(
            f" (example, model) rows · {self.filters.describe()}{sort} · EX in {self.ex_mode} mode"
            f"{self._engine_label()}",
            style="",
        )
        self.query_one("#status", Static).update(status, layout=False)  # one fixed line: no re-layout

    def _engine_label(self) -> str:
        """Where the queries ran, when not on SQLite files: the engine and the dialect they were read in
        (the workspace's meta, as `eval --db-url` stored them)."""
        ws = self.session.workspace
        try:
            engine, dialect = (
                (ws.get_meta("engine"), ws.get_meta("dialect")) if ws is not None else (None, None)
            )
        except Exception:  # a workspace that cannot be read now: the line goes without it
            return ""
        if not engine or engine == "sqlite":
            return ""
        return f" · on {engine}" + (f", read as {dialect} SQL" if dialect else "")

    @property
    def status_text(self) -> str:
        return str(self.query_one("#status", Static).render())

    def toggle_facet(self, facet: str, value: str) -> None:
        """One facet value in or out of the filter (the sidebar, the palette)."""
        self.filters = self.filters.toggled(facet, value)
        self.refilter()

    @on(FacetPanel.Toggled)
    def _toggle(self, message: FacetPanel.Toggled) -> None:
        self.toggle_facet(message.facet, message.value)

    @on(FacetPanel.ClearFacet)
    def _clear_facet(self, message: FacetPanel.ClearFacet) -> None:
        self.filters = self.filters.cleared(message.facet)
        self.refilter()

    @on(FacetPanel.SectionsChanged)
    def _remember_sections(self, message: FacetPanel.SectionsChanged) -> None:
        """Keep the sidebar's open/closed sections in the config, so the next launch looks the same."""
        path = self.session.config_file
        self.session.facet_sections = (tuple(message.opened), tuple(message.closed))
        if path is None:
            return
        from sqltriage.tui.config import save_facet_sections

        try:
            save_facet_sections(path, message.opened, message.closed)
        except OSError as exc:
            self.notify(f"could not remember the sidebar in {path}: {exc.strerror}", severity="warning")

    @on(FacetPanel.FilterWanted)
    def _focus_facet_filter(self) -> None:
        self.query_one("#facet-filter", Input).focus()

    @on(Input.Changed, "#facet-filter")
    def _facet_filter_changed(self, event: Input.Changed) -> None:
        self.query_one(FacetPanel).set_filter(event.value)

    @on(Input.Submitted, "#facet-filter")
    def _facet_filter_done(self) -> None:
        self.query_one(FacetPanel).focus()

    @on(Input.Changed, "#search")
    def _search_changed(self, event: Input.Changed) -> None:
        self.filters = self.filters.with_search(event.value)
        self.refilter()

    @on(Input.Submitted, "#search")
    def _search_done(self) -> None:
        self.query_one(ExamplesTable).focus()

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

    def show_examples(self, models: list[str], examples: frozenset[int], label: str) -> None:
        """Browse exactly these examples under these models (a comparison cell), other filters cleared."""
        self.filters = facets.Filters({"model": frozenset(models)}).with_examples(examples, label)
        search = self.query_one("#search", Input)
        with search.prevent(Input.Changed):
            search.value = ""
        self.refilter()
