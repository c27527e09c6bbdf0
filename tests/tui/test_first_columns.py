"""The browse screen opens on its first columns and reads the rest afterwards: it ends up showing the same
things, and what needs the rest (detail tabs, search, export, summary) waits for it rather than acting
on a partial row."""

from __future__ import annotations

import argparse
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import sqltriage.core.reporting.report as report
from sqltriage.core.reporting import facets
from sqltriage.core.workspace.store import Workspace
from sqltriage.tui.app import create_app
from sqltriage.tui.commands.open_cmd import preload
from sqltriage.tui.opening import Preload, read_opening
from sqltriage.tui.screens.browse import BrowseScreen
from sqltriage.tui.screens.modals import ExportDialog
from sqltriage.tui.widgets.detail_pane import DetailPane
from sqltriage.tui.widgets.examples_table import ExamplesTable

from .conftest import OPTIONS, Evaluated, running, settle
from .test_browse import shown


@pytest.mark.parametrize("preloaded", [False, True])
async def test_the_screen_ends_up_with_the_frame_a_full_read_gives(
    sample_ws: Evaluated, preloaded: bool
) -> None:
    # opened on the workspace alone (nothing to evaluate), read in the open worker or preloaded
    kwargs = {"preload": Preload(sample_ws.workspace, "spider")} if preloaded else {}
    alone = Evaluated(replace(sample_ws.inputs, predictions=()), sample_ws.workspace, sample_ws.frame)
    async with running(alone, **kwargs) as (_app, _pilot, screen):
        assert screen.complete
        with Workspace.open(sample_ws.workspace) as ws:
            full = facets.prepare(facets.use_ex_mode(report.load_frame(ws), screen.ex_mode))
        assert_frame_equal(screen.frame, full)
        row = screen._current_row()
        assert row is not None and row["pred_sql"] and "pred_structural" in row
        assert screen.query_one(DetailPane).text("sql").strip()  # the first row was analysed


async def _until(condition: Any, pilot: Any) -> None:
    for _ in range(2000):
        if condition():
            return
        await pilot.pause(0.01)
    raise AssertionError("the app did not get there in time")


async def test_what_needs_the_rest_waits_for_it(sample_ws: Evaluated, monkeypatch: Any) -> None:
    release = threading.Event()
    read = report.load_rest

    def held_back(ws: Workspace, frame: pl.DataFrame) -> pl.DataFrame:
        assert release.wait(30)
        return read(ws, frame)

    monkeypatch.setattr(report, "load_rest", held_back)
    frame = sample_ws.frame
    word = "count"
    expected = frame.filter(
        pl.any_horizontal(
            pl.col(c).fill_null("").str.to_lowercase().str.contains(word, literal=True)
            for c in ("question", "gold_sql", "pred_sql")
        )
    ).height
    assert 0 < expected < frame.height
    app = create_app(sample_ws.workspace, sample_ws.inputs.dataset, sample_ws.inputs.predictions, OPTIONS)
    async with app.run_test(size=(160, 50)) as pilot:
        await _until(lambda: isinstance(app.screen, BrowseScreen) and app.screen.current is not None, pilot)
        screen = app.screen
        assert not screen.complete and "pred_sql" not in screen.frame.columns
        assert shown(screen) == (frame.height, frame.height, frame.height)  # the first screen is whole
        detail = screen.query_one(DetailPane)

        await pilot.press("slash", *word)  # typed before the predictions are read: applied once they are
        await pilot.press("escape", "e", "3")  # export and the results tab wait as well
        await pilot.pause(0.1)
        assert shown(screen)[0] == frame.height
        assert not isinstance(app.screen, ExportDialog)
        assert not detail.text("sql").strip() and not detail.text("results").strip()

        release.set()
        await _until(lambda: isinstance(app.screen, ExportDialog), pilot)
        await pilot.press("escape")
        await settle(app, pilot)
        assert screen.complete
        assert shown(screen)[0] == shown(screen)[2] == expected
        idx, model = screen.current
        row = frame.filter((pl.col("index") == idx) & (pl.col("model") == model)).row(0, named=True)
        assert detail.editor.text == (row["pred_sql"] or "")  # the stored prediction, not an empty one
        assert detail.text("results").strip()
        assert screen.query_one(ExamplesTable).row_count == expected


def test_preloaded_only_what_open_shows_without_evaluating(sample_ws: Evaluated, tmp_path: Path) -> None:
    def args(**given: Any) -> argparse.Namespace:
        return argparse.Namespace(**({"dataset": None, "pred": None, "workspace": None} | given))

    ws = str(sample_ws.workspace)
    assert preload(args(workspace=ws, pred=["m=x.sql"])) is None  # an evaluation comes first
    assert preload(args(dataset="x")) is None  # no workspace named: it is found from the dataset
    assert preload(args(workspace=str(tmp_path / "new.db"))) is None  # a new one
    early = preload(args(workspace=ws))
    assert early is not None and early.path == sample_ws.workspace
    with Workspace.open(sample_ws.workspace) as opened:
        direct = read_opening(opened, (), early.ex_mode)
    got = early.result()
    assert_frame_equal(got.frame, direct.frame)
    assert got.models == direct.models and got.cells.equals(direct.cells)
    with pytest.raises(Exception, match="does not exist"):
        Preload(tmp_path / "gone.db", "spider").result()  # the error comes back where the result is taken


async def test_a_start_without_collection_collects_again_once_the_rows_are_drawn(
    sample_ws: Evaluated,
) -> None:
    import gc

    from sqltriage.tui.idle_gc import pause_during_start

    assert gc.isenabled()
    pause_during_start()  # as `sqltriage open` does
    try:
        async with running(sample_ws) as (_app, _pilot, screen):
            assert screen.current is not None
            assert gc.isenabled()
    finally:
        gc.enable()


async def test_a_preload_that_failed_is_reported_as_a_failed_load(
    sample_ws: Evaluated, tmp_path: Path
) -> None:
    failed = Preload(tmp_path / "gone.sqltriage.db", "spider")
    app = create_app(sample_ws.workspace, sample_ws.inputs.dataset, (), OPTIONS, preload=failed)
    async with app.run_test(size=(160, 50)) as pilot:
        await _until(lambda: bool(app.load_error), pilot)
    assert "does not exist" in app.load_error
