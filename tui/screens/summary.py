"""The summary screen: metrics by category as charts, the 2×2 model comparison, slices, the dataset view.

The report is computed in a worker from the browse screen's frame (so it follows the EX mode and
every tag saved so far); a comparison cell opens on the browse screen as a filter, and so does a slice
(enter on its row). The comparison says whether the difference is real (McNemar's exact test, bootstrap
intervals) and each model's EX carries its interval in the metrics table. The dataset
analysis is slow (spaCy over every question), so it runs in a worker once per dataset version and is
kept in the workspace's meta table.
"""

from __future__ import annotations

import io
import json
from typing import Any, ClassVar, Protocol, runtime_checkable

import polars as pl
from rich.console import Console, RenderableType
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, DataTable, Footer, Label, Select, Static, TabbedContent, TabPane

from sqltriage.core.reporting import facets
from sqltriage.core.reporting.slices import SliceSearch
from sqltriage.tui.widgets.charts import METRICS, summary_renderable
from sqltriage.tui.widgets.plain import plain_text

ANALYSIS_META = "analysis:"  # + dataset fingerprint


@runtime_checkable
class ShowsExamples(Protocol):
    """The screen a comparison cell or a slice opens on: the browse screen, which imports this module (so it
    is named here by what it does, not imported)."""

    def show_examples(self, models: list[str], examples: frozenset[int], label: str) -> None: ...


class ReportReady(Message):
    def __init__(self, renderables: dict[str, RenderableType]) -> None:
        super().__init__()
        self.renderables = renderables


class CompareReady(Message):
    def __init__(self, pair: tuple[str, str], doc: dict[str, Any] | None, error: str = "") -> None:
        super().__init__()
        self.pair, self.doc, self.error = pair, doc, error


class SlicesReady(Message):
    def __init__(self, model: str, search: SliceSearch | None, error: str = "") -> None:
        super().__init__()
        self.model, self.search, self.error = model, search, error


class AnalysisReady(Message):
    def __init__(self, renderable: RenderableType, cached: bool) -> None:
        super().__init__()
        self.renderable, self.cached = renderable, cached


def render_analysis(report: dict[str, Any], width: int = 150) -> Text:
    """The `analyze` command's tables, drawn once and kept as styled text."""
    from sqltriage.tui.commands.analyze import render

    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=True, color_system="standard")
    render(report, console)
    return Text.from_ansi(out.getvalue())


class SummaryScreen(Screen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back to browse", id="summary.back"),
        Binding("m", "next_metric", "EX / EM / PM", id="summary.metric"),
        Binding("1", "show_tab('metrics')", "Metrics tab", show=False, id="summary.tab_metrics"),
        Binding("2", "show_tab('compare')", "Compare tab", show=False, id="summary.tab_compare"),
        Binding("3", "show_tab('dataset')", "Dataset tab", show=False, id="summary.tab_dataset"),
        Binding("4", "show_tab('slices')", "Slices tab", show=False, id="summary.tab_slices"),
        Binding("5", "show_tab('agreement')", "Agreement tab", show=False, id="summary.tab_agreement"),
    ]

    def __init__(self, frame: pl.DataFrame, models: list[str], *, ex_mode: str = "spider") -> None:
        super().__init__()
        self.frame = frame
        self.models = models
        self.ex_mode = ex_mode
        self.metric = "ex"
        self.renderables: dict[str, RenderableType] = {}
        self.cells: dict[str, frozenset[int]] = {}
        self.analysis_shown = False
        self.comparison: dict[str, Any] | None = None
        self.comparison_renderable: RenderableType | None = None
        self.slices: SliceSearch | None = None
        self.slices_model: str | None = None

    def compose(self) -> ComposeResult:
        with TabbedContent(id="summary-tabs", initial="sum-metrics"):
            with TabPane("Metrics", id="sum-metrics"), VerticalScroll():
                yield Static(Text("computing…", style="dim"), id="metrics-body")
            with TabPane("Compare", id="sum-compare"):
                options = [(m, m) for m in self.models]
                with Horizontal(id="compare-pick"):
                    yield Label("A ")
                    yield Select(options, value=self.models[0], allow_blank=False, id="model-a")
                    yield Label("  B ")
                    yield Select(
                        options,
                        value=self.models[min(1, len(self.models) - 1)],
                        allow_blank=False,
                        id="model-b",
                    )
                yield Label("", id="compare-title")
                with Grid(id="compare-grid"):
                    yield Label("")
                    yield Label("B passes", classes="head")
                    yield Label("B fails", classes="head")
                    yield Label("A passes", classes="head")
                    yield Button("", id="cell-both-pass")
                    yield Button("", id="cell-only-a")
                    yield Label("A fails", classes="head")
                    yield Button("", id="cell-only-b")
                    yield Button("", id="cell-neither")
                yield Label("", id="compare-note")
                with VerticalScroll(id="compare-stats-scroll"):
                    yield Static("", id="compare-stats")
            with TabPane("Dataset", id="sum-dataset"), VerticalScroll():
                yield Static(
                    Text("the dataset analysis runs when this tab opens", style="dim"), id="dataset-body"
                )
            with TabPane("Slices", id="sum-slices"):
                with Horizontal(id="slices-pick"):
                    yield Label("model ")
                    yield Select(options, value=self.models[0], allow_blank=False, id="slices-model")
                yield Label("", id="slices-title")
                yield DataTable(id="slices-table", cursor_type="row", zebra_stripes=True)
            with TabPane("Agreement", id="sum-agreement"), VerticalScroll():
                yield Static(Text("computed when this tab opens", style="dim"), id="agreement-body")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#slices-table", DataTable)
        table.add_columns("#", "score", "rows", "errors", "error rate", "slice")
        self._report_worker()
        self._update_compare()
        self._update_slices()

    # --- metrics ------------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="summary")
    def _report_worker(self) -> None:
        from sqltriage.core.reporting.report import full_report
        from sqltriage.core.reporting.significance import model_intervals

        report = full_report(self.frame)
        report["intervals"] = model_intervals(self.frame, "ex")
        self.post_message(
            ReportReady({m: summary_renderable(report, self.frame, m, self.ex_mode) for m in METRICS})
        )

    def on_report_ready(self, message: ReportReady) -> None:
        self.renderables = message.renderables
        self._show_metric()

    def _show_metric(self) -> None:
        if self.renderables:
            self.query_one("#metrics-body", Static).update(self.renderables[self.metric])

    def action_next_metric(self) -> None:
        keys = list(METRICS)
        self.metric = keys[(keys.index(self.metric) + 1) % len(keys)]
        self._show_metric()

    def metrics_text(self, width: int = 160) -> str:
        """What the metrics tab shows, as plain text."""
        return plain_text(self.renderables.get(self.metric), width)

    # --- comparison ---------------------------------------------------------------------------------

    @property
    def pair(self) -> tuple[str, str]:
        a = self.query_one("#model-a", Select).value
        b = self.query_one("#model-b", Select).value
        return str(a), str(b)

    @on(Select.Changed, "#model-a")
    @on(Select.Changed, "#model-b")
    def _model_changed(self) -> None:
        self._update_compare()

    def _update_compare(self) -> None:
        a, b = self.pair
        if a == b:
            self.query_one("#compare-title", Label).update("pick two different models")
            self.cells = {}
        else:
            self.cells = facets.compare_models(self.frame, a, b)
            self.query_one("#compare-title", Label).update(
                f"A = {a}   B = {b}   (EX in {self.ex_mode} mode; enter on a cell browses its examples)"
            )
        for button_id, cell in _CELL_BUTTONS.items():
            n = len(self.cells.get(cell, ()))
            self.query_one(f"#{button_id}", Button).label = f"{cell}\n{n:,}" if self.cells else "—"
        skipped = len(self.cells.get("not comparable", ()))
        self.query_one("#compare-note", Label).update(
            f"{skipped:,} examples without an EX verdict for both models are left out" if skipped else ""
        )
        self.comparison = None
        self.query_one("#compare-stats", Static).update(Text("testing…" if a != b else "", style="dim"))
        if a != b:
            self._compare_worker(a, b)

    @work(thread=True, exclusive=True, group="compare")
    def _compare_worker(self, a: str, b: str) -> None:
        from sqltriage.core.errors import SqlTriageError
        from sqltriage.core.reporting.significance import compare

        try:
            self.post_message(CompareReady((a, b), compare(self.frame, a, b, "ex")))
        except SqlTriageError as exc:
            self.post_message(CompareReady((a, b), None, str(exc)))

    def on_compare_ready(self, message: CompareReady) -> None:
        if message.pair != self.pair:
            return  # the choice changed meanwhile
        self.comparison = message.doc
        self.comparison_renderable = (
            render_comparison(message.doc) if message.doc else Text(message.error, style="red")
        )
        self.query_one("#compare-stats", Static).update(self.comparison_renderable)

    def comparison_text(self, width: int = 160) -> str:
        """What the comparison's statistics say, as plain text."""
        return plain_text(self.comparison_renderable, width)

    def cell_count(self, cell: str) -> int:
        return len(self.cells.get(cell, ()))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        cell = _CELL_BUTTONS.get(event.button.id or "")
        if cell is not None:
            self.open_cell(cell)

    def open_cell(self, cell: str) -> None:
        """Back to browse with the cell's examples (both models' rows) as the filter."""
        if not self.cells:
            return
        a, b = self.pair
        examples = self.cells.get(cell, frozenset())
        label = f"{a} vs {b}: {cell.replace('A', a).replace('B', b)} ({len(examples):,} examples)"
        self.dismiss_to_browse()
        screen = self.app.screen
        if isinstance(screen, ShowsExamples):
            screen.show_examples([a, b], examples, label)

    def dismiss_to_browse(self) -> None:
        self.app.pop_screen()

    # --- slices -------------------------------------------------------------------------------------

    @on(Select.Changed, "#slices-model")
    def _update_slices(self) -> None:
        model = str(self.query_one("#slices-model", Select).value)
        self.slices, self.slices_model = None, model
        self.query_one("#slices-table", DataTable).clear()
        self.query_one("#slices-title", Label).update(f"searching the slices of {model}…")
        self._slices_worker(model)

    @work(thread=True, exclusive=True, group="slices")
    def _slices_worker(self, model: str) -> None:
        from sqltriage.core.errors import SqlTriageError
        from sqltriage.core.reporting.slices import find_slices

        try:
            self.post_message(SlicesReady(model, find_slices(self.frame, model=model, metric="ex")))
        except SqlTriageError as exc:
            self.post_message(SlicesReady(model, None, str(exc)))

    def on_slices_ready(self, message: SlicesReady) -> None:
        from sqltriage.core.reporting.slice_features import describe

        if message.model != self.slices_model:
            return
        self.slices = message.search
        title = self.query_one("#slices-title", Label)
        table = self.query_one("#slices-table", DataTable)
        table.clear()
        search = message.search
        if search is None:
            title.update(message.error)
            return
        rate = search.overall_error_rate
        title.update(
            f"{message.model}: {search.rows:,} rows with an EX verdict, {search.errors:,} errors"
            + (f" ({rate:.1%})" if rate is not None else "")
            + f"; slices of at least {search.min_support} rows (SliceLine score; enter browses a slice)"
        )
        for i, s in enumerate(search.slices):
            table.add_row(
                str(i + 1),
                f"{s.score:.3f}",
                f"{s.size:,}",
                f"{s.errors:,}",
                f"{s.error_rate:.1%}",
                describe(s.predicates),
                key=str(i),
            )

    @on(DataTable.RowSelected, "#slices-table")
    def _slice_chosen(self, event: DataTable.RowSelected) -> None:
        self.open_slice(int(str(event.row_key.value)))

    def open_slice(self, rank: int) -> None:
        """Back to browse with the slice's rows (its model's rows of those examples) as the filter."""
        from sqltriage.core.reporting.slice_features import describe, rows_of

        if self.slices is None or self.slices_model is None or rank >= len(self.slices.slices):
            return
        model, chosen = self.slices_model, self.slices.slices[rank]
        rows = self.frame.filter(self.frame.get_column("model") == model)
        found = rows_of(rows, chosen.predicates)
        examples = frozenset(rows.get_column("index").gather(found).to_list())
        label = f"slice of {model}: {describe(chosen.predicates)} ({len(examples):,} rows)"
        self.dismiss_to_browse()
        screen = self.app.screen
        if isinstance(screen, ShowsExamples):
            screen.show_examples([model], examples, label)

    # --- dataset ------------------------------------------------------------------------------------

    @on(TabbedContent.TabActivated, "#summary-tabs")
    def _tab(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == "sum-dataset" and not self.analysis_shown:
            self.analysis_shown = True
            self._analysis_worker()
        if event.pane.id == "sum-agreement":
            self._agreement_worker()

    @work(thread=True, exclusive=True, group="agreement")
    def _agreement_worker(self) -> None:
        """Annotator agreement as `sqltriage agreement` prints it, read from the workspace as it is now."""
        from sqltriage.core.triage.agreement import compute, read_labels, text_report

        app: Any = self.app
        if getattr(app, "blind", False):
            text = Text("hidden in blind mode: agreement would tell what the others gave", style="dim")
        else:
            try:
                text = Text(text_report(compute(read_labels(app.workspace))))
            except Exception as exc:  # shown, never a crash
                text = Text(f"agreement could not be computed: {exc}", style="bold red")
        self.app.call_from_thread(self.query_one("#agreement-body", Static).update, text)

    @work(thread=True, exclusive=True, group="analysis")
    def _analysis_worker(self) -> None:
        from sqltriage.core.workspace.store import dataset_fingerprint

        app: Any = self.app
        key = ANALYSIS_META + dataset_fingerprint(app.dataset)
        cached = app.workspace.get_meta(key)
        report = json.loads(cached) if cached else None
        if report is None:
            from sqltriage.core.questions.analysis import analyze_dataset

            try:
                report = analyze_dataset(app.dataset)
            except Exception as exc:
                self.post_message(AnalysisReady(Text(f"analysis failed: {exc}", style="bold red"), False))
                return
            with app.write_turns.turn(app.write_turns.take()):
                app.workspace.set_meta(key, json.dumps(report))
        self.post_message(AnalysisReady(render_analysis(report), cached is not None))

    def on_analysis_ready(self, message: AnalysisReady) -> None:
        self.query_one("#dataset-body", Static).update(message.renderable)

    # --- navigation ---------------------------------------------------------------------------------

    def action_show_tab(self, key: str) -> None:
        self.query_one(TabbedContent).active = f"sum-{key}"

    def action_back(self) -> None:
        self.app.pop_screen()


def render_comparison(doc: dict[str, Any]) -> RenderableType:
    """McNemar's p, the intervals and the per-category differences of `significance.compare`."""
    from rich.console import Group
    from rich.table import Table

    if not doc["n"]:
        return Text("no example has an EX verdict for both models", style="dim")

    def ci(c: list[float] | None, signed: bool = False) -> str:
        if c is None:
            return "—"
        return f"[{c[0]:+.1%}, {c[1]:+.1%}]" if signed else f"[{c[0]:.1%}, {c[1]:.1%}]"

    real = doc["mcnemar_p"] < 0.05
    head = Text.assemble(
        f"A {doc['accuracy_a']:.1%} {ci(doc['ci_a'])}   B {doc['accuracy_b']:.1%} {ci(doc['ci_b'])}   "
        f"A − B {doc['delta']:+.1%} {ci(doc['ci_delta'], True)}\n",
        f"McNemar's exact test on {doc['only_a'] + doc['only_b']:,} discordant examples: p = {doc['mcnemar_p']:.3g} → ",
        ("a real difference" if real else "not distinguishable from noise", "bold green" if real else "bold"),
        " at 5 % (95 % bootstrap intervals, seed 0)",
    )
    table = Table(
        title="by category (p Holm-adjusted within each facet; bold: significant)", title_justify="left"
    )
    for col in ("facet", "value", "n", "A − B", "95% interval", "p (Holm)"):
        table.add_column(col, justify="left" if col in ("facet", "value") else "right")
    for r in doc["by_category"]:
        table.add_row(
            r["facet"],
            r["value"],
            f"{r['n']:,}",
            f"{r['delta']:+.1%}",
            ci(r["ci_delta"], True),
            f"{r['p_holm']:.3g}",
            style="bold" if r["significant"] else "",
        )
    return Group(head, Text(""), table)


_CELL_BUTTONS = {
    "cell-both-pass": "both pass",
    "cell-only-a": "only A passes",
    "cell-only-b": "only B passes",
    "cell-neither": "neither passes",
}
