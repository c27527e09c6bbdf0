"""The bundled sample evaluated once into a temporary workspace, and a way to open the app on it."""

from __future__ import annotations

import argparse
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pytest

from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
from sqltriage.core.reporting.report import load_frame
from sqltriage.core.workspace.store import Workspace
from sqltriage.samples import SAMPLE_DIR
from sqltriage.tui.app import SqlTriageApp, create_app
from sqltriage.tui.inputs import Inputs, load_inputs
from sqltriage.tui.screens.browse import BrowseScreen

OPTIONS = EvalOptions(timeout=1.0, features=False, jobs=1)
TAG = "wrong-column"


@dataclass(frozen=True)
class Evaluated:
    inputs: Inputs
    workspace: Path
    frame: pl.DataFrame  # straight from the workspace: what every count on screen is checked against


def sample_inputs() -> Inputs:
    preds = [f"{p.stem}={p}" for p in sorted((SAMPLE_DIR / "predictions").glob("*.sql"))]
    return load_inputs(argparse.Namespace(dataset=str(SAMPLE_DIR), pred=preds))


@pytest.fixture(scope="session")
def sample_ws(tmp_path_factory: pytest.TempPathFactory) -> Evaluated:
    inputs = sample_inputs()
    path = tmp_path_factory.mktemp("ws") / "sample.sqltriage.db"
    with Workspace.open(path) as ws:
        evaluate(inputs.dataset, inputs.predictions, ws, OPTIONS)
        first = load_frame(ws).filter(pl.col("ex") == 0).head(2)
        ws.add_tags([(r["index"], r["model"]) for r in first.iter_rows(named=True)], TAG)
        frame = load_frame(ws)
    return Evaluated(inputs, path, frame)


def screen_lines(app) -> list[str]:  # type: ignore[no-untyped-def]
    """The screen as text, line by line, as a terminal shows it."""
    strips = app.screen._compositor.render_strips()
    return ["".join(segment.text for segment in strip) for strip in strips]


async def wait_ready(app: SqlTriageApp, pilot) -> BrowseScreen:  # type: ignore[no-untyped-def]
    """Until the browse screen is up and every worker (filter, detail, live run) has reported."""
    for _ in range(400):
        await app.workers.wait_for_complete()
        await pilot.pause()
        if isinstance(app.screen, BrowseScreen) and app.screen.current is not None:
            await settle(app, pilot)
            return app.screen
    raise AssertionError(f"browse screen never came up (screen: {app.screen!r})")


async def settle(app: SqlTriageApp, pilot) -> None:  # type: ignore[no-untyped-def]
    """Until no worker runs and no filter request is pending, twice in a row (a handler may start one)."""
    quiet = 0
    for _ in range(100):
        await app.workers.wait_for_complete()
        await pilot.pause()
        busy = any(w.is_running for w in app.workers) or getattr(app.screen, "_filtering", False)
        quiet = 0 if busy else quiet + 1
        if quiet == 2:
            return
    raise AssertionError("the app never settled")


@asynccontextmanager
async def running(ev: Evaluated, **kwargs) -> AsyncIterator[tuple[SqlTriageApp, object, BrowseScreen]]:  # type: ignore[no-untyped-def]
    app = create_app(ev.workspace, ev.inputs.dataset, ev.inputs.predictions, OPTIONS, **kwargs)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await wait_ready(app, pilot)
        yield app, pilot, screen


@pytest.fixture
def ws_copy(sample_ws: Evaluated, tmp_path: Path) -> Evaluated:
    """The evaluated sample in a file of this test's own, for tests that write tags and notes."""
    import shutil

    path = tmp_path / "copy.sqltriage.db"
    shutil.copyfile(sample_ws.workspace, path)
    return Evaluated(sample_ws.inputs, path, sample_ws.frame)
