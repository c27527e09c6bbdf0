"""Bad input to the judgement without a database: a schema with no keys, a table of 121 columns, evidence
that is prose, a gold that does not parse, a database the schema file does not describe. Each row gets a
call with its reason; nothing stops the run."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.core.schema_only_run import judged_rows

WIDE = 120


def _columns(table: int, names: list[str]) -> list[list]:
    return [[table, n] for n in names]


TABLES = [
    {
        "db_id": "nokeys",
        "table_names_original": ["people", "pets"],
        "table_names": ["people", "pets"],
        "column_names_original": [[-1, "*"], *_columns(0, ["name", "age"]), *_columns(1, ["owner", "kind"])],
        "column_names": [[-1, "*"], *_columns(0, ["name", "age"]), *_columns(1, ["owner", "kind"])],
        "column_types": ["text", "text", "integer", "text", "text"],
        "primary_keys": [],
        "foreign_keys": [],
    },
    {
        "db_id": "wide",
        "table_names_original": ["measurements"],
        "table_names": ["measurements"],
        "column_names_original": [[-1, "*"], [0, "id"], *_columns(0, [f"m{i}" for i in range(WIDE)])],
        "column_names": [[-1, "*"], [0, "id"], *_columns(0, [f"m {i}" for i in range(WIDE)])],
        "column_types": ["text", "integer", *["real"] * WIDE],
        "primary_keys": [1],
        "foreign_keys": [],
    },
]
PROSE = "Ann is a person; she likes her pets very much and walks them in the park every morning"
QUESTIONS = [  # (db_id, evidence, gold, prediction)
    ("nokeys", "", "SELECT name FROM people WHERE age > 30", "SELECT name FROM people WHERE age >= 30"),
    (
        "nokeys",
        PROSE,
        "SELECT kind FROM pets WHERE owner = 'Ann'",
        "SELECT kind FROM pets WHERE 'Ann' = owner",
    ),
    ("wide", "", "SELECT MAX(m7) FROM measurements", "SELECT m7 FROM measurements ORDER BY m7 DESC LIMIT 1"),
    ("wide", "", "SELECT m1 FROM measurements WHERE (m2 >", "SELECT m1 FROM measurements"),
    ("elsewhere", "", "SELECT a FROM t", "SELECT a FROM t"),
]


def _write(root: Path) -> None:
    dev = [
        {"question_id": i, "db_id": db, "question": f"question {i}", "evidence": ev, "SQL": gold}
        for i, (db, ev, gold, _pred) in enumerate(QUESTIONS)
    ]
    preds = {str(i): f"{pred}\t----- bird -----\t{db}" for i, (db, _ev, _gold, pred) in enumerate(QUESTIONS)}
    (root / "dev.json").write_text(json.dumps(dev))
    (root / "dev_tables.json").write_text(json.dumps(TABLES))
    (root / "pred.json").write_text(json.dumps(preds))


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    pytest.importorskip("z3")
    root = tmp_path_factory.mktemp("bad-input")
    _write(root)
    return sorted(judged_rows(root / "dev.json", root / "pred.json", root), key=lambda r: r["index"])


def test_every_row_gets_a_call_and_its_reason(rows: list[dict]) -> None:
    assert len(rows) == len(QUESTIONS)
    for r in rows:
        assert r["judgement"] in ("right", "wrong", "unsure")
        assert r["judgement_why"] and r["judgement_why"].strip()


def test_a_schema_with_no_keys_is_still_judged_on_its_generated_databases(rows: list[dict]) -> None:
    older = rows[0]  # `>` and `>=` 30: a person aged 30 tells them apart, whatever the keys
    assert older["judgement"] == "wrong" and "schema allows" in older["judgement_why"]
    db = sqlite3.connect(f"file:{older['ts_witness']}?mode=ro", uri=True)
    try:
        assert set(db.execute(older["gold_sql"])) != set(db.execute(older["pred_sql"]))
    finally:
        db.close()


def test_evidence_in_prose_plants_nothing_and_breaks_nothing(rows: list[dict]) -> None:
    assert rows[1]["judgement"] == "right", rows[1]["judgement_why"]


def test_a_table_of_121_columns_is_generated_and_read(rows: list[dict]) -> None:
    wide = rows[2]
    assert wide["schema_verdict"] == "differs"  # MAX over no row is one NULL row; the cut returns none
    assert wide["judgement"] == "unsure" and "measurements is empty" in wide["judgement_why"]
    db = sqlite3.connect(f"file:{wide['ts_witness']}?mode=ro", uri=True)
    try:
        assert len(db.execute("SELECT * FROM measurements").description) == WIDE + 1
    finally:
        db.close()


def test_a_gold_that_does_not_parse_leaves_its_row_unsure_saying_so(rows: list[dict]) -> None:
    broken = rows[3]
    assert broken["judgement"] == "unsure"
    assert "the gold fails on every database of the schema" in broken["judgement_why"]


def test_a_database_the_schema_file_does_not_describe_is_unsure(rows: list[dict]) -> None:
    assert rows[4]["judgement"] in ("right", "unsure")  # the same text as the gold: exact match at most
    assert rows[4]["schema_verdict"] is None


def test_the_eval_report_says_the_calls_come_from_the_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sqltriage.tui.cli import main

    _write(tmp_path)
    args = ["eval", str(tmp_path / "dev.json"), "--pred", f"m={tmp_path / 'pred.json'}", "--json"]
    assert main([*args, "--workspace", str(tmp_path / "bare.db")]) == 0
    bare = capsys.readouterr()
    assert "5 row(s) of 3 database(s) have no database file: no EX" in bare.err
    assert "--neighbours 3 --verify" in bare.err
    assert main([*args, "--workspace", str(tmp_path / "w.db"), "--neighbours", "3"]) == 0
    judged = capsys.readouterr()
    assert "their judgement comes from the schema, not from data" in judged.err
    found = json.loads(judged.out)["schema_only"]
    assert found["rows"] == 5 and found["databases"] == 3
    assert found["run_on_generated"] == 4  # the database the schema file does not describe has none
    assert sum(found["calls"].values()) == 5
