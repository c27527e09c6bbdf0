"""The detail of a real Spider dev example (skips without ../shared/data)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import polars as pl

from sqltriage.core.datasets import load_dataset
from sqltriage.core.datasets.predictions import load_predictions
from sqltriage.core.pipeline.evaluate import evaluate
from sqltriage.core.reporting.report import load_frame
from sqltriage.core.verdicts.execution import execute
from sqltriage.core.workspace.store import Workspace
from sqltriage.tui.app import create_app
from sqltriage.tui.widgets.detail_pane import DetailPane

from .conftest import OPTIONS, settle, wait_ready

N = 12  # the first examples of dev.json: enough for failures, fast to evaluate


async def test_real_spider_example_detail(spider_dev: Path, tmp_path: Path) -> None:
    full = load_dataset(spider_dev)
    dataset = dataclasses.replace(full, examples=full.examples[:N])
    preds = load_predictions(
        spider_dev / "predictions" / "spider_repo_pred_example.sql", full, name="pred_example"
    )
    preds = dataclasses.replace(preds, predictions=preds.predictions[:N])
    ws_path = tmp_path / "dev.sqltriage.db"
    with Workspace.open(ws_path) as ws:
        evaluate(dataset, [preds], ws, OPTIONS)
        frame = load_frame(ws)
    failing = frame.filter(pl.col("ex") == 0).sort("index")
    assert failing.height > 0
    row = failing.row(0, named=True)
    app = create_app(ws_path, dataset, [preds], OPTIONS)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await wait_ready(app, pilot)
        for _ in range(frame.get_column("index").to_list().index(row["index"])):
            await pilot.press("j")
        await settle(app, pilot)
        assert screen.current == (row["index"], "pred_example")
        await pilot.press("3")
        await settle(app, pilot)
        detail = screen.query_one(DetailPane)
        gold = execute(dataset.db_path(row["db_id"]), row["gold_sql"])
        assert f"gold  {len(gold.rows)} row(s)" in detail.text("results", width=160)
        assert row["question"] in detail.text("question", width=160)
        assert "only in gold:" in detail.text("sql", width=160)
