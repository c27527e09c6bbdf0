"""A server that is down, refuses the login, lacks a table or a database: a row outcome whose message names
the URL (never its password) and says what to do, never an exception."""

from __future__ import annotations

from sqltriage.core.engines.refs import parse_url
from sqltriage.core.engines.registry import Database
from tests.servers import Server, free_port


def run(url: str, sql: str = "SELECT 1", db_id: str = "concert_singer"):
    return Database(parse_url(url).ref(db_id)).execute(sql, timeout=2, max_rows=10)


def test_a_server_that_is_down(served: tuple[Server, str]) -> None:
    server, _ = served
    url = f"{server.engine}://reader:hunter2@127.0.0.1:{free_port()}/spider_{{db_id}}"
    result = run(url)
    assert result.error_kind == "db_unreadable"
    assert "hunter2" not in result.error and "***" in result.error and "127.0.0.1" in result.error
    assert "is the server running" in result.error


def test_a_refused_login(served: tuple[Server, str]) -> None:
    server, _reader = served
    if server.engine == "postgresql":  # the test server trusts local logins: a role that does not exist
        url = server.url("spider_{db_id}", "nobody", "hunter2")
    else:
        url = server.url("spider_{db_id}", "reader", "hunter2")
    result = run(url)
    assert result.error_kind == "db_unreadable", result
    assert "hunter2" not in result.error


def test_a_missing_database_and_table(served: tuple[Server, str]) -> None:
    _, reader = served
    gone = run(reader, db_id="not_copied")
    assert gone.error_kind in ("db_missing", "db_unreadable") and "spider_not_copied" in gone.error
    assert run(reader, "SELECT * FROM no_such_table").error_kind == "syntax"
    assert run(reader, "SELECT no_such_column FROM singer").error_kind == "syntax"
    assert run(reader, "SELEC 1").error_kind == "syntax"


def test_runtime_errors_are_runtime(pg_spider: str) -> None:
    assert run(pg_spider, "SELECT 1 / 0").error_kind == "runtime"
    assert run(pg_spider, "SELECT CAST('x' AS INTEGER)").error_kind == "runtime"


def test_values_come_back_as_the_driver_gives_them(served: tuple[Server, str]) -> None:
    """As Mini-Dev's evaluator sees them: a DECIMAL is a Decimal, which equals 1.5 but not the float 0.1."""
    import datetime
    from decimal import Decimal

    _, reader = served
    result = run(
        reader, "SELECT CAST(1.5 AS DECIMAL(5, 2)), CAST('2020-01-02' AS DATE), CAST(0.1 AS DECIMAL(3, 1))"
    )
    assert result.ok and result.rows == ((Decimal("1.50"), datetime.date(2020, 1, 2), Decimal("0.1")),)
    assert result.rows[0][0] == 1.5 and result.rows[0][2] != 0.1


def test_an_empty_result_keeps_its_columns(served: tuple[Server, str]) -> None:
    _, reader = served
    result = run(reader, "SELECT name, age FROM singer WHERE age > 1000")
    assert result.ok and result.rows == () and [c.lower() for c in result.columns] == ["name", "age"]
