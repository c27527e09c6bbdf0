"""Suggestions that respect the dataset's EX, and execution evidence from databases built from the schema."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import polars as pl
import pytest

from sqltriage.core.datasets import load_dataset
from sqltriage.core.datasets.predictions import load_predictions
from sqltriage.core.datasets.schema import load_tables_json
from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
from sqltriage.core.reporting.report import export_frame, load_frame
from sqltriage.core.suggest import stored_suggestions, suggest_causes
from sqltriage.core.suggest.suggestion import SCHEMA_EXECUTION, STRUCTURE
from sqltriage.core.verdicts.testsuite.from_schema import schema_database, schema_neighbours
from sqltriage.core.workspace.store import Workspace
from sqltriage.samples import SAMPLE_DIR

BY_YEAR = "SELECT title FROM books WHERE published_year < 1900"


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> tuple:
    """The sample library's schema (tables.json only) and its databases generated from it."""
    schema = load_tables_json(SAMPLE_DIR / "tables.json")["library"]
    golds = [e["query"] for e in json.loads((SAMPLE_DIR / "dev.json").read_text()) if e["db_id"] == "library"]
    root = tmp_path_factory.mktemp("cache")
    return schema, schema_neighbours(schema, golds, cache_root=root), root


def test_a_schema_alone_gives_databases_in_the_cache_folder(library: tuple) -> None:
    schema, dbs, root = library
    empty = schema_database(schema, root)
    assert empty.parent == root / "schema-only" and schema_database(schema, root) == empty
    con = sqlite3.connect(empty)
    names = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    con.close()
    assert names == {t.name for t in schema.tables}
    assert len(dbs) == 3 and all(root in p.parents for p in dbs)
    con = sqlite3.connect(dbs[0])
    assert con.execute("SELECT count(*) FROM books").fetchone()[0] > 0  # filled, not empty
    con.close()


def test_agreement_on_every_generated_database_clears_a_structural_difference(library: tuple) -> None:
    schema, dbs, _ = library
    pred = "SELECT title FROM books WHERE NOT published_year >= 1900"
    assert [s.tag for s in suggest_causes(BY_YEAR, pred, schema=schema)] == ["Operator: comparison"]
    assert suggest_causes(BY_YEAR, pred, schema=schema, databases=dbs, ex_mode="bird") == []


def test_a_difference_on_a_generated_database_is_named_with_its_basis(library: tuple) -> None:
    schema, dbs, _ = library
    pred = "SELECT title FROM books WHERE published_year < 1950"
    found = suggest_causes(BY_YEAR, pred, schema=schema, databases=dbs, ex_mode="bird")
    assert found[0].tag == "Value: mismatch" and found[0].basis == SCHEMA_EXECUTION
    assert "generated from the schema" in found[0].reason
    alone = suggest_causes(BY_YEAR, pred, schema=schema)
    assert alone[0].basis == STRUCTURE and "[structure only]" in alone[0].reason


def test_an_error_on_the_generated_databases_names_its_cause(library: tuple) -> None:
    schema, dbs, _ = library
    found = suggest_causes(
        BY_YEAR, "SELECT title FROM books WHERE year_published < 1900", schema=schema, databases=dbs
    )
    assert found[0].tag == "Attribute: mismatch" and "no such column" in found[0].reason


@pytest.mark.parametrize(
    ("gold", "pred", "mode", "seen"),
    [
        ("SELECT DISTINCT city FROM t", "SELECT city FROM t", "bird", False),  # sets of rows
        ("SELECT DISTINCT city FROM t", "SELECT city FROM t", "spider", False),  # DISTINCT stripped
        ("SELECT DISTINCT city FROM t", "SELECT city FROM t", "archer", True),  # row counts compared
        ("SELECT count(DISTINCT city) FROM t", "SELECT count(city) FROM t", "bird", True),  # another value
        ("SELECT a FROM t ORDER BY b DESC", "SELECT a FROM t ORDER BY b", "bird", False),  # order ignored
        ("SELECT a FROM t ORDER BY b DESC LIMIT 3", "SELECT a FROM t ORDER BY b LIMIT 3", "bird", True),
        ("SELECT a FROM t ORDER BY b DESC", "SELECT a FROM t ORDER BY b", "spider", True),  # gold sorts
    ],
)
def test_a_difference_the_datasets_ex_ignores_is_no_cause(
    gold: str, pred: str, mode: str, seen: bool
) -> None:
    tags = {s.tag for s in suggest_causes(gold, pred, ex=0, ex_mode=mode)}
    assert bool(tags & {"Other: DISTINCT", "Other: ASC/DESC"}) == seen, tags


def test_an_evaluation_without_the_database_file_stores_execution_based_suggestions(tmp_path: Path) -> None:
    folder = tmp_path / "sample"
    shutil.copytree(SAMPLE_DIR, folder)
    shutil.rmtree(folder / "database" / "library")  # the schema stays in tables.json
    ds = load_dataset(folder)
    preds = [load_predictions(p, ds) for p in sorted((folder / "predictions").glob("*.sql"))]
    cache = tmp_path / "cache"
    with Workspace.open(tmp_path / "w.db") as ws:
        evaluate(ds, preds, ws, EvalOptions(timeout=1.0, features=False, jobs=1, neighbour_cache=str(cache)))
        frame = load_frame(ws)
    library = frame.filter((pl.col("db_id") == "library") & (pl.col("suggested") != ""))
    bases = {
        s.basis
        for row in library.iter_rows(named=True)
        for s in stored_suggestions(row["suggested_why"]) or []
    }
    assert SCHEMA_EXECUTION in bases
    exported = export_frame(frame).filter(pl.col("db_id") == "library").get_column("suggested_why").to_list()
    assert any("generated from the schema" in (why or "") for why in exported)  # the export shows the basis
    assert any((cache / "schema-only").glob("*.sqlite"))
    assert not (folder / "database" / "library").exists()  # nothing written beside the data


def test_a_column_of_a_table_never_read_is_a_missing_table(library: tuple) -> None:
    schema, dbs, _ = library
    gold = (
        "SELECT T1.title FROM books AS T1 JOIN authors AS T2 ON T1.author_id = T2.author_id "
        "WHERE T2.nationality = 'British'"
    )
    found = suggest_causes(
        gold, "SELECT title FROM books WHERE nationality = 'British'", schema=schema, databases=dbs
    )
    assert found[0].tag == "Table: missing" and "authors" in found[0].reason, [
        (s.tag, s.reason) for s in found
    ]
    wrong = suggest_causes(
        gold, "SELECT title FROM books WHERE nation = 'British'", schema=schema, databases=dbs
    )
    assert wrong[0].tag == "Attribute: mismatch"  # no table has that column: the attribute itself is wrong


# --- the judgement's witness ----------------------------------------------------------------------------


def _singers(path: Path, rows: list[tuple]) -> Path:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE singer (id INTEGER PRIMARY KEY, name TEXT, age INT)")
        db.executemany("INSERT INTO singer VALUES (?, ?, ?)", rows)
    db.close()
    return path


OLDER, FROM_30 = "SELECT name FROM singer WHERE age > 30", "SELECT name FROM singer WHERE age >= 30"


def test_an_ex_pass_a_witness_refutes_is_a_false_positive_ranked_by_the_witness(tmp_path: Path) -> None:
    """`>` against `>=` passes EX where no singer is 30; on the witness one is, and the comparison is the
    cause. Without the witness the pass is looked into only as a single row that may agree by chance."""
    from sqltriage.core.verdicts.execution import execute

    original = _singers(tmp_path / "o.sqlite", [(1, "Ann", 25), (2, "Bo", 41), (3, "Cy", 52)])
    witness = _singers(tmp_path / "w.sqlite", [(1, "Ann", 30)])
    gold, pred = (execute(original, q, timeout=5, max_rows=100) for q in (OLDER, FROM_30))
    assert gold.rows == pred.rows and len(gold.rows) == 2  # EX passes on two rows: nothing by chance
    args = {"gold_result": gold, "pred_result": pred, "ex": 1, "ex_mode": "spider", "exact_match": True}
    assert suggest_causes(OLDER, FROM_30, **args) == []
    found = suggest_causes(OLDER, FROM_30, **args, witness=witness)
    assert [s.tag for s in found[:2]] == ["Evaluation: EX false positive", "Operator: comparison"]
    assert all("on the database of 1 row that tells them apart" in s.reason for s in found)
    # a database on which the two agree is no witness: nothing is said
    assert suggest_causes(OLDER, FROM_30, **args, witness=original) == []


def test_without_a_database_file_the_witness_gives_the_results(tmp_path: Path) -> None:
    witness = _singers(tmp_path / "w.sqlite", [(1, "Ann", 30)])
    found = suggest_causes(OLDER, FROM_30, ex_mode="bird", witness=witness)
    assert found and found[0].tag == "Operator: comparison"
    assert found[0].basis == SCHEMA_EXECUTION
    assert "on the database of 1 row that tells them apart" in found[0].reason
