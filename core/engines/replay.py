"""Neighbour databases (`ex_ts`) on a server: generated as SQLite files, then replayed on the server.

The generator (verdicts/testsuite) reads and writes SQLite files: a server database is first copied into
one (`server_copy`, through the engine, read-only, its declared types kept as SQLite declares them so a
neighbour copied back gets the server's types again), its neighbours generated from that copy as on SQLite,
and each neighbour loaded into a scratch place of its own (`replay`) by the engine's `copy_in`: a schema
`sqltriage_nb_<digest>` in the same database on PostgreSQL (queried with `search_path` set to it alone), a
database `sqltriage_nb_<digest>` on MySQL/MariaDB. Gold and prediction then run there as on the original,
through the same read-only sandbox. A scratch place is named by the neighbour file's content, so it is
loaded once and reused by every later run; nothing of the user's own tables is touched.
`drop_scratch` removes them all (`sqltriage db drop-scratch URL`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import decimal
import os
import re
import sqlite3
import tempfile
from collections.abc import Collection, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from sqltriage.core.engines.base import DbSchema, TableInfo
from sqltriage.core.engines.refs import DbRef, ServerUrl
from sqltriage.core.engines.registry import Database, adapter_for
from sqltriage.core.errors import UsageError

PREFIX = "sqltriage_nb_"  # every scratch place's name starts so (`drop_scratch` removes them by it)
COPIES_DIR = "server-copies"  # <cache root>/server-copies/<db_id>-<digest>.sqlite: a server database's copy
DUMP_TIMEOUT = 300.0  # seconds for reading one table of the server database
DUMP_MAX_ROWS = 50_000_000
_DECIMAL = re.compile(r"(?:numeric|decimal)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)", re.I)


class ReplayError(Exception):
    """The neighbours cannot be had on the server; the message says why (it becomes the rows' reason)."""


# --- the server database as a SQLite file ----------------------------------------------------------------


def sqlite_type(declared: str) -> str:
    """The SQLite type that copying (`copying.plan_table`) turns back into the server's type family."""
    t = declared.lower()
    if ("int" in t and "interval" not in t) or t.startswith("bool"):
        return "INTEGER"
    if (m := _DECIMAL.match(t)) is not None:
        return f"DECIMAL({m.group(1)}, {m.group(2) or 0})"
    if t.startswith(("numeric", "decimal")):
        return "NUMERIC"
    if any(k in t for k in ("double", "real", "float")):
        return "REAL"
    if "timestamp" in t or "datetime" in t:
        return "DATETIME"
    if t == "date":
        return "DATE"
    if "bytea" in t or "blob" in t or "binary" in t:
        return "BLOB"
    return "TEXT"


def _value(v: object) -> object:
    """A driver's value as SQLite stores it (dates as ISO text, as SQLite databases hold them)."""
    if isinstance(v, decimal.Decimal):
        return int(v) if v == v.to_integral_value() and abs(v) < 2**63 else float(v)
    if isinstance(v, dt.datetime):
        return v.isoformat(sep=" ")
    if isinstance(v, dt.date | dt.time):
        return v.isoformat()
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, memoryview):
        return bytes(v)
    if v is None or isinstance(v, int | float | str | bytes):
        return v
    return str(v)


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _server_q(engine: str, name: str) -> str:
    if engine == "mysql":
        return "`" + name.replace("`", "``") + "`"
    return _q(name)


def _create(table: TableInfo) -> str:
    cols = [f"{_q(c.name)} {sqlite_type(c.type)}" for c in table.columns]
    if table.primary_key:
        cols.append(f"PRIMARY KEY ({', '.join(map(_q, table.primary_key))})")
    for fk in table.foreign_keys:
        cols.append(
            f"FOREIGN KEY ({', '.join(map(_q, fk.columns))}) REFERENCES {_q(fk.ref_table)} "
            f"({', '.join(map(_q, fk.ref_columns))})"
        )
    return f"CREATE TABLE {_q(table.name)} ({', '.join(cols)})"


def server_copy(db: Database, cache_root: Path, tables: Collection[str] | None = None) -> Path:
    """The server database of `db` as a SQLite file in the cache folder, named by its content (the same
    content, the same file and so the same neighbours); `tables` (lower case) keeps only those, for a
    server database that holds every db_id's tables. Read through the engine's read-only sandbox."""
    from sqltriage.core.verdicts.execution import file_digest

    try:
        schema: DbSchema = adapter_for(db.engine).schema(db.ref)
    except UsageError as exc:
        raise ReplayError(f"cannot read the server database's schema: {exc}") from None
    kept = [t for t in schema.tables if tables is None or t.name.lower() in tables]
    if not kept:
        raise ReplayError("the server database has no tables to copy")
    names = {t.name for t in kept}
    folder = cache_root / COPIES_DIR
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{db.ref.db_id}.", suffix=".sqlite", dir=folder)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        conn = sqlite3.connect(tmp)
        try:
            for t in kept:
                # a foreign key to a table left out (another db_id's) is dropped with it
                t = replace(t, foreign_keys=tuple(fk for fk in t.foreign_keys if fk.ref_table in names))
                conn.execute(_create(t))
                cols = ", ".join(_server_q(db.engine, c.name) for c in t.columns)
                got = db.execute(
                    f"SELECT {cols} FROM {_server_q(db.engine, t.name)}",
                    timeout=DUMP_TIMEOUT,
                    max_rows=DUMP_MAX_ROWS,
                )
                if not got.ok or got.truncated:
                    raise ReplayError(f"cannot read table {t.name}: {got.error or 'too many rows'}")
                marks = ", ".join("?" * len(t.columns))
                conn.executemany(
                    f"INSERT INTO {_q(t.name)} VALUES ({marks})", (tuple(map(_value, r)) for r in got.rows)
                )
            conn.commit()
        finally:
            conn.close()
        final = folder / f"{db.ref.db_id}-{file_digest(tmp)[:16]}.sqlite"
        if not final.is_file():
            os.replace(tmp, final)
        return final
    finally:
        tmp.unlink(missing_ok=True)


# --- neighbours loaded into scratch places ----------------------------------------------------------------


def scratch_name(neighbour: Path) -> str:
    """The scratch place of a neighbour file: named by its content, so it is loaded once."""
    from sqltriage.core.verdicts.execution import file_digest

    return f"{PREFIX}{file_digest(neighbour)[:16]}"


def scratch_database(reader: ServerUrl, db_id: str, name: str) -> Database:
    """Where queries run on the scratch place `name`, as the evaluating login of `reader`."""
    if reader.engine == "postgresql":
        url = replace(reader, params=(*reader.params, ("options", f"-c search_path={name}")))
        return Database(DbRef(reader.engine, f"{reader.redacted(db_id)}#{name}", db_id, url))
    url = replace(reader, dbname=name)
    return Database(DbRef(reader.engine, url.redacted(db_id), db_id, url))


def replay(neighbours: Sequence[Path], db: Database, loader: ServerUrl | None = None) -> list[Database]:
    """Each neighbour file loaded (when not there yet) into its scratch place on the server of `db`, as
    `loader` (a login that may create schemas or databases; by default the evaluating one)."""
    reader = db.ref.server
    if reader is None:
        raise ReplayError(f"{db} is not on a server")
    loader = loader or reader
    out = []
    for path in neighbours:
        name = scratch_name(path)
        try:
            if reader.engine == "postgresql":
                _load_postgres(path, loader, reader, db.ref.db_id, name)
            else:
                _load_mysql(path, loader, db.ref.db_id, name)
        except UsageError as exc:
            hint = " (--scratch-url: a login that may create them)" if loader is reader else ""
            raise ReplayError(f"cannot load the neighbour {path.name} into the server: {exc}{hint}") from None
        out.append(scratch_database(reader, db.ref.db_id, name))
    return out


def _load_postgres(path: Path, loader: ServerUrl, reader: ServerUrl, db_id: str, name: str) -> None:
    """Loaded into a schema of its own under a name of this process's, granted to the reader, then renamed
    into place in one step: a reader sees either no schema or the whole neighbour."""
    import psycopg
    from psycopg import sql as pgsql

    from sqltriage.core.engines.server import unreachable

    adapter: Any = adapter_for("postgresql")
    dbname = loader.database(db_id)
    tmp = f"{name}_t{os.getpid()}"

    def admin() -> psycopg.Connection:
        try:
            return adapter.connect(loader, dbname, autocommit=True)
        except psycopg.Error as exc:
            raise UsageError(unreachable(loader, db_id, exc)) from None

    def exists(conn: psycopg.Connection) -> bool:
        return conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (name,)).fetchone() is not None

    with admin() as conn:
        if exists(conn):
            return
        try:
            conn.execute(pgsql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(pgsql.Identifier(tmp)))
            conn.execute(pgsql.SQL("CREATE SCHEMA {}").format(pgsql.Identifier(tmp)))
        except psycopg.Error as exc:
            raise UsageError(f"cannot create a schema ({str(exc).strip().splitlines()[0]})") from None
    try:
        target = replace(loader, params=(*loader.params, ("options", f"-c search_path={tmp}")))
        adapter.copy_in(path, DbRef("postgresql", target.redacted(db_id), db_id, target))
        with admin() as conn:
            ident = pgsql.Identifier(tmp)
            if reader.user and reader.user != loader.user:
                who = pgsql.Identifier(reader.user)
                conn.execute(pgsql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(ident, who))
                conn.execute(pgsql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA {} TO {}").format(ident, who))
            # another process may have loaded the same neighbour first: its schema is the same
            with contextlib.suppress(psycopg.errors.DuplicateSchema):
                conn.execute(pgsql.SQL("ALTER SCHEMA {} RENAME TO {}").format(ident, pgsql.Identifier(name)))
    except psycopg.Error as exc:
        raise UsageError(str(exc).strip().splitlines()[0]) from None
    finally:
        with contextlib.suppress(Exception), admin() as conn:
            conn.execute(pgsql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(pgsql.Identifier(tmp)))


def _load_mysql(path: Path, loader: ServerUrl, db_id: str, name: str) -> None:
    """Loaded under a server lock by name; a database that is there with every table and row of the
    neighbour is kept, one left half loaded (a run cut short) is loaded again."""
    import pymysql

    from sqltriage.core.engines.server import unreachable

    adapter: Any = adapter_for("mysql")
    try:
        conn = adapter.connect(loader, None)
    except pymysql.MySQLError as exc:
        raise UsageError(unreachable(loader, db_id, exc)) from None
    try:
        with _mysql_lock(conn, name):
            if _mysql_complete(conn, path, name):
                return
            with conn.cursor() as cur:
                cur.execute(f"DROP DATABASE IF EXISTS `{name}`")
            target = replace(loader, dbname=name)
            adapter.copy_in(path, DbRef("mysql", target.redacted(db_id), db_id, target))
    except pymysql.MySQLError as exc:
        raise UsageError(str(exc.args[1] if len(exc.args) > 1 else exc)) from None
    finally:
        conn.close()


@contextlib.contextmanager
def _mysql_lock(conn: Any, name: str) -> Iterator[None]:
    with conn.cursor() as cur:
        cur.execute("SELECT GET_LOCK(%s, 120)", (name,))
        if cur.fetchone()[0] != 1:
            raise UsageError(f"another process holds the lock of {name} for over 120 s")
    try:
        yield
    finally:
        with conn.cursor() as cur:
            cur.execute("SELECT RELEASE_LOCK(%s)", (name,))


def _mysql_complete(conn: Any, path: Path, name: str) -> bool:
    from sqltriage.core.verdicts.testsuite.constraints import table_names

    src = sqlite3.connect(f"file:{path.resolve()}?mode=ro", uri=True)
    try:
        want = {
            t.lower(): src.execute(f"SELECT count(*) FROM {_q(t)}").fetchone()[0] for t in table_names(src)
        }
    finally:
        src.close()
    with conn.cursor() as cur:
        cur.execute("SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s", (name,))
        found = {r[0].lower(): r[0] for r in cur.fetchall()}
        if set(found) != set(want):
            return False
        for low, real in found.items():
            cur.execute(f"SELECT count(*) FROM `{name}`.`{real.replace('`', '``')}`")
            if cur.fetchone()[0] != want[low]:
                return False
    return True


# --- cleaning ------------------------------------------------------------------------------------------


def drop_scratch(url: str) -> list[str]:
    """Drop every scratch place on the server at `url` (PostgreSQL: in its database, or with `{db_id}` in
    each database the pattern names); the names dropped. Only names starting `sqltriage_nb_` are matched,
    never the user's own schemas or databases."""
    from sqltriage.core.engines.refs import PLACEHOLDER, parse_url

    server = parse_url(url)
    adapter: Any = adapter_for(server.engine)
    dropped: list[str] = []
    if server.engine == "postgresql":
        from psycopg import sql as pgsql

        dbnames = [server.dbname]
        if server.per_db_id:
            head, _, tail = server.dbname.partition(PLACEHOLDER)
            pattern = re.compile(re.escape(head) + ".+" + re.escape(tail))
            with adapter.connect(server, "postgres", autocommit=True) as conn:
                found = [r[0] for r in conn.execute("SELECT datname FROM pg_database WHERE datallowconn")]
            dbnames = sorted(d for d in found if pattern.fullmatch(d))
        for dbname in dbnames:
            with adapter.connect(server, dbname, autocommit=True) as conn:
                names = [r[0] for r in conn.execute(
                    "SELECT nspname FROM pg_namespace WHERE starts_with(nspname, %s)", (PREFIX,))]  # fmt: skip
                for n in names:
                    conn.execute(pgsql.SQL("DROP SCHEMA {} CASCADE").format(pgsql.Identifier(n)))
                    dropped.append(f"{dbname}.{n}")
        return dropped
    conn = adapter.connect(server, None)
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA")
            for (n,) in cur.fetchall():
                if n.startswith(PREFIX):
                    cur.execute(f"DROP DATABASE `{n}`")
                    dropped.append(n)
    finally:
        conn.close()
    return dropped
