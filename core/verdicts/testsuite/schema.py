"""What a neighbour database must reproduce of the original: tables, columns, keys, the DDL to recreate them.

Read from the SQLite file itself (read-only), with the foreign keys a `tables.json` declares added where
the file declares none, since Spider's files often omit them and the join paths are what matters.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

SAMPLE_ROWS = 5_000  # rows read per table to learn its values (a million-row table is sampled)


@dataclass(slots=True)
class ColumnInfo:
    name: str
    declared: str  # the declared type, as written ("varchar(20)", "", "NUMERIC")
    not_null: bool
    pk: bool  # part of the primary key
    unique: bool  # alone in a UNIQUE constraint or single-column primary key
    values: list = field(default_factory=list)  # a sample of the real values, NULLs included
    profile: tuple | None = None  # (kind, distinct values sorted, has NULLs): computed once, see values.py


@dataclass(slots=True)
class TableInfo:
    name: str
    ddl: str
    columns: list[ColumnInfo]
    rows: int  # rows in the original table
    pk_columns: tuple[str, ...] = ()
    unique_groups: list[tuple[str, ...]] = field(default_factory=list)  # multi-column UNIQUE / PRIMARY KEY
    # (column, parent table, parent column): this column's values come from the parent's
    foreign_keys: list[tuple[str, str, str]] = field(default_factory=list)

    def column(self, name: str) -> ColumnInfo | None:
        low = name.lower()
        return next((c for c in self.columns if c.name.lower() == low), None)


@dataclass(slots=True)
class DbInfo:
    tables: list[TableInfo]
    extra_ddl: list[str]  # views and indexes, created after the tables
    skipped: list[str]  # what could not be reproduced, and why

    def table(self, name: str) -> TableInfo | None:
        low = name.lower()
        return next((t for t in self.tables if t.name.lower() == low), None)


def _connect_ro(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True, isolation_level=None)
    conn.text_factory = lambda raw: raw.decode("utf-8", errors="replace")
    conn.execute("PRAGMA query_only = ON")
    return conn


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def read_db(
    path: Path,
    extra_foreign_keys: Iterable[tuple[tuple[str, str], tuple[str, str]]] = (),
    extra_primary_keys: Iterable[tuple[str, str]] = (),
) -> DbInfo:
    """The schema and a sample of the values of `path`, opened read-only.

    Keys a `tables.json` declares count for the tables whose file declares none (primary keys stay
    unique in the neighbours, foreign keys draw from their parent).
    """
    conn = _connect_ro(path)
    try:
        info = _read(conn, list(extra_foreign_keys))
    finally:
        conn.close()
    _add_primary_keys(info, list(extra_primary_keys))
    return info


def _add_primary_keys(info: DbInfo, keys: list[tuple[str, str]]) -> None:
    for t in info.tables:
        if t.pk_columns:
            continue
        cols = [c for table, name in keys if table.lower() == t.name.lower() and (c := t.column(name))]
        if not cols:
            continue
        t.pk_columns = tuple(c.name for c in cols)
        for c in cols:
            c.pk = True
        if len(cols) == 1:
            cols[0].unique = True
        elif t.pk_columns not in t.unique_groups:
            t.unique_groups.append(t.pk_columns)


def _read(conn: sqlite3.Connection, extra_fks: list[tuple[tuple[str, str], tuple[str, str]]]) -> DbInfo:
    master = conn.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid"
    ).fetchall()
    tables: list[TableInfo] = []
    extra: list[str] = []
    skipped: list[str] = []
    shadow = {n for t, n, _, s in master if t == "table" and s.upper().startswith("CREATE VIRTUAL")}
    for kind, name, _tbl, sql in master:
        if name.startswith("sqlite_"):
            continue
        if kind == "table":
            if name in shadow:
                skipped.append(f"virtual table {name}: not reproduced")
                continue
            if any(name.startswith(v + "_") for v in shadow):
                continue  # a virtual table's shadow table
            tables.append(_table(conn, name, sql))
        elif kind in ("view", "index"):
            extra.append(sql)
        else:
            skipped.append(f"{kind} {name}: not reproduced")
    by_name = {t.name.lower(): t for t in tables}
    for t in tables:
        if t.foreign_keys:
            continue
        for (src_t, src_c), (dst_t, dst_c) in extra_fks:
            parent = by_name.get(dst_t.lower())
            if (
                src_t.lower() == t.name.lower()
                and parent is not None
                and t.column(src_c)
                and parent.column(dst_c)
            ):
                t.foreign_keys.append((t.column(src_c).name, parent.name, parent.column(dst_c).name))
    return DbInfo(tables, extra, skipped)


def _table(conn: sqlite3.Connection, name: str, ddl: str) -> TableInfo:
    info = conn.execute(f"PRAGMA table_info({_q(name)})").fetchall()
    pk = tuple(r[1] for r in sorted((r for r in info if r[5]), key=lambda r: r[5]))
    columns = [ColumnInfo(r[1], r[2] or "", bool(r[3]), bool(r[5]), False) for r in info]
    groups: list[tuple[str, ...]] = []
    if len(pk) > 1:
        groups.append(pk)
    for idx in conn.execute(f"PRAGMA index_list({_q(name)})").fetchall():
        if not idx[2]:
            continue
        cols = tuple(r[2] for r in conn.execute(f"PRAGMA index_info({_q(idx[1])})").fetchall())
        if None in cols or not cols:
            continue  # an expression index: INSERT OR IGNORE enforces it
        if len(cols) == 1 or cols not in groups:
            groups.append(cols)
    single = {g[0].lower() for g in groups if len(g) == 1}
    if len(pk) == 1:
        single.add(pk[0].lower())
    for c in columns:
        c.unique = c.name.lower() in single
    table = TableInfo(name, ddl, columns, _count(conn, name), pk, [g for g in groups if len(g) > 1])
    for r in conn.execute(f"PRAGMA foreign_key_list({_q(name)})").fetchall():
        parent, src, dst = r[2], r[3], r[4]
        if src is None:
            continue
        if dst is None:  # references the parent's primary key
            ppk = [p[1] for p in conn.execute(f"PRAGMA table_info({_q(parent)})").fetchall() if p[5]]
            if len(ppk) != 1:
                continue
            dst = ppk[0]
        table.foreign_keys.append((src, parent, dst))
    _sample(conn, table)
    return table


def _count(conn: sqlite3.Connection, name: str) -> int:
    try:
        return int(conn.execute(f"SELECT count(*) FROM {_q(name)}").fetchone()[0])
    except sqlite3.Error:
        return 0


def _sample(conn: sqlite3.Connection, table: TableInfo) -> None:
    """The first SAMPLE_ROWS rows' values per column: enough to learn types, ranges and typical strings."""
    if not table.columns:
        return
    cols = ", ".join(_q(c.name) for c in table.columns)
    try:
        rows = conn.execute(f"SELECT {cols} FROM {_q(table.name)} LIMIT {SAMPLE_ROWS}").fetchall()
    except sqlite3.Error:
        return
    for i, c in enumerate(table.columns):
        c.values = [r[i] for r in rows]
