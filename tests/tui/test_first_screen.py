"""The first screen of a workspace opened alone: its row count and first rows come before the frame (read
without polars), they are the rows the browse screen then shows, and keys pressed meanwhile are kept."""

from __future__ import annotations

import threading
from dataclasses import replace

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sqltriage.core.reporting.report as report
from sqltriage.core.reporting import facets
from sqltriage.core.verdicts.ex_modes import EX_MODES
from sqltriage.core.workspace.store import Workspace
from sqltriage.tui.app import create_app
from sqltriage.tui.opening import FirstPage, Preload, read_first_page
from sqltriage.tui.screens.browse import BrowseScreen
from sqltriage.tui.screens.first import FirstPageTable, FirstScreen
from sqltriage.tui.widgets.examples_table import ExamplesTable
from sqltriage.tui.widgets.facet_panel import FacetPanel
from sqltriage.tui.widgets.table_columns import COLUMNS, display_arrow, display_row, model_labels
from tests.conftest import modules_loaded_by

from .conftest import OPTIONS, TAG, Evaluated, running, screen_lines, wait_ready

HEAVY = ("polars", "numpy", "pyarrow", "textual_fastdatatable")


def _rows(table) -> list[tuple[str, ...]]:  # type: ignore[no-untyped-def]
    """A display table's rows, a missing cell as the blank it is drawn as."""
    return [tuple("" if v is None else v for v in row.values()) for row in table.to_pylist()]


def _table(ws_path, mode: str) -> list[tuple[str, ...]]:  # type: ignore[no-untyped-def]
    with Workspace.open_for_reading(ws_path) as ws:
        frame = facets.prepare(facets.use_ex_mode(report.load_frame(ws), mode))
    return _rows(display_arrow(frame))


def test_the_first_screen_is_drawn_without_polars_numpy_or_pyarrow(sample_ws: Evaluated) -> None:
    """What `open` imports and reads before its first screen (the rows and their count) leaves them out."""
    code = (
        "from sqltriage.tui.commands import open_cmd, eval_cmd\n"
        "from sqltriage.tui import app\n"
        "from sqltriage.tui.screens import first\n"
        "from sqltriage.tui.opening import Preload\n"
        f"page = Preload({str(sample_ws.workspace)!r}, 'spider').first_page()\n"
        f"assert page is not None and page.total == {sample_ws.frame.height}, page\n"
    )
    assert modules_loaded_by(code, HEAVY) == []


@pytest.mark.parametrize("mode", EX_MODES)
def test_the_first_page_holds_the_rows_the_table_shows_first(sample_ws: Evaluated, mode: str) -> None:
    table = _table(sample_ws.workspace, mode)
    with Workspace.open_for_reading(sample_ws.workspace) as ws:
        page = read_first_page(ws, mode)
        models = ws.models()
        per_model = sample_ws.frame.filter(pl.col("model") == models[0]).height
        across = read_first_page(ws, mode, limit=per_model + 3)  # the first model's rows and the next's
    assert page.total == len(table) == sample_ws.frame.height
    assert list(page.cells) == table[: len(page.cells)]
    assert list(across.cells) == table[: per_model + 3]
    assert page.models == tuple(models)
    assert any(TAG in row[-1] for row in page.cells)  # the tags column too


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(st.none(), st.floats(0, 1)),
            st.one_of(st.none(), st.sampled_from([0, 1])),
            st.one_of(st.none(), st.text(max_size=12)),
            st.sampled_from(["gpt-4", "nl2sql360_SFT_CodeLlama-13B", "nl2sql360_SFT_CodeLlama-7B", None]),
        ),
        min_size=1,
        max_size=20,
    )
)
def test_a_row_s_cells_are_written_as_the_frame_s(rows: list[tuple]) -> None:  # type: ignore[type-arg]
    frame = pl.DataFrame(
        {
            name: pl.Series(
                [
                    {"pm": r[0], "ex": r[1], "em": r[1], "question": r[2], "model": r[3]}.get(name)
                    for r in rows
                ],
                dtype=pl.Float64 if name == "pm" else pl.Int64 if name in ("index", "ex", "em") else pl.Utf8,
            )
            for name, _, _ in COLUMNS
        }
    )
    labels = model_labels([m for m in dict.fromkeys(r[3] for r in rows) if m is not None])
    expected = _rows(display_arrow(frame))
    assert [display_row(r, labels) for r in frame.iter_rows(named=True)] == expected


class GatedPreload(Preload):
    """The real preload, whose frame is read only once the test lets it (the first screen stays meanwhile)."""

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        self.gate = threading.Event()
        super().__init__(*args, **kwargs)

    def result(self):  # type: ignore[no-untyped-def]
        self.gate.wait(30)
        return super().result()


async def _first_screen(app, pilot) -> FirstScreen:  # type: ignore[no-untyped-def]
    for _ in range(200):
        await pilot.pause(0.01)
        if isinstance(app.screen, FirstScreen):
            return app.screen
    raise AssertionError(f"no first screen (screen: {app.screen!r})")


async def test_keys_pressed_on_the_first_screen_reach_the_browse_screen(sample_ws: Evaluated) -> None:
    early = GatedPreload(sample_ws.workspace, "spider")
    app = create_app(sample_ws.workspace, sample_ws.inputs.dataset, (), OPTIONS, preload=early)
    async with app.run_test(size=(160, 45)) as pilot:
        first = await _first_screen(app, pilot)
        text = "\n".join(screen_lines(app))
        n = sample_ws.frame.height
        assert f"{n:,} of {n:,} (example, model) rows · no filter · EX in spider mode" in text
        page: FirstPage = first.query_one(FirstPageTable).page
        assert page.cells[0][2][:30] in text  # the first row's question is on screen
        await pilot.press("j", "j", "s", "S")  # down twice, sort by the first column, reversed
        await pilot.click(FirstPageTable, offset=(3, 5))  # the mouse does nothing meanwhile
        assert isinstance(app.screen, FirstScreen)
        early.gate.set()
        screen = await wait_ready(app, pilot)
        frame = screen.frame
        assert screen.current == (frame["index"][2], frame["model"][2])  # the row two down, kept by the sort
        assert (screen.sort_column, screen.sort_descending) == ("index", True)
        assert "sorted by index ↓" in screen.status_text
        table = screen.query_one(ExamplesTable)
        assert screen._row_of(screen.current) == table.cursor_row


async def test_facets_count_as_when_the_frame_is_read_first(sample_ws: Evaluated) -> None:
    alone = Evaluated(replace(sample_ws.inputs, predictions=()), sample_ws.workspace, sample_ws.frame)
    async with running(alone) as (_app, _pilot, screen):  # the frame read before the browse screen
        before = screen.query_one(FacetPanel).counts
        rows = screen.query_one(ExamplesTable).row_count
    early = Preload(sample_ws.workspace, "spider")
    async with running(alone, preload=early) as (app, _pilot, screen):  # the first screen first
        assert isinstance(app.screen, BrowseScreen)
        assert screen.query_one(FacetPanel).counts == before
        assert screen.query_one(ExamplesTable).row_count == rows == sample_ws.frame.height
