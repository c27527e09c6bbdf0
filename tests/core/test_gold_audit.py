"""Suspect gold queries on real Spider dev examples: every reason, the tie at a LIMIT, tie-sensitive rows."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from sqltriage.core.datasets import load_dataset
from sqltriage.core.datasets.predictions import load_predictions
from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
from sqltriage.core.reporting import facets
from sqltriage.core.reporting.report import load_frame
from sqltriage.core.verdicts.execution import execute
from sqltriage.core.verdicts.gold_audit import GoldAudit, audit_gold, tie_sensitive
from sqltriage.core.workspace.store import Workspace

TIE = 788  # world_1: the country with the smallest population; 7 countries have population 0
EMPTY = 14  # concert_singer: no stadium has a capacity between 5000 and 10000
NULLS = 810  # world_1: "north america" in lower case matches no continent, so sum() and avg() are NULL


@pytest.fixture(scope="module")
def dev(spider_dev: Path) -> list[dict]:
    return json.loads((spider_dev / "dev.json").read_text(encoding="utf-8"))


def audit(spider_dev: Path, db_id: str, gold: str) -> GoldAudit:
    db = spider_dev / "database" / db_id / f"{db_id}.sqlite"
    return audit_gold(gold, execute(db, gold), lambda q: execute(db, q))


def test_a_limit_inside_a_tie_on_the_sort_key_is_suspect(spider_dev: Path, dev: list[dict]) -> None:
    a = audit(spider_dev, "world_1", dev[TIE]["query"])
    assert a.reasons == ("tie",) and a.labels == "LIMIT cuts a tie"
    assert a.tie is not None and a.tie.keys == ("Population",) and a.tie.value == (0,)
    assert len(a.tie.kept) == 1 and len(a.tie.dropped) == 6
    assert "7 rows tie on Population = 0" in a.detail


def test_a_limit_past_the_ties_is_not_suspect(spider_dev: Path) -> None:
    a = audit(spider_dev, "concert_singer", "SELECT name FROM singer ORDER BY age DESC LIMIT 1")
    assert a.reasons == () and a.labels is None


def test_empty_and_null_results_are_suspect(spider_dev: Path, dev: list[dict]) -> None:
    assert audit(spider_dev, "concert_singer", dev[EMPTY]["query"]).labels == "empty result"
    assert audit(spider_dev, "world_1", dev[NULLS]["query"]).labels == "only NULLs"


def test_limit_without_order_by_is_suspect_only_when_it_drops_rows(spider_dev: Path) -> None:
    assert audit(spider_dev, "world_1", "SELECT Name FROM country LIMIT 3").labels == "LIMIT without ORDER BY"
    assert audit(spider_dev, "world_1", "SELECT count(*) FROM country LIMIT 1").labels is None


def test_a_gold_that_fails_or_times_out_is_suspect(spider_dev: Path) -> None:
    db = spider_dev / "database" / "world_1" / "world_1.sqlite"
    assert audit(spider_dev, "world_1", "SELECT nme FROM country").labels == "gold fails"
    slow = "SELECT count(*) FROM city a, city b, city c"
    assert audit_gold(slow, execute(db, slow, timeout=0.2), None).labels == "gold times out"


def test_a_prediction_keeping_another_tied_row_is_tie_sensitive(spider_dev: Path, dev: list[dict]) -> None:
    db = spider_dev / "database" / "world_1" / "world_1.sqlite"
    gold = execute(db, dev[TIE]["query"])
    a = audit(spider_dev, "world_1", dev[TIE]["query"])
    other = execute(
        db, "SELECT Name, SurfaceArea, IndepYear FROM country WHERE Population = 0 ORDER BY Name DESC LIMIT 1"
    )
    assert other.rows != gold.rows
    assert tie_sensitive(a.tie, gold.rows, other.rows)
    wrong = execute(db, "SELECT Name, SurfaceArea, IndepYear FROM country ORDER BY Population DESC LIMIT 1")
    assert not tie_sensitive(a.tie, gold.rows, wrong.rows)
    assert not tie_sensitive(a.tie, gold.rows, gold.rows)  # gold itself simply passes


@pytest.fixture
def small_spider(tmp_path: Path, spider_dev: Path, dev: list[dict]) -> Path:
    """A Spider-format folder with four real dev examples and the real databases."""
    folder = tmp_path / "spider_small"
    folder.mkdir()
    picked = [dev[i] for i in (TIE, EMPTY, NULLS, 0)]
    (folder / "dev.json").write_text(json.dumps(picked), encoding="utf-8")
    (folder / "tables.json").symlink_to(spider_dev / "tables.json")
    (folder / "database").symlink_to(spider_dev / "database")
    preds = [
        "SELECT Name, SurfaceArea, IndepYear FROM country WHERE Population = 0 ORDER BY Name DESC LIMIT 1",
        "SELECT location, name FROM stadium WHERE capacity > 1000000",
        dev[NULLS]["query"],
        "SELECT count(*) FROM singer",
    ]
    (folder / "model.sql").write_text("\n".join(preds) + "\n", encoding="utf-8")
    return folder


def test_eval_stores_the_audit_and_the_facets_list_it(small_spider: Path, tmp_path: Path) -> None:
    ds = load_dataset(small_spider)
    pred = load_predictions(small_spider / "model.sql", ds, name="model")
    with Workspace.open(tmp_path / "w.db") as ws:
        evaluate(ds, [pred], ws, EvalOptions(features=False, jobs=1))
        frame = load_frame(ws)
    by_index = {r["index"]: r for r in frame.iter_rows(named=True)}
    assert by_index[0]["gold_suspect"] == "LIMIT cuts a tie"
    assert "LIMIT 1 cuts inside a tie" in by_index[0]["gold_suspect_detail"]
    assert (by_index[0]["ex"], by_index[0]["tie_sensitive"]) == (0, 1)
    assert by_index[1]["gold_suspect"] == "empty result" and by_index[1]["ex"] == 1  # wrong, yet passes
    assert by_index[2]["gold_suspect"] == "only NULLs"
    assert by_index[3]["gold_suspect"] is None and by_index[3]["tie_sensitive"] is None
    prepared = facets.prepare(frame)
    counts = dict(facets.facet_counts(prepared, facets.Filters())["outcome"])
    assert counts["gold suspect: LIMIT cuts a tie"] == 1
    assert counts["gold suspect: empty result"] == 1
    assert counts["EX fail only by a row tied at gold's LIMIT (tie-sensitive)"] == 1
    chosen = facets.apply(prepared, facets.Filters().toggled("outcome", "gold suspect: only NULLs"))
    assert chosen.get_column("index").to_list() == [2]
    assert pl.Series(chosen.get_column("gold_suspect")).to_list() == ["only NULLs"]


def test_auditing_from_gold_parse_agrees_with_reading_the_text_again(
    spider_dev: Path, dev: list[dict]
) -> None:
    """The evaluation hands the audit gold's parse; the verdicts must be those of the text read anew."""
    from sqltriage.core.sql.parse import parse_sql

    golds = [e["query"] for e in dev if e["db_id"] in ("world_1", "concert_singer") and "LIMIT" in e["query"]]
    golds += ['SELECT Name FROM country WHERE Continent = "Asia" ORDER BY Population LIMIT 1 ;']
    tied = 0
    for gold in golds:
        db_id = "world_1" if "country" in gold.lower() or "city" in gold.lower() else "concert_singer"
        db = spider_dev / "database" / db_id / f"{db_id}.sqlite"
        result = execute(db, gold)
        anew = audit_gold(gold, result, lambda q, db=db: execute(db, q))
        assert audit_gold(gold, result, lambda q, db=db: execute(db, q), parse_sql(gold)) == anew, gold
        tied += anew.tie is not None
    assert len(golds) > 20 and tied >= 1
