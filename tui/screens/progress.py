"""Opening a workspace: evaluate what is missing (with counts, ETA, cancel), then load the frame.

`evaluate()` itself finds what is already stored (a cached workspace costs it a fraction of a second),
so the progress box appears only once it reports work to do: a cached workspace opens straight onto
the browse screen.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Center, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Label, ProgressBar

from sqltriage.core.model import Dataset, PredictionSet
from sqltriage.tui.idle_gc import resume_after_start

if TYPE_CHECKING:  # polars is imported once the first screen is drawn
    import polars as pl


class EvalProgress(Message):
    def __init__(self, stage: str, done: int, total: int) -> None:
        super().__init__()
        self.stage, self.done, self.total = stage, done, total


class Loaded(Message):
    """The workspace is ready: its prepared frame and model order (or the error that stopped it), and
    what the browse screen opens on (`Opening`: the same frame's facet index and table cells)."""

    def __init__(
        self,
        frame: pl.DataFrame | None,
        models: list[str],
        note: str = "",
        error: str = "",
        *,
        opening: Any = None,
    ) -> None:
        super().__init__()
        self.frame, self.models, self.note, self.error = frame, models, note, error
        self.opening = opening


class ProgressScreen(Screen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel evaluation", id="progress.cancel"),
    ]

    def __init__(
        self, workspace_path: Path, dataset: Dataset, predictions: Sequence[PredictionSet], options: object
    ) -> None:
        super().__init__()
        self.workspace_path = workspace_path
        self.dataset = dataset
        self.predictions = tuple(predictions)
        self.options = options
        self.cancel_event = threading.Event()
        self._started = time.monotonic()
        self._stage_started: dict[str, float] = {}

    def compose(self) -> ComposeResult:
        with Center(), Vertical(id="progress-box"):
            yield Label(f"opening {self.dataset.name} — workspace {self.workspace_path}", id="progress-title")
            yield Label("checking stored results…", id="progress-stage")
            yield ProgressBar(id="progress-bar", show_eta=False)
            yield Label("", id="progress-counts")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#progress-box").display = False  # shown once there is work to wait for
        self._open_worker()

    @work(thread=True, exclusive=True, group="open")
    def _open_worker(self) -> None:
        from sqltriage.tui.opening import read_opening

        app = self.app
        ws = app.workspace  # type: ignore[attr-defined]
        note = ""
        try:
            if self.predictions:
                from sqltriage.core.pipeline.evaluate import evaluate

                summary = evaluate(
                    self.dataset,
                    self.predictions,
                    ws,
                    self.options,  # type: ignore[arg-type]
                    progress=lambda s, d, t: self.post_message(EvalProgress(s, d, t)),
                    cancel=self.cancel_event,
                )
                from sqltriage.core.reporting.views import ensure_views

                ensure_views(ws)  # as `sqltriage eval` leaves it (a workspace only read is left as it is)
                if summary.cancelled:
                    note = f"evaluation cancelled: {summary.computed} pairs done, the rest next time"
                elif summary.computed:
                    note = (
                        f"evaluated {summary.computed} pairs in {summary.elapsed:.1f} s ({summary.workers})"
                    )
            # the browse screen's own columns first; it reads the rest once its rows are drawn
            names = [p.name for p in self.predictions]
            opening = read_opening(ws, names, getattr(app, "ex_mode", "spider"))
        except Exception as exc:  # shown to the user instead of a traceback on a torn-down screen
            self.post_message(Loaded(None, [], error=str(exc)))
            return
        self.post_message(Loaded(opening.frame, opening.models, note, opening=opening))

    def on_eval_progress(self, message: EvalProgress) -> None:
        if not message.total:
            return  # nothing to evaluate: stay blank until the browse screen replaces this one
        resume_after_start()  # an evaluation may take long: collect as usual meanwhile
        self.query_one("#progress-box").display = True
        now = time.monotonic()
        started = self._stage_started.setdefault(message.stage, now)
        bar = self.query_one(ProgressBar)
        bar.update(total=max(message.total, 1), progress=message.done)
        eta = ""
        if 0 < message.done < message.total:
            rate = message.done / max(now - started, 1e-6)
            eta = f" · about {(message.total - message.done) / rate:.0f} s left"
        self.query_one("#progress-stage", Label).update(f"{message.stage}")
        self.query_one("#progress-counts", Label).update(f"{message.done:,} of {message.total:,}{eta}")

    def action_cancel(self) -> None:
        self.cancel_event.set()
        self.query_one("#progress-stage", Label).update("cancelling after the running chunks…")
