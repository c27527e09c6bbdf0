"""Untrusted SQL typed into the app's live results: refused on its row, the database untouched."""

from __future__ import annotations

import argparse
import hashlib
import shutil
from pathlib import Path

import polars as pl
import pytest

from sqltriage.core.pipeline.evaluate import evaluate
from sqltriage.core.reporting.report import load_frame
from sqltriage.core.workspace.store import Workspace
from sqltriage.samples import SAMPLE_DIR
from sqltriage.tui.inputs import load_inputs
from sqltriage.tui.widgets.detail_pane import DetailPane

from .conftest import OPTIONS, Evaluated, running, settle

HOSTILE = (
    ("DROP TABLE books", "forbidden"),
    ("DELETE FROM loans", "forbidden"),
    ("ATTACH DATABASE 'evil.sqlite' AS evil", "forbidden"),
    ("VACUUM INTO 'copy.sqlite'", "forbidden"),
    ("PRAGMA user_version = 7", "forbidden"),
    ("SELECT 1; DROP TABLE books", "multiple_statements"),
    ("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r", "timeout"),
)


def tree(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in folder.rglob("*")
        if p.is_file()
    }


@pytest.fixture
def private_sample(tmp_path: Path) -> Evaluated:
    folder = tmp_path / "sample"
    shutil.copytree(SAMPLE_DIR, folder)
    preds = [f"{p.stem}={p}" for p in sorted((folder / "predictions").glob("*.sql"))]
    inputs = load_inputs(argparse.Namespace(dataset=str(folder), pred=preds))
    path = tmp_path / "ws.sqltriage.db"
    with Workspace.open(path) as ws:
        evaluate(inputs.dataset, inputs.predictions, ws, OPTIONS)
        frame = load_frame(ws)
    return Evaluated(inputs, path, frame)


async def test_hostile_rerun_is_refused_and_changes_nothing(private_sample: Evaluated) -> None:
    folder = private_sample.inputs.dataset.path.parent
    before = tree(folder)
    library_row = private_sample.frame.filter(pl.col("db_id") == "library").row(0, named=True)
    async with running(private_sample) as (app, pilot, screen):
        assert screen.current is not None and screen.current[0] == library_row["index"]
        await pilot.press("3")
        await settle(app, pilot)
        detail = screen.query_one(DetailPane)
        for sql, kind in HOSTILE:
            detail.editor.focus()
            detail.editor.text = sql
            await pilot.press("ctrl+r")
            await settle(app, pilot)
            assert screen.last_outcomes["va"] == 0, sql
            assert screen.last_outcomes["ex_spider"] == 0, sql
            shown = detail.text("results", width=200)
            assert "VA fail" in shown, sql
            assert kind.replace("_", " ") in shown or kind in shown, (sql, shown[:400])
    assert tree(folder) == before  # same bytes, no new file (no evil.sqlite, no copy.sqlite)
