"""Read-only execution on real SQLite files: results, error kinds, caps, threads, the gold cache."""

from __future__ import annotations

import shutil
import sqlite3
import threading
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import pytest

from sqltriage.core.verdicts.exec_result import ERROR_KINDS, ExecResult
from sqltriage.core.verdicts.execution import GoldResultCache, execute, execute_all_on, execute_on
from sqltriage.core.verdicts.pair_run import PairRun, execution_outcomes, run_pair


def make_db(path: Path) -> Path:
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE singer (id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER);
        INSERT INTO singer VALUES (1, 'Joe', 'France', 52), (2, 'Ann', 'France', 32),
                                  (3, 'Bo', 'Spain', 41), (4, 'Cy', 'Spain', 29);
        CREATE TABLE song (singer_id INTEGER, title TEXT);
        INSERT INTO song VALUES (1, 'A'), (1, 'B'), (2, 'C');
        """
    )
    conn.execute("CREATE TABLE raw (b TEXT)")
    conn.execute("INSERT INTO raw VALUES (CAST(x'66fe6f' AS TEXT))")  # 'f', an invalid byte, 'o'
    conn.commit()
    conn.close()
    return path


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return make_db(tmp_path / "music.sqlite")


def test_rows_and_columns_as_sqlite_returns_them(db: Path) -> None:
    r = execute(db, "SELECT name, age FROM singer WHERE country = 'Spain' ORDER BY age")
    assert r.ok and r.error_kind is None and not r.truncated
    assert r.columns == ("name", "age")
    assert r.rows == (("Cy", 29), ("Bo", 41))
    assert r.elapsed >= 0


def test_trailing_semicolons_and_comments_are_one_statement(db: Path) -> None:
    assert execute(db, "SELECT count(*) FROM singer;").rows == ((4,),)
    assert execute(db, "SELECT count(*) FROM singer; -- done\n").rows == ((4,),)


@pytest.mark.parametrize(
    ("sql", "kind"),
    [
        ("", "empty"),
        ("   \n", "empty"),
        ("-- only a comment", "empty"),
        ("SELEC name FROM singer", "syntax"),
        ("SELECT nope FROM singer", "syntax"),
        ("SELECT name FROM nowhere", "syntax"),
        ("SELECT name FROM singer WHERE", "syntax"),
        ("SELECT 'a' + ", "syntax"),
        ("SELECT abs(-9223372036854775808)", "runtime"),
        ("SELECT json_extract('{', '$.a')", "runtime"),
        ("SELECT 1; SELECT 2", "multiple_statements"),
        ("DELETE FROM singer", "forbidden"),
    ],
)
def test_error_kinds(db: Path, sql: str, kind: str) -> None:
    r = execute(db, sql)
    assert not r.ok
    assert r.error_kind == kind
    assert r.error_kind in ERROR_KINDS
    assert r.error  # a message to show
    assert r.rows == ()


def test_missing_and_unreadable_databases_are_row_outcomes(tmp_path: Path) -> None:
    assert execute(None, "SELECT 1").error_kind == "db_missing"
    assert execute(tmp_path / "absent.sqlite", "SELECT 1").error_kind == "db_missing"
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database file at all" * 100)
    r = execute(junk, "SELECT 1 FROM sqlite_master")
    assert r.error_kind == "db_unreadable", r.error


def test_row_cap_marks_the_result_truncated(db: Path) -> None:
    r = execute(db, "SELECT a.id, b.id FROM singer a, singer b", max_rows=5)
    assert r.ok and r.truncated
    assert len(r.rows) == 5
    full = execute(db, "SELECT a.id, b.id FROM singer a, singer b", max_rows=16)
    assert not full.truncated and len(full.rows) == 16


def test_text_that_is_not_utf8_is_decoded_not_fatal(db: Path) -> None:
    r = execute(db, "SELECT b FROM raw")
    assert r.ok
    assert r.rows == (("f\ufffdo",),)


def test_timeout_interrupts_a_running_query(db: Path) -> None:
    r = execute(
        db,
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
        timeout=0.3,
    )
    assert r.error_kind == "timeout"
    assert "timed out" in r.error


def test_same_results_from_worker_threads(db: Path) -> None:
    queries = ["SELECT name FROM singer ORDER BY id", "SELECT count(*) FROM song", "SELECT nope"] * 10
    expected = [execute(db, q) for q in queries]
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda q: execute(db, q), queries))
    assert [(r.rows, r.error_kind) for r in got] == [(r.rows, r.error_kind) for r in expected]


def _count_in_process(path: str) -> tuple:
    return execute(Path(path), "SELECT count(*) FROM singer").rows


def test_usable_from_worker_processes(db: Path) -> None:
    with ProcessPoolExecutor(max_workers=2) as pool:
        assert list(pool.map(_count_in_process, [str(db)] * 2)) == [((4,),), ((4,),)]


def test_gold_cache_shares_results_across_copies_and_rejects_stale_ones(db: Path, tmp_path: Path) -> None:
    cache = GoldResultCache()
    copy = tmp_path / "copy.sqlite"
    shutil.copyfile(db, copy)
    a = cache.get(db, "SELECT count(*) FROM singer")
    b = cache.get(copy, "SELECT count(*) FROM singer")
    assert a.rows == b.rows == ((4,),)
    assert (cache.misses, cache.hits) == (1, 1)
    conn = sqlite3.connect(copy)
    conn.execute("INSERT INTO singer VALUES (5, 'Di', 'Peru', 30)")
    conn.commit()
    conn.close()
    assert cache.get(copy, "SELECT count(*) FROM singer").rows == ((5,),)
    assert cache.misses == 2


def test_gold_cache_computes_each_key_once_under_threads(db: Path) -> None:
    cache = GoldResultCache()
    barrier = threading.Barrier(8)

    def ask(_: int) -> ExecResult:
        barrier.wait()
        return cache.get(db, "SELECT name FROM singer ORDER BY name")

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(ask, range(8)))
    assert cache.misses == 1 and cache.hits == 7
    assert {r.rows for r in results} == {(("Ann",), ("Bo",), ("Cy",), ("Joe",))}


def test_gold_cache_passes_missing_databases_through(tmp_path: Path) -> None:
    cache = GoldResultCache()
    assert cache.get(None, "SELECT 1").error_kind == "db_missing"
    assert cache.get(tmp_path / "absent.sqlite", "SELECT 1").error_kind == "db_missing"
    assert len(cache) == 0


EX_KEYS = ("va", "ex", "ex_spider", "ex_bird", "ex_archer")


def ex_of(pair: PairRun) -> dict[str, object]:
    return {k: pair.outcomes[k] for k in EX_KEYS}


def test_outcomes_for_a_pair(db: Path) -> None:
    gold = "SELECT name FROM singer WHERE age > 30"
    right = run_pair(db, gold, "SELECT name FROM singer WHERE NOT age <= 30")
    assert ex_of(right) == {"va": 1, "ex": 1, "ex_spider": 1, "ex_bird": 1, "ex_archer": 1}
    # the rest of a stored row's execution columns: the official verdict, which gold matched
    assert right.outcomes["ex_official"] == 1 and right.outcomes["gold_match"] == "gold"
    assert right.outcomes["truncated"] == 0 and right.outcomes["tie_sensitive"] is None
    wrong = run_pair(db, gold, "SELECT name FROM singer WHERE age > 40")
    assert ex_of(wrong) == {"va": 1, "ex": 0, "ex_spider": 0, "ex_bird": 0, "ex_archer": 0}
    assert wrong.outcomes["ex_official"] == 0 and wrong.outcomes["gold_match"] is None
    broken = run_pair(db, gold, "SELECT nme FROM singer")
    assert ex_of(broken) == {"va": 0, "ex": 0, "ex_spider": 0, "ex_bird": 0, "ex_archer": 0}
    assert broken.pred.error_kind == "syntax"


def test_a_pair_passes_on_an_alternative_gold_as_an_evaluation_scores_it(db: Path) -> None:
    gold = "SELECT name FROM singer WHERE age > 30"
    other = "SELECT name FROM singer WHERE age > 40"
    pair = run_pair(db, gold, other, others=[("accepted 1", other)])
    assert ex_of(pair) == {"va": 1, "ex": 1, "ex_spider": 1, "ex_bird": 1, "ex_archer": 1}
    assert pair.outcomes["gold_match"] == "accepted 1"
    assert pair.outcomes["ex_official"] == 0 and pair.outcomes["official_quirk"] == "alternative gold"


def test_missing_database_gives_no_outcome() -> None:
    pair = run_pair(None, "SELECT 1", "SELECT 1")
    assert ex_of(pair) == dict.fromkeys(EX_KEYS)


def test_spider_mode_drops_distinct_like_the_official_evaluator(db: Path) -> None:
    # The official evaluator removes DISTINCT from both queries before running them (keep_distinct=False).
    pair = run_pair(db, "SELECT DISTINCT country FROM singer", "SELECT country FROM singer")
    assert pair.gold.rows != pair.gold_spider.rows
    assert pair.outcomes["ex_spider"] == 1
    assert pair.outcomes["ex_bird"] == 1  # sets of rows
    assert pair.outcomes["ex_archer"] == 0  # 2 rows against 4
    # the same verdicts when only the plain results are handed over
    plain = execution_outcomes(
        execute(db, "SELECT DISTINCT country FROM singer"),
        execute(db, "SELECT country FROM singer"),
        "SELECT DISTINCT country FROM singer",
    )
    assert plain == ex_of(pair)


def test_spider_mode_joins_split_comparison_operators(db: Path) -> None:
    pair = run_pair(db, "SELECT name FROM singer WHERE age >= 41", "SELECT name FROM singer WHERE age > = 41")
    assert pair.outcomes["va"] == 0  # as written it does not run
    assert pair.outcomes["ex_spider"] == 1  # the official postprocess repairs it


def test_a_private_in_memory_copy_runs_queries_under_the_same_guard(db: Path) -> None:
    """The copy a witness is shrunk in: its owner writes it, an untrusted query only reads it."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    src = sqlite3.connect(db)
    src.backup(conn)
    src.close()
    sql = "SELECT name, age FROM singer WHERE country = 'France' ORDER BY age"
    assert execute_on(conn, sql, timeout=5.0, max_rows=100).rows == execute(db, sql).rows
    for hostile in ("DELETE FROM singer", "ATTACH ':memory:' AS x", "PRAGMA query_only = OFF"):
        result = execute_on(conn, hostile, timeout=5.0, max_rows=100)
        assert result.error_kind in {"forbidden", "syntax"}, hostile
    assert conn.execute("SELECT count(*) FROM singer").fetchone() == (4,)
    conn.execute("DELETE FROM singer WHERE age < 30")  # the owner still writes between queries
    assert execute_on(conn, "SELECT count(*) FROM singer", timeout=5.0, max_rows=1).rows == ((3,),)
    capped = execute_on(conn, "SELECT id FROM singer", timeout=5.0, max_rows=2)
    assert capped.truncated and len(capped.rows) == 2 and not conn.in_transaction


def test_queries_on_the_copy_read_a_step_the_owner_has_not_yet_kept(db: Path) -> None:
    """The shrinker judges a step inside a savepoint: the guarded queries see its deletions, leave the
    savepoint open, and cannot end it themselves."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    src = sqlite3.connect(db)
    src.backup(conn)
    src.close()
    conn.execute("SAVEPOINT step")
    conn.execute("DELETE FROM singer WHERE age < 30")
    counted, hostile, capped = execute_all_on(
        conn,
        ("SELECT count(*) FROM singer", "ROLLBACK TO step", "SELECT id FROM singer"),
        timeout=5.0,
        max_rows=1,
    )
    assert counted.rows == ((3,),)
    assert hostile.error_kind == "forbidden"
    assert capped.truncated and conn.in_transaction  # the owner's step is still open
    conn.execute("ROLLBACK TO step")
    conn.execute("RELEASE step")
    assert conn.execute("SELECT count(*) FROM singer").fetchone() == (4,)


def test_a_kept_connection_refuses_writes_after_it_has_served_queries(db: Path) -> None:
    """The guard stays on a kept connection for its whole life: reuse never lowers it."""
    before = db.read_bytes()
    sql = "SELECT name FROM singer ORDER BY name"
    first, again = execute(db, sql), execute(db, sql)
    assert first.ok and again.rows == first.rows
    for hostile in ("DELETE FROM singer", "ATTACH ':memory:' AS x", "PRAGMA query_only = OFF"):
        assert execute(db, hostile).error_kind in {"forbidden", "syntax"}, hostile
        assert execute(db, sql).rows == first.rows  # and the next query runs as before
    assert db.read_bytes() == before
