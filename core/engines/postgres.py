"""PostgreSQL through psycopg 3: each untrusted query checked (`statements.check`), then run as a transaction
of its own that is READ ONLY (the session's `default_transaction_read_only`, which no query may change)
under the server's `statement_timeout`, its rows streamed up to the cap and the rest cancelled.

Values come back as the driver gives them (numeric as Decimal, dates as date and datetime), as BIRD
Mini-Dev's evaluator sees them through psycopg2: `Decimal('0.1')` is not the float 0.1 there, nor here, so
`ex` and `soft_f1` agree with it row for row. Identifiers are created in lower case, which is how
PostgreSQL folds the unquoted names the dialect's queries use.
"""

from __future__ import annotations

import time
from pathlib import Path

import psycopg
from psycopg import generators, pq
from psycopg import sql as pgsql
from psycopg.abc import PQGen
from psycopg.adapt import Transformer

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

_TYPES = {
    "integer": "integer",
    "bigint": "bigint",
    "double": "double precision",
    "text": "text",
    "blob": "bytea",
    "date": "date",
    "timestamp": "timestamp",
}


def _kind(exc: psycopg.Error) -> str:
    """An error kind from the SQLSTATE (PostgreSQL's documented error codes)."""
    state = getattr(exc, "sqlstate", None) or ""
    if state == "57014":
        return "timeout"  # query_canceled: the statement timeout
    if state in ("25006", "42501") or state.startswith("2F"):
        return "forbidden"  # read-only transaction, insufficient privilege
    if state.startswith("42") or state.startswith("0A"):
        return "syntax"  # syntax error, undefined table/column/function, not supported
    if state in ("55P03", "40P01", "40001"):
        return "db_locked"
    if state == "3D000":
        return "db_missing"
    if state.startswith("08") or state.startswith("28") or state.startswith("57P") or not state:
        return "db_unreadable"
    return "runtime"


class PostgresEngine(ServerEngine):
    name = "postgresql"
    dialect = "postgres"

    # --- connections -----------------------------------------------------------------------------------

    def connect(self, url: ServerUrl, dbname: str, *, autocommit: bool = False) -> psycopg.Connection:
        conn = psycopg.connect(
            host=url.host,
            port=url.port or 5432,
            user=url.user,
            password=url.password,
            dbname=dbname,
            connect_timeout=10,
            autocommit=autocommit,
            application_name="sqltriage",
            **dict(url.params),
        )
        return conn

    def _session(self, ref: DbRef) -> psycopg.Connection:
        url = server_of(ref)
        dbname = url.database(ref.db_id)

        def connect() -> psycopg.Connection:
            # autocommit: each query is its own transaction, READ ONLY by the session's default (which no
            # query can change: SET and set_config are refused), so no BEGIN and ROLLBACK round trips
            conn = self.connect(url, dbname, autocommit=True)
            conn.execute("SET default_transaction_read_only = on")
            conn.timeout_ms = None  # the statement_timeout set on the session
            return conn

        return self._kept.get(url.key(dbname), connect)

    # --- execution -------------------------------------------------------------------------------------

    def execute(self, ref: DbRef, sql: str, *, timeout: float, max_rows: int) -> ExecResult:
        started = time.perf_counter()
        try:
            text = check(sql, self.dialect)
        except Refused as refused:
            return failure(refused.kind, str(refused), started)
        url = server_of(ref)
        try:
            conn = self._session(ref)
        except psycopg.Error as exc:
            kind = (
                "db_missing"
                if f'database "{url.database(ref.db_id)}" does not exist' in str(exc)
                else "db_unreadable"
            )
            return failure(kind, unreachable(url, ref.db_id, exc), started)
        try:
            ms = max(1, int(timeout * 1000))
            if conn.timeout_ms != ms:
                conn.execute(f"SET statement_timeout = {ms}")
                conn.timeout_ms = ms
            columns, fetched = _stream(conn, text, max_rows)
        except psycopg.Error as exc:
            kind = _kind(exc)
            message = str(exc).strip()
            if kind == "timeout":
                message = f"timed out after {timeout:g} s (statement_timeout: {message})"
            if conn.closed or kind == "db_unreadable":
                self._drop(ref)
                message = unreachable(url, ref.db_id, exc)
            elif conn.pgconn.transaction_status != pq.TransactionStatus.IDLE:
                self._drop(ref)  # a result left half read: the next query gets a fresh connection
            return failure(kind, message, started)
        except (ValueError, OverflowError, UnicodeError) as exc:  # a value the loaders cannot read
            self._drop(ref)
            return failure("runtime", f"cannot read the result: {exc}", started)
        truncated = len(fetched) > max_rows
        rows = tuple(tuple(r) for r in fetched[:max_rows])
        if rows and any(isinstance(v, list | memoryview) for v in rows[0]):
            rows = tuple(tuple(_hashable(v) for v in r) for r in rows)
        return ExecResult(columns, rows, time.perf_counter() - started, truncated=truncated)

    # --- schema ----------------------------------------------------------------------------------------

    def schema(self, ref: DbRef) -> DbSchema:
        url = server_of(ref)
        try:
            with self.connect(url, url.database(ref.db_id), autocommit=True) as conn:
                return read_schema(conn)
        except psycopg.Error as exc:
            raise UsageError(unreachable(url, ref.db_id, exc)) from None

    def warnings(self, ref: DbRef) -> list[str]:
        url = server_of(ref)
        with self.connect(url, url.database(ref.db_id), autocommit=True) as conn:
            superuser, files, writes = conn.execute(
                "SELECT r.rolsuper,"
                " pg_has_role(current_user, 'pg_read_server_files', 'USAGE'),"
                " EXISTS (SELECT 1 FROM information_schema.table_privileges"
                "   WHERE grantee = current_user AND privilege_type IN ('INSERT', 'UPDATE', 'DELETE', 'TRUNCATE'))"
                " FROM pg_roles r WHERE r.rolname = current_user"
            ).fetchone()
        out = []
        if superuser:
            out.append(f"{url.redacted(ref.db_id)}: the role {url.user or '(default)'} is a superuser; "
                       "evaluate with a role that can only read (GRANT SELECT)")  # fmt: skip
        elif files:
            out.append(f"{url.redacted(ref.db_id)}: the role can read server files (pg_read_server_files)")
        if writes and not superuser:
            out.append(f"{url.redacted(ref.db_id)}: the role could write to tables; every query still runs in a "
                       "READ ONLY transaction, but a role with SELECT only is safer")  # fmt: skip
        return out

    # --- copy ------------------------------------------------------------------------------------------

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
        if url.per_db_id:
            self._create_database(url, dbname, ref.db_id)
        try:
            conn = self.connect(url, dbname)
        except psycopg.Error as exc:
            raise UsageError(unreachable(url, ref.db_id, exc)) from None
        notes: list[str] = []
        total = 0
        src = copying.open_source(source)
        try:
            with conn:
                existing = {r[0] for r in conn.execute(
                    "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")}  # fmt: skip
                clash = sorted(existing & {t.name.lower() for t in schema.tables})
                if clash and not replace:
                    raise UsageError(f"{url.redacted(ref.db_id)} already has table(s) {', '.join(clash)}: pass "
                                     "--replace to drop and copy them again")  # fmt: skip
                for name in clash:
                    conn.execute(pgsql.SQL("DROP TABLE {} CASCADE").format(pgsql.Identifier(name)))
                plans = {}
                for t in schema.tables:
                    plan, more = copying.plan_table(src, t, partners)
                    plans[t.name] = plan
                    notes.extend(more)
                    cols = [pgsql.SQL("{} {}").format(pgsql.Identifier(p.name.lower()), pgsql.SQL(_type(p)))
                            for p in plan]  # fmt: skip
                    conn.execute(pgsql.SQL("CREATE TABLE {} ({})").format(
                        pgsql.Identifier(t.name.lower()), pgsql.SQL(", ").join(cols)))  # fmt: skip
                    count = src.execute(
                        f'SELECT count(*) FROM "{t.name.replace(chr(34), chr(34) * 2)}"'
                    ).fetchone()[0]
                    done = 0
                    names = pgsql.SQL(", ").join(pgsql.Identifier(p.name.lower()) for p in plan)
                    stmt = pgsql.SQL("COPY {} ({}) FROM STDIN").format(
                        pgsql.Identifier(t.name.lower()), names
                    )
                    with conn.cursor().copy(stmt) as cp:
                        for row in copying.rows(src, t, plan):
                            cp.write_row(row)
                            done += 1
                            if progress is not None and done % 5000 == 0:
                                progress(ref.db_id, t.name, done, count)
                    if progress is not None:
                        progress(ref.db_id, t.name, done, count)
                    total += done
                for t in schema.tables:
                    notes.extend(self._keys(conn, t))
                # the tables copied only: the database's others (a user's, when neighbours are replayed beside
                # them: engines/replay.py) are left as they are
                conn.execute(pgsql.SQL("ANALYZE {}").format(
                    pgsql.SQL(", ").join(pgsql.Identifier(t.name.lower()) for t in schema.tables)))  # fmt: skip
        finally:
            src.close()
            conn.close()
        return CopyReport(ref.db_id, len(schema.tables), total, tuple(notes))

    def _create_database(self, url: ServerUrl, dbname: str, db_id: str) -> None:
        try:
            with self.connect(url, "postgres", autocommit=True) as admin:
                if (
                    admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (dbname,)).fetchone()
                    is None
                ):
                    admin.execute(pgsql.SQL("CREATE DATABASE {} ENCODING 'UTF8' TEMPLATE template0").format(
                        pgsql.Identifier(dbname)))  # fmt: skip
        except psycopg.Error as exc:
            raise UsageError(unreachable(url, db_id, exc)) from None

    def _keys(self, conn: psycopg.Connection, t: TableInfo) -> list[str]:
        """Primary key, indexes and foreign keys of `t`, each in its own savepoint: one the data breaks
        (duplicates, a reference to a column that is not unique) is noted and left out, not fatal."""
        ident = pgsql.Identifier(t.name.lower())
        steps: list[tuple[str, pgsql.Composable]] = []

        def cols(names: tuple[str, ...]) -> pgsql.Composable:
            return pgsql.SQL(", ").join(pgsql.Identifier(c.lower()) for c in names)

        if t.primary_key:
            steps.append((f"primary key of {t.name}", pgsql.SQL("ALTER TABLE {} ADD PRIMARY KEY ({})").format(
                ident, cols(t.primary_key))))  # fmt: skip
        for i, idx in enumerate(t.indexes):
            name = pgsql.Identifier(f"{t.name.lower()}_{i}_idx"[:63])
            unique = pgsql.SQL("UNIQUE " if idx.unique else "")
            steps.append((f"index {idx.name} of {t.name}", pgsql.SQL("CREATE {}INDEX {} ON {} ({})").format(
                unique, name, ident, cols(idx.columns))))  # fmt: skip
        notes = []
        for what, stmt in steps:
            try:
                with conn.transaction():
                    conn.execute(stmt)
            except psycopg.Error as exc:
                notes.append(f"{what} not kept: {str(exc).strip().splitlines()[0]}")
        for fk in t.foreign_keys:
            stmt = pgsql.SQL("ALTER TABLE {} ADD FOREIGN KEY ({}) REFERENCES {} ({}) NOT VALID").format(
                ident, cols(fk.columns), pgsql.Identifier(fk.ref_table.lower()), cols(fk.ref_columns)
            )
            try:
                with conn.transaction():
                    conn.execute(stmt)
            except psycopg.Error as exc:
                what = f"foreign key {t.name}({', '.join(fk.columns)}) → {fk.ref_table}({', '.join(fk.ref_columns)})"
                notes.append(f"{what} not kept: {str(exc).strip().splitlines()[0]}")
        return notes


def _type(p: copying.ColumnPlan) -> str:
    if p.kind == "decimal" and p.precision is not None:
        return f"numeric({p.precision[0]}, {p.precision[1]})"
    return _TYPES[p.kind]


_ROWS = (pq.ExecStatus.SINGLE_TUPLE, pq.ExecStatus.TUPLES_CHUNK, pq.ExecStatus.TUPLES_OK)
CHUNK = 2048  # rows per chunk the server sends


def _stream(conn: psycopg.Connection, text: str, max_rows: int) -> tuple[tuple[str, ...], list[tuple]]:
    """(columns, rows up to max_rows + 1) of one query, read in chunks with libpq's chunked-rows mode.

    Not `Cursor.stream`: that one sends a cancel request (a connection of its own, about 8 ms) whenever a
    query fails, and a third of the queries of an evaluation may fail. Here an error is read to its end
    like any result, and only a result cut at the cap is cancelled. The extended protocol runs one
    statement only, whatever the text holds."""
    pg = conn.pgconn
    encoding = conn.info.encoding or "utf-8"
    tx = Transformer(conn)
    rows: list[tuple] = []
    columns: tuple[str, ...] | None = None
    error: psycopg.Error | None = None
    cut, first = False, True

    def send() -> PQGen[None]:
        pg.send_query_params(text.encode(encoding), None)
        pg.set_chunked_rows_mode(min(max_rows + 1, CHUNK))
        yield from generators.send(pg)

    with conn.lock:
        conn.wait(send())
        while (res := conn.wait(generators.fetch(pg))) is not None:
            if res.status in _ROWS:
                if columns is None and res.nfields:
                    columns = tuple(
                        (res.fname(i) or b"").decode(encoding, "replace") for i in range(res.nfields)
                    )
                if res.ntuples and not cut:
                    tx.set_pgresult(res, set_loaders=first)
                    first = False
                    rows.extend(tx.load_rows(0, res.ntuples, tuple))
                    if len(rows) > max_rows:
                        cut = True
                        conn.cancel_safe()  # the rest is never read: the server stops, what came is drained
            elif res.status == pq.ExecStatus.FATAL_ERROR and not cut and error is None:
                error = psycopg.errors.error_from_result(res, encoding=encoding)
    if error is not None:
        raise error
    if columns is None:
        raise psycopg.ProgrammingError("the query returned no rows description")
    return columns, rows


def _hashable(v: object) -> object:
    if isinstance(v, list):
        return tuple(_hashable(x) for x in v)
    if isinstance(v, memoryview):
        return bytes(v)
    return v


def read_schema(conn: psycopg.Connection) -> DbSchema:
    """The current schema's tables and views with declared types, keys and indexes, from pg_catalog."""
    tables = conn.execute(
        "SELECT c.oid, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm') ORDER BY c.oid"
    ).fetchall()
    out = []
    for oid, name in tables:
        attrs = conn.execute(
            "SELECT attnum, attname, format_type(atttypid, atttypmod), attnotnull FROM pg_attribute"
            " WHERE attrelid = %s AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
            (oid,),
        ).fetchall()
        by_num = {a[0]: a[1] for a in attrs}
        columns = tuple(ColumnInfo(a[1], a[2], a[3]) for a in attrs)
        pk: tuple[str, ...] = ()
        fks = []
        for contype, conkey, ref_oid, confkey in conn.execute(
            "SELECT contype, conkey, confrelid, confkey FROM pg_constraint WHERE conrelid = %s AND contype IN"
            " ('p', 'f') ORDER BY oid",
            (oid,),
        ):
            if contype == "p":
                pk = tuple(by_num[k] for k in conkey)
            else:
                ref = conn.execute(
                    "SELECT relname, (SELECT array_agg(attname ORDER BY array_position(%s::int2[], attnum))"
                    " FROM pg_attribute WHERE attrelid = %s AND attnum = ANY(%s::int2[]))"
                    " FROM pg_class WHERE oid = %s",
                    (confkey, ref_oid, confkey, ref_oid),
                ).fetchone()
                fks.append(ForeignKey(tuple(by_num[k] for k in conkey), ref[0], tuple(ref[1] or ())))
        indexes = []
        for iname, keys, unique in conn.execute(
            "SELECT i.relname, x.indkey::int2[], x.indisunique FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid"
            " WHERE x.indrelid = %s AND NOT x.indisprimary ORDER BY i.relname",
            (oid,),
        ):
            if all(k in by_num for k in keys):
                indexes.append(Index(iname, tuple(by_num[k] for k in keys), unique))
        out.append(TableInfo(name, columns, pk, tuple(fks), tuple(indexes)))
    return DbSchema(tuple(out))
