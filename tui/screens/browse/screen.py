"""The browse screen: facets, the examples table with "n of N", the detail of the highlighted row, triage.

State lives here (the full frame, the filters, the sort); filtering, detail analysis, live queries,
workspace writes and exports run in thread workers that post messages, and only the handlers below
touch widgets. A triage change is shown as saved only once its transaction has committed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

import polars as pl
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Input, Static
from textual_fastdatatable import DataTable

from sqltriage.core.reporting import facets
from sqltriage.core.triage.tags import GOLD_KINDS, Change
from sqltriage.tui.screens.browse.detail import DetailMixin
from sqltriage.tui.screens.browse.filtering import FilteringMixin
from sqltriage.tui.screens.browse.keys import BINDINGS
from sqltriage.tui.screens.browse.messages import (
    Exported,
    GoldsChanged,
    Saved,
    UndoFound,
)
from sqltriage.tui.screens.browse.state import RowKey
from sqltriage.tui.screens.modals import Confirm, ExportDialog, NoteEditor, TagPicker
from sqltriage.tui.widgets.detail_pane import DetailPane
from sqltriage.tui.widgets.examples_table import ExamplesTable
from sqltriage.tui.widgets.facet_panel import FacetPanel

DETAIL_STEP = 3  # rows the detail pane grows or shrinks per key
MIN_DETAIL = 6  # the detail pane keeps its tabs and a few lines
MIN_TABLE = 4  # the table keeps its header and a few rows


class BrowseScreen(FilteringMixin, DetailMixin):
    BINDINGS: ClassVar[list[BindingType]] = BINDINGS

    # --- layout -----------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        opened, closed = getattr(self.app, "facet_sections", ((), ()))
        with Horizontal():
            with Vertical(id="sidebar"):
                yield Input(placeholder="/ filter facet values", id="facet-filter")
                yield FacetPanel(opened=opened, closed=closed, id="facets")
            with Vertical(id="main"):
                yield Input(placeholder="/ search question and SQL", id="search")
                yield Static("", id="status")
                yield ExamplesTable(id="examples")
                yield DetailPane(id="detail")
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
        if (ws := getattr(self.app, "workspace", None)) is not None:
            from sqltriage.core.workspace.accepted import accepted

            self.accepted_golds = accepted(ws)
        self.refilter()
        if (collector := getattr(self.app, "idle_gc", None)) is not None:
            collector.start(self)

    def on_unmount(self) -> None:
        if (collector := getattr(self.app, "idle_gc", None)) is not None:
            collector.stop(self)

    # --- filtering --------------------------------------------------------------------------------

    def action_leave_box(self) -> None:
        """`down` in the sidebar's filter box goes to the values, in the search box to the table."""
        if self.query_one("#facet-filter", Input).has_focus:
            self.query_one(FacetPanel).focus()
        elif self.query_one("#search", Input).has_focus:
            self.query_one(ExamplesTable).focus()

    # --- the highlighted row ----------------------------------------------------------------------

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._row_changed()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open_detail()

    # --- actions ----------------------------------------------------------------------------------

    def action_search(self) -> None:
        self.query_one("#search", Input).focus()

    def action_focus_facets(self) -> None:
        self.query_one(FacetPanel).focus()

    def action_focus_table(self) -> None:
        self.query_one(ExamplesTable).focus()

    def action_open_detail(self) -> None:
        self.query_one(DetailPane).focus_body()

    def action_back(self) -> None:
        facet_filter = self.query_one("#facet-filter", Input)
        if facet_filter.has_focus and facet_filter.value:
            facet_filter.value = ""  # first escape clears the facet filter, the next leaves it
            return
        if self.maximized is not None:
            self.action_toggle_maximize()
            return
        self.query_one(ExamplesTable).focus()

    # --- the detail pane: maximise, restore, resize -------------------------------------------------

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

    # --- triage: tags, notes, undo ----------------------------------------------------------------

    def _triage_row(self) -> dict[str, Any] | None:
        """The current row as the full frame has it: triage changes land there first."""
        self._row_changed()  # a key typed right after cursor moves acts on the row now under the cursor
        if self.current is None:
            return None
        index, model = self.current
        number = self.index.row_number(index, model) if self.index is not None else None
        if number is not None:
            return self.frame.row(number, named=True)  # a tag change keeps the rows' order
        hits = self.frame.filter((pl.col("index") == index) & (pl.col("model") == model))
        return hits.row(0, named=True) if hits.height else None

    def _show_triage(self, row: dict[str, Any] | None = None) -> None:
        from sqltriage.tui.widgets.detail_render import render_triage

        row = row or self._triage_row()
        if row is None:
            return
        key = (row["index"], row["model"])
        self.query_one(DetailPane).set_tab(
            "triage",
            render_triage(row.get("tags") or "", row.get("note") or "", self.suggestions.get(key, [])),
        )

    def _filtered_pairs(self) -> list[RowKey]:
        return [(int(i), str(m)) for i, m in self.view.select("index", "model").iter_rows()]

    def _used_tags(self) -> list[str]:
        tags = self.frame.get_column("_f_tag").explode().unique().sort().to_list()
        return [t for t in tags if t and t != facets.NONE_VALUE]

    def _row_tags(self, row: dict[str, Any]) -> list[str]:
        return [t for t in (row.get("tags") or "").split(", ") if t]

    def action_tag(self) -> None:
        row = self._triage_row()
        if row is None:
            return
        key = (row["index"], row["model"])
        have = set(self._row_tags(row))
        picker = TagPicker(
            self.app.taxonomy,  # type: ignore[attr-defined]
            title=f"tag #{key[0]} · {key[1]}",
            suggestions=[s for s in self.suggestions.get(key, []) if s.tag not in have],
            used=self._used_tags(),
        )

        def picked(tag: str | None) -> None:
            if tag:
                self.save("tag", [key], tag)

        self.app.push_screen(picker, picked)

    def action_tag_all(self) -> None:
        pairs = self._filtered_pairs()
        if not pairs:
            self.notify("no row matches the filter: nothing to tag", severity="warning")
            return
        picker = TagPicker(
            self.app.taxonomy,  # type: ignore[attr-defined]
            title=f"tag all {len(pairs):,} rows of the filter ({self.filters.describe()})",
            used=self._used_tags(),
        )

        def confirmed(tag: str, yes: bool | None) -> None:
            if yes:
                self.save("tag", pairs, tag)

        def picked(tag: str | None) -> None:
            if tag:
                question = f"Tag all {len(pairs):,} rows of the current filter with {tag!r}?"
                self.app.push_screen(Confirm(question), partial(confirmed, tag))

        self.app.push_screen(picker, picked)

    def action_accept_suggestion(self) -> None:
        row = self._triage_row()
        if row is None:
            return
        key = (row["index"], row["model"])
        have = set(self._row_tags(row))
        pending = [s for s in self.suggestions.get(key, []) if s.tag not in have]
        if not pending:
            self.notify("no suggested cause left for this row")
            return
        self.save("tag", [key], pending[0].tag)

    def action_accept_as_gold(self) -> None:
        """Accept the row's prediction as another correct gold of its example (kept in the workspace)."""
        row = self._triage_row()
        if row is None:
            return
        sql = (row.get("pred_sql") or "").strip()
        if not sql:
            self.notify("this row has no prediction to accept", severity="warning")
            return
        index = int(row["index"])
        question = (
            f"Accept {row['model']}'s prediction as an alternative gold of #{index}? It is kept in the "
            "workspace (not the dataset) and every model's row of this example is re-scored."
        )

        model = str(row["model"])

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._gold_worker(self.app.write_turns.take(), partial(self._accept, index, sql, model))  # type: ignore[attr-defined]

        self.app.push_screen(Confirm(question), confirmed)

    def _accept(self, index: int, sql: str, model: str, ws: Any) -> str:
        from sqltriage.core.triage.accepted_gold import accept

        done = accept(ws, self.app.dataset, index, sql, model=model, **self._limits())  # type: ignore[attr-defined]
        rows = len({m for m, _ in done.changed})
        return f"saved: alternative gold of #{index} accepted from model {model}; {rows} model row(s) now pass EX"

    def action_withdraw_gold(self) -> None:
        """Withdraw one of the highlighted example's accepted alternative golds (picked from a list)."""
        row = self._triage_row()
        if row is None:
            return
        index = int(row["index"])
        choices = self.accepted_labelled(index)
        if not choices:
            self.notify(f"#{index} has no alternative gold accepted in the app", severity="warning")
            return
        by_text = {f"{label}: {sql}": sql for label, sql in choices}

        def picked(text: str | None) -> None:
            if text in by_text:
                self.confirm_withdraw(index, by_text[text])

        picker = TagPicker(
            self.app.taxonomy,  # type: ignore[attr-defined]
            title=f"withdraw an accepted alternative gold of #{index}",
            only=list(by_text),
        )
        self.app.push_screen(picker, picked)

    def confirm_withdraw(self, index: int, sql: str) -> None:
        """Ask, then withdraw `sql` as an alternative gold of example `index` (the palette calls it too)."""
        question = (
            f"Withdraw the accepted alternative gold of #{index}?\n{sql}\nEvery model's row of this example "
            "is re-scored without it."
        )

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._gold_worker(self.app.write_turns.take(), partial(self._withdraw, index, sql))  # type: ignore[attr-defined]

        self.app.push_screen(Confirm(question), confirmed)

    def _withdraw(self, index: int, sql: str, ws: Any) -> str:
        from sqltriage.core.triage.accepted_gold import withdraw

        done = withdraw(ws, self.app.dataset, index, sql, **self._limits())  # type: ignore[attr-defined]
        rows = len({m for m, _ in done.changed})
        return f"saved: {done.describe()}; {rows} model row(s) re-scored"

    def _limits(self) -> dict[str, Any]:
        return {"timeout": self.sources.timeout, "max_rows": self.sources.max_rows}

    @work(thread=True, group="save")
    def _gold_worker(self, turn: int, change: Callable[[Any], str]) -> None:
        """Change the accepted alternative golds (and so re-score rows), then re-read the frame."""
        from sqltriage.core.reporting.report import load_frame
        from sqltriage.core.workspace.accepted import accepted

        app = self.app
        ws = app.workspace  # type: ignore[attr-defined]
        with app.write_turns.turn(turn):  # type: ignore[attr-defined]
            try:
                text = change(ws)
                frame = facets.prepare(facets.use_ex_mode(load_frame(ws, self.models or None), self.ex_mode))
                taken = accepted(ws)
            except Exception as exc:  # shown, never a crash: the workspace kept its last committed state
                self.post_message(GoldsChanged(None, {}, "", error=str(exc)))
                return
        self.post_message(GoldsChanged(frame, taken, text))

    def on_golds_changed(self, message: GoldsChanged) -> None:
        if message.frame is None:
            self.notify(f"not saved: {message.error}", severity="error", timeout=10)
            return
        self.frame, self.index, self.cells = message.frame, None, None  # every column may have changed
        self.accepted_golds = message.accepted
        self._detail_key = None  # the detail tabs are drawn again from the re-scored row
        self.saved_log.append(message.text)
        self.notify(message.text)
        self.refilter()

    def action_untag(self) -> None:
        row = self._triage_row()
        if row is None:
            return
        key = (row["index"], row["model"])
        tags = self._row_tags(row)
        if not tags:
            self.notify("this row has no tag to remove")
            return

        def picked(tag: str | None) -> None:
            if tag:
                self.save("untag", [key], tag)

        picker = TagPicker(self.app.taxonomy, title=f"remove a tag from #{key[0]} · {key[1]}", only=tags)  # type: ignore[attr-defined]
        self.app.push_screen(picker, picked)

    def action_untag_all(self) -> None:
        pairs = self._filtered_pairs()
        tags = sorted(set(self.view.get_column("_f_tag").explode().to_list()) - {facets.NONE_VALUE})
        if not tags:
            self.notify("no row of the filter has a tag")
            return

        def confirmed(tag: str, yes: bool | None) -> None:
            if yes:
                self.save("untag", pairs, tag)

        def picked(tag: str | None) -> None:
            if tag:
                question = f"Remove {tag!r} from every row of the current filter ({len(pairs):,} rows)?"
                self.app.push_screen(Confirm(question), partial(confirmed, tag))

        picker = TagPicker(self.app.taxonomy, title="remove a tag from every filtered row", only=tags)  # type: ignore[attr-defined]
        self.app.push_screen(picker, picked)

    def action_note(self) -> None:
        row = self._triage_row()
        if row is None:
            return
        key = (row["index"], row["model"])

        def edited(text: str | None) -> None:
            if text is not None and text != (row.get("note") or ""):
                self.save("note", [key], text)

        self.app.push_screen(NoteEditor(f"note on #{key[0]} · {key[1]}", row.get("note") or ""), edited)

    def action_undo(self) -> None:
        """Undo the newest change still in force, from the workspace's logs (so from any session).

        What it would undo is read in a worker and shown for confirmation before anything is written.
        """
        self._undo_lookup_worker()

    @work(thread=True, group="save")
    def _undo_lookup_worker(self) -> None:
        from sqltriage.core.triage import history

        try:
            change = history.last_change(self.app.workspace)  # type: ignore[attr-defined]
        except Exception as exc:
            self.post_message(UndoFound(None, error=str(exc)))
            return
        self.post_message(UndoFound(change))

    def on_undo_found(self, message: UndoFound) -> None:
        from sqltriage.core.triage.history import describe

        change = message.change
        if change is None:
            self.notify(
                message.error or "nothing to undo: the workspace has no change in force",
                severity="warning" if message.error else "information",
            )
            return

        def confirmed(yes: bool | None) -> None:
            if not yes:
                return
            if change.kind in GOLD_KINDS:  # re-scores rows: the frame is read again afterwards
                self._gold_worker(self.app.write_turns.take(), partial(self._undo_gold, change))  # type: ignore[attr-defined]
            else:
                self.save("undo", [], "", undo_of=change)

        self.app.push_screen(Confirm(f"Undo: {describe(change)}?"), confirmed)

    def _undo_gold(self, change: Change, ws: Any) -> str:
        from sqltriage.core.triage import history

        done = history.undo(ws, change, dataset=self.app.dataset, **self._limits())  # type: ignore[attr-defined]
        return f"undone: {done.describe()}"

    def save(self, kind: str, pairs: list[RowKey], value: str, *, undo_of: Change | None = None) -> None:
        """Write one change in a worker; the screen shows it once `Saved` says it committed."""
        turn = self.app.write_turns.take()  # type: ignore[attr-defined]
        self._save_worker(turn, kind, pairs, value, undo_of)

    @work(thread=True, group="save")
    def _save_worker(
        self, turn: int, kind: str, pairs: list[RowKey], value: str, undo_of: Change | None
    ) -> None:
        from sqltriage.core.triage import tags as triage

        ws = self.app.workspace  # type: ignore[attr-defined]
        with self.app.write_turns.turn(turn):  # type: ignore[attr-defined]  # changes commit in the order made
            try:
                if undo_of is not None:
                    from sqltriage.core.triage import history

                    change = history.undo(ws, undo_of)
                elif kind == "tag":
                    change = triage.add_tag(ws, pairs, value)
                elif kind == "untag":
                    change = triage.remove_tag(ws, pairs, value)
                else:
                    change = triage.set_note(ws, pairs[0], value)
            except Exception as exc:  # shown, never a crash: the workspace kept its last committed state
                self.post_message(Saved(None, error=str(exc)))
                return
        self.post_message(Saved(change, undo=undo_of is not None))

    def on_saved(self, message: Saved) -> None:
        change = message.change
        if change is None:
            self.notify(f"not saved: {message.error}", severity="error", timeout=10)
            return
        if change.kind in ("tag", "untag"):
            self.frame = facets.with_tag_change(
                self.frame, change.pairs, change.tag, added=change.kind == "tag"
            )
        else:
            self.frame = facets.with_note(self.frame, change.notes_after)
        text = ("undone: " if message.undo else "saved: ") + change.describe()
        self.saved_log.append(text)
        self.notify(text)
        self.refilter()
        self._show_triage()

    # --- export and summary -----------------------------------------------------------------------

    def default_export_name(self) -> str:
        name = getattr(self.app, "dataset", None)
        base = re.sub(r"[^A-Za-z0-9]+", "-", getattr(name, "name", "") or "sqltriage").strip("-")
        what = "all" if not self.filters.active else re.sub(r"[^A-Za-z0-9]+", "-", self.filters.describe())
        return f"{base}-{what.strip('-')[:60]}.csv"

    def action_export(self) -> None:
        view = self.view
        if view.is_empty():
            self.notify("no row matches the filter: nothing to export", severity="warning")
            return

        def chosen(path: str | None) -> None:
            if path:
                self._export_worker(view, Path(path).expanduser())

        self.app.push_screen(ExportDialog(view.height, self.default_export_name()), chosen)

    @work(thread=True, group="export")
    def _export_worker(self, view: pl.DataFrame, path: Path) -> None:
        from sqltriage.core.reporting.export_formats import write_export

        try:  # the file name says the format: .csv, .jsonl, .parquet or .sqlite
            n = write_export(facets.for_export(view), path)
        except Exception as exc:
            self.post_message(Exported(path, 0, str(exc)))
            return
        self.post_message(Exported(path.resolve(), n))

    def on_exported(self, message: Exported) -> None:
        if message.error:
            self.notify(f"export failed ({message.path}): {message.error}", severity="error", timeout=10)
        else:
            self.notify(f"exported {message.rows:,} rows to {message.path}", timeout=8)

    def action_summary(self) -> None:
        from sqltriage.tui.screens.summary import SummaryScreen

        self.app.push_screen(SummaryScreen(self.frame, self.models, ex_mode=self.ex_mode))
