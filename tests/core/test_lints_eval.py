"""An evaluation stores the lints of every gold (`gold_lints`) and every prediction (`pred_lints`), read off
the parses it makes anyway, on real Spider dev examples and their real databases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sqltriage.core.datasets import load_dataset
from sqltriage.core.datasets.predictions import load_predictions
from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
from sqltriage.core.reporting.report import load_frame
from sqltriage.core.workspace.store import Workspace

# Spider dev examples: 125 and 469 have a gold with a lint (469's database, wta_1, is missing: lints need
# none), 6 and 215 a clean one
PICKED = (125, 469, 6, 215)


@pytest.fixture
def small_spider(tmp_path: Path, spider_dev: Path) -> Path:
    """A Spider-format folder with four real dev examples, the real databases and one model's predictions."""
    dev = json.loads((spider_dev / "dev.json").read_text(encoding="utf-8"))
    folder = tmp_path / "spider_small"
    folder.mkdir()
    (folder / "dev.json").write_text(json.dumps([dev[i] for i in PICKED]), encoding="utf-8")
    (folder / "tables.json").symlink_to(spider_dev / "tables.json")
    (folder / "database").symlink_to(spider_dev / "database")
    dinsql = (spider_dev / "predictions" / "dinsql_gpt4.sql").read_text(encoding="utf-8").splitlines()
    preds = [
        dev[125]["query"],  # the gold itself: its lint is the gold's too
        "SELECT avg(ranking), T1.first_name FROM players AS T1 JOIN rankings AS T2 "
        "ON T1.player_id = T2.player_id GROUP BY T1.player_id",  # the fix: no lint
        "SELECT song_name, song_release_year FROM singer WHERE age = (SELECT min(age) FROM singer) LIMIT 1",
        dinsql[215],  # DIN-SQL compares flights.Airline, a number, with an airline's name
    ]
    (folder / "model.sql").write_text("\n".join(preds) + "\n", encoding="utf-8")
    return folder


def test_eval_stores_gold_and_prediction_lints(small_spider: Path, tmp_path: Path) -> None:
    ds = load_dataset(small_spider)
    pred = load_predictions(small_spider / "model.sql", ds, name="model")
    with Workspace.open(tmp_path / "w.db") as ws:
        evaluate(ds, [pred], ws, EvalOptions(features=False, jobs=1))
        frame = load_frame(ws)
    rows = {r["index"]: r for r in frame.iter_rows(named=True)}
    assert [(rows[i]["gold_lints"], rows[i]["pred_lints"]) for i in range(4)] == [
        ("text-compared-with-number", "text-compared-with-number"),
        ("group-by-name", ""),
        ("", "limit-without-order-by"),
        ("", "number-compared-with-word"),
    ]
    # a prediction passing EX with a lint its gold lacks is left to a person, the lint named
    assert (rows[3]["ex"], rows[3]["judgement"]) == (1, "unsure")  # both find no such flight
    assert "(number-compared-with-word)" in rows[3]["judgement_why"]
    assert (rows[0]["ex"], rows[0]["judgement"]) == (1, "right")  # the same lint as its gold's
    # advisory lints are listed on the gold but do not doubt it (a doubting one does: test_judgement.py)
    assert "lint:" not in (rows[1]["gold_flags"] or "")
    assert "lint:" not in (rows[0]["gold_flags"] or "")
