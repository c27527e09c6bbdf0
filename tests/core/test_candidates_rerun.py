"""A response file evaluated again: a changed later candidate redoes its rows (the scored text alone does not
say whether a row is up to date), an unchanged file does no work, and --choose is part of what a row depends on."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from sqltriage.core.datasets import load_dataset
from sqltriage.core.datasets.predictions import load_predictions
from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
from sqltriage.core.reporting.report import load_frame
from sqltriage.core.workspace.store import Workspace
from sqltriage.samples import SAMPLE_DIR


def _write(path: Path, systems: list[list[str]], second: str | None = None) -> None:
    with path.open("w", encoding="utf-8") as out:
        for i in range(len(systems[0])):
            a, b = (s[i].strip() for s in systems)
            out.write(json.dumps({"id": i, "responses": [f"```sql\n{a}\n```", second or f"SQL: {b}"]}) + "\n")


def test_a_changed_later_candidate_is_evaluated_again(tmp_path: Path) -> None:
    dataset = load_dataset(SAMPLE_DIR)
    files = sorted((SAMPLE_DIR / "predictions").glob("*.sql"))
    systems = [f.read_text(encoding="utf-8").split("\n")[: len(dataset.examples)] for f in files]
    path = tmp_path / "k2.jsonl"
    _write(path, systems)
    options = EvalOptions(features=False, jobs=1)
    with Workspace.open(tmp_path / "w.db") as ws:
        first = evaluate(dataset, [load_predictions(path, dataset, name="k2")], ws, options)
        assert first.computed == len(dataset.examples)
        again = evaluate(dataset, [load_predictions(path, dataset, name="k2")], ws, options)
        assert again.computed == 0
        _write(path, systems, second="I cannot tell.")  # candidate 2 now holds no SQL anywhere
        redone = evaluate(dataset, [load_predictions(path, dataset, name="k2")], ws, options)
        assert redone.computed == len(dataset.examples)
        frame = load_frame(ws)
        assert frame.get_column("candidates_right").to_list() == [
            int(ex == 1) if ex is not None else None for ex in frame.get_column("ex_spider").to_list()
        ]
        assert (
            frame.filter(pl.col("ex_spider").is_not_null())
            .get_column("error")
            .str.contains("candidate 2 without SQL")
            .all()
        )
        majority = evaluate(
            dataset,
            [load_predictions(path, dataset, name="k2")],
            ws,
            EvalOptions(features=False, jobs=1, choose="majority"),
        )
        assert majority.computed == len(dataset.examples)
