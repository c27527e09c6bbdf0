"""MySQL and MariaDB through PyMySQL: each untrusted query checked (`statements.check`), then run as a
transaction of its own, READ ONLY by the session's `SET SESSION TRANSACTION READ ONLY`, under the server's
own limit (MariaDB's `max_statement_time`, MySQL's `max_execution_time`), rows read unbuffered up to the cap.

Values come back as PyMySQL gives them (DECIMAL as Decimal, dates as date and datetime), as BIRD Mini-Dev's
evaluator sees them, so `ex` and `soft_f1` agree with it row for row. Table names keep
their spelling: a server started with `lower_case_table_names=1` (docs/engines.md) matches them as SQLite
does, whatever case a query writes them in.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pymysql
import pymysql.cursors

from sqltriage.core.engines import copying
from sqltriage.core.engines.base import (
    ColumnInfo,
    CopyReport,
    DbSchema,
    ForeignKey,
    Index,
    Progress,
    TableInfo,
)
from sqltriage.core.engines.refs import DbRef, ServerUrl
from sqltriage.core.engines.server import ServerEngine, failure, server_of, unreachable
from sqltriage.core.engines.statements import Refused, check
from sqltriage.core.errors import UsageError
from sqltriage.core.verdicts.exec_result import ExecResult

_TIMEOUT_ERRORS = {1969, 3024, 1317, 1028}  # MariaDB statement time, MySQL execution time, interrupted
_SYNTAX_ERRORS = {1064, 1146, 1054, 1305, 1052, 1630, 1111, 1140, 1055, 1241, 1248, 1060, 1221, 1222, 1247,
                  1582, 1583, 1584, 4078}  # fmt: skip
_FORBIDDEN_ERRORS = {1792, 1142, 1143, 1227, 1044, 1370, 1290}
_LOCK_ERRORS = {1205, 1213}
_KEY_TEXT = 768  # characters of a text column that is a key: utf8mb4's 3072-byte index limit / 4
_TYPES = {
    "integer": "INT",
    "bigint": "BIGINT",
    "double": "DOUBLE",
    "blob": "LONGBLOB",
    "date": "DATE",
    "timestamp": "DATETIME",
}


def _kind(exc: pymysql.MySQLError) -> str:
    code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else 0
    if code in _TIMEOUT_ERRORS:
        return "timeout"
    if code in _SYNTAX_ERRORS:
        return "syntax"
    if code in _FORBIDDEN_ERRORS:
        return "forbidden"
    if code in _LOCK_ERRORS:
        return "db_locked"
    if code == 1049:
        return "db_missing"
    if code >= 2000 or code in (1045, 1040, 1053, 1927) or isinstance(exc, pymysql.err.InterfaceError):
        return "db_unreadable"  # client errors (2xxx): the server is gone; login refused
    return "runtime"


def _q(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


class MysqlEngine(ServerEngine):
    name = "mysql"
    dialect = "mysql"

    def connect(self, url: ServerUrl, dbname: str | None) -> Any:
        conn = pymysql.connect(
            host=url.host,
            port=url.port or 3306,
            user=url.user or "root",
            password=url.password or "",
            database=dbname,
            connect_timeout=10,
            read_timeout=600,  # a net under the server's own limit
            charset="utf8mb4",
            autocommit=True,
            local_infile=False,
        )
        conn.mariadb = "mariadb" in conn.get_server_info().lower()
        return conn

    def _session(self, ref: DbRef) -> Any:
        url = server_of(ref)
        dbname = url.database(ref.db_id)

        def connect() -> Any:
            conn = self.connect(url, dbname)
            with conn.cursor() as cur:
                cur.execute("SET SESSION TRANSACTION READ ONLY")
                cur.execute("SET SESSION sql_select_limit = DEFAULT")
            conn.timeout_s = None
            return conn

        return self._kept.get(url.key(dbname), connect)

    def execute(self, ref: DbRef, sql: str, *, timeout: float, max_rows: int) -> ExecResult:
        started = time.perf_counter()
        try:
            text = check(sql, self.dialect)
        except Refused as refused:
            return failure(refused.kind, str(refused), started)
        url = server_of(ref)
        try:
            conn = self._session(ref)
        except pymysql.MySQLError as exc:
            return failure(_kind(exc) if _kind(exc) == "db_missing" else "db_unreadable",
                           unreachable(url, ref.db_id, exc), started)  # fmt: skip
        truncated = False
        try:
            if conn.timeout_s != timeout:
                with conn.cursor() as cur:
                    if conn.mariadb:
                        cur.execute(f"SET SESSION max_statement_time = {max(0.001, timeout):.3f}")
                    else:
                        cur.execute(f"SET SESSION max_execution_time = {max(1, int(timeout * 1000))}")
                conn.timeout_s = timeout
            # autocommit: each query is a transaction of its own, READ ONLY by the session's setting
            # (`SET SESSION TRANSACTION READ ONLY` at connect; no query may change it: SET is refused)
            cur = pymysql.cursors.SSCursor(conn)
            try:
                cur.execute(text)
                if cur.description is None:
                    return failure("forbidden", "only queries that return rows are run", started)
                columns = tuple(d[0] for d in cur.description)
                fetched = cur.fetchmany(max_rows + 1)
                truncated = len(fetched) > max_rows
                if truncated:  # the rest is never read: the connection goes, the server stops sending
                    if cur._result is not None:
                        cur._result.unbuffered_active = False  # nothing left to drain on close
                    self._drop(ref)
                else:
                    cur.close()
                    if time.perf_counter() - started >= timeout:
                        # MariaDB's SLEEP and BENCHMARK answer a row when its limit cuts them, no error
                        return failure("timeout", f"timed out after {timeout:g} s (cut by the server's "
                                       "statement time limit)", started)  # fmt: skip
            except pymysql.err.InterfaceError:
                self._drop(ref)
                raise
        except pymysql.MySQLError as exc:
            kind = _kind(exc)
            message = str(exc.args[1] if len(exc.args) > 1 else exc)
            if kind == "timeout":
                message = f"timed out after {timeout:g} s ({message})"
            try:
                if not conn.open:
                    raise pymysql.err.InterfaceError("connection lost")
                with conn.cursor() as c2:
                    c2.execute("ROLLBACK")
            except pymysql.MySQLError:
                self._drop(ref)
                if kind in ("db_unreadable", "runtime"):
                    kind, message = "db_unreadable", unreachable(url, ref.db_id, exc)
            return failure(kind, message, started)
        rows = tuple(fetched[:max_rows])
        return ExecResult(columns, rows, time.perf_counter() - started, truncated=truncated)

    def schema(self, ref: DbRef) -> DbSchema:
        url = server_of(ref)
        try:
            conn = self.connect(url, url.database(ref.db_id))
        except pymysql.MySQLError as exc:
            raise UsageError(unreachable(url, ref.db_id, exc)) from None
        try:
            return read_schema(conn)
        finally:
            conn.close()

    def warnings(self, ref: DbRef) -> list[str]:
        url = server_of(ref)
        conn = self.connect(url, url.database(ref.db_id))
        try:
            with conn.cursor() as cur:
                cur.execute("SHOW GRANTS")
                grants = " ".join(r[0].upper() for r in cur.fetchall())
        finally:
            conn.close()
        out = []
        if "ALL PRIVILEGES ON *.*" in grants or "SUPER" in grants:
            out.append(f"{url.redacted(ref.db_id)}: the login has all privileges; evaluate with one that "
                       "can only read (GRANT SELECT)")  # fmt: skip
        elif "FILE" in grants:
            out.append(f"{url.redacted(ref.db_id)}: the login has the FILE privilege (reads server files)")
        elif any(w in grants for w in ("INSERT", "UPDATE", "DELETE", "ALL PRIVILEGES")):
            out.append(f"{url.redacted(ref.db_id)}: the login could write; every query still runs in a READ "
                       "ONLY transaction, but a login with SELECT only is safer")  # fmt: skip
        return out

    def copy_in(
        self,
        source: Path,
        ref: DbRef,
        *,
        replace: bool = False,
        progress: Progress | None = None,
        numbers_from_text: bool = False,
    ) -> CopyReport:
        from sqltriage.core.engines.sqlite import read_schema as sqlite_schema

        url = server_of(ref)
        dbname = url.database(ref.db_id)
        schema = sqlite_schema(source)
        partners = copying.key_partners(schema) if numbers_from_text else None
        try:
            conn = self.connect(url, None)
        except pymysql.MySQLError as exc:
            raise UsageError(unreachable(url, ref.db_id, exc)) from None
        notes: list[str] = []
        total = 0
        src = copying.open_source(source)
        try:
            with conn.cursor() as cur:
                cur.execute(f"CREATE DATABASE IF NOT EXISTS {_q(dbname)} CHARACTER SET utf8mb4")
                cur.execute(f"USE {_q(dbname)}")
                cur.execute("SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION'")
                cur.execute("SET SESSION foreign_key_checks = 0")
                cur.execute("SHOW TABLES")
                existing = {r[0].lower() for r in cur.fetchall()}
                clash = sorted(existing & {t.name.lower() for t in schema.tables})
                if clash and not replace:
                    raise UsageError(f"{url.redacted(ref.db_id)} already has table(s) {', '.join(clash)}: pass "
                                     "--replace to drop and copy them again")  # fmt: skip
                for t in schema.tables:
                    if t.name.lower() in existing:
                        cur.execute(f"DROP TABLE {_q(t.name)}")
                for t in schema.tables:
                    plan, more = copying.plan_table(src, t, partners)
                    notes.extend(more)
                    keyed = {c.lower() for c in t.primary_key}
                    keyed |= {c.lower() for fk in t.foreign_keys for c in fk.columns}
                    keyed |= {c.lower() for idx in t.indexes for c in idx.columns}
                    keyed |= {c.lower() for o in schema.tables for fk in o.foreign_keys
                              if fk.ref_table.lower() == t.name.lower() for c in fk.ref_columns}  # fmt: skip
                    cols = ", ".join(f"{_q(p.name)} {_type(p, p.name.lower() in keyed)}" for p in plan)
                    cur.execute(f"CREATE TABLE {_q(t.name)} ({cols}) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4")
                    count = src.execute(
                        f'SELECT count(*) FROM "{t.name.replace(chr(34), chr(34) * 2)}"'
                    ).fetchone()[0]
                    names = ", ".join(_q(p.name) for p in plan)
                    stmt = f"INSERT INTO {_q(t.name)} ({names}) VALUES ({', '.join(['%s'] * len(plan))})"
                    batch: list[tuple] = []
                    done = 0
                    for row in copying.rows(src, t, plan):
                        batch.append(row)
                        if len(batch) >= 2000:
                            cur.executemany(stmt, batch)
                            done += len(batch)
                            batch = []
                            if progress is not None:
                                progress(ref.db_id, t.name, done, count)
                    if batch:
                        cur.executemany(stmt, batch)
                        done += len(batch)
                    if progress is not None:
                        progress(ref.db_id, t.name, done, count)
                    total += done
                for t in schema.tables:
                    notes.extend(_keys(cur, t))
                cur.execute("SET SESSION foreign_key_checks = 1")
        except pymysql.MySQLError as exc:
            raise UsageError(f"copying {source} into {url.redacted(ref.db_id)} failed: {exc}") from None
        finally:
            src.close()
            conn.close()
        return CopyReport(ref.db_id, len(schema.tables), total, tuple(notes))


def _type(p: copying.ColumnPlan, keyed: bool) -> str:
    if p.kind == "decimal" and p.precision is not None:
        return f"DECIMAL({p.precision[0]}, {p.precision[1]})"
    if p.kind == "text":
        if keyed and p.length <= _KEY_TEXT:
            return f"VARCHAR({max(p.length, 1)})"
        return "LONGTEXT" if p.length > 16_000 else "TEXT"
    return _TYPES[p.kind]


def _keys(cur: Any, t: TableInfo) -> list[str]:
    """Primary key, indexes, foreign keys of `t`, each on its own: one the data breaks is noted, not fatal."""
    steps = []
    if t.primary_key:
        steps.append((f"primary key of {t.name}",
                      f"ALTER TABLE {_q(t.name)} ADD PRIMARY KEY ({', '.join(map(_q, t.primary_key))})"))  # fmt: skip
    for i, idx in enumerate(t.indexes):
        unique = "UNIQUE " if idx.unique else ""
        steps.append((f"index {idx.name} of {t.name}", f"CREATE {unique}INDEX {_q(f'{t.name}_{i}_idx'[:64])} ON "
                      f"{_q(t.name)} ({', '.join(map(_q, idx.columns))})"))  # fmt: skip
    for fk in t.foreign_keys:
        steps.append((f"foreign key {t.name}({', '.join(fk.columns)}) → {fk.ref_table}({', '.join(fk.ref_columns)})",
                      f"ALTER TABLE {_q(t.name)} ADD FOREIGN KEY ({', '.join(map(_q, fk.columns))}) REFERENCES "
                      f"{_q(fk.ref_table)} ({', '.join(map(_q, fk.ref_columns))})"))  # fmt: skip
    notes = []
    for what, stmt in steps:
        try:
            cur.execute(stmt)
        except pymysql.MySQLError as exc:
            notes.append(f"{what} not kept: {exc.args[1] if len(exc.args) > 1 else exc}")
    return notes


def read_schema(conn: Any) -> DbSchema:
    """The database's tables with declared types, keys and indexes, from information_schema."""
    with conn.cursor() as cur:
        cur.execute(
            "SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE FROM information_schema.COLUMNS"
            " WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, ORDINAL_POSITION"
        )
        columns: dict[str, list[ColumnInfo]] = {}
        for table, name, ctype, nullable in cur.fetchall():
            columns.setdefault(table, []).append(ColumnInfo(name, ctype, nullable == "NO"))
        cur.execute(
            "SELECT TABLE_NAME, CONSTRAINT_NAME, COLUMN_NAME, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME"
            " FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE()"
            " ORDER BY TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION"
        )
        pks: dict[str, list[str]] = {}
        fks: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
        for table, cname, col, ref_table, ref_col in cur.fetchall():
            if cname == "PRIMARY":
                pks.setdefault(table, []).append(col)
            elif ref_table is not None:
                fks.setdefault((table, cname), []).append((col, ref_table, ref_col))
        cur.execute(
            "SELECT TABLE_NAME, INDEX_NAME, COLUMN_NAME, NON_UNIQUE FROM information_schema.STATISTICS"
            " WHERE TABLE_SCHEMA = DATABASE() AND INDEX_NAME != 'PRIMARY' ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX"
        )
        idx: dict[tuple[str, str], list] = {}
        for table, iname, col, non_unique in cur.fetchall():
            idx.setdefault((table, iname), []).append((col, non_unique))
    tables = []
    for table, cols in columns.items():
        foreign = tuple(
            ForeignKey(tuple(c for c, _, _ in v), v[0][1], tuple(r for _, _, r in v))
            for (t, _), v in fks.items()
            if t == table
        )
        indexes = tuple(
            Index(name, tuple(c for c, _ in v), not int(v[0][1]))
            for (t, name), v in idx.items()
            if t == table
        )
        tables.append(TableInfo(table, tuple(cols), tuple(pks.get(table, ())), foreign, indexes))
    return DbSchema(tuple(tables))
