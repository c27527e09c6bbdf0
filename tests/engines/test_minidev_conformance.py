"""Mini-Dev's first six PostgreSQL questions with GPT-4's shared predictions, on a small
debit_card_specializing built here (BIRD's tables, hand-chosen rows), scored by `eval --db-url`: `ex_bird`
(Mini-Dev's EX) and `soft_f1` as its evaluator computes them, each expected value derived by hand below."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from sqltriage.tui.cli import main
from tests.servers import Server

CUSTOMERS = [(1, "SME", "EUR"), (2, "LAM", "CZK"), (3, "SME", "CZK"), (4, "KAM", "CZK")]
YEARMONTH = [(1, "201201", 100.0), (2, "201201", 50.0), (2, "201302", 30.0), (3, "201305", 20.0),
             (3, "201306", 40.0), (4, "201207", 10.0)]  # fmt: skip

# (ex, soft_f1) per question, by hand on the rows above:
EXPECTED = [
    # 0: 1 EUR / 3 CZK. Gold: CAST(1 AS REAL) / NULLIF(3, 0): PostgreSQL divides a real by an integer
    #    in double precision (no real / integer operator; the integer goes to float8), 0.3333333333333333;
    #    GPT-4: 1::FLOAT / 3, the same double. EX 1, Soft F1 1.
    (1, 1.0),
    # 1: GPT-4 reads `segment` from yearmonth, which has none: an error, 0 and 0.
    (0, 0.0),
    # 2: SME customers 1 and 3 in 2013: customer 3's 20 and 40, average 30, / 12 = 2.5 on both sides.
    (1, 1.0),
    # 3: 2012: CZK 50 + 10 = 60, EUR 100. Gold (-40.0); GPT-4 (60.0, 100.0, -40.0). Sets differ: EX 0.
    #    Soft F1 (gold width 1): tp 1 (-40), fp 2 (60, 100), fn 0: precision 1/3, recall 1, F1 0.5.
    (0, 0.5),
    # 4: CZK customers 2, 3, 4: 2012: 60, 2013: 30 + 20 + 40 = 90. Gold ('2013'); GPT-4 ('2013', 90.0):
    #    EX 0; tp 1, fp 1, fn 0: F1 2/3.
    (0, 2 / 3),
    # 5: SME in 2013: customer 3, month 06 (40). Gold ('06'); GPT-4 ('201306', 40.0): EX 0; nothing
    #    shared: F1 0.
    (0, 0.0),
]


def _database(folder: Path) -> Path:
    db = folder / "debit_card_specializing" / "debit_card_specializing.sqlite"
    db.parent.mkdir(parents=True)
    conn = sqlite3.connect(db)
    conn.executescript(
        "CREATE TABLE customers (CustomerID INTEGER PRIMARY KEY, Segment TEXT, Currency TEXT);"
        "CREATE TABLE yearmonth (CustomerID INTEGER REFERENCES customers (CustomerID), Date TEXT,"
        " Consumption REAL, PRIMARY KEY (Date, CustomerID));"
    )
    conn.executemany("INSERT INTO customers VALUES (?, ?, ?)", CUSTOMERS)
    conn.executemany("INSERT INTO yearmonth VALUES (?, ?, ?)", YEARMONTH)
    conn.commit()
    conn.close()
    return folder


def test_ex_and_soft_f1_on_shared_predictions(
    pg_server: Server, shared_data: Path, tmp_path: Path, capsys
) -> None:
    minidev = shared_data / "bird_minidev"
    if not minidev.is_dir():
        pytest.skip(f"BIRD Mini-Dev not found at {minidev}")
    questions = json.loads((minidev / "mini_dev_postgresql.json").read_text())[:6]
    assert {q["db_id"] for q in questions} == {"debit_card_specializing"}
    preds = json.loads((minidev / "predictions" / "predict_mini_dev_gpt-4_postgresql.json").read_text())
    (tmp_path / "questions.json").write_text(json.dumps(questions))
    (tmp_path / "gpt4.json").write_text(json.dumps({str(i): preds[str(i)] for i in range(6)}))
    source = _database(tmp_path / "databases")
    url = pg_server.url("minidev_{db_id}")
    assert main(["db", "copy", str(source), "--to", url, "--replace", "--json"]) == 0
    ws = tmp_path / "w.db"
    assert main(["eval", str(tmp_path / "questions.json"), "--pred", f"gpt4={tmp_path / 'gpt4.json'}",
                 "--workspace", str(ws), "--db-url", url, "--jobs", "1", "--json"]) == 0  # fmt: skip
    capsys.readouterr()
    conn = sqlite3.connect(ws)
    got = conn.execute("SELECT ex_bird, soft_f1, error_kind FROM results ORDER BY idx").fetchall()
    golds = conn.execute("SELECT gold_error FROM examples ORDER BY idx").fetchall()
    conn.close()
    assert golds == [(None,)] * 6, golds
    assert [(ex, pytest.approx(f1)) for ex, f1, _ in got] == EXPECTED, got
    assert got[1][2] == "syntax"  # the unknown column, PostgreSQL's 42703
