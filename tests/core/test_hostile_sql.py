"""Hostile predictions against a copy of a database: the file never changes, no file appears, every
row ends with an error of the right kind within its timeout."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from sqltriage.core.verdicts.execution import execute

TIMEOUT = 1.0
SLACK = 10.0  # generous: this proves the query was interrupted, it does not measure speed


def build_db(path: Path) -> None:
    """A small database like Spider's concert_singer, with enough rows for an explosive product."""
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER);
        CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, name TEXT, year TEXT);
        CREATE TABLE singer_in_concert (concert_id INTEGER, singer_id INTEGER);
        """
    )
    conn.executemany(
        "INSERT INTO singer VALUES (?, ?, ?, ?)", [(i, f"s{i}", f"c{i % 7}", 20 + i % 40) for i in range(300)]
    )
    conn.executemany(
        "INSERT INTO concert VALUES (?, ?, ?)", [(i, f"k{i}", str(2000 + i % 20)) for i in range(50)]
    )
    conn.executemany("INSERT INTO singer_in_concert VALUES (?, ?)", [(i % 50, i) for i in range(300)])
    conn.commit()
    conn.close()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


NEW_FILE = "NEWFILE"  # replaced by a path inside the test folder

HOSTILE: list[tuple[str, str, str]] = [
    ("drop", "DROP TABLE singer", "forbidden"),
    ("delete", "DELETE FROM singer", "forbidden"),
    ("update", "UPDATE singer SET name = 'x'", "forbidden"),
    ("insert", "INSERT INTO singer VALUES (999, 'x', 'y', 1)", "forbidden"),
    ("replace", "REPLACE INTO singer VALUES (1, 'x', 'y', 1)", "forbidden"),
    ("create table", "CREATE TABLE pwned (x)", "forbidden"),
    ("create table as", "CREATE TABLE pwned AS SELECT * FROM singer", "forbidden"),
    ("create temp table", "CREATE TEMP TABLE pwned (x)", "forbidden"),
    ("create index", "CREATE INDEX pwned ON singer(name)", "forbidden"),
    ("create view", "CREATE VIEW pwned AS SELECT 1", "forbidden"),
    (
        "create trigger",
        "CREATE TRIGGER pwned AFTER INSERT ON singer BEGIN DELETE FROM concert; END",
        "forbidden",
    ),
    ("alter", "ALTER TABLE singer ADD COLUMN pwned TEXT", "forbidden"),
    ("attach new file", f"ATTACH DATABASE '{NEW_FILE}' AS pwned", "forbidden"),
    ("detach", "DETACH DATABASE main", "forbidden"),
    ("pragma writable_schema", "PRAGMA writable_schema = 1", "forbidden"),
    ("pragma journal_mode", "PRAGMA journal_mode = WAL", "forbidden"),
    ("pragma user_version", "PRAGMA user_version = 5", "forbidden"),
    ("pragma query_only off", "PRAGMA query_only = 0", "forbidden"),
    ("vacuum", "VACUUM", "forbidden"),
    ("vacuum into", f"VACUUM INTO '{NEW_FILE}'", "forbidden"),
    ("load_extension", "SELECT load_extension('/tmp/pwned.so')", "forbidden"),
    ("begin", "BEGIN IMMEDIATE", "forbidden"),
    ("savepoint", "SAVEPOINT pwned", "forbidden"),
    ("reindex", "REINDEX", "forbidden"),
    ("analyze", "ANALYZE", "forbidden"),
    ("several statements", "SELECT 1; DROP TABLE singer", "multiple_statements"),
    ("several statements, write first", "DROP TABLE singer; SELECT 1", "forbidden"),
    ("statements behind a comment", "SELECT 1; -- x\nDELETE FROM singer", "multiple_statements"),
    (
        "endless recursive cte",
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT max(n) FROM r",
        "timeout",
    ),
    (
        "huge cartesian product",
        "SELECT count(*) FROM singer a, singer b, singer c, singer d, singer e",
        "timeout",
    ),
    (
        "huge sorted cartesian product",
        "SELECT * FROM singer a, singer b, singer c, singer d ORDER BY random()",
        "timeout",
    ),
    ("randomblob", "SELECT randomblob(1000000000)", "runtime"),
    ("zeroblob", "SELECT zeroblob(1000000000)", "runtime"),
    ("growing string", "SELECT replace(hex(zeroblob(10000000)), '0', '0000000000')", "runtime"),
    ("megabyte-long query", "SELECT " + " + ".join(["1"] * 400_000), "syntax"),
    ("NUL byte", "SELECT 1\x00; DROP TABLE singer", "syntax"),
    ("deeply nested parentheses", "SELECT " + "(" * 50_000 + "1" + ")" * 50_000, "syntax"),
    ("deeply nested subqueries", "SELECT " + "(SELECT " * 2_000 + "1" + ")" * 2_000, "syntax"),
]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("pristine") / "concert_singer.sqlite"
    build_db(path)
    return path


@pytest.mark.parametrize(("name", "sql", "kind"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_prediction_is_an_error_and_changes_nothing(
    pristine: Path, tmp_path: Path, name: str, sql: str, kind: str
) -> None:
    db = tmp_path / "concert_singer.sqlite"
    db.write_bytes(pristine.read_bytes())
    db.chmod(0o644)  # writable: the guard must not rely on file permissions
    before_hash = digest(db)
    before_files = sorted(p.name for p in tmp_path.iterdir())
    sql = sql.replace(NEW_FILE, str(tmp_path / "pwned.sqlite"))

    result = execute(db, sql, timeout=TIMEOUT)

    assert not result.ok, f"{name}: ran without error"
    assert result.error_kind == kind, f"{name}: {result.error_kind} ({result.error})"
    assert result.rows == ()
    assert result.elapsed < SLACK
    assert digest(db) == before_hash, f"{name}: the database file changed"
    assert sorted(p.name for p in tmp_path.iterdir()) == before_files, f"{name}: a file appeared"
    # and the database still answers normally afterwards
    assert execute(db, "SELECT count(*) FROM singer").rows == ((300,),)


def test_a_plain_cartesian_product_is_capped_not_exhausting_memory(pristine: Path) -> None:
    result = execute(pristine, "SELECT * FROM singer a, singer b, singer c", timeout=TIMEOUT, max_rows=1000)
    assert result.ok and result.truncated
    assert len(result.rows) == 1000


def test_harmless_reads_of_metadata_are_allowed(pristine: Path) -> None:
    assert execute(pristine, "PRAGMA table_info(singer)").rows[0][1] == "singer_id"
    assert execute(pristine, "SELECT name FROM pragma_table_info('concert')").rows[0] == ("concert_id",)
    assert execute(pristine, "PRAGMA user_version").rows == ((0,),)
    assert execute(pristine, "SELECT count(*) FROM sqlite_master").rows == ((3,),)
