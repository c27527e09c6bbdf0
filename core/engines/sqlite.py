"""SQLite, the embedded default: execution is the sandbox of `verdicts.execution` (authorizer, progress
handler, row and size caps), delegated to, never duplicated; the schema is read with PRAGMAs."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from sqltriage.core.engines.base import (
    ColumnInfo,
    CopyReport,
    DbSchema,
    Engine,
    ForeignKey,
    Index,
    Progress,
    TableInfo,
)
from sqltriage.core.errors import UsageError
from sqltriage.core.verdicts.execution import execute

if TYPE_CHECKING:
    from sqltriage.core.engines.refs import DbRef
    from sqltriage.core.verdicts.exec_result import ExecResult


def _path(ref: DbRef) -> Path:
    if ref.path is None:
        raise UsageError(f"not a SQLite database: {ref}")
    return ref.path


def read_schema(path: Path) -> DbSchema:
    """Tables (not sqlite_ internals), declared column types, primary and foreign keys, named indexes."""
    conn = sqlite3.connect(f"file:{path.resolve()}?mode=ro", uri=True)
    try:
        names = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
            )
        ]
        tables = []
        for name in names:
            q = name.replace('"', '""')
            info = conn.execute(f'PRAGMA table_info("{q}")').fetchall()
            columns = tuple(ColumnInfo(r[1], r[2] or "", bool(r[3])) for r in info)
            pk = tuple(r[1] for r in sorted((r for r in info if r[5]), key=lambda r: r[5]))
            fks: dict[int, list] = {}
            for r in conn.execute(f'PRAGMA foreign_key_list("{q}")'):
                fks.setdefault(r[0], []).append(r)
            foreign = []
            for rows in fks.values():
                rows.sort(key=lambda r: r[1])
                ref_table = rows[0][2]
                ref_cols = tuple(r[4] for r in rows)
                if any(c is None for c in ref_cols):  # REFERENCES t without columns: t's primary key
                    target = conn.execute(f'PRAGMA table_info("{ref_table.replace(chr(34), chr(34) * 2)}")')
                    ref_cols = tuple(r[1] for r in sorted((r for r in target if r[5]), key=lambda r: r[5]))
                foreign.append(ForeignKey(tuple(r[3] for r in rows), ref_table, ref_cols))
            indexes = []
            for r in conn.execute(f'PRAGMA index_list("{q}")'):
                if r[3] == "pk":
                    continue
                cols = tuple(
                    c[2] for c in conn.execute(f'PRAGMA index_info("{r[1].replace(chr(34), chr(34) * 2)}")')
                )
                if cols and all(c is not None for c in cols):
                    indexes.append(Index(r[1], cols, bool(r[2])))
            tables.append(TableInfo(name, columns, pk, tuple(foreign), tuple(indexes)))
        return DbSchema(tuple(tables))
    finally:
        conn.close()


class SqliteEngine(Engine):
    name = "sqlite"
    dialect = "sqlite"

    def execute(self, ref: DbRef, sql: str, *, timeout: float, max_rows: int) -> ExecResult:
        return execute(_path(ref), sql, timeout=timeout, max_rows=max_rows)

    def schema(self, ref: DbRef) -> DbSchema:
        return read_schema(_path(ref))

    def copy_in(
        self,
        source: Path,
        ref: DbRef,
        *,
        replace: bool = False,
        progress: Progress | None = None,
        numbers_from_text: bool = False,
    ) -> CopyReport:
        target = _path(ref)
        if target.exists() and not replace:
            raise UsageError(f"{target} exists: pass --replace to overwrite it")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        schema = read_schema(target)
        return CopyReport(ref.db_id, len(schema.tables), 0)
