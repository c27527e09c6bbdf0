"""The bundled sample: its files agree with each other and the build script reproduces them."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sqltriage.core.datasets.schema import load_tables_json, schema_from_sqlite
from sqltriage.samples import SAMPLE_DIR

REPO = Path(__file__).resolve().parents[2]
MODELS = ("atlas-7b", "beacon-gpt4")
REASONING_TOKENS = {"+", "-", "*", "/", "C", "H"}


def _dev() -> list[dict[str, Any]]:
    return json.loads((SAMPLE_DIR / "dev.json").read_text(encoding="utf-8"))


def _db_ids() -> list[str]:
    return sorted(p.stem for p in (SAMPLE_DIR / "schema").glob("*.sql"))


def _db_path(root: Path, db_id: str) -> Path:
    return root / "database" / db_id / f"{db_id}.sqlite"


def _connect_ro(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{path.resolve()}?mode=ro", uri=True)


def _contents(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows in rowid order: what a reader of the database sees."""
    conn = _connect_ro(path)
    try:
        names = [
            n
            for (n,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        return {n: conn.execute(f'SELECT * FROM "{n}" ORDER BY rowid').fetchall() for n in names}
    finally:
        conn.close()


def test_every_database_is_built_and_small() -> None:
    assert len(_db_ids()) >= 2
    for db_id in _db_ids():
        path = _db_path(SAMPLE_DIR, db_id)
        assert path.is_file(), f"{path} missing: run python samples/build_sample.py"
        assert path.stat().st_size < 500_000


def test_one_table_is_big_enough_for_a_slow_cartesian_product() -> None:
    largest = max(
        len(rows) for db_id in _db_ids() for rows in _contents(_db_path(SAMPLE_DIR, db_id)).values()
    )
    assert largest >= 2000


def test_foreign_keys_hold_in_every_database() -> None:
    for db_id in _db_ids():
        conn = _connect_ro(_db_path(SAMPLE_DIR, db_id))
        try:
            assert conn.execute("PRAGMA foreign_key_check").fetchall() == [], db_id
        finally:
            conn.close()


def test_dev_records_are_well_formed() -> None:
    dev = _dev()
    assert 50 <= len(dev) <= 80
    for i, rec in enumerate(dev):
        assert rec["db_id"] in _db_ids(), i
        assert rec["question"].strip(), i
        assert rec["query"].strip() and "\n" not in rec["query"], i
        tokens = rec.get("reasoning_type", "").split()
        assert set(tokens) <= REASONING_TOKENS, (i, tokens)
        if "C" in tokens:
            assert rec.get("commonsense_knowledge", "").strip(), f"record {i} is C without a sentence"
    annotated = [r for r in dev if r.get("reasoning_type")]
    assert len(annotated) >= len(dev) // 5
    assert {t for r in annotated for t in r["reasoning_type"].split()} == REASONING_TOKENS


def test_every_gold_query_runs_read_only_and_most_return_rows() -> None:
    dev = _dev()
    conns = {db_id: _connect_ro(_db_path(SAMPLE_DIR, db_id)) for db_id in _db_ids()}
    try:
        with_rows = 0
        for i, rec in enumerate(dev):
            try:
                rows = conns[rec["db_id"]].execute(rec["query"]).fetchall()
            except sqlite3.Error as exc:
                pytest.fail(f"gold query {i} fails: {exc}: {rec['query']}")
            with_rows += bool(rows)
    finally:
        for conn in conns.values():
            conn.close()
    assert with_rows >= 0.9 * len(dev)


@pytest.mark.parametrize("model", MODELS)
def test_prediction_file_has_one_line_per_question(model: str) -> None:
    lines = (SAMPLE_DIR / "predictions" / f"{model}.sql").read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(_dev())


def test_the_two_models_disagree_somewhere() -> None:
    a, b = (
        (SAMPLE_DIR / "predictions" / f"{m}.sql").read_text(encoding="utf-8").splitlines() for m in MODELS
    )
    assert sum(x.strip() != y.strip() for x, y in zip(a, b, strict=True)) >= 10


def test_tables_json_agrees_with_the_databases() -> None:
    schemas = load_tables_json(SAMPLE_DIR / "tables.json")
    assert sorted(schemas) == _db_ids()
    for db_id, declared in schemas.items():
        actual = schema_from_sqlite(_db_path(SAMPLE_DIR, db_id), db_id)
        assert [t.name for t in declared.tables] == [t.name for t in actual.tables]
        for d, a in zip(declared.tables, actual.tables, strict=True):
            assert d.columns == a.columns, d.name
        assert sorted(declared.primary_keys) == sorted(actual.primary_keys)
        assert sorted(declared.foreign_keys) == sorted(actual.foreign_keys)
        assert declared.foreign_keys, f"{db_id} declares no foreign keys"


def test_tables_json_is_spider_shaped() -> None:
    for entry in json.loads((SAMPLE_DIR / "tables.json").read_text(encoding="utf-8")):
        cols = entry["column_names_original"]
        assert cols[0] == [-1, "*"] and entry["column_names"][0] == [-1, "*"]
        assert len(cols) == len(entry["column_names"]) == len(entry["column_types"])
        assert len(entry["table_names"]) == len(entry["table_names_original"])
        assert set(entry["column_types"]) <= {"text", "number", "time"}
        for a, b in entry["foreign_keys"]:
            assert 0 < a < len(cols) and 0 < b < len(cols)


def test_rebuilding_reproduces_the_sample(tmp_path: Path) -> None:
    """The command of docs/development.md, run into another folder, gives the same tables.json and table contents."""
    assert "python samples/build_sample.py" in (REPO / "docs" / "development.md").read_text(encoding="utf-8")
    subprocess.run(
        [sys.executable, "samples/build_sample.py", "--out", str(tmp_path)],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    assert (tmp_path / "tables.json").read_bytes() == (SAMPLE_DIR / "tables.json").read_bytes()
    for db_id in _db_ids():
        assert _contents(_db_path(tmp_path, db_id)) == _contents(_db_path(SAMPLE_DIR, db_id)), db_id
