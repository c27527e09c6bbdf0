"""`sqltriage eval --db-url`: gold and predictions run on the server through its adapter, read in its
dialect; the engine and dialect are stored in the workspace and shown in the report; a re-run resumes."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from sqltriage.tui.cli import main
from tests.servers import Server

# (question, gold, a right prediction in the dialect, a wrong one): concert_singer
PG_ROWS = [
    (
        "How many singers?",
        "SELECT count(*) FROM singer",
        "SELECT COUNT(*)::int FROM singer",
        "SELECT count(*) FROM stadium",
    ),
    (
        "Names of singers over 30",
        "SELECT name FROM singer WHERE age > 30",
        'SELECT "name" FROM singer WHERE age > 30',
        "SELECT name FROM singer WHERE age < 30",
    ),
    (
        "Average age",
        "SELECT avg(age) FROM singer",
        "SELECT AVG(age)::float FROM singer",
        "SELECT avg(age) FROM singer WHERE age > 0 AND name ILIKE 'x%'",
    ),
    (
        "Stadium capacity",
        "SELECT max(capacity) FROM stadium",
        "SELECT capacity FROM stadium ORDER BY capacity DESC NULLS LAST LIMIT 1",
        "SELECT pg_read_file('/etc/passwd')",
    ),
]


def _inputs(tmp_path: Path, rows: list[tuple[str, str, str, str]]) -> tuple[Path, Path, Path]:
    data = tmp_path / "questions.jsonl"
    data.write_text(
        "".join(
            json.dumps({"question": q, "query": g, "db_id": "concert_singer"}) + "\n" for q, g, _, _ in rows
        )
    )
    right, wrong = tmp_path / "right.sql", tmp_path / "wrong.sql"
    right.write_text("".join(r + "\n" for _, _, r, _ in rows))
    wrong.write_text("".join(w + "\n" for _, _, _, w in rows))
    return data, right, wrong


def test_eval_on_postgresql(pg_server: Server, pg_spider: str, tmp_path: Path, capsys) -> None:
    data, right, wrong = _inputs(tmp_path, PG_ROWS)
    ws = tmp_path / "w.db"
    args = ["eval", str(data), "--pred", f"right={right}", "--pred", f"wrong={wrong}", "--workspace", str(ws),
            "--db-url", pg_spider, "--jobs", "1", "--json"]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr()
    report = json.loads(out.out)
    assert report["engine"] == "postgresql" and report["dialect"] == "postgres"
    assert "secret-pw" not in out.err and "engine: postgresql" in out.err
    conn = sqlite3.connect(ws)
    meta = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('engine', 'dialect', 'db_url')"))
    assert (
        meta["engine"] == "postgresql" and meta["dialect"] == "postgres" and "secret-pw" not in meta["db_url"]
    )
    rows = conn.execute(
        "SELECT model, idx, ex, error_kind, parse_ok FROM results ORDER BY model, idx"
    ).fetchall()
    conn.close()
    got = {(name, idx): (ex, kind) for name, idx, ex, kind, _ in rows}
    assert [got[("right", i)][0] for i in range(4)] == [1, 1, 1, 1], got
    assert [got[("wrong", i)][0] for i in range(4)] == [0, 0, 0, 0], got
    assert got[("wrong", 3)][1] == "forbidden"
    assert all(parse_ok == 1 for name, _, _, _, parse_ok in rows if name == "right")  # read as PostgreSQL
    # a second run finds every pair done
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["run"]["computed"] == 0


def test_minidev_metrics_on_postgresql(pg_server: Server, pg_spider: str, tmp_path: Path, capsys) -> None:
    data, right, wrong = _inputs(tmp_path, PG_ROWS)
    ws = tmp_path / "w.db"
    args = ["eval", str(data), "--pred", f"right={right}", "--pred", f"wrong={wrong}", "--workspace", str(ws),
            "--db-url", pg_spider, "--jobs", "1", "--ves", "3", "--json"]  # fmt: skip
    assert main(args) == 0
    report = json.loads(capsys.readouterr().out)
    by_model = {m["model"]: m for m in report["models"]}
    assert by_model["right"]["soft_f1"] == 1.0 and by_model["right"]["r_ves_n"] == 4
    assert 0 < by_model["right"]["r_ves"] <= 100 * 1.25**0.5
    conn = sqlite3.connect(ws)
    rows = {
        (m, i): (f1, r, ratio, sd)
        for m, i, f1, r, ratio, sd in conn.execute(
            "SELECT model, idx, soft_f1, r_ves, ves_ratio, ves_ratio_sd FROM results"
        )
    }
    conn.close()
    assert all(rows[("right", i)][1] in (0.25, 0.5, 0.75, 1.0, 1.25) for i in range(4)), rows
    assert all(rows[("right", i)][3] is not None for i in range(4))
    assert rows[("wrong", 3)][:2] == (0.0, 0.0)  # refused: no rows, scored 0
    assert rows[("wrong", 0)][0] == 0.0  # 9 against 6: one value, no match


MARIA_ROWS = [
    (
        "How many singers?",
        "SELECT count(*) FROM singer",
        "SELECT COUNT(*) FROM `singer`",
        "SELECT count(*) FROM stadium",
    ),
    (
        "Singers over 30",
        "SELECT Name FROM singer WHERE Age > 30",
        "SELECT `Name` FROM singer WHERE `Age` > 30",
        "SELECT Name FROM singer WHERE Age < 30",
    ),
    (
        "Read a file",
        "SELECT max(Capacity) FROM stadium",
        "SELECT MAX(`Capacity`) FROM `stadium`",
        "SELECT LOAD_FILE('/etc/passwd')",
    ),
]


def test_eval_on_mariadb(maria_server: Server, maria_spider: str, tmp_path: Path, capsys) -> None:
    data, right, wrong = _inputs(tmp_path, MARIA_ROWS)
    ws = tmp_path / "w.db"
    args = ["eval", str(data), "--pred", f"right={right}", "--pred", f"wrong={wrong}", "--workspace", str(ws),
            "--db-url", maria_spider, "--jobs", "1", "--json"]  # fmt: skip
    assert main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["engine"] == "mysql" and report["dialect"] == "mysql"
    conn = sqlite3.connect(ws)
    got = {
        (m, i): (ex, kind, f1)
        for m, i, ex, kind, f1 in conn.execute("SELECT model, idx, ex, error_kind, soft_f1 FROM results")
    }
    conn.close()
    assert [got[("right", i)][0] for i in range(3)] == [1, 1, 1], got
    assert [got[("wrong", i)][0] for i in range(3)] == [0, 0, 0], got
    assert got[("wrong", 2)][1] == "forbidden" and got[("wrong", 2)][2] == 0.0
