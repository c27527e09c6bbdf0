"""What the browse screen opens on, read without the UI: in the open worker, or (`Preload`) partly in a
thread of its own started before the app is imported, so that reading the workspace and importing
Textual overlap.

A workspace opened with nothing to evaluate shows its first screenful at once (`FirstPage`: the row
count and the first rows' cells, read straight from SQLite without polars, numpy or pyarrow, whose
imports are a third of a start); the frame itself (`Opening`) is read, with those imports, once that
screen is drawn. The frame opens on the columns its table, facets and outcomes use
(`first_screen_columns`); the browse screen reads the others itself once its rows are drawn
(`screens.browse.loading`).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqltriage.tui.widgets.table_columns import COLUMNS, display_row, model_labels

if TYPE_CHECKING:  # imported when the frame is read, after the first screen is drawn
    import polars as pl
    import pyarrow as pa

    from sqltriage.core.reporting import facets

FIRST_PAGE_ROWS = 200  # rows of the first screen read before the frame: more than a terminal shows


def first_screen_columns() -> frozenset[str]:
    """The stored columns the first screen shows or counts: the table's, the facets' and the outcomes'."""
    from sqltriage.core.reporting import facets

    return facets.columns_read() | {column for column, _, _ in COLUMNS}


@dataclass(frozen=True, slots=True)
class FirstPage:
    """What the browse screen shows before its frame is read: how many rows there are, the first of them
    as the examples table shows them (in the frame's order, `display_row`), and the model order."""

    total: int
    cells: tuple[tuple[str, ...], ...]
    models: tuple[str, ...]
    ex_mode: str


# The frame's rows (`report.load_frame`: results of the models and examples stored, in model order, then
# example order) with the table's columns; `ex` as the EX mode shows it (`facets.use_ex_mode`).
_FIRST_ROWS_SQL = (
    "SELECT r.idx AS [index], e.db_id, e.question, r.model, r.judgement, e.gold_flags, "
    "r.[ex_{mode}] AS ex, r.em, r.pm, e.structural, "
    "e.operators, e.hardness, (SELECT group_concat(tag, ', ') FROM (SELECT tag FROM tags t "
    "WHERE t.idx = r.idx AND t.model = r.model ORDER BY tag)) AS tags "
    "FROM results r JOIN examples e ON e.idx = r.idx WHERE r.model = ? ORDER BY r.idx LIMIT ?"
)
_WITH_RESULTS_SQL = "SELECT name FROM models m WHERE EXISTS (SELECT 1 FROM results r WHERE r.model = m.name)"
_COUNT_SQL = (
    "SELECT count(*) FROM results r JOIN examples e ON e.idx = r.idx JOIN models m ON m.name = r.model"
)


def read_first_page(ws: Any, ex_mode: str, limit: int = FIRST_PAGE_ROWS) -> FirstPage:
    """The row count and first `limit` rows of every model's frame in the workspace `ws`, with SQLite alone."""
    from sqltriage.core.verdicts.ex_modes import EX_MODES

    if ex_mode not in EX_MODES:
        raise ValueError(f"unknown EX mode {ex_mode!r} (one of {', '.join(EX_MODES)})")
    with ws.snapshot() as db:
        names = [r[0] for r in db.execute("SELECT name FROM models ORDER BY position, name")]
        present = {r[0] for r in db.execute(_WITH_RESULTS_SQL)}
        models = [m for m in names if m in present]
        total = int(db.execute(_COUNT_SQL).fetchone()[0])
        rows: list[dict[str, Any]] = []
        sql = _FIRST_ROWS_SQL.format(mode=ex_mode)
        for model in models:
            if len(rows) >= limit:
                break
            cursor = db.execute(sql, [model, limit - len(rows)])
            keys = [d[0] for d in cursor.description]
            rows += [dict(zip(keys, values, strict=True)) for values in cursor]
    labels = model_labels(models)
    return FirstPage(total, tuple(display_row(r, labels) for r in rows), tuple(names), ex_mode)


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
    from sqltriage.core.reporting import facets
    from sqltriage.core.reporting.report import load_frame
    from sqltriage.tui.widgets.table_columns import display_arrow

    first = load_frame(ws, list(names) or None, columns=first_screen_columns())
    frame = facets.prepare(facets.use_ex_mode(first, ex_mode))
    models = [m for m in ws.models() if not names or m in names]
    return Opening(frame, models, facets.FacetIndex(frame), display_arrow(frame))


class Preload:
    """An existing workspace opened with nothing to evaluate: its `FirstPage`, read in a thread started at
    once, and then (`result`, in the open worker once the first screen is drawn) its `Opening`.
    """

    def __init__(self, path: Path, ex_mode: str) -> None:
        self.path = path
        self.ex_mode = ex_mode
        self._first: FirstPage | None = None
        self._opening: Opening | None = None
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="sqltriage-preload", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        from sqltriage.core.workspace.store import Workspace

        try:
            with Workspace.open_for_reading(self.path) as ws:  # reading changes nothing
                self._first = read_first_page(ws, self.ex_mode)
        except Exception:  # no first page: the frame's read (`result`) then says what is wrong
            self._first = None

    def first_page(self) -> FirstPage | None:
        """The first screenful, or None when it could not be read (the app then waits for `result`)."""
        self._thread.join()
        return self._first

    def result(self) -> Opening:
        """Every model's `read_opening`, read on the calling thread (once; an error is raised to it)."""
        from sqltriage.core.workspace.store import Workspace

        with self._lock:
            if self._opening is None:
                with Workspace.open_for_reading(self.path) as ws:
                    self._opening = read_opening(ws, (), self.ex_mode)
            return self._opening
