"""The rest of the frame, read once the first screen is drawn.

The screen opens on the columns its table and sidebar show (`tui.opening.first_screen_columns`); the SQL texts,
errors, partial-match detail and suggestions of every row are read in a worker once the rows are on
screen (a second or so at 100k rows), and what needs them (the detail tabs, search, export, the
summary, accepting a prediction as gold) waits for them through `wait_for_rest`. The frame itself is
filtering's: the columns read are handed to it (`complete_frame`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl
from textual import work

from sqltriage.tui.screens.browse.messages import RestLoaded
from sqltriage.tui.screens.browse.state import BrowseState


class LoadingMixin(BrowseState):
    """Completes a frame opened on its first columns, then runs what waited for it."""

    def wait_for_rest(self, action: Callable[[], object]) -> bool:
        """True when the frame still lacks columns: `action` then runs once they are read (once, however
        often it was asked for), and the caller stops there. False when it can go on now."""
        if self.complete:
            return False
        if action not in self._waiting:
            self._waiting.append(action)
        return True

    def _run_waiting(self) -> None:
        """Run what waited for the frame's every column, in the order it was asked for."""
        waiting, self._waiting = self._waiting, []
        for action in waiting:
            action()

    def _load_rest(self) -> None:
        """Read the columns the frame lacks, in a worker (nothing to do for a full frame)."""
        ws = self.session.workspace
        if self.complete or self._rest_loading or ws is None:
            return
        self._rest_loading = True
        self._rest_worker(ws, self.frame)

    @work(thread=True, group="rest")
    def _rest_worker(self, ws: Any, frame: pl.DataFrame) -> None:
        from sqltriage.core.reporting.report import load_rest

        try:
            rest = load_rest(ws, frame)
        except Exception as exc:  # shown, never a crash: the screen keeps what it has
            self.post_message(RestLoaded(None, str(exc)))
            return
        self.post_message(RestLoaded(rest))

    def on_rest_loaded(self, message: RestLoaded) -> None:
        from sqltriage.core.reporting.report import with_rest

        self._rest_loading = False
        if message.rest is None:
            self.notify(
                f"could not read the rest of the workspace: {message.error}", severity="error", timeout=10
            )
            return
        merged = with_rest(self.frame, message.rest)
        if merged is None:  # the frame was read again meanwhile (a gold change): whole, or read again
            self._load_rest()
            return
        self.complete_frame(merged)
        self._run_waiting()
