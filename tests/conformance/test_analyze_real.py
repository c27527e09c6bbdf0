"""`analyze` on the real datasets: Spider dev, Archer train, BIRD dev (which has no databases).

The expected numbers are counted here straight from the json files, independently of the loaders.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections import Counter
from pathlib import Path

import pytest
import spacy

from sqltriage.core.datasets import load_dataset
from sqltriage.core.model import Dataset
from sqltriage.core.questions.analysis import analyze_dataset
from sqltriage.core.questions.nl import load_pipeline, pipeline_unavailable_reason
from sqltriage.core.questions.reasoning import REASONING_NAMES
from sqltriage.tui.commands.analyze import run

# one worker runs the module: spaCy and the Archer report are loaded and made once, not once per worker
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("test_analyze_real")]


@pytest.fixture(scope="module")
def nlp():
    loaded = load_pipeline()
    assert loaded is not None, pipeline_unavailable_reason()
    return loaded


@pytest.fixture(scope="module")
def archer(shared_data: Path) -> Dataset:
    return load_dataset(shared_data / "archer" / "train.json", db_dir=shared_data / "archer" / "database")


@pytest.fixture(scope="module")
def archer_report(archer: Dataset, nlp) -> dict:
    """The report as `sqltriage analyze --json` prints it (the default pipeline, already loaded)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert run(archer, as_json=True, pipeline=None) == 0
    return json.loads(out.getvalue())


def counts(rows: list[dict]) -> dict:
    return {r["value"]: r["count"] for r in rows}


def test_archer_reasoning_tallies_equal_a_count_of_the_json(shared_data: Path, archer_report: dict) -> None:
    raw = json.loads((shared_data / "archer" / "train.json").read_text())
    per_type: Counter[str] = Counter()
    for record in raw:
        for token in set(record["reasoning_type"].split()):
            per_type[REASONING_NAMES[token]] += 1
    r = archer_report["reasoning"]
    assert r["n_annotated"] == len(raw) == 414
    assert r["n_inferred"] == 0
    assert counts(r["types"]) == dict(per_type)
    assert r["with_commonsense_note"] == sum(1 for x in raw if x["commonsense_knowledge"].strip())
    # One label per example; labels built from the same token sets, whatever their written order.
    assert sum(counts(r["labels"]).values()) == len(raw)
    distinct_sets = {frozenset(x["reasoning_type"].split()) for x in raw}
    assert len(r["labels"]) == len(distinct_sets)


def test_archer_databases_and_questions(archer_report: dict) -> None:
    d = archer_report["database"]
    assert d["n_databases"] == 8
    assert d["without_file"] == ["soccer_1"]
    assert all(row["n_rows"] > 0 for row in d["databases"])
    qa = archer_report["question"]
    assert qa["missing_reason"] is None
    for axis in ("n_words", "tree_depth", "lexical_density", "flesch"):
        assert qa["features"][axis]["summary"]["missing"] == 0
    # soccer_1 has neither file nor schema, so its 52 questions have no schema linkage.
    assert qa["features"]["schema_linkage"]["summary"]["missing"] == 52


def test_archer_queries(archer_report: dict) -> None:
    assert archer_report["dataset"]["n_examples"] == 414
    q = archer_report["query"]
    assert q["n_unreadable"] == 0
    assert sum(r["count"] for r in q["structural"]) == 414
    # Every Archer question needs arithmetic, and the operator categories see it in the gold SQL.
    assert sum(r["count"] for r in q["operators"] if "Ar" in r["value"].split()) > 0.9 * 414


def test_spider_dev(spider_dev: Path, nlp) -> None:
    ds = load_dataset(spider_dev)
    report = analyze_dataset(ds, nlp=nlp)
    raw = json.loads((spider_dev / "dev.json").read_text())
    assert report["dataset"]["n_examples"] == len(raw) == 1034
    q = report["query"]
    assert q["n_unreadable"] == 0
    assert sum(r["count"] for r in q["structural"]) == 1034
    assert sum(r["share"] for r in q["structural"]) == pytest.approx(1.0, abs=1e-3)
    assert sum(r["count"] for r in q["operator_usage"]["histogram"]) == 1034
    d = report["database"]
    by_db = {r["db_id"]: r for r in d["databases"]}
    assert set(by_db) == {x["db_id"] for x in raw}
    assert by_db["wta_1"]["n_rows"] is None  # the file is missing; tables.json still gives the schema
    assert by_db["wta_1"]["n_tables"] > 0
    assert all(r["n_rows"] is not None for k, r in by_db.items() if k != "wta_1")
    qa = report["question"]["features"]
    assert all(qa[axis]["summary"]["missing"] == 0 for axis in ("n_words", "tree_depth", "schema_linkage"))
    # Spider is known for naming its schema in the questions: most questions name something.
    assert qa["schema_linkage"]["summary"]["mean"] > 0.3
    r = report["reasoning"]
    assert r["n_annotated"] == 0 and r["n_inferred"] == 1034


def test_bird_dev_without_databases(shared_data: Path) -> None:
    # A blank tokenizer keeps this quick: tag-based question features are covered on Spider and Archer.
    ds = load_dataset(shared_data / "bird_dev")
    report = analyze_dataset(ds, nlp=spacy.blank("en"))
    raw = json.loads((shared_data / "bird_dev" / "dev.json").read_text())
    assert report["dataset"]["n_examples"] == len(raw) == 1534
    d = report["database"]
    assert d["n_databases"] == 11
    assert len(d["without_file"]) == 11
    assert all(r["n_rows"] is None and r["n_columns"] > 0 for r in d["databases"])
    r = report["reasoning"]
    assert r["external_knowledge"] == sum(1 for x in raw if x["evidence"].strip())
    assert counts(r["difficulty"]) == dict(Counter(x["difficulty"] for x in raw))
    assert sum(x["count"] for x in report["query"]["structural"]) + report["query"]["n_unreadable"] == 1534
    assert report["question"]["features"]["schema_linkage"]["summary"]["n"] > 0  # from dev_tables.json
