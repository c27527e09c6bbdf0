"""The judgement from the schema alone never calls right what the data refutes: Spider dev × 8 with every
database file hidden (`--db-dir` an empty folder, `--neighbours 3 --verify`: proofs on the declared schema
too), against the same rows judged with the files (the shared K = 10 evaluation)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("spider_dev_ts")]


def test_right_from_the_schema_is_never_refuted_by_the_data(
    spider_dev: Path, spider_dev_ts: tuple[Path, Path], tmp_path: Path
) -> None:
    from sqltriage.core.datasets import load_dataset
    from sqltriage.core.datasets.predictions import load_predictions
    from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
    from sqltriage.core.workspace.store import Workspace

    (tmp_path / "none").mkdir()
    dataset = load_dataset(spider_dev / "dev.json", db_dir=tmp_path / "none")
    assert all(dataset.db_missing(d) for d in dataset.db_ids)
    files = sorted((spider_dev / "predictions").glob("*.sql"))
    sets = [load_predictions(f, dataset, name=f.stem) for f in files]
    options = EvalOptions(features=False, neighbours=3, verify=True, neighbour_cache=str(tmp_path / "cache"))
    with Workspace.open(tmp_path / "hidden.db") as ws:
        evaluate(dataset, sets, ws, options)
    with sqlite3.connect(tmp_path / "hidden.db") as db:
        schema = {
            (m, i): (j, v, e)
            for m, i, j, v, e in db.execute(
                "SELECT model, idx, judgement, schema_verdict, equivalence FROM results"
            )
        }
    with sqlite3.connect(spider_dev_ts[1]) as db:
        data = {
            (m, i): (ex, j)
            for m, i, ex, j in db.execute("SELECT model, idx, ex_spider, judgement FROM results")
        }
    right = [k for k, (j, _v, _e) in schema.items() if j == "right" and data[k][0] is not None]
    assert len(right) > 3000  # exact matches naming the same values, and no generated database against them
    refuted = [k for k in right if data[k][0] == 0 or data[k][1] == "wrong"]
    assert refuted == []
    proved = [k for k in right if schema[k][2] == "verified"]
    assert len(proved) > 3000  # proofs (exact matches among them) decide rows, and none is refuted
    assert all(v in ("agrees", "differs", "prediction fails", "gold fails") for _j, v, _e in schema.values())
    decided = [k for k, (j, _v, _e) in schema.items() if j != "unsure" and data[k][0] is not None]
    assert len(decided) / sum(1 for k in schema if data[k][0] is not None) >= 0.7
