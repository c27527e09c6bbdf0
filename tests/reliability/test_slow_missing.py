"""Slow and missing things: a gold query that times out is flagged on its example and gives no verdict;
a database that is missing, not a database, or locked by another program gives row outcomes, not a crash."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from sqltriage.tui.cli import main

from .conftest import MODELS, pred_args, read_csv

SLOW_GOLD = "SELECT count(*) FROM loans a, loans b, loans c"


def subset(dataset: Path, indices: list[int]) -> None:
    """Keep only these examples (and their predictions), so a test that waits per query stays short."""
    records = json.loads((dataset / "dev.json").read_text())
    (dataset / "dev.json").write_text(json.dumps([records[i] for i in indices]))
    for model in MODELS:
        path = dataset / "predictions" / f"{model}.sql"
        lines = path.read_text().splitlines()
        path.write_text("\n".join(lines[i] for i in indices) + "\n")


def run(dataset: Path, tmp: Path, capsys: pytest.CaptureFixture[str]) -> tuple[dict, list[dict[str, str]]]:
    """eval (exit 0 required) then export: the JSON report and the CSV rows."""
    workspace = tmp / "w.db"
    argv = ["eval", str(dataset), *pred_args(dataset), "--workspace", str(workspace), "--timeout", "0.5"]
    code = main([*argv, "--jobs", "1", "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err[-2000:]
    assert main(["export", "--workspace", str(workspace), "--out", str(tmp / "out.csv")]) == 0
    return json.loads(out.out), read_csv(tmp / "out.csv")


def test_a_gold_query_that_times_out_is_flagged_and_not_a_model_error(
    sample_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = json.loads((sample_copy / "dev.json").read_text())
    slow = next(i for i, r in enumerate(records) if r["db_id"] == "library")
    records[slow]["query"] = SLOW_GOLD
    (sample_copy / "dev.json").write_text(json.dumps(records))
    doc, rows = run(sample_copy, tmp_path, capsys)
    flagged = [r for r in rows if int(r["index"]) == slow]
    assert len(flagged) == len(MODELS)
    for r in flagged:
        assert r["gold_error_kind"] == "timeout" and "timed out" in r["gold_error"]
        assert r["ex"] == r["ex_spider"] == r["ex_bird"] == r["ex_archer"] == "", r
    others = [r for r in rows if int(r["index"]) != slow]
    assert all(r["gold_error_kind"] == "" for r in others)
    for summary in doc["models"]:
        assert summary["n"] == len(records)
        assert summary["ex_n"] == len(records) - 1, "the timed-out gold must not count in EX"


def test_a_missing_database_gives_rows_without_execution_verdicts(
    sample_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (sample_copy / "database" / "airline" / "airline.sqlite").unlink()
    doc, rows = run(sample_copy, tmp_path, capsys)
    airline = [r for r in rows if r["db_id"] == "airline"]
    library = [r for r in rows if r["db_id"] == "library"]
    assert airline and library
    for r in airline:
        assert r["db_missing"] == "1" and r["va"] == "" and r["ex"] == "", r
        assert r["em"] in ("0", "1") and r["pm"] != "", "matching needs no database"
    assert all(r["ex"] in ("0", "1") for r in library)
    assert doc["models"][0]["ex_n"] == len(library) // len(MODELS)


def test_a_file_that_is_not_a_database_gives_row_outcomes(
    sample_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    garbage = sample_copy / "database" / "airline" / "airline.sqlite"
    garbage.write_bytes(b"this is not a database\n" * 2000)
    before = garbage.read_bytes()
    _, rows = run(sample_copy, tmp_path, capsys)
    airline = [r for r in rows if r["db_id"] == "airline"]
    for r in airline:
        assert r["gold_error_kind"] == "db_unreadable", r
        assert r["ex"] == "", "no verdict without a readable database"
        # SQLite reports a statement that does not even parse before it reads the file
        assert r["error_kind"] in ("db_unreadable", "syntax"), (r["error"], r["pred_sql"])
    assert sum(r["error_kind"] == "db_unreadable" for r in airline) > len(airline) // 2
    assert all(r["ex"] in ("0", "1") for r in rows if r["db_id"] == "library")
    assert garbage.read_bytes() == before


def test_a_locked_database_is_not_reported_as_a_syntax_error(sample_copy: Path) -> None:
    from sqltriage.core.verdicts.execution import execute

    db = sample_copy / "database" / "library" / "library.sqlite"
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        result = execute(db, "SELECT count(*) FROM books", timeout=0.5)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert not result.ok and "locked" in (result.error or "")
    assert result.error_kind != "syntax", result
