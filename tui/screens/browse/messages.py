"""What the browse screen's thread workers post back: one message per kind of result.

Workers (filtering, detail analysis, live runs, question features, workspace writes, exports) never
touch widgets; they post one of these, and its handler on the screen (on the app's thread) does.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl
import pyarrow as pa
from rich.console import RenderableType
from textual.message import Message

from sqltriage.core.reporting import facets
from sqltriage.core.triage.tags import Change
from sqltriage.tui.screens.browse.state import RowKey

if TYPE_CHECKING:  # the suggestion engine loads sqlglot: only when a row is analysed
    from sqltriage.core.suggest import Suggestion


class FiltersApplied(Message):
    """Row numbers and live counts for one filter request, and the index and cells they refer to."""

    def __init__(
        self,
        generation: int,
        index: facets.FacetIndex,
        data: pa.Table,
        rows: np.ndarray,
        counts: dict[str, list[tuple[str, int]]],
    ) -> None:
        super().__init__()
        self.generation = generation
        self.index = index
        self.data = data
        self.rows = rows
        self.counts = counts


class DetailReady(Message):
    def __init__(self, key: RowKey, tabs: dict[str, RenderableType], suggestions: list[Suggestion]) -> None:
        super().__init__()
        self.key = key
        self.tabs = tabs
        self.suggestions = suggestions


class LiveResult(Message):
    def __init__(
        self, key: RowKey, renderable: RenderableType, outcomes: dict[str, int | float | str | None]
    ) -> None:
        super().__init__()
        self.key = key
        self.renderable = renderable
        self.outcomes = outcomes


class Saved(Message):
    """A triage change committed to the workspace (or the error that stopped it)."""

    def __init__(
        self,
        change: Change | None,
        *,
        undo: bool = False,
        error: str = "",
        rows: dict[tuple[int, str], tuple[str | None, ...]] | None = None,
    ) -> None:
        super().__init__()
        self.change, self.undo, self.error = change, undo, error
        self.rows = rows or {}  # (tags, tags_by, adjudicated_by) of the rows it touched, as stored after it


class GoldsChanged(Message):
    """An alternative gold accepted, withdrawn or its change undone: the frame re-read with the rows it
    re-scored, the accepted alternatives as they are now, and what to tell (or the error that stopped it)."""

    def __init__(
        self,
        frame: pl.DataFrame | None,
        accepted: Mapping[int, tuple[str, ...]],
        text: str,
        error: str = "",
    ) -> None:
        super().__init__()
        self.frame, self.accepted, self.text, self.error = frame, accepted, text, error


class UndoFound(Message):
    """The change an undo would revert (None: nothing to undo, or the error reading the logs)."""

    def __init__(self, change: Change | None, error: str = "") -> None:
        super().__init__()
        self.change, self.error = change, error


class Exported(Message):
    def __init__(self, path: Path, rows: int, error: str = "") -> None:
        super().__init__()
        self.path, self.rows, self.error = path, rows, error


class FeaturesReady(Message):
    """The dataset's question features (by example index), or why there are none."""

    def __init__(self, rows: dict[int, dict[str, Any]], status: str) -> None:
        super().__init__()
        self.rows, self.status = rows, status


class RestLoaded(Message):
    """The stored columns the frame lacked, for its rows (`report.load_rest`), or why they could not be read."""

    def __init__(self, rest: pl.DataFrame | None, error: str = "") -> None:
        super().__init__()
        self.rest, self.error = rest, error
