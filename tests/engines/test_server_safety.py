"""Hostile SQL on real PostgreSQL and MariaDB servers, mirroring the SQLite tests: nothing changes, no file
is read or written, every run ends within its limit, each refused query says why."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from sqltriage.core.engines.refs import parse_url
from sqltriage.core.engines.registry import Database, adapter_for
from sqltriage.core.verdicts.exec_result import ExecResult
from tests.servers import Server

TIMEOUT = 1.0
SLACK = 2.0  # seconds over the limit a run may take (connection, rollback)


def run(url: str, sql: str, *, timeout: float = TIMEOUT, max_rows: int = 1000) -> ExecResult:
    return Database(parse_url(url).ref("concert_singer")).execute(sql, timeout=timeout, max_rows=max_rows)


def admin_url(server: Server) -> str:
    return server.url("spider_concert_singer")


def counts(server: Server) -> tuple:
    """Every table's row count and the list of tables, read by the administrator."""
    a = admin_url(server)
    tables = ("singer", "concert", "stadium", "singer_in_concert")
    return (
        *tuple(run(a, f"SELECT count(*) FROM {t}").rows for t in tables),
        run(a, "SELECT count(*) FROM information_schema.tables").rows,
    )


WRITES = [
    "INSERT INTO singer (Singer_ID, Name) VALUES (99, 'x')",
    "UPDATE singer SET Age = 0",
    "DELETE FROM singer",
    "DROP TABLE singer",
    "CREATE TABLE intruder (a int)",
    "ALTER TABLE singer ADD COLUMN intruder int",
    "TRUNCATE singer",
    "SELECT 1; DELETE FROM singer",
    "WITH gone AS (DELETE FROM singer RETURNING *) SELECT * FROM gone",
    "SELECT * FROM singer FOR UPDATE",
    "SELECT * INTO intruder FROM singer",
    "GRANT ALL ON singer TO PUBLIC",
]


@pytest.mark.parametrize("sql", WRITES)
def test_writes_and_ddl_change_nothing(served: tuple[Server, str], sql: str) -> None:
    server, spider_url = served
    before = counts(server)
    for url in (spider_url, admin_url(server)):  # the administrator too: the check and READ ONLY hold
        result = run(url, sql)
        assert result.error_kind in ("forbidden", "multiple_statements", "syntax"), (sql, result)
        assert result.error
    assert counts(server) == before


def test_read_only_transaction_holds_beneath_the_check(pg_server: Server, pg_spider: str) -> None:
    """A function that writes and is on no list (nextval) is stopped by the READ ONLY transaction itself."""
    import psycopg

    with psycopg.connect(host=pg_server.host, port=pg_server.port, user=pg_server.admin_user,
                         dbname="spider_concert_singer", autocommit=True) as conn:  # fmt: skip
        conn.execute("CREATE SEQUENCE IF NOT EXISTS probe_seq")
        conn.execute("GRANT ALL ON SEQUENCE probe_seq TO reader")
        before = conn.execute("SELECT last_value FROM probe_seq").fetchone()
        for url in (pg_spider, admin_url(pg_server)):
            result = run(url, "SELECT nextval('probe_seq')")
            assert result.error_kind == "forbidden" and "read-only" in (result.error or ""), result
        assert conn.execute("SELECT last_value FROM probe_seq").fetchone() == before


FILES_PG = [
    "SELECT pg_read_file('/etc/passwd')",
    "SELECT pg_read_binary_file('/etc/passwd')",
    "SELECT * FROM pg_ls_dir('.')",
    "SELECT pg_stat_file('PG_VERSION')",
    "SELECT lo_import('/etc/passwd')",
    "SELECT lo_export(1, '/tmp/sqltriage-escape')",
    "COPY singer TO '/tmp/sqltriage-escape'",
    "COPY (SELECT 1) TO PROGRAM 'touch /tmp/sqltriage-escape'",
    "SELECT dblink_connect('host=127.0.0.1')",
    "SELECT query_to_xml('select pg_read_file(''/etc/passwd'')', true, true, '')",
    "SELECT set_config('statement_timeout', '0', false)",
    "DO $$ BEGIN PERFORM pg_sleep(0); END $$",
    "CALL anything()",
]


@pytest.mark.parametrize("sql", FILES_PG)
def test_postgres_reads_no_file_and_reaches_nothing(pg_server: Server, pg_spider: str, sql: str) -> None:
    escape = Path("/tmp/sqltriage-escape")
    escape.unlink(missing_ok=True)
    for url in (pg_spider, admin_url(pg_server)):
        result = run(url, sql)
        assert result.error_kind == "forbidden", result
        assert not result.rows and "root:" not in (result.error or "")
    assert not escape.exists()


FILES_MARIA = [
    "SELECT LOAD_FILE('/etc/passwd')",
    "SELECT * FROM singer INTO OUTFILE '{files}/out.txt'",
    "SELECT * FROM singer INTO DUMPFILE '{files}/out.bin'",
    "SELECT sys_exec('touch /tmp/sqltriage-escape')",
    "LOAD DATA INFILE '/etc/passwd' INTO TABLE singer",
    "SELECT GET_LOCK('held', 1)",
    "SET SESSION max_statement_time = 0",
    "HANDLER singer OPEN",
]


@pytest.mark.parametrize("sql", FILES_MARIA)
def test_mariadb_reads_no_file_and_writes_none(maria_server: Server, maria_spider: str, sql: str) -> None:
    files = maria_server.folder / "files"  # the server's secure_file_priv: where it could write at all
    text = sql.format(files=files)
    for url in (maria_spider, admin_url(maria_server)):
        result = run(url, text)
        assert result.error_kind == "forbidden", result
        assert not result.rows
    assert not any(files.iterdir())


def _slow(engine: str) -> list[str]:
    if engine == "postgresql":
        return [
            "SELECT pg_sleep(30)",
            "SELECT count(*) FROM generate_series(1, 100000000) a",
            "SELECT count(*) FROM singer a, singer b, singer c, singer d, singer e, singer f, singer g, singer h,"
            " singer i, singer j",
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
        ]
    return [
        "SELECT SLEEP(30)",
        "SELECT BENCHMARK(10000000000, MD5('x'))",
        "SELECT count(*) FROM singer a, singer b, singer c, singer d, singer e, singer f, singer g, singer h,"
        " singer i, singer j",
        "SELECT count(*) FROM information_schema.columns a, information_schema.columns b,"
        " information_schema.columns c",
    ]


@pytest.mark.parametrize("which", range(4))
def test_nothing_outlives_its_limit(spider_url: str, which: int) -> None:
    sql = _slow(parse_url(spider_url).engine)[which]
    started = time.monotonic()
    result = run(spider_url, sql, timeout=TIMEOUT)
    took = time.monotonic() - started
    assert result.error_kind in ("timeout", "runtime"), result  # an endless CTE may hit a depth limit first
    assert took < TIMEOUT + SLACK, f"{sql} took {took:.1f} s"
    after = run(spider_url, "SELECT count(*) FROM singer")  # the connection is usable after
    assert after.ok and after.rows == ((6,),)


def test_a_huge_result_is_capped(spider_url: str) -> None:
    engine = parse_url(spider_url).engine
    sql = (
        "SELECT a.Name, b.Name, c.Name, d.Name, e.Name FROM singer a, singer b, singer c, singer d, singer e,"
        " singer f, singer g"
    )
    started = time.monotonic()
    result = run(spider_url, sql, timeout=5, max_rows=500)
    assert result.ok and result.truncated and len(result.rows) == 500, (engine, result.error)
    assert time.monotonic() - started < 5
    assert run(spider_url, "SELECT count(*) FROM singer").rows == ((6,),)


def test_settings_do_not_leak_between_queries(spider_url: str) -> None:
    """A timed-out query leaves no transaction open and the next one gets its own time limit."""
    engine = parse_url(spider_url).engine
    sleep = "SELECT pg_sleep(3)" if engine == "postgresql" else "SELECT SLEEP(3)"
    assert run(spider_url, sleep, timeout=0.5).error_kind == "timeout"
    ok = run(spider_url, sleep.replace("3", "0.6"), timeout=2)
    assert ok.ok, ok


def test_the_warnings_name_a_role_that_could_write(served: tuple[Server, str]) -> None:
    server, spider_url = served
    admin = parse_url(admin_url(server)).ref("concert_singer")
    reader = parse_url(spider_url).ref("concert_singer")
    adapter = adapter_for(admin.engine)
    warned = adapter.warnings(admin)
    assert warned and any("superuser" in w or "all privileges" in w for w in warned)
    assert adapter.warnings(reader) == []
