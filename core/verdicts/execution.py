"""Read-only, time-bounded SQLite execution of untrusted SQL, and a cache of gold results.

Predicted SQL is untrusted: every database is opened read-only three ways at once (a `mode=ro` URI,
`PRAGMA query_only`, an authorizer that allows reads and functions only), ATTACH is disabled by limit as
well, one statement runs per call, a progress handler enforces the timeout, and the rows fetched are
capped. Whatever goes wrong with a query comes back as a value (`ExecResult.error`), never an exception,
because one bad prediction is a row outcome, not a failure of the evaluation.

The result record is `exec_result.ExecResult`; comparing results (EX modes) is `exec_compare`'s, and running
a pair and scoring it in every mode `pair_run`'s.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import sqlite3
import stat
import threading
import time
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote

from sqltriage.core.verdicts.exec_result import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT, ExecResult, ServerDatabase

MAX_RESULT_BYTES = 256 * 1024 * 1024  # text/blob bytes fetched before a result is marked truncated
MAX_SQL_BYTES = 1_000_000  # longer statements are refused by SQLite ("string or blob too big")
MAX_VALUE_BYTES = 32 * 1024 * 1024  # largest string or blob a query may build (zeroblob(1e9) fails)
MAX_EXPR_DEPTH = 1_000  # deeper expression trees are refused at compile time (SQLite default, made sure)
_COMMENTS = re.compile(r"--[^\n]*|/\*.*?(\*/|$)", re.S)
_PROGRESS_STEPS = 2_000  # VM instructions between two deadline checks
# SQLite VM instructions per CPU second on the machines the project runs on (about 110 to 140 million on
# joins and groups, measured with the progress handler installed): turns a budget in seconds into steps
# for the queries whose outcome must not depend on the machine's load (`steps_for`).
STEPS_PER_SECOND = 100_000_000
_FETCH_CHUNK = 256  # rows fetched between two checks of the caps

# Pragmas that only read and cannot change any state, whatever argument they are given.
_READ_PRAGMAS = frozenset(
    {
        "table_info",
        "table_xinfo",
        "table_list",
        "index_list",
        "index_info",
        "index_xinfo",
        "foreign_key_list",
        "collation_list",
        "function_list",
        "pragma_list",
        "module_list",
        "database_list",
    }
)
# Pragmas that are harmless to read but change state when given a value (`PRAGMA user_version = 5`).
_READ_ONLY_WITHOUT_ARG = frozenset(
    {
        "user_version",
        "schema_version",
        "application_id",
        "encoding",
        "page_count",
        "page_size",
        "freelist_count",
        "data_version",
        "compile_options",
    }
)
_FORBIDDEN_FUNCTIONS = frozenset({"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"})
_SCHEMA_TABLES = frozenset({"sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema"})
_ALLOWED_ACTIONS = frozenset({sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_RECURSIVE})


def _failure(kind: str, message: str, started: float) -> ExecResult:
    return ExecResult((), (), time.perf_counter() - started, error=message, error_kind=kind)


class _Guard:
    """The authorizer and progress handler of a connection, and what they saw during the current call.

    Installed once and armed per statement: installing an authorizer makes SQLite expire every prepared
    statement of the connection, so a guard that stayed for the connection's life lets a statement text
    run again without being compiled again (it was authorized when it was compiled, under the same rules).
    """

    __slots__ = ("checks_left", "deadline", "denied", "out_of_steps", "timed_out")

    def __init__(self, deadline: float = 0.0) -> None:
        self.deadline = deadline
        self.denied: str | None = None
        self.timed_out = False
        self.out_of_steps = False
        self.checks_left = -1  # progress calls left before the step budget is spent; -1: no budget

    def arm(self, timeout: float, steps: int | None = None) -> None:
        """A fresh deadline, step budget and record, for the next statement."""
        self.deadline = time.monotonic() + timeout
        self.denied = None
        self.timed_out = False
        self.out_of_steps = False
        self.checks_left = -1 if steps is None else max(1, steps // _PROGRESS_STEPS)

    def install(self, conn: sqlite3.Connection) -> None:
        conn.set_authorizer(self.authorize)
        conn.set_progress_handler(self.progress, _PROGRESS_STEPS)

    def authorize(self, action: int, arg1: str | None, arg2: str | None, _db: str | None, _src: str | None):
        if action in _ALLOWED_ACTIONS:
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_UPDATE and (arg1 or "").lower() in _SCHEMA_TABLES:
            # SQLite asks this while it sets up a table-valued PRAGMA (`pragma_table_info(...)`);
            # a real UPDATE of the schema table is still refused by mode=ro and query_only.
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_FUNCTION:
            if (arg2 or "").lower() not in _FORBIDDEN_FUNCTIONS:
                return sqlite3.SQLITE_OK
            what = f"function {arg2}()"
        elif action == sqlite3.SQLITE_PRAGMA:
            name = (arg1 or "").lower()
            if name in _READ_PRAGMAS or (name in _READ_ONLY_WITHOUT_ARG and arg2 is None):
                return sqlite3.SQLITE_OK
            what = f"PRAGMA {arg1}" + (f" = {arg2}" if arg2 is not None else "")
        else:
            what = _ACTION_NAMES.get(action, f"action {action}")
        if self.denied is None:
            self.denied = what
        return sqlite3.SQLITE_DENY

    def progress(self) -> int:
        if self.checks_left == 0:
            self.timed_out = self.out_of_steps = True
            return 1
        self.checks_left -= 1
        if time.monotonic() > self.deadline:
            self.timed_out = True
            return 1
        return 0


_ACTION_NAMES = {
    getattr(sqlite3, f"SQLITE_{name}"): name.replace("_", " ").lower()
    for name in [
        "CREATE_INDEX",
        "CREATE_TABLE",
        "CREATE_TEMP_INDEX",
        "CREATE_TEMP_TABLE",
        "CREATE_TEMP_TRIGGER",
        "CREATE_TEMP_VIEW",
        "CREATE_TRIGGER",
        "CREATE_VIEW",
        "DELETE",
        "DROP_INDEX",
        "DROP_TABLE",
        "DROP_TEMP_INDEX",
        "DROP_TEMP_TABLE",
        "DROP_TEMP_TRIGGER",
        "DROP_TEMP_VIEW",
        "DROP_TRIGGER",
        "DROP_VIEW",
        "INSERT",
        "TRANSACTION",
        "UPDATE",
        "ATTACH",
        "DETACH",
        "ALTER_TABLE",
        "REINDEX",
        "ANALYZE",
        "CREATE_VTABLE",
        "DROP_VTABLE",
        "SAVEPOINT",
    ]
    if hasattr(sqlite3, f"SQLITE_{name}")
}
_ACTION_NAMES[getattr(sqlite3, "SQLITE_ATTACH", 24)] = "ATTACH (or VACUUM, which attaches)"


def _ro_uri(db_path: Path) -> str:
    return f"file:{quote(str(db_path.resolve()))}?mode=ro"


# Resolving a path costs several system calls, on every query; an absolute path resolves the same
# way for the life of the process (a relative one depends on the working folder, so it is not cached).
_ro_uri_absolute = lru_cache(maxsize=1024)(_ro_uri)


class _GuardedConnection(sqlite3.Connection):
    """A read-only connection that carries its guard, installed for its whole life (see `_Guard`)."""

    guard: _Guard


def _open(db_path: Path) -> _GuardedConnection:
    """A read-only connection with limits that keep a hostile statement small, its guard installed."""
    uri = _ro_uri_absolute(db_path) if db_path.is_absolute() else _ro_uri(db_path)
    conn = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=1.0, factory=_GuardedConnection)
    conn.text_factory = _decode_text
    conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)  # no ATTACH, no VACUUM (INTO) even if allowed
    conn.setlimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, MAX_SQL_BYTES)
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
    conn.setlimit(sqlite3.SQLITE_LIMIT_EXPR_DEPTH, MAX_EXPR_DEPTH)
    if hasattr(conn, "enable_load_extension"):
        conn.enable_load_extension(False)
    conn.execute("PRAGMA query_only = ON")
    conn.guard = _Guard()
    conn.guard.install(conn)  # from here on, every statement compiled on it is authorized
    return conn


class _KeptConnections(threading.local):
    """Read-only connections kept open between queries, per thread and database file.

    Opening a connection and reading its schema cost more than most Spider queries. A connection is
    kept only after a query that ran cleanly, with its statement finalized (no read transaction stays
    open between queries); one that saw an error, a timeout or a refused action is closed. The key
    holds the file's identity and modification time, so a replaced or edited file gets a new one.
    """

    def __init__(self) -> None:
        self.open: dict[tuple, sqlite3.Connection] = {}  # insertion order = least recently used first


_KEPT = _KeptConnections()
KEPT_PER_THREAD = 16


def _checkout(db_path: Path, key: tuple) -> _GuardedConnection:
    conn = _KEPT.open.pop(key, None)
    return conn if conn is not None else _open(db_path)


def _checkin(key: tuple, conn: sqlite3.Connection) -> None:
    if conn.in_transaction:  # never keep a read transaction open between queries
        conn.close()
        return
    kept = _KEPT.open
    for old in [k for k in kept if k[0] == key[0]]:  # the same path with an older identity
        kept.pop(old).close()
    kept[key] = conn
    while len(kept) > KEPT_PER_THREAD:
        kept.pop(next(iter(kept))).close()


_INHERITED: list[sqlite3.Connection] = []  # a forked child's copies of the parent's connections


def _forget_kept_connections_in_child() -> None:
    """A forked child never uses (nor closes) the connections it inherited: SQLite forbids carrying one
    across fork. They are held here, untouched, so that none is finalized in the child."""
    _INHERITED.extend(_KEPT.open.values())
    _KEPT.open = {}


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_kept_connections_in_child)


def close_kept_connections() -> None:
    """Close this thread's kept connections (tests that replace database files call it)."""
    for conn in _KEPT.open.values():
        conn.close()
    _KEPT.open.clear()


def _decode_text(raw: bytes) -> str:
    """Text that is not valid UTF-8 (real databases have some) is shown with U+FFFD, not a crash."""
    return raw.decode("utf-8", errors="replace")


_SIZED = (str, bytes)  # a tuple: isinstance against a `str | bytes` union is twice as slow


def _row_bytes(rows: list[tuple]) -> int:
    size = 0
    for row in rows:  # plain loops: a generator expression adds a frame switch per fetched value
        for v in row:
            if isinstance(v, _SIZED):
                size += len(v)
    return size


def _kind_of(exc: Exception, guard: _Guard, conn: sqlite3.Connection, sql: str) -> str:
    """Map an exception to an error kind; compile errors are told from run errors by EXPLAIN."""
    message = str(exc)
    if guard.timed_out:
        return "timeout"
    if isinstance(exc, sqlite3.ProgrammingError) and "one statement at a time" in message:
        return "multiple_statements"
    if guard.denied is not None or "not authorized" in message or "readonly database" in message:
        return "forbidden"
    if isinstance(exc, ValueError | sqlite3.ProgrammingError):  # NUL characters, bad SQL text
        return "syntax"
    if any(m in message for m in ("unable to open", "file is not a database", "disk image is malformed")):
        return "db_unreadable"
    if "database is locked" in message or "database table is locked" in message:
        return "db_locked"  # another program holds the file: not the query's fault
    # EXPLAIN compiles the statement without running it: if that fails too, the SQL never compiled.
    try:
        conn.execute("EXPLAIN " + sql).fetchmany(1)
    except Exception:
        return "syntax"
    return "runtime"


def execute(
    db_path: Path | ServerDatabase | None,
    sql: str,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    max_rows: int = DEFAULT_MAX_ROWS,
    steps: int | None = None,
) -> ExecResult:
    """Run one untrusted statement read-only on `db_path`; every failure is returned, none raised.

    `steps`: a budget of SQLite VM instructions (`steps_for`), for a query whose outcome must be the same on
    a loaded machine as on a quiet one; `timeout` then only guards the wall clock. A database on a server
    (`ServerDatabase`) runs through its engine's adapter, under the server's own limits."""
    if db_path is not None and not isinstance(db_path, Path | str):
        return _stamped(
            db_path.execute(sql, timeout=timeout, max_rows=max_rows), sql, db_path, timeout, max_rows
        )
    result = _execute(db_path, sql, timeout, max_rows, steps)
    return _stamped(result, sql, _as_path(db_path) if db_path is not None else None, timeout, max_rows)


def _stamped(
    result: ExecResult, sql: str, db_path: Path | ServerDatabase | None, timeout: float, max_rows: int
) -> ExecResult:
    """`result` with where it came from (built directly: `dataclasses.replace` costs more than most
    queries on a small database, at one call per query)."""
    return ExecResult(
        result.columns,
        result.rows,
        result.elapsed,
        result.error,
        result.error_kind,
        result.truncated,
        sql,
        db_path,
        timeout,
        max_rows,
    )


def _as_path(path: Path | str) -> Path:
    """A Path as it is (building a Path parses it again: noticeable at several per query), else one."""
    return path if isinstance(path, Path) else Path(path)


def steps_for(seconds: float) -> int:
    """A budget of SQLite VM instructions worth `seconds` of CPU on the calibration machine."""
    return max(_PROGRESS_STEPS, int(seconds * STEPS_PER_SECOND))


def _execute(
    db_path: Path | None, sql: str, timeout: float, max_rows: int, steps: int | None = None
) -> ExecResult:
    started = time.perf_counter()
    if db_path is None:
        return _failure("db_missing", "no database for this example", started)
    if not sql or not sql.strip():
        return _failure("empty", "empty query", started)
    db_path = _as_path(db_path)
    try:
        st = os.stat(db_path)
    except OSError:
        st = None
    if st is None or not stat.S_ISREG(st.st_mode):
        return _failure("db_missing", f"database file not found: {db_path}", started)
    key = (str(db_path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    try:
        conn = _checkout(db_path, key)
    except sqlite3.Error as exc:
        return _failure("db_unreadable", f"cannot open {db_path}: {exc}", started)
    result, clean, cursor = _run_guarded(conn, conn.guard, sql, timeout, max_rows, started, steps)
    _release(conn, cursor, key, clean)
    return result


def execute_on(
    conn: sqlite3.Connection, sql: str, *, timeout: float, max_rows: int, steps: int | None = None
) -> ExecResult:
    """Run one untrusted statement on a private connection this process made and owns (the in-memory copy
    a witness is shrunk in), under `execute`'s guard: authorizer, deadline, row and size caps, and
    `query_only`, ATTACH and size limits for the length of the call. Every failure is returned, none raised."""
    return execute_all_on(conn, (sql,), timeout=timeout, max_rows=max_rows, steps=steps)[0]


def execute_all_on(
    conn: sqlite3.Connection,
    sqls: Sequence[str],
    *,
    timeout: float,
    max_rows: int,
    steps: int | None = None,
) -> list[ExecResult]:
    """`execute_on` for several statements in turn, each with its own deadline and caps, the guard and
    limits put in place once for all of them. A transaction the owner holds open (a step it is judging)
    is left open: the statements read its changes and, being read-only, cannot touch it."""
    limits = {
        sqlite3.SQLITE_LIMIT_ATTACHED: 0,
        sqlite3.SQLITE_LIMIT_SQL_LENGTH: MAX_SQL_BYTES,
        sqlite3.SQLITE_LIMIT_LENGTH: MAX_VALUE_BYTES,
        sqlite3.SQLITE_LIMIT_EXPR_DEPTH: MAX_EXPR_DEPTH,
    }
    before = {k: conn.setlimit(k, v) for k, v in limits.items()}
    conn.text_factory = _decode_text  # text read exactly as `execute` reads it
    owners = conn.in_transaction
    conn.execute("PRAGMA query_only = ON")
    guard = _Guard()
    out: list[ExecResult] = []
    try:
        guard.install(conn)
        for sql in sqls:
            started = time.perf_counter()
            if not sql or not sql.strip():
                out.append(_stamped(_failure("empty", "empty query", started), sql, None, timeout, max_rows))
                continue
            result, _, cursor = _run_guarded(conn, guard, sql, timeout, max_rows, started, steps)
            if cursor is not None:
                cursor.close()
            out.append(_stamped(result, sql, None, timeout, max_rows))
    finally:
        conn.set_authorizer(None)
        conn.set_progress_handler(None, 0)
        if conn.in_transaction and not owners:
            conn.execute("ROLLBACK")  # a truncated read: nothing of it stays open
        conn.execute("PRAGMA query_only = OFF")
        for k, v in before.items():
            conn.setlimit(k, v)
    return out


def _run_guarded(
    conn: sqlite3.Connection,
    guard: _Guard,
    sql: str,
    timeout: float,
    max_rows: int,
    started: float,
    steps: int | None = None,
) -> tuple[ExecResult, bool, sqlite3.Cursor | None]:
    """(the result, whether the statement ran cleanly, its cursor to close) under `guard`, installed on
    `conn` and armed here."""
    guard.arm(timeout, steps)
    cursor = None
    try:
        cursor = conn.execute(sql)
        if cursor.description is None:
            if _COMMENTS.sub("", sql).strip(" \t\r\n\f;"):
                return _failure("forbidden", "only queries that return rows are run", started), False, cursor
            return _failure("empty", "nothing to run: the text holds no statement", started), False, cursor
        columns = tuple(d[0] for d in cursor.description)
        rows: list[tuple] = []
        truncated = False
        size = 0
        while True:
            chunk = cursor.fetchmany(min(_FETCH_CHUNK, max_rows + 1 - len(rows)))
            if not chunk:
                break
            rows.extend(chunk)
            size += _row_bytes(chunk)
            if len(rows) > max_rows or size > MAX_RESULT_BYTES:
                truncated = True
                del rows[max_rows:]
                break
    except (sqlite3.Error, ValueError, OverflowError, MemoryError) as exc:
        guard.deadline, guard.checks_left = math.inf, -1  # the EXPLAIN in _kind_of must not be cut short
        kind = _kind_of(exc, guard, conn, sql) if not isinstance(exc, MemoryError) else "runtime"
        message = str(exc) or type(exc).__name__
        if kind == "timeout" and guard.out_of_steps:
            message = f"ran past its budget of {steps:,} SQLite steps ({message})"
        elif kind == "timeout":
            message = f"timed out after {timeout:g} s ({message})"
        elif kind == "forbidden" and guard.denied is not None:
            message = f"not allowed on a read-only evaluation: {guard.denied} ({message})"
        return _failure(kind, message, started), False, cursor
    clean = guard.denied is None and not guard.timed_out
    return ExecResult(columns, tuple(rows), time.perf_counter() - started, truncated=truncated), clean, cursor


def _release(conn: sqlite3.Connection, cursor: sqlite3.Cursor | None, key: tuple, clean: bool) -> None:
    """Keep the connection for the next query on this file if the query ran cleanly, else close it."""
    try:
        if cursor is not None:
            cursor.close()  # finalizes the statement: a truncated read holds no transaction after this
        if clean:
            _checkin(key, conn)
            return
    except sqlite3.Error:
        pass
    conn.close()


def file_digest(path: Path) -> str:
    """SHA-256 of a file's bytes, read in blocks so a large database does not fill memory."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class GoldResultCache:
    """Gold results computed once per (database content, gold SQL) and shared by every model.

    Keyed by the file's content hash, so two copies of a database share entries and an edited file
    does not reuse stale ones; the hash itself is remembered per file identity (device, inode, size,
    mtime), which one `stat` gives without resolving the path on every query. Thread-safe: a key being
    computed by one thread is waited for, not recomputed, by the others.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._results: dict[tuple, ExecResult] = {}
        self._pending: dict[tuple, threading.Event] = {}
        self._digests: dict[tuple[int, int, int, int], str] = {}
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._results)

    def _digest(self, path: Path) -> str | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        with self._lock:
            known = self._digests.get(key)
        if known is None:
            try:
                known = file_digest(path)
            except OSError:
                return None
            with self._lock:
                self._digests[key] = known
        return known

    def get(
        self,
        db_path: Path | ServerDatabase | None,
        gold_sql: str,
        timeout: float = DEFAULT_TIMEOUT,
        max_rows: int = DEFAULT_MAX_ROWS,
    ) -> ExecResult:
        if db_path is not None and not isinstance(db_path, Path | str):
            digest: str | None = db_path.fingerprint
        else:
            digest = self._digest(_as_path(db_path)) if db_path is not None else None
        if digest is None:  # missing or unreadable: nothing worth caching
            return execute(db_path, gold_sql, timeout=timeout, max_rows=max_rows)
        key = (digest, gold_sql, timeout, max_rows)
        while True:
            with self._lock:
                if key in self._results:
                    self.hits += 1
                    return self._results[key]
                event = self._pending.get(key)
                if event is None:
                    event = self._pending[key] = threading.Event()
                    self.misses += 1
                    break
            event.wait()
        try:
            result = execute(db_path, gold_sql, timeout=timeout, max_rows=max_rows)
            with self._lock:
                self._results[key] = result
            return result
        finally:
            with self._lock:
                del self._pending[key]
            event.set()
