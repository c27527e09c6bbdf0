"""Several correct answers on real Spider dev examples: alternatives from the dataset, a sidecar, the app."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from sqltriage.core.datasets import load_dataset
from sqltriage.core.datasets.predictions import load_predictions
from sqltriage.core.errors import DatasetError
from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
from sqltriage.core.reporting.report import load_frame
from sqltriage.core.triage import accepted_gold
from sqltriage.core.workspace.accepted import accepted
from sqltriage.core.workspace.store import Workspace

TIE = 788  # world_1: seven countries have population 0 and the gold's LIMIT 1 keeps one of them
OTHER_TIED = (
    "SELECT Name, SurfaceArea, IndepYear FROM country WHERE Population = 0 ORDER BY Name DESC LIMIT 1"
)
FAST = EvalOptions(features=False, jobs=1)


@pytest.fixture(scope="module")
def dev(spider_dev: Path) -> list[dict]:
    return json.loads((spider_dev / "dev.json").read_text(encoding="utf-8"))


@pytest.fixture
def folder(tmp_path: Path, spider_dev: Path, dev: list[dict]) -> Path:
    """A Spider-format folder with three real dev examples (the tie first) on the real databases."""
    out = tmp_path / "spider_small"
    out.mkdir()
    (out / "dev.json").write_text(json.dumps([dev[TIE], dev[0], dev[1]]), encoding="utf-8")
    (out / "tables.json").symlink_to(spider_dev / "tables.json")
    (out / "database").symlink_to(spider_dev / "database")
    return out


def write_preds(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def rows_of(ws: Workspace, model: str) -> dict[int, dict]:
    frame = load_frame(ws, [model])
    return {r["index"]: r for r in frame.iter_rows(named=True)}


def test_a_sidecar_alternative_makes_ex_pass_and_says_which(
    folder: Path, tmp_path: Path, dev: list[dict]
) -> None:
    (folder / "dev.alternatives.jsonl").write_text(
        json.dumps({"index": 0, "sql": [OTHER_TIED]})
        + "\n"
        + json.dumps({"id": "2", "sql": dev[1]["query"]})
        + "\n",
        encoding="utf-8",
    )
    ds = load_dataset(folder)
    assert ds.examples[0].alternatives == (OTHER_TIED,)
    pred = load_predictions(
        write_preds(tmp_path / "m.sql", [OTHER_TIED, dev[0]["query"], "SELECT 1"]), ds, name="m"
    )
    with Workspace.open(tmp_path / "w.db") as ws:
        evaluate(ds, [pred], ws, FAST)
        rows = rows_of(ws, "m")
    assert (rows[0]["ex"], rows[0]["ex_spider"], rows[0]["gold_match"]) == (1, 1, "alternative 1")
    assert (rows[0]["ex_official"], rows[0]["official_quirk"]) == (0, "alternative gold")  # one gold only
    assert (rows[1]["ex"], rows[1]["gold_match"]) == (1, "gold")
    assert (rows[2]["ex"], rows[2]["gold_match"]) == (0, None)


def test_jsonl_and_csv_datasets_carry_alternatives(tmp_path: Path, spider_dev: Path, dev: list[dict]) -> None:
    record = {"question": dev[TIE]["question"], "query": dev[TIE]["query"], "db_id": "world_1"}
    jsonl = tmp_path / "q.jsonl"
    jsonl.write_text(json.dumps(record | {"alternatives": [OTHER_TIED]}) + "\n", encoding="utf-8")
    common = {"db_dir": spider_dev / "database", "tables": spider_dev / "tables.json"}
    assert load_dataset(jsonl, **common).examples[0].alternatives == (OTHER_TIED,)
    table = tmp_path / "q.csv"
    with table.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=[*record, "alternatives"])
        writer.writeheader()
        writer.writerow(record | {"alternatives": json.dumps([OTHER_TIED, "SELECT 2"])})
    assert load_dataset(table, **common).examples[0].alternatives == (OTHER_TIED, "SELECT 2")


def test_a_bad_sidecar_line_names_the_file_and_line(folder: Path) -> None:
    sidecar = folder / "alternatives.jsonl"
    sidecar.write_text(
        json.dumps({"index": 0, "sql": "SELECT 1"}) + "\n" + json.dumps({"index": 99, "sql": "x"}) + "\n"
    )
    with pytest.raises(DatasetError) as err:
        load_dataset(folder)
    assert str(err.value.path) == str(sidecar) and "line 2" in str(err.value) and "index 99" in str(err.value)


def test_accepting_a_prediction_rescored_every_model_and_later_runs_use_it(
    folder: Path, tmp_path: Path, dev: list[dict]
) -> None:
    ds = load_dataset(folder)
    first = load_predictions(
        write_preds(tmp_path / "a.sql", [OTHER_TIED, "SELECT 1", "SELECT 1"]), ds, name="a"
    )
    with Workspace.open(tmp_path / "w.db") as ws:
        evaluate(ds, [first], ws, FAST)
        assert rows_of(ws, "a")[0]["ex"] == 0
        done = accepted_gold.accept(ws, ds, 0, OTHER_TIED, model="a", timeout=5.0, max_rows=100_000)
        assert done.changed == (("a", "spider"), ("a", "bird"), ("a", "archer"))
        row = rows_of(ws, "a")[0]
        assert (row["ex"], row["gold_match"], row["ex_official"]) == (1, "accepted 1", 0)
        assert row["official_quirk"] == "alternative gold"
        # a model evaluated afterwards is scored against the accepted alternative too; nothing else reruns
        second = load_predictions(
            write_preds(tmp_path / "b.sql", [OTHER_TIED, "SELECT 1", "SELECT 1"]), ds, name="b"
        )
        summary = evaluate(ds, [first, second], ws, FAST)
        assert (summary.computed, summary.reused) == (3, 3)
        assert rows_of(ws, "b")[0]["gold_match"] == "accepted 1"
        assert accepted(ws) == {0: (OTHER_TIED,)}
    assert load_dataset(folder).examples[0].alternatives == ()  # the dataset file is untouched
