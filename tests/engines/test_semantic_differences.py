"""The semantic differences docs/engines.md lists, each shown on the real engines: the same query text gives
another answer on SQLite, PostgreSQL and MariaDB. A gold written for one engine can fail or differ on another;
these are differences of the engines, not of sqltriage, and stay visible in the cross-engine figures."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from sqltriage.core.engines.refs import parse_url
from sqltriage.core.engines.registry import Database
from tests.servers import Server


def on_sqlite(spider_dev: Path, sql: str) -> list[tuple]:
    db = spider_dev / "database" / "concert_singer" / "concert_singer.sqlite"
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def on(url: str, sql: str) -> list[tuple] | str:
    result = Database(parse_url(url).ref("concert_singer")).execute(sql, timeout=5, max_rows=100)
    return list(result.rows) if result.ok else f"{result.error_kind}: {result.error}"


def both(served: tuple[Server, str]) -> tuple[str, str]:
    server, url = served
    return server.engine, url


def test_integer_division(served: tuple[Server, str], spider_dev: Path) -> None:
    engine, url = both(served)
    assert on_sqlite(spider_dev, "SELECT 7 / 2") == [(3,)]
    got = on(url, "SELECT 7 / 2")
    assert got == ([(3,)] if engine == "postgresql" else [(pytest.approx(3.5),)])  # MySQL's / is exact


def test_like_and_case(served: tuple[Server, str], spider_dev: Path) -> None:
    engine, url = both(served)
    assert on_sqlite(spider_dev, "SELECT 'Joe' LIKE 'joe'") == [(1,)]  # ASCII case folded
    got = on(url, "SELECT 'Joe' LIKE 'joe'")
    assert got == ([(False,)] if engine == "postgresql" else [(1,)])  # MariaDB: the collation folds it


def test_equality_and_collation(served: tuple[Server, str], spider_dev: Path) -> None:
    engine, url = both(served)
    assert on_sqlite(spider_dev, "SELECT 'a' = 'A'") == [(0,)]  # BINARY collation
    got = on(url, "SELECT 'a' = 'A'")
    assert got == ([(False,)] if engine == "postgresql" else [(1,)])  # utf8mb4_general_ci: equal


def test_null_ordering(served: tuple[Server, str], spider_dev: Path) -> None:
    engine, url = both(served)
    sql = "SELECT x FROM (SELECT 1 AS x UNION ALL SELECT NULL) AS t ORDER BY x"
    assert on_sqlite(spider_dev, sql) == [(None,), (1,)]  # NULL first when ascending
    assert on(url, sql) == ([(1,), (None,)] if engine == "postgresql" else [(None,), (1,)])


def test_bare_columns_beside_group_by(served: tuple[Server, str], spider_dev: Path) -> None:
    engine, url = both(served)
    sql = "SELECT name, count(*) FROM singer GROUP BY country"
    assert len(on_sqlite(spider_dev, sql)) == 3  # SQLite picks a row's name per group
    got = on(url, sql)
    if engine == "postgresql":
        assert isinstance(got, str) and got.startswith("syntax") and "GROUP BY" in got
    else:
        assert isinstance(got, list) and len(got) == 3  # MariaDB without ONLY_FULL_GROUP_BY, like SQLite


def test_text_compared_with_a_number(served: tuple[Server, str], spider_dev: Path) -> None:
    engine, url = both(served)
    assert on_sqlite(spider_dev, "SELECT '10' > 9, 'abc' = 0") == [(1, 0)]
    got = on(url, "SELECT '10' > 9, 'abc' = 0")
    if engine == "postgresql":  # the literal takes the integer type; 'abc' is no integer
        assert isinstance(got, str) and got.startswith("runtime")
    else:
        assert got == [(1, 1)]  # MySQL converts 'abc' to 0
