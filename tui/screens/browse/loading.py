"""The rest of the frame, read once the first screen is drawn.

The screen opens on the columns its table and sidebar show (`state.first_screen_columns`); the SQL texts,
errors, partial-match detail and suggestions of every row are read in a worker once the rows are on
screen (a second or so at 100k rows), and what needs them (the detail tabs, search, export, the
summary, accepting a prediction as gold) waits for them through `BrowseState.wait_for_rest`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl
import pyarrow as pa
from textual import work

from sqltriage.core.reporting import facets
from sqltriage.tui.screens.browse.messages import RestLoaded
from sqltriage.tui.screens.browse.state import BrowseState, first_screen_columns
from sqltriage.tui.widgets.examples_table import display_arrow


@dataclass(frozen=True, slots=True)
class Opening:
    """What the browse screen opens on: its first columns prepared, the model order, and the facet index
    and table cells of that frame (made before the screen exists, while the app has nothing else to do)."""

    frame: pl.DataFrame
    models: list[str]
    index: facets.FacetIndex
    cells: pa.Table


def read_opening(ws: Any, names: Sequence[str], ex_mode: str) -> Opening:
    """The first columns of `names`' rows (every model's for none) from the workspace `ws`, ready to show."""
    from sqltriage.core.reporting.report import load_frame

    first = load_frame(ws, list(names) or None, columns=first_screen_columns())
    frame = facets.prepare(facets.use_ex_mode(first, ex_mode))
    models = [m for m in ws.models() if not names or m in names]
    return Opening(frame, models, facets.FacetIndex(frame), display_arrow(frame))


class LoadingMixin(BrowseState):
    """Completes a frame opened on its first columns, then runs what waited for it."""

    def _load_rest(self) -> None:
        """Read the columns the frame lacks, in a worker (nothing to do for a full frame)."""
        ws = getattr(self.app, "workspace", None)
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
        self.frame, self._view = merged, None
        if self.index is not None and self.index.height == merged.height:
            self.index = self.index.retagged(merged)  # the same rows: codes, counts and sort keys stay
            self._warm_worker(self.index)  # the searched texts, now that the predictions are here
        self._run_waiting()
