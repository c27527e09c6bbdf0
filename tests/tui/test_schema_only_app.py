"""A dataset without its database files in the app: the summary says the calls come from the schema, not
from data, and a row's detail starts with the call and its reason, which says there is no database file."""

from __future__ import annotations

import argparse
from pathlib import Path

import polars as pl
import pytest

from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
from sqltriage.core.reporting.report import load_frame
from sqltriage.core.workspace.store import Workspace
from sqltriage.tui.inputs import load_inputs
from sqltriage.tui.screens.summary import SummaryScreen
from sqltriage.tui.widgets.detail_pane import DetailPane
from tests.core.test_schema_only_bad_input import _write

from .conftest import Evaluated, settle, wait_ready

OPENED: dict[Path, EvalOptions] = {}  # the options each workspace was evaluated with: the app opens it alike


@pytest.fixture
def no_files(tmp_path: Path) -> Evaluated:
    _write(tmp_path)
    inputs = load_inputs(
        argparse.Namespace(dataset=str(tmp_path / "dev.json"), pred=[f"m={tmp_path / 'pred.json'}"])
    )
    path = tmp_path / "w.db"
    options = EvalOptions(features=False, jobs=1, neighbours=3, neighbour_cache=str(tmp_path / "cache"))
    OPENED[path] = options
    with Workspace.open(path) as ws:
        evaluate(inputs.dataset, inputs.predictions, ws, options)
        frame = load_frame(ws)
    return Evaluated(inputs, path, frame)


async def test_the_app_says_the_calls_come_from_the_schema(no_files: Evaluated) -> None:
    wrong = no_files.frame.filter(pl.col("judgement") == "wrong")
    assert wrong.height >= 1
    from sqltriage.tui.app import create_app

    ev = no_files
    app = create_app(ev.workspace, ev.inputs.dataset, ev.inputs.predictions, OPENED[ev.workspace])
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await wait_ready(app, pilot)
        screen.sort_by("judgement")
        await settle(app, pilot)
        row = screen._current_row()
        assert row is not None
        text = str(app.screen.query_one(DetailPane).shown["sql"].renderables[0])
        assert text.startswith(f"{row['judgement']}: {row['judgement_why']}")
        assert "no database" in text
        await pilot.press("m")
        await settle(app, pilot)
        summary = app.screen
        assert isinstance(summary, SummaryScreen)
        flat = " ".join(summary.metrics_text(width=400).split())
        assert (
            "5 row(s) of 3 database(s) have no database file: their judgement comes from the schema" in flat
        )
