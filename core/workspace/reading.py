"""Opening a workspace to read it: not a byte of it changes, and one that cannot be written still opens.

A reading connection never creates, migrates or checkpoints anything: `PRAGMA query_only` refuses
every write to the file. Where the file can be written, the connection is an ordinary one (SQLite then
removes the -wal and -shm files it needed when the last connection closes, as for any reader); where it
cannot (no write permission, a read-only mount), it is opened read-only, and without the shared-memory
file when no other process has the workspace open (no -wal beside it), so nothing is created beside it.

A workspace of an older version lacks tables or columns that the reading code asks for: on a reading
connection they are stood in for by empty temporary tables and by temporary views that add the missing
columns as NULL, in this connection alone. The file is upgraded for real when it is first written.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import quote


def unwritable_reason(path: Path) -> str | None:
    """Why this workspace cannot be written (a read-only mount, no permission), or None when it can."""
    try:
        if os.statvfs(path).f_flag & os.ST_RDONLY:
            return "it is on a read-only file system"
    except (OSError, AttributeError):
        pass
    if not os.access(path, os.W_OK):
        return "you have no write permission on it"
    folder = path.parent if str(path.parent) else Path(".")
    if not os.access(folder, os.W_OK | os.X_OK):
        return "you have no write permission on its folder, where SQLite keeps its journal"
    return None


def reading_connection(path: Path, unwritable: str | None, timeout: float) -> sqlite3.Connection:
    """A connection that reads `path` and cannot change it (see the module's docstring)."""
    target = quote(str(path.absolute()))
    if unwritable is None:
        uri = f"file:{target}?mode=rw"
    elif Path(f"{path}-wal").exists():
        uri = f"file:{target}?mode=ro"  # another process has it open: read through its WAL
    else:
        uri = f"file:{target}?mode=ro&immutable=1"  # nobody writes it: no -shm to create
    return sqlite3.connect(uri, uri=True, timeout=timeout, check_same_thread=False, isolation_level=None)


def stand_in_for_missing(
    db: sqlite3.Connection, tables: Mapping[str, str], columns: Mapping[str, Mapping[str, str]]
) -> None:
    """Temporary tables for the missing `tables` ({name: column definitions}) and temporary views for the
    tables lacking some of `columns` ({table: {column: SQL type}}), in this connection only."""
    present = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    temporary = {r[0] for r in db.execute("SELECT name FROM sqlite_temp_master")}
    for name, definition in tables.items():
        if name not in present and name not in temporary:
            db.execute(f"CREATE TEMP TABLE [{name}] ({definition})")
    for table, wanted in columns.items():
        if table not in present:
            continue
        have = {r[1] for r in db.execute(f"PRAGMA main.table_info([{table}])")}
        missing = [c for c in wanted if c not in have]
        if missing:
            extra = ", ".join(f"CAST(NULL AS {wanted[c]}) AS [{c}]" for c in missing)
            db.execute(f"CREATE TEMP VIEW [{table}] AS SELECT *, {extra} FROM main.[{table}]")


def define_temporarily(db: sqlite3.Connection, create_sql: str) -> None:
    """`CREATE TABLE IF NOT EXISTS …` as a temporary table when the file lacks it (a reading connection)."""
    text = create_sql.strip()
    prefix = "CREATE TABLE IF NOT EXISTS "
    if not text.upper().startswith(prefix):
        raise ValueError(f"not a CREATE TABLE IF NOT EXISTS statement: {create_sql[:60]!r}")
    rest = text[len(prefix) :]
    name = rest.split("(", 1)[0].strip().strip('[]"`')
    exists = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ? "
        "UNION ALL SELECT 1 FROM sqlite_temp_master WHERE type = 'table' AND name = ?",
        [name, name],
    ).fetchone()
    if exists:
        return
    db.execute("PRAGMA query_only = 0")  # temporary objects only: the connection cannot reach the file's
    try:
        db.execute(f"CREATE TEMP TABLE {rest}")
    finally:
        db.execute("PRAGMA query_only = 1")
