"""The evaluation's process pool started from inside the running app (whose stderr is a capture)."""

from __future__ import annotations

from pathlib import Path

from sqltriage.core.pipeline.evaluate import EvalOptions
from sqltriage.core.reporting.report import load_frame
from sqltriage.core.workspace.store import Workspace
from sqltriage.tui.app import create_app

from .conftest import sample_inputs, wait_ready


async def test_app_evaluates_with_worker_processes(tmp_path: Path) -> None:
    inputs = sample_inputs()
    path = tmp_path / "pool.sqltriage.db"
    options = EvalOptions(timeout=1.0, features=False, jobs=2, pool_min_pairs=0, chunk_size=16)
    app = create_app(path, inputs.dataset, inputs.predictions, options)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await wait_ready(app, pilot)
        n = len(inputs.dataset.examples) * len(inputs.predictions)
        assert screen.status_text.startswith(f"{n} of {n}")
        notes = [str(note.message) for note in app._notifications]
        # the app's evaluation runs in a thread beside the terminal driver: its workers are never forked
        assert any(f"evaluated {n} pairs" in t and "(2 spawned processes)" in t for t in notes), notes
    with Workspace.open(path) as ws:
        assert load_frame(ws).height == n
