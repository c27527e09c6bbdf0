"""Reviewed EX on real Spider dev rows: tag, re-score through `eval --json` and the export, undo."""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path

import pytest

from sqltriage.core.triage import tags as triage
from sqltriage.core.workspace.store import Workspace
from sqltriage.tui.cli import main

FN = "Evaluation: EX false negative (equivalent query)"
FP = "Evaluation: EX false positive"
GOLD_WRONG = "Evaluation: gold SQL wrong"


@pytest.fixture
def small_spider(tmp_path: Path, spider_dev: Path) -> tuple[Path, Path]:
    """Eight real dev examples (concert_singer) and a model file: four right, four wrong."""
    dev = json.loads((spider_dev / "dev.json").read_text(encoding="utf-8"))[:8]
    folder = tmp_path / "spider_small"
    folder.mkdir()
    (folder / "dev.json").write_text(json.dumps(dev), encoding="utf-8")
    (folder / "tables.json").symlink_to(spider_dev / "tables.json")
    (folder / "database").symlink_to(spider_dev / "database")
    preds = [e["query"] if i % 2 == 0 else "SELECT 1" for i, e in enumerate(dev)]
    model = tmp_path / "model.sql"
    model.write_text("\n".join(preds) + "\n", encoding="utf-8")
    return folder, model


def eval_json(folder: Path, model: Path, ws: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    args = ["eval", str(folder), "--pred", f"m={model}", "--workspace", str(ws), "--jobs", "1", "--json"]
    assert main(args) == 0
    return json.loads(capsys.readouterr().out)["models"][0]


def exported(ws: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    assert main(["export", "--workspace", str(ws), "--out", str(out)]) == 0
    capsys.readouterr()
    with out.open() as f:
        return {r["index"]: r["ex_reviewed"] for r in csv.DictReader(f)}


def test_tags_change_reviewed_ex_and_undo_restores_it(
    small_spider: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, model = small_spider
    ws_path = tmp_path / "w.db"
    before = eval_json(folder, model, ws_path, capsys)
    assert (before["ex"], before["ex_reviewed"], before["reviewed"]) == (0.5, 0.5, 0)
    with Workspace.open(ws_path) as ws:
        fn = triage.add_tag(ws, [(1, "m"), (3, "m")], FN)  # two wrong rows are in fact right
        triage.add_tag(ws, [(0, "m")], FP)  # a passing row is in fact wrong
        wrong_gold = triage.add_tag(ws, [(5, "m")], GOLD_WRONG)  # a row whose gold cannot judge it
    after = eval_json(folder, model, ws_path, capsys)
    assert after["ex"] == 0.5  # raw EX never changes
    # 8 rows, one leaves the denominator; passing: 2, 4, 6 (raw) + 1, 3 (false negatives) - 0 (false positive)
    assert (after["ex_reviewed"], after["ex_reviewed_n"], after["reviewed"]) == (5 / 7, 7, 4)
    rows = exported(ws_path, tmp_path / "a.csv", capsys)
    assert (rows["0"], rows["1"], rows["3"], rows["5"], rows["7"]) == ("0", "1", "1", "", "0")
    with sqlite3.connect(
        ws_path
    ) as conn:  # the workspace's `evaluations` view computes the same from the tags
        view = {
            str(i): "" if v is None else str(v)
            for i, v in conn.execute("SELECT [index], ex_reviewed FROM evaluations")
        }
    assert view == rows
    with Workspace.open(ws_path) as ws:
        triage.undo(ws, fn)
        triage.undo(ws, wrong_gold)
    undone = eval_json(folder, model, ws_path, capsys)
    assert (undone["ex_reviewed"], undone["ex_reviewed_n"], undone["reviewed"]) == (3 / 8, 8, 1)
    assert exported(ws_path, tmp_path / "b.csv", capsys)["1"] == "0"


def test_a_tag_outside_its_category_counts_and_a_contradiction_keeps_raw_ex(
    small_spider: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, model = small_spider
    ws_path = tmp_path / "w.db"
    eval_json(folder, model, ws_path, capsys)
    with Workspace.open(ws_path) as ws:
        triage.add_tag(ws, [(1, "m")], "EX false negative (equivalent query)")  # a free tag, no category
        triage.add_tag(ws, [(3, "m")], FN)
        triage.add_tag(ws, [(3, "m")], FP)  # the review contradicts itself: raw EX stays
    rows = exported(ws_path, tmp_path / "c.csv", capsys)
    assert (rows["1"], rows["3"]) == ("1", "0")
