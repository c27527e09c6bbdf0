"""What every part of the browse screen shares: the state, the records it is made from, row lookups.

`BrowseState` holds the state (the session given by the app, the full frame, the filters, the sort, the
rows shown, the highlighted row and what the detail tabs show of it); each concern of the screen is a
mixin on top of it, and `screen.BrowseScreen` combines them. Each field has one owner, the module that
writes it (`OWNERS`, and the sections of `BrowseState.__init__`); the other modules read it or call the
owner. The mixins subclass it (and so `Screen`) rather than `object`: Textual finds `@on` handlers only
on classes made by its message-pump metaclass.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl
import pyarrow as pa
from textual.screen import Screen

from sqltriage.core.model import Schema
from sqltriage.core.reporting import facets
from sqltriage.core.reporting.report import missing_columns
from sqltriage.tui.screens.browse.session import BrowseSession

if TYPE_CHECKING:  # the suggestion engine loads sqlglot: only when a row is analysed
    from sqltriage.core.suggest import Suggestion

RowKey = tuple[int, str]  # (example index, model)


def freeze_long_lived() -> None:
    """Exempt what exists now (modules, the app's widgets) from the cyclic collector's full passes.

    Once the screen is up, a full collection would otherwise rescan the ~150k objects of textual,
    polars and sqlglot every time; new objects (and their garbage) are still collected. Only the
    young generations are collected first: a full pass here would stall the first screen for a
    noticeable moment (what little old cyclic garbage there is stays, once per load). After a start
    without collection (`idle_gc.pause_during_start`) the young generation holds everything made
    since, nearly all of it alive (a few hundred objects of garbage): it is frozen as it is instead of
    rescanned (about 80 ms), and collection is on again.
    """
    from sqltriage.tui.idle_gc import resume_after_start

    if resume_after_start():
        gc.freeze()
        return
    gc.collect(1)
    gc.freeze()


@dataclass(frozen=True, slots=True)
class Sources:
    """Where the detail tabs find schemas and databases (the loaded dataset), and live-run limits."""

    schemas: Mapping[str, Schema]
    databases: Mapping[str, Path | None]
    timeout: float
    max_rows: int


OWNERS: dict[str, str] = {  # each field of `BrowseState`, and the one module that writes it after `__init__`
    # state: given to the constructor, never changed
    "session": "state",
    "ex_mode": "state",
    "sources": "state",
    "models": "state",
    # filtering: the frame and the rows shown of it (triage and loading hand it a new frame)
    "frame": "filtering",
    "filters": "filtering",
    "sort_column": "filtering",
    "sort_descending": "filtering",
    "index": "filtering",
    "cells": "filtering",
    "_opened": "filtering",
    "rows": "filtering",
    "_view": "filtering",
    "generation": "filtering",
    "_filtering": "filtering",
    "_pending_cursor": "filtering",
    # detail: the highlighted row and what its tabs show (triage asks it to draw them again)
    "current": "detail",
    "resolve_aliases": "detail",
    "suggestions": "detail",
    "_live_key": "detail",
    "_detail_key": "detail",
    "_editor_key": "detail",
    "_placeholder": "detail",
    "last_outcomes": "detail",
    "question_features": "detail",
    "features_status": "detail",
    # triage: what was saved, and the accepted alternative golds (read on mount, after each gold change)
    "saved_log": "triage",
    "accepted_golds": "triage",
    # loading: the rest of the frame being read, and what waits for it
    "_waiting": "loading",
    "_rest_loading": "loading",
}


class BrowseState(Screen):
    """The browse screen's state, and the lookups between keys, table rows and the frame's rows.

    Only state here: what the screen does with it is in the mixins (their handlers alone touch widgets).
    Each field is written by one module only, its owner in `OWNERS` (the sections below); the others
    read it or call a method of its owner.
    """

    def __init__(
        self,
        frame: pl.DataFrame,
        sources: Sources,
        models: list[str],
        *,
        session: BrowseSession,
        ex_mode: str = "spider",
        index: facets.FacetIndex | None = None,
        cells: pa.Table | None = None,
    ) -> None:
        """`session`: what the screen uses of the app; `index` and `cells`: the facet index and table cells
        of `frame` if already made (`tui.opening`)."""
        super().__init__()
        # --- state: given, never changed ---
        self.session = session
        self.ex_mode = ex_mode
        self.sources = sources
        self.models = models
        # --- filtering: the frame and the rows shown of it ---
        self.frame = frame  # prepared (core.facets.prepare), every (example, model)
        self.filters = facets.Filters()
        self.sort_column: str | None = None
        self.sort_descending = False
        given = index is not None and index.frame is frame and cells is not None
        self.index: facets.FacetIndex | None = index if given else None  # else built by the filter worker
        self.cells: pa.Table | None = cells if given else None  # every row's cells, made once per frame
        self._opened = False  # the first rows have been shown
        self.rows: np.ndarray = np.zeros(0, dtype=np.int64)  # the frame's rows shown, in table order
        self._view: tuple[np.ndarray, pl.DataFrame] | None = None
        self.generation = 0
        self._filtering = False  # a filter worker is running: the next request waits for it
        self._pending_cursor: RowKey | None = None
        # --- detail: the highlighted row and its tabs ---
        self.current: RowKey | None = None
        self.resolve_aliases = True
        self.suggestions: dict[RowKey, list[Suggestion]] = {}
        self._live_key: RowKey | None = None
        self._detail_key: RowKey | None = None
        self._editor_key: RowKey | None = None
        self._placeholder: Any = None  # the timer that shows "running…" when a live run is slow
        self.last_outcomes: dict[str, int | float | str | None] = {}
        # question features computed while the app runs (the workspace had none): index -> q_* values
        self.question_features: dict[int, dict[str, Any]] = {}
        self.features_status = ""  # "" (not asked), "computing", "computed"/"cached", "unavailable: ..."
        # --- triage: what was saved, the accepted golds ---
        self.saved_log: list[str] = []  # every change shown as saved, in order (what the user was told)
        self.accepted_golds: Mapping[
            int, tuple[str, ...]
        ] = {}  # alternatives accepted in the app, by example
        # --- loading: the rest of the frame ---
        self._waiting: list[Callable[[], object]] = []  # what needs the columns still being read
        self._rest_loading = False  # a worker is reading the columns the frame lacks

    @property
    def complete(self) -> bool:
        """Whether the frame has every stored column (else the rest is being read: `loading`)."""
        return not missing_columns(self.frame)

    def _row_of(self, key: RowKey | None) -> int | None:
        """The table row showing `key`, or None when the filter hides it."""
        if key is None or self.index is None or not len(self.rows):
            return None
        number = self.index.row_number(*key)
        hits = np.flatnonzero(self.rows == number) if number is not None else []
        return int(hits[0]) if len(hits) else None

    def row_at(self, row: int) -> dict[str, Any] | None:
        if not 0 <= row < len(self.rows):
            return None
        return self.frame.row(int(self.rows[row]), named=True)

    def _current_row(self) -> dict[str, Any] | None:
        row = self._row_of(self.current)
        return self.row_at(row) if row is not None else None

    if TYPE_CHECKING:  # what one concern calls on another: each is defined once, in its own module

        async def _show_footer(self) -> None: ...  # screen
        def _load_rest(self) -> None: ...  # loading
        def wait_for_rest(self, action: Callable[[], object]) -> bool: ...  # loading
        def _run_waiting(self) -> None: ...  # loading
        def patch_frame(self, frame: pl.DataFrame) -> None: ...  # filtering
        def reread_frame(self, frame: pl.DataFrame) -> None: ...  # filtering
        def complete_frame(self, frame: pl.DataFrame) -> None: ...  # filtering
        def _warm_worker(self, index: facets.FacetIndex) -> Any: ...  # filtering
        @property
        def view(self) -> pl.DataFrame: ...  # filtering
        def refilter(self, keep: RowKey | None = None) -> None: ...  # filtering
        def _row_changed(self, *, first_paint: bool = False) -> None: ...  # detail
        def redraw_detail(self) -> None: ...  # detail
        def accepted_labelled(self, index: int) -> list[tuple[str, str]]: ...  # detail
        def _show_triage(self, row: dict[str, Any] | None = None) -> None: ...  # triage
