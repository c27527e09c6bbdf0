"""The detail pane of the highlighted row: its analysis tabs, question features and live runs.

Analysing a row (SQL diff, breakdown, question, suggested causes), computing the dataset's question
features and running both queries live each happen in a thread worker; the handlers here draw the tabs,
and only for the row still highlighted.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on, work
from textual.widgets import TabbedContent
from textual.worker import get_current_worker

from sqltriage.tui.screens.browse.messages import DetailReady, FeaturesReady, LiveResult
from sqltriage.tui.screens.browse.state import BrowseState, RowKey, freeze_long_lived
from sqltriage.tui.widgets.detail_pane import DetailPane
from sqltriage.tui.widgets.examples_table import ExamplesTable


class DetailMixin(BrowseState):
    """The highlighted row's detail tabs, kept to the row under the cursor."""

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
            for key in ("sql", "breakdown", "results", "question", "triage", "response"):
                detail.set_tab(key, Text("no row matches the filter", style="dim"))
            return
        key = (row["index"], row["model"])
        if key == self.current:
            return
        self.current = key
        self._live_key = None
        with self.app.batch_update():
            self._show_triage(row)
            if self.wait_for_rest(self._resume_detail):
                pass  # the detail tabs need the columns still being read (`loading`)
            elif detail.active == "tab-results":
                # the live run first: the other tabs are hidden, their analysis follows the result
                self._sync_editor(row)
                self.run_live(row.get("pred_sql") or "", row)
                self.set_timer(0.2, self._start_detail)
            elif first_paint:
                self.call_after_refresh(self._start_detail)
            else:
                self._start_detail(row)

    def _resume_detail(self) -> None:
        """The frame has every column now: make the current row's tabs as if it had just been highlighted."""
        self.current = None
        self._row_changed()
        if self.query_one(DetailPane).active == "tab-question":
            self._want_features()

    def redraw_detail(self) -> None:
        """Draw the detail tabs again from the row as it now is, the next time they are shown."""
        self._detail_key = None

    def _sync_editor(self, row: dict[str, Any] | None = None) -> None:
        """Put the current row's prediction in the editor, unless it is already there (maybe edited)."""
        if self.current is None or self._editor_key == self.current or not self.complete:
            return
        row = row or self._current_row()
        if row is not None:
            self._editor_key = self.current
            self.query_one(DetailPane).editor.text = row.get("pred_sql") or ""

    def _start_detail(self, row: dict[str, Any] | None = None) -> None:
        """Analyse the current row for the SQL, breakdown and question tabs (once per row)."""
        if self.current is None or self._detail_key == self.current:
            return
        if self.wait_for_rest(self._resume_detail):
            return
        row = row or self._current_row()
        if row is not None:
            self._detail_key = self.current
            self._detail_worker(self.current, row)

    def _alternatives_of(self, index: int) -> tuple[str, ...]:
        """The dataset's alternative golds of an example (those accepted in the app show as `gold_match`)."""
        dataset = self.session.dataset
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
        from sqltriage.tui.widgets.detail_render import (
            render_breakdown,
            render_judgement,
            render_question,
            render_sql_diff,
        )

        schema = self.sources.schemas.get(row["db_id"])
        gold, pred = row.get("gold_sql") or "", row.get("pred_sql") or ""
        resolve = self.resolve_aliases
        diff = sql_diff(gold, pred, schema, resolve=resolve)
        tabs: dict[str, RenderableType] = {
            "sql": Group(
                render_judgement(row), render_sql_diff(diff, error=row.get("error"), resolved=resolve)
            )
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
        from sqltriage.tui.widgets.response_render import render_response

        tabs["response"] = render_response(row)
        found = stored_suggestions(row.get("suggested_why"))
        if found is None:  # a workspace evaluated before suggestions were stored: from the parses alone
            found = suggest_causes(
                gold,
                pred,
                schema=schema,
                evidence=row.get("evidence"),
                ex=row.get("ex"),
                error=row.get("error"),
                question=row.get("question"),
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
        if self.current is not None and self.wait_for_rest(self._resume_detail):
            return
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
        session = self.session
        if not session.features:
            return
        self.features_status = "computing"
        self._detail_key = None  # the tab shows that they are being computed
        ws = session.workspace
        # browsing writes nothing: the user cache keeps them (as it does without a workspace)
        keep_in = None if ws is None or ws.reading else ws.path
        self._features_worker(session.dataset, keep_in, session.pipeline)

    @work(thread=True, group="features")
    def _features_worker(self, dataset: Any, workspace_path: Path | None, pipeline: str | None) -> None:
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

    # --- live runs of the gold and the (maybe edited) prediction ---------------------------------

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
        # the assumption line reads the stored witness: shown only while the prediction is the stored one
        stored = pred_sql == (row.get("pred_sql") or "")
        assumes = row.get("refutation_detail") if stored else None
        # the realistic witness the judgement kept, when the row's own needed a world never meant
        witness = (row.get("refutation_witness") if stored else None) or row.get("ts_witness")
        self._live_worker(key, row["db_id"], row.get("gold_sql") or "", pred_sql, witness, assumes)

    def _show_running(self, key: RowKey) -> None:
        if self._live_key == key:
            self.query_one(DetailPane).set_tab("results", Text("running both queries…", style="dim"))

    @work(thread=True, exclusive=True, group="live")
    def _live_worker(
        self,
        key: RowKey,
        db_id: str,
        gold_sql: str,
        pred_sql: str,
        witness: str | None = None,
        assumes: str | None = None,
    ) -> None:
        from sqltriage.core.datasets.alternatives import labelled
        from sqltriage.core.verdicts.pair_run import Limits, run_gold, run_pair, run_prediction
        from sqltriage.tui.widgets.detail_render import render_results
        from sqltriage.tui.widgets.witness_render import render_witness, witness_path

        db_path = self.sources.databases.get(db_id)
        if db_path is None:
            text = Text(f"database {db_id!r} is missing: nothing can run", style="bold red")
            self.post_message(LiveResult(key, text, {}))
            return
        # As eval scores the row: its alternative and accepted golds, the gold's tie, the same limits.
        limits = Limits(self.sources.timeout, self.sources.max_rows)
        others = labelled(self._alternatives_of(key[0]), self.accepted_golds.get(key[0], ()))
        gold = run_gold(db_path, gold_sql, limits=limits, others=others)
        run = run_prediction(gold, pred_sql, limits=limits)
        if get_current_worker().is_cancelled:
            return
        shown: RenderableType = render_results(run, tie=gold.tie)
        if (nb := witness_path(witness)) is not None:  # an EX pass a neighbour refuted: show it there too
            on_nb, tables, reading = None, [], None
            if nb.is_file():
                import sqlite3

                from sqltriage.core.verdicts.exec_compare import order_matters
                from sqltriage.core.verdicts.testsuite.reading import read_difference, witness_tables

                on_nb = run_pair(
                    nb, gold_sql, pred_sql, timeout=self.sources.timeout, max_rows=self.sources.max_rows
                )
                try:
                    tables = witness_tables(nb)
                except sqlite3.Error:
                    tables = []  # gold | prediction still say what the file can
                if on_nb.outcomes.get("ex_spider") == 0:  # the reading of what ex_ts compares
                    reading = read_difference(
                        on_nb.gold_spider, on_nb.pred_spider, ordered=order_matters(gold_sql)
                    )
                elif on_nb.outcomes.get("ex_spider") == 1:
                    reading = "gold and this prediction agree on the witness"
            shown = Group(shown, Text(""), render_witness(nb, on_nb, tables, reading, assumes))
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

    def action_run_edited(self) -> None:
        """Run the edited prediction: a what-if that never changes the stored prediction."""
        detail = self.query_one(DetailPane)
        detail.active = "tab-results"
        if self.wait_for_rest(self._resume_detail):  # nothing was edited yet: the stored one runs then
            return
        self._sync_editor()
        self.run_live(detail.editor.text)

    def action_toggle_resolve(self) -> None:
        self.resolve_aliases = not self.resolve_aliases
        if self.wait_for_rest(self._resume_detail):
            return
        row = self._current_row()
        if row is not None:
            self._detail_worker((row["index"], row["model"]), row)
