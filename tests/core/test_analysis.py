"""The dataset-analysis report on a small hand-made dataset with a real SQLite database."""

from __future__ import annotations

import json
import sqlite3

import pytest
import spacy

from sqltriage.core.datasets.schema import schema_from_sqlite
from sqltriage.core.model import Dataset, Example
from sqltriage.core.questions.analysis import analyze_dataset, binned, distribution, summary
from sqltriage.tui.commands.analyze import bar, compact, run, top


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    folder = tmp_path_factory.mktemp("shop")
    db = folder / "shop.sqlite"
    conn = sqlite3.connect(db)
    conn.executescript(
        """
        CREATE TABLE product (id INTEGER PRIMARY KEY, name TEXT, price REAL);
        CREATE TABLE sale (id INTEGER PRIMARY KEY, product_id INTEGER, qty INTEGER);
        INSERT INTO product VALUES (1, 'pen', 2), (2, 'lamp', 30), (3, 'desk', 120);
        INSERT INTO sale VALUES (1, 2, 1), (2, 3, 2);
        """
    )
    conn.commit()
    conn.close()
    rows = [
        (
            "shop",
            "How many products are there?",
            "SELECT count(*) FROM product",
            {"evidence": "a product is a row"},
        ),
        (
            "shop",
            "What is the name of the product with price above 10?",
            "SELECT name FROM product WHERE price > 10",
            {"reasoning": ("+", "C"), "commonsense": "above means greater than"},
        ),
        (
            "shop",
            "List the total price of each sale.",
            "SELECT T1.price * T2.qty FROM product AS T1 JOIN sale AS T2 ON T1.id = T2.product_id",
            {},
        ),
        ("shop", "Broken gold query?", "SELEC oops FROM", {}),
        ("ghost", "What is in the ghost database?", "SELECT a FROM b", {"difficulty": "simple"}),
    ]
    examples = tuple(
        Example(index=i, example_id=str(i), db_id=db_id, question=q, gold_sql=sql, **kw)
        for i, (db_id, q, sql, kw) in enumerate(rows)
    )
    return Dataset(
        name="shop_test",
        path=folder,
        format="jsonl",
        examples=examples,
        schemas={"shop": schema_from_sqlite(db)},
        databases={"shop": db, "ghost": None},
    )


@pytest.fixture(scope="module")
def report(dataset: Dataset) -> dict:
    return analyze_dataset(dataset, nlp=spacy.blank("en"))


def counts(rows: list[dict]) -> dict:
    return {r["value"]: r["count"] for r in rows}


def test_report_is_one_json_document(report: dict) -> None:
    again = json.loads(json.dumps(report, allow_nan=False))
    assert again == report
    assert report["dataset"]["n_examples"] == 5
    assert report["dataset"]["n_databases"] == 2


def test_query_axes_count_each_readable_gold_query_once(report: dict) -> None:
    q = report["query"]
    assert q["n_unreadable"] == 1
    assert q["unreadable"][0]["index"] == 3
    assert counts(q["structural"]) == {"S F": 3, "S F W": 1}
    assert counts(q["operators"]) == {"Ag": 1, "C": 1, "J C Ar": 1, "(none)": 1}  # an ON equality is C
    assert sum(r["share"] for r in q["structural"]) == pytest.approx(1.0)
    assert counts(q["tables_per_query"]["histogram"]) == {1: 3, 2: 1}
    assert q["tables_per_query"]["summary"]["max"] == 2
    assert counts(q["values_per_query"]["histogram"]) == {0: 3, 1: 1}


def test_database_axes_read_the_file_and_list_what_is_missing(report: dict) -> None:
    d = report["database"]
    (shop,) = d["databases"]
    assert (shop["db_id"], shop["n_tables"], shop["n_columns"], shop["n_rows"]) == ("shop", 2, 6, 5)
    assert shop["file"] is True
    assert d["without_schema"] == ["ghost"]
    assert d["without_file"] == ["ghost"]


def test_question_axes_without_tags_say_why(report: dict) -> None:
    qa = report["question"]
    assert qa["pipeline"] == "blank:en"
    assert "tagger" in qa["missing_reason"]
    f = qa["features"]
    assert f["n_words"]["summary"]["n"] == 5
    assert f["n_words"]["summary"]["min"] == 3  # "Broken gold query?"
    assert f["lexical_density"]["summary"]["missing"] == 5
    assert f["lexical_density"]["histogram"] == []
    assert f["flesch"]["summary"]["n"] == 5
    # Linkage needs a schema and a readable gold query: examples 0, 1 and 2 only.
    assert f["schema_linkage"]["summary"]["n"] == 3


def test_reasoning_axes_separate_annotations_from_inferences(report: dict) -> None:
    r = report["reasoning"]
    assert r["n_annotated"] == 1
    assert r["n_inferred"] == 4
    assert counts(r["types"]) == {"addition": 1, "commonsense": 1}
    assert all(row["share"] == 1.0 for row in r["types"])  # share of annotated examples
    assert counts(r["inferred_arithmetic"]) == {"multiplication": 1}
    assert counts(r["labels"]) == {
        "(none)": 3,
        "addition commonsense": 1,
        "arithmetic:multiplication (inferred)": 1,
    }
    assert r["with_commonsense_note"] == 1
    assert r["external_knowledge"] == 1
    assert counts(r["difficulty"]) == {"simple": 1}


def test_progress_ends_at_its_total(dataset: Dataset) -> None:
    calls: list[tuple[int, int]] = []
    analyze_dataset(dataset, nlp=spacy.blank("en"), progress=lambda d, t: calls.append((d, t)))
    done = [d for d, _ in calls]
    assert done == sorted(done)
    assert calls[-1] == (2 * 5 + 2, 2 * 5 + 2)


def test_an_unloadable_pipeline_still_gives_a_report(dataset: Dataset) -> None:
    report = analyze_dataset(dataset, pipeline="no_such_pipeline_sqltriage")
    qa = report["question"]
    assert "no_such_pipeline_sqltriage" in qa["missing_reason"]
    assert qa["features"]["n_words"]["summary"]["n"] == 5


# --- the building blocks -------------------------------------------------------------------------


def test_distribution_binned_and_summary() -> None:
    assert distribution(["a", "b", "a"]) == [
        {"value": "a", "count": 2, "share": 0.6667},
        {"value": "b", "count": 1, "share": 0.3333},
    ]
    rows = binned([0.0, 0.05, 0.5, 1.0], [("low", 0.0, 0.5), ("high", 0.5, 1.0)])
    assert counts(rows) == {"low": 2, "high": 2}  # the last bin includes its upper edge
    assert summary([1, None, 3]) == {"n": 2, "missing": 1, "mean": 2.0, "median": 2.0, "min": 1, "max": 3}


# --- the command ---------------------------------------------------------------------------------


def test_run_json_prints_one_document(dataset: Dataset, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(dataset, as_json=True, pipeline="no_such_pipeline_sqltriage") == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert counts(doc["query"]["structural"]) == {"S F": 3, "S F W": 1}
    assert doc["seconds"] >= 0
    assert "no_such_pipeline_sqltriage" in err  # the reason goes to stderr too


def test_run_renders_tables_with_bars(dataset: Dataset, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(dataset, as_json=False, pipeline="no_such_pipeline_sqltriage") == 0
    out = capsys.readouterr().out
    for text in ("Structural variety", "Operator variety", "Operator usage", "Schema usage", "Content usage"):
        assert text in out
    assert "shop" in out and "ghost" in out
    assert "no schema" in out
    assert "arithmetic:multiplication (inferred)" in out
    assert "█" in out


def test_bars_scale_to_the_largest_share() -> None:
    assert bar(0.5, scale=0.5, width=8) == "█" * 8
    assert bar(0.25, scale=0.5, width=8) == "█" * 4
    assert bar(0.5, scale=1.0, width=1) == "▌"  # half a cell: four eighths
    assert bar(0.001, scale=1.0, width=8) == "▏"  # a share above zero stays visible
    assert bar(0.0) == ""


def test_long_numeric_histograms_are_grouped_and_long_category_lists_cut() -> None:
    rows = [{"value": v, "count": 1, "share": 0.05} for v in range(20)]
    grouped = compact(rows, max_rows=5)
    assert [g["value"] for g in grouped] == ["0–3", "4–7", "8–11", "12–15", "16–19"]
    assert sum(g["count"] for g in grouped) == 20
    cut = top([{"value": str(v), "count": 1, "share": 0.05} for v in range(20)], max_rows=5)
    assert cut[-1]["value"] == "other (16 more)"
    assert cut[-1]["count"] == 16
