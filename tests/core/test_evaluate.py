"""The pipeline on the bundled sample: every metric stored, reruns reuse, a changed model is redone alone."""

from __future__ import annotations

import json
import shutil
import threading
from itertools import pairwise
from pathlib import Path

import polars as pl
import pytest

from sqltriage.core.datasets import load_dataset
from sqltriage.core.datasets.predictions import load_predictions
from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
from sqltriage.core.reporting.report import EXPORT_COLUMNS, full_report, load_frame
from sqltriage.core.workspace.store import Workspace
from sqltriage.samples import SAMPLE_DIR

FAST = EvalOptions(timeout=1.0, features=False)


@pytest.fixture
def sample_copy(tmp_path: Path) -> Path:
    """A private copy, so a test may edit a prediction file."""
    dst = tmp_path / "sample"
    shutil.copytree(SAMPLE_DIR, dst)
    return dst


def load(folder: Path):
    ds = load_dataset(folder)
    preds = [load_predictions(p, ds) for p in sorted((folder / "predictions").glob("*.sql"))]
    return ds, preds


def test_sample_evaluates_every_pair(sample_copy: Path, tmp_path: Path) -> None:
    ds, preds = load(sample_copy)
    with Workspace.open(tmp_path / "w.db") as ws:
        summary = evaluate(ds, preds, ws, FAST)
        n = len(ds.examples)
        assert summary.computed == n * len(preds) and summary.reused == 0
        frame = load_frame(ws)
        assert frame.height == n * len(preds)
        assert set(EXPORT_COLUMNS) <= set(frame.columns)
        assert ws.db.execute("SELECT count(*) FROM examples WHERE gold_done = 1").fetchone()[0] == n
        # every sample database exists, so every row has an execution verdict unless the gold itself failed
        gold_failed = frame.filter(pl.col("gold_error").is_not_null()).height
        assert frame.filter(pl.col("va").is_null()).height == gold_failed == 0
        # a prediction identical to the gold passes every metric
        same = frame.filter(pl.col("pred_sql") == pl.col("gold_sql"))
        assert same.height > 0
        assert same.select(pl.col("ex").min(), pl.col("em_spider").min(), pl.col("pm").min()).row(0) == (
            1,
            1,
            1.0,
        )
        # an empty prediction is a row with an error, not a crash
        empty = frame.filter(pl.col("pred_sql") == "")
        assert empty.height >= 1 and empty.get_column("va").to_list() == [0] * empty.height
        assert all(e for e in empty.get_column("error").to_list())
        # a prediction that tries to change the database fails with an error and the file is unchanged
        writes = frame.filter(pl.col("pred_sql").str.contains("(?i)^\\s*(delete|drop|update|insert)"))
        assert writes.height >= 1 and set(writes.get_column("va").to_list()) == {0}


def test_rerun_reuses_and_changed_prediction_is_redone_alone(sample_copy: Path, tmp_path: Path) -> None:
    ds, preds = load(sample_copy)
    path = tmp_path / "w.db"
    with Workspace.open(path) as ws:
        evaluate(ds, preds, ws, FAST)
        ws.add_tags([(0, preds[0].name)], "Value: mismatch")
        ws.set_note(0, preds[0].name, "keep me")
        again = evaluate(ds, preds, ws, FAST)
        assert again.computed == 0 and again.reused == len(ds.examples) * len(preds)
    changed = preds[0].path
    lines = changed.read_text().splitlines()
    lines[1] = "SELECT 42"
    changed.write_text("\n".join(lines) + "\n")
    ds, preds = load(sample_copy)
    with Workspace.open(path) as ws:
        third = evaluate(ds, preds, ws, FAST)
        # only the edited line is evaluated again: every other pair was computed from the same inputs
        assert third.computed == 1 and third.stale_models == [preds[0].name]
        assert third.reused == len(ds.examples) * len(preds) - 1
        frame = load_frame(ws)
        row = frame.filter((pl.col("model") == preds[0].name) & (pl.col("index") == 1)).row(0, named=True)
        assert row["pred_sql"] == "SELECT 42"
        kept = frame.filter((pl.col("model") == preds[0].name) & (pl.col("index") == 0)).row(0, named=True)
        assert kept["tags"] == "Value: mismatch" and kept["note"] == "keep me"
    # the partly re-evaluated workspace holds exactly what a cold evaluation of the edited files gives
    with Workspace.open(tmp_path / "cold.db") as ws:
        evaluate(ds, preds, ws, FAST)
        cold = load_frame(ws)
    timing = (
        [c for c in frame.columns if c.endswith("_elapsed")]
        + ["_review"]
        + [
            "tags",
            "tags_by",
            "annotators",
            "disagree",
            "note",
        ]
    )
    order = ["model", "index"]
    assert frame.drop(timing).sort(order).equals(cold.drop(timing).sort(order))


def test_other_options_still_redo_every_pair(sample_copy: Path, tmp_path: Path) -> None:
    ds, preds = load(sample_copy)
    with Workspace.open(tmp_path / "w.db") as ws:
        evaluate(ds, preds, ws, FAST)
        changed = evaluate(ds, preds, ws, EvalOptions(timeout=2.0, features=False, jobs=1))
        assert changed.computed == len(ds.examples) * len(preds) and changed.reused == 0


def test_cancelled_run_resumes_to_the_same_result(sample_copy: Path, tmp_path: Path) -> None:
    ds, preds = load(sample_copy)
    opts = EvalOptions(timeout=1.0, features=False, chunk_size=8)
    with Workspace.open(tmp_path / "full.db") as ws:
        evaluate(ds, preds, ws, opts)
        full = load_frame(ws).drop("pred_elapsed", "gold_elapsed")
    cancel = threading.Event()

    def stop_after_first_chunk(stage: str, done: int, total: int) -> None:
        if done > 0:
            cancel.set()

    with Workspace.open(tmp_path / "part.db") as ws:
        first = evaluate(ds, preds, ws, opts, progress=stop_after_first_chunk, cancel=cancel)
        assert first.cancelled and 0 < first.computed < full.height
        second = evaluate(ds, preds, ws, opts)
        assert second.computed == full.height - first.computed
        resumed = load_frame(ws).drop("pred_elapsed", "gold_elapsed")
    assert resumed.equals(full)


def test_process_pool_gives_the_same_results(sample_copy: Path, tmp_path: Path) -> None:
    ds, preds = load(sample_copy)
    with Workspace.open(tmp_path / "a.db") as ws:
        evaluate(ds, preds, ws, EvalOptions(timeout=1.0, features=False, jobs=1))
        serial = load_frame(ws).drop("pred_elapsed", "gold_elapsed")
    with Workspace.open(tmp_path / "b.db") as ws:
        evaluate(
            ds, preds, ws, EvalOptions(timeout=1.0, features=False, jobs=2, pool_min_pairs=0, chunk_size=10)
        )
        pooled = load_frame(ws).drop("pred_elapsed", "gold_elapsed")
    assert pooled.equals(serial)


def test_report_counts_match_the_frame(sample_copy: Path, tmp_path: Path) -> None:
    ds, preds = load(sample_copy)
    with Workspace.open(tmp_path / "w.db") as ws:
        evaluate(ds, preds, ws, FAST)
        frame = load_frame(ws)
    report = full_report(frame)
    json.dumps(report)  # the --json document must serialise
    for m in report["models"]:
        sub = frame.filter(pl.col("model") == m["model"])
        assert m["n"] == sub.height
        assert m["ex"] == pytest.approx(sub.get_column("ex").drop_nulls().mean())
        assert m["em_spider"] == pytest.approx(sub.get_column("em_spider").drop_nulls().mean())
    by_hardness = report["breakdowns"]["hardness"]
    assert sum(r["n"] for r in by_hardness) == frame.height


def test_paraphrased_questions_of_one_gold_share_a_chunk(spider_dev: Path) -> None:
    """Spider dev puts the paraphrases of a question side by side: the chunks a run is split into (and
    handed to different processes) never part two examples of one gold, and stay near their size."""
    from sqltriage.core.pipeline.evaluate import chunked

    ds = load_dataset(spider_dev / "dev.json")
    tasks = [(e.index, True, ("m",)) for e in ds.examples]
    chunks = chunked(tasks, ds, 24)
    assert [t for c in chunks for t in c] == tasks
    gold = lambda t: (ds.examples[t[0]].db_id, ds.examples[t[0]].gold_sql)  # noqa: E731
    assert all(gold(a[-1]) != gold(b[0]) for a, b in pairwise(chunks))
    assert all(24 <= len(c) <= 4 * 24 for c in chunks[:-1])
    # a plain cut every 24 examples parts such a pair at most boundaries
    cuts = [tasks[i : i + 24] for i in range(0, len(tasks), 24)]
    assert sum(gold(a[-1]) == gold(b[0]) for a, b in pairwise(cuts)) > 10
