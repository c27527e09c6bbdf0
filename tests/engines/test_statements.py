"""What reaches a server: one read-only query; everything else refused before it is sent, with a reason."""

from __future__ import annotations

import pytest

from sqltriage.core.engines.statements import Refused, check

REFUSED = [
    ("postgres", "SELECT 1; SELECT 2", "multiple_statements"),
    ("mysql", "SELECT 1; DROP TABLE singer", "multiple_statements"),
    ("postgres", "INSERT INTO singer VALUES (1)", "forbidden"),
    ("postgres", "UPDATE singer SET age = 1", "forbidden"),
    ("postgres", "DELETE FROM singer", "forbidden"),
    ("postgres", "DROP TABLE singer", "forbidden"),
    ("postgres", "CREATE TABLE x (a int)", "forbidden"),
    ("postgres", "ALTER TABLE singer ADD COLUMN x int", "forbidden"),
    ("postgres", "TRUNCATE singer", "forbidden"),
    ("postgres", "WITH gone AS (DELETE FROM singer RETURNING *) SELECT * FROM gone", "forbidden"),
    ("postgres", "COPY singer TO '/tmp/out'", "forbidden"),
    ("postgres", "COPY (SELECT 1) TO PROGRAM 'id'", "forbidden"),
    ("postgres", "CALL p()", "forbidden"),
    ("postgres", "DO $$ BEGIN PERFORM 1; END $$", "forbidden"),
    ("postgres", "SET statement_timeout = 0", "forbidden"),
    ("postgres", "SELECT set_config('statement_timeout', '0', false)", "forbidden"),
    ("postgres", "SELECT pg_read_file('/etc/passwd')", "forbidden"),
    ("postgres", "SELECT pg_catalog.pg_read_binary_file('/etc/passwd')", "forbidden"),
    ("postgres", "SELECT * FROM pg_ls_dir('.')", "forbidden"),
    ("postgres", "SELECT pg_stat_file('postgresql.conf')", "forbidden"),
    ("postgres", "SELECT lo_import('/etc/passwd')", "forbidden"),
    ("postgres", "SELECT lo_export(1, '/tmp/x')", "forbidden"),
    ("postgres", "SELECT * FROM dblink('host=example.org', 'select 1') AS t(a int)", "forbidden"),
    ("postgres", "SELECT \"pg_read_file\"('/etc/passwd')", "forbidden"),
    ("postgres", "SELECT query_to_xml('select pg_read_file(''/etc/passwd'')', true, true, '')", "forbidden"),
    ("postgres", "SELECT pg_advisory_lock(1)", "forbidden"),
    ("postgres", "SELECT * FROM singer FOR UPDATE", "forbidden"),
    ("postgres", "SELECT * INTO copy_of FROM singer", "forbidden"),
    ("mysql", "SELECT LOAD_FILE('/etc/passwd')", "forbidden"),
    ("mysql", "SELECT * FROM singer INTO OUTFILE '/tmp/out'", "forbidden"),
    ("mysql", "SELECT * FROM singer INTO DUMPFILE '/tmp/out'", "forbidden"),
    ("mysql", "SELECT sys_exec('id')", "forbidden"),
    ("mysql", "SELECT GET_LOCK('x', 10)", "forbidden"),
    ("mysql", "SELECT 1 INTO @a", "forbidden"),
    ("mysql", "SELECT @a := 1", "forbidden"),
    ("mysql", "LOAD DATA INFILE '/etc/passwd' INTO TABLE singer", "forbidden"),
    ("mysql", "SET SESSION max_statement_time = 0", "forbidden"),
    ("mysql", "HANDLER singer OPEN", "forbidden"),
    ("postgres", "", "empty"),
    ("postgres", "  ;  ", "empty"),
]


@pytest.mark.parametrize(("dialect", "sql", "kind"), REFUSED, ids=[r[1][:40] for r in REFUSED])
def test_refused_with_a_reason(dialect: str, sql: str, kind: str) -> None:
    with pytest.raises(Refused) as caught:
        check(sql, dialect)
    assert caught.value.kind == kind
    assert str(caught.value)


ALLOWED = [
    ("postgres", "SELECT count(*) FROM singer;"),
    ("postgres", "WITH t AS (SELECT 1 AS a) SELECT a FROM t"),
    ("postgres", "(SELECT 1) UNION (SELECT 2)"),
    ("postgres", "VALUES (1), (2)"),
    ("postgres", "SELECT pg_sleep(0.01)"),  # allowed: the statement timeout ends it
    ("postgres", "SELECT name::text, CAST(age AS FLOAT) / 2 FROM singer WHERE name ILIKE '%a%'"),
    ("mysql", "SELECT `name` FROM `singer` WHERE `age` > 20 ORDER BY `age` DESC LIMIT 1"),
    ("mysql", "SELECT SLEEP(0.01)"),
    ("postgres", "SELECT 'DROP TABLE singer; pg_read_file(x)' AS text_only"),  # words in strings are text
]


@pytest.mark.parametrize(("dialect", "sql"), ALLOWED, ids=[a[1][:40] for a in ALLOWED])
def test_queries_pass(dialect: str, sql: str) -> None:
    assert check(sql, dialect) == sql.strip().rstrip(";")
