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
from rich.console import Group, RenderableType
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Input, Static, TabbedContent
from textual.worker import get_current_worker
from textual_fastdatatable import DataTable

from sqltriage.core.reporting import facets
from sqltriage.core.triage.tags import GOLD_KINDS, Change
from sqltriage.tui.screens.browse.filtering import FilteringMixin
from sqltriage.tui.screens.browse.keys import BINDINGS
from sqltriage.tui.screens.browse.messages import (
    DetailReady,
    Exported,
    FeaturesReady,
    GoldsChanged,
    LiveResult,
    Saved,
    UndoFound,
)
from sqltriage.tui.screens.browse.state import RowKey, freeze_long_lived
from sqltriage.tui.screens.modals import Confirm, ExportDialog, NoteEditor, TagPicker
from sqltriage.tui.widgets.detail_pane import DetailPane
from sqltriage.tui.widgets.examples_table import ExamplesTable
from sqltriage.tui.widgets.facet_panel import FacetPanel

DETAIL_STEP = 3  # rows the detail pane grows or shrinks per key
MIN_DETAIL = 6  # the detail pane keeps its tabs and a few lines
MIN_TABLE = 4  # the table keeps its header and a few rows


class BrowseScreen(FilteringMixin):
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

    def _row_changed(self, *, first_paint: bool = False) -> None:
        """Show the highlighted row; `first_paint`: the screen has not been drawn yet.

        The row's analysis (a worker thread that imports sqlglot) then starts once the first screen is
        drawn: run beside it, it holds the interpreter lock and delays the first paint.
        """
        table = self.query_one(ExamplesTable)
        row = self.row_at(table.cursor_row) if table.row_count else None
        detail = self.query_one(DetailPane)
        if row is None:
            self.current = self._live_key = self._detail_key = self._editor_key = None
            for key in ("sql", "breakdown", "results", "question", "triage"):
                detail.set_tab(key, Text("no row matches the filter", style="dim"))
            return
        key = (row["index"], row["model"])
        if key == self.current:
            return
        self.current = key
        self._live_key = None
        with self.app.batch_update():
            self._show_triage(row)
            if detail.active == "tab-results":
                # the live run first: the other tabs are hidden, their analysis follows the result
                self._sync_editor(row)
                self.run_live(row.get("pred_sql") or "", row)
                self.set_timer(0.2, self._start_detail)
            elif first_paint:
                self.call_after_refresh(self._start_detail)
            else:
                self._start_detail(row)

    def _sync_editor(self, row: dict[str, Any] | None = None) -> None:
        """Put the current row's prediction in the editor, unless it is already there (maybe edited)."""
        if self.current is None or self._editor_key == self.current:
            return
        row = row or self._current_row()
        if row is not None:
            self._editor_key = self.current
            self.query_one(DetailPane).editor.text = row.get("pred_sql") or ""

    def _start_detail(self, row: dict[str, Any] | None = None) -> None:
        """Analyse the current row for the SQL, breakdown and question tabs (once per row)."""
        if self.current is None or self._detail_key == self.current:
            return
        row = row or self._current_row()
        if row is not None:
            self._detail_key = self.current
            self._detail_worker(self.current, row)

    def _alternatives_of(self, index: int) -> tuple[str, ...]:
        """The dataset's alternative golds of an example (those accepted in the app show as `gold_match`)."""
        dataset = getattr(self.app, "dataset", None)
        if dataset is None or not 0 <= index < len(dataset.examples):
            return ()
        return tuple(dataset.examples[index].alternatives)

    def accepted_labelled(self, index: int) -> list[tuple[str, str]]:
        """(label, sql) of the alternatives accepted in the app for an example, labelled as `gold_match` has them."""
        from sqltriage.core.datasets.alternatives import ACCEPTED_LABEL, labelled

        pairs = labelled(self._alternatives_of(index), self.accepted_golds.get(index, ()))
        return [(label, sql) for label, sql in pairs if label.startswith(ACCEPTED_LABEL)]

    @work(thread=True, exclusive=True, group="detail")
    def _detail_worker(self, key: RowKey, row: dict[str, Any]) -> None:
        from sqltriage.core.sql.authors_match import authors_partial_match
        from sqltriage.core.sql.diff import sql_diff
        from sqltriage.core.sql.partial_match import partial_match
        from sqltriage.core.suggest import stored_suggestions, suggest_causes
        from sqltriage.tui.widgets.detail_render import render_breakdown, render_question, render_sql_diff

        schema = self.sources.schemas.get(row["db_id"])
        gold, pred = row.get("gold_sql") or "", row.get("pred_sql") or ""
        resolve = self.resolve_aliases
        diff = sql_diff(gold, pred, schema, resolve=resolve)
        tabs: dict[str, RenderableType] = {
            "sql": render_sql_diff(diff, error=row.get("error"), resolved=resolve)
        }
        if get_current_worker().is_cancelled:
            return
        breakdown = partial_match(gold, pred, schema)
        tabs["breakdown"] = render_breakdown(breakdown, authors_partial_match(gold, pred, schema))
        tabs["question"] = render_question(
            self._with_features(row),
            self.sources.databases.get(row["db_id"]),
            self._features_note(),
            alternatives=self._alternatives_of(int(row["index"])),
            accepted=self.accepted_labelled(int(row["index"])),
        )
        found = stored_suggestions(row.get("suggested_why"))
        if found is None:  # a workspace evaluated before suggestions were stored: from the parses alone
            found = suggest_causes(
                gold,
                pred,
                schema=schema,
                evidence=row.get("evidence"),
                ex=row.get("ex"),
                error=row.get("error"),
            )
        self.post_message(DetailReady(key, tabs, found))

    def on_detail_ready(self, message: DetailReady) -> None:
        self.suggestions[message.key] = message.suggestions
        if len(self.suggestions) == 1:  # the analysis modules are loaded now
            self.call_after_refresh(freeze_long_lived)
        if message.key != self.current:
            return
        detail = self.query_one(DetailPane)
        with self.app.batch_update():
            for key, renderable in message.tabs.items():
                detail.set_tab(key, renderable)
            self._show_triage()

    @on(TabbedContent.TabActivated, "#detail-tabs")
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == "tab-results" and self.current is not None and self._live_key != self.current:
            self._sync_editor()
            self.run_live(self.query_one(DetailPane).editor.text)
        elif event.pane.id != "tab-results":
            if event.pane.id == "tab-question":
                self._want_features()
            self._start_detail()

    # --- question features (computed on demand, never before the metrics) ------------------------

    def _with_features(self, row: dict[str, Any]) -> dict[str, Any]:
        if row.get("q_words") is None and row["index"] in self.question_features:
            return {**row, **self.question_features[row["index"]]}
        return row

    def _features_note(self) -> str | None:
        if self.features_status == "computing":
            return "computing the question features (spaCy, once for this dataset)…"
        if self.features_status.startswith("unavailable"):
            return f"question features {self.features_status}"
        return None

    def _want_features(self) -> None:
        """The Question tab is shown: compute the dataset's features in a worker if the workspace lacks them."""
        row = self._current_row()
        if self.features_status or row is None or row.get("q_words") is not None:
            return
        app = self.app
        if not getattr(getattr(app, "options", None), "features", True):
            return
        self.features_status = "computing"
        self._detail_key = None  # the tab shows that they are being computed
        self._features_worker(app.dataset, app.workspace.path, app.options.pipeline)  # type: ignore[attr-defined]

    @work(thread=True, group="features")
    def _features_worker(self, dataset: Any, workspace_path: Path, pipeline: str | None) -> None:
        from sqltriage.core.questions.feature_cache import ensure_apart

        try:
            found, status = ensure_apart(dataset, workspace_path, pipeline)
        except Exception as exc:  # shown on the tab, never a crash
            self.post_message(FeaturesReady({}, f"unavailable: {exc}"))
            return
        rows = {r["idx"]: {k: v for k, v in r.items() if k != "idx"} for r in found.rows}
        self.post_message(FeaturesReady(rows, status))

    def on_features_ready(self, message: FeaturesReady) -> None:
        self.question_features = message.rows
        self.features_status = message.status
        self._detail_key = None
        self._start_detail()

    def run_live(self, pred_sql: str, row: dict[str, Any] | None = None) -> None:
        row = row or self._current_row()
        if row is None:
            return
        key = (row["index"], row["model"])
        self._live_key = key
        if self._placeholder is not None:
            self._placeholder.stop()
        # most queries answer within a frame or two: say "running" only if this one does not
        self._placeholder = self.set_timer(0.1, partial(self._show_running, key))
        self._live_worker(key, row["db_id"], row.get("gold_sql") or "", pred_sql, row.get("ts_witness"))

    def _show_running(self, key: RowKey) -> None:
        if self._live_key == key:
            self.query_one(DetailPane).set_tab("results", Text("running both queries…", style="dim"))

    @work(thread=True, exclusive=True, group="live")
    def _live_worker(
        self, key: RowKey, db_id: str, gold_sql: str, pred_sql: str, witness: str | None = None
    ) -> None:
        from sqltriage.core.verdicts.execution import execute, run_pair
        from sqltriage.core.verdicts.gold_audit import audit_gold
        from sqltriage.tui.widgets.detail_render import render_results
        from sqltriage.tui.widgets.witness_render import render_witness, witness_path

        db_path = self.sources.databases.get(db_id)
        if db_path is None:
            text = Text(f"database {db_id!r} is missing: nothing can run", style="bold red")
            self.post_message(LiveResult(key, text, {}))
            return
        run = run_pair(
            db_path, gold_sql, pred_sql, timeout=self.sources.timeout, max_rows=self.sources.max_rows
        )
        audit = audit_gold(
            gold_sql,
            run.gold,
            lambda q: execute(db_path, q, timeout=self.sources.timeout, max_rows=self.sources.max_rows),
        )
        if get_current_worker().is_cancelled:
            return
        shown: RenderableType = render_results(run, tie=audit.tie)
        if (nb := witness_path(witness)) is not None:  # an EX pass a neighbour refuted: show it there too
            on_nb = None
            if nb.is_file():
                on_nb = run_pair(
                    nb, gold_sql, pred_sql, timeout=self.sources.timeout, max_rows=self.sources.max_rows
                )
            shown = Group(shown, Text(""), render_witness(nb, on_nb))
        self.post_message(LiveResult(key, shown, dict(run.outcomes)))

    def on_live_result(self, message: LiveResult) -> None:
        if message.key != self.current or message.key != self._live_key:
            return
        if self._placeholder is not None:
            self._placeholder.stop()
            self._placeholder = None
        self.last_outcomes = message.outcomes
        self.query_one(DetailPane).set_tab("results", message.renderable)
        self._start_detail()

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

    def action_run_edited(self) -> None:
        """Run the edited prediction: a what-if that never changes the stored prediction."""
        detail = self.query_one(DetailPane)
        detail.active = "tab-results"
        self._sync_editor()
        self.run_live(detail.editor.text)

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

    def action_toggle_resolve(self) -> None:
        self.resolve_aliases = not self.resolve_aliases
        row = self._current_row()
        if row is not None:
            self._detail_worker((row["index"], row["model"]), row)
