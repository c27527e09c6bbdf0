"""Real PostgreSQL and MariaDB servers for the engine tests (tests/servers.py), one of each per test run.

Every test in this folder is in one pytest-xdist group, so one worker starts the servers once. A server
that cannot be had skips its tests with the reason; `.ci/run` installs both.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.servers import Server, mariadb_missing, postgres_missing, start_mariadb, start_postgres

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.xdist_group("engines"))


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Server]:
    if (why := postgres_missing()) is not None:
        pytest.skip(why)
    yield from start_postgres()


@pytest.fixture(scope="session")
def maria_server() -> Iterator[Server]:
    if (why := mariadb_missing()) is not None:
        pytest.skip(why)
    yield from start_mariadb()


def _grant_reader_pg(server: Server, dbnames: list[str]) -> None:
    import psycopg

    with psycopg.connect(host=server.host, port=server.port, user=server.admin_user, dbname="postgres",
                         autocommit=True) as conn:  # fmt: skip
        if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = 'reader'").fetchone() is None:
            conn.execute("CREATE ROLE reader LOGIN PASSWORD 'secret-pw'")
    for db in dbnames:
        with psycopg.connect(host=server.host, port=server.port, user=server.admin_user, dbname=db,
                             autocommit=True) as conn:  # fmt: skip
            conn.execute("GRANT USAGE ON SCHEMA public TO reader")
            conn.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader")


def _grant_reader_maria(server: Server) -> None:
    import pymysql

    conn = pymysql.connect(host=server.host, port=server.port, user="root", password="", autocommit=True)
    with conn.cursor() as cur:
        cur.execute("CREATE USER IF NOT EXISTS 'reader'@'127.0.0.1' IDENTIFIED BY 'secret-pw'")
        cur.execute("GRANT SELECT ON *.* TO 'reader'@'127.0.0.1'")
    conn.close()


def spider_db_ids(spider_dev: Path) -> list[str]:
    return sorted(d.name for d in (spider_dev / "database").iterdir() if (d / f"{d.name}.sqlite").is_file())


def _copy(server: Server, spider_dev: Path) -> str:
    """Spider dev's 19 databases copied by `sqltriage db copy --numbers-from-text` (Spider's golds compare
    text columns of numbers with numbers, as SQLite allows), one server database each."""
    from sqltriage.tui.cli import main

    args = ["db", "copy", str(spider_dev / "database"), "--to", server.url("spider_{db_id}"), "--json"]
    assert main([*args, "--numbers-from-text"]) == 0
    return server.url("spider_{db_id}", "reader", "secret-pw")


@pytest.fixture(scope="session")
def pg_spider(pg_server: Server, spider_dev: Path) -> str:
    """A URL (login `reader`, SELECT only) of Spider dev databases copied into PostgreSQL, one per db_id."""
    url = _copy(pg_server, spider_dev)
    _grant_reader_pg(pg_server, [f"spider_{d}" for d in spider_db_ids(spider_dev)])
    return url


@pytest.fixture(scope="session")
def maria_spider(maria_server: Server, spider_dev: Path) -> str:
    """The same in MariaDB."""
    url = _copy(maria_server, spider_dev)
    _grant_reader_maria(maria_server)
    return url


@pytest.fixture(params=["postgresql", "mysql"])
def spider_url(request: pytest.FixtureRequest) -> str:
    """Each server's Spider copy in turn, as the reader."""
    return request.getfixturevalue("pg_spider" if request.param == "postgresql" else "maria_spider")


@pytest.fixture(params=["postgresql", "mysql"])
def served(request: pytest.FixtureRequest) -> tuple[Server, str]:
    """Each server with its Spider copy's URL as the reader."""
    if request.param == "postgresql":
        return request.getfixturevalue("pg_server"), request.getfixturevalue("pg_spider")
    return request.getfixturevalue("maria_server"), request.getfixturevalue("maria_spider")
