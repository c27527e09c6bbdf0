"""What the browse screen opens on, read without the UI: in the open worker, or in a thread of its own
started before the app is imported (`Preload`), so that reading the workspace and importing Textual
overlap.

The screen opens on the columns its table, facets and outcomes use (`first_screen_columns`); it reads
the others itself once its rows are drawn (`screens.browse.loading`).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa

from sqltriage.core.reporting import facets
from sqltriage.tui.widgets.table_columns import COLUMNS, display_arrow


def first_screen_columns() -> frozenset[str]:
    """The stored columns the first screen shows or counts: the table's, the facets' and the outcomes'."""
    return facets.columns_read() | {column for column, _, _ in COLUMNS}


@dataclass(frozen=True, slots=True)
class Opening:
    """The first columns prepared, the model order, and the facet index and table cells of that frame
    (made before the screen exists, while the app has nothing else to do)."""

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


class Preload:
    """`read_opening` of every model of an existing workspace, in a thread started at once.

    For a workspace opened with nothing to evaluate: the open worker then takes the result (or its
    error) instead of reading the workspace itself.
    """

    def __init__(self, path: Path, ex_mode: str) -> None:
        self.path = path
        self.ex_mode = ex_mode
        self._opening: Opening | None = None
        self._error: Exception | None = None
        self._thread = threading.Thread(target=self._run, name="sqltriage-preload", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        from sqltriage.core.workspace.store import Workspace

        try:
            with Workspace.open_for_reading(self.path) as ws:  # reading changes nothing
                self._opening = read_opening(ws, (), self.ex_mode)
        except Exception as exc:  # raised again where the result is taken, as read_opening's would be
            self._error = exc

    def result(self) -> Opening:
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._opening is not None
        return self._opening
