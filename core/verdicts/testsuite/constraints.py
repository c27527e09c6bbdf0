"""The constraints a witness must keep while rows are taken out of it, and the check it must pass at the end.

A witness is only worth showing if the schema and the data could really hold it: every foreign key
points at a parent row (declared ones, and the `tables.json` keys of tables whose file declares none, as
the generator honours them), keys stay unique, NOT NULL columns hold values. Deleting rows cannot break
the last two; it can orphan a child row, which `orphans` finds so that the deletion takes it too.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

ExtraForeignKeys = Iterable[tuple[tuple[str, str], tuple[str, str]]]


def quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True, slots=True)
class ForeignKey:
    child: str
    child_columns: tuple[str, ...]
    parent: str
    parent_columns: tuple[str, ...]
    declared: bool  # in the DDL (PRAGMA foreign_key_check sees it), else from tables.json


def table_names(conn: sqlite3.Connection) -> list[str]:
    return [
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
        )
    ]


def foreign_keys(
    conn: sqlite3.Connection, extra: ExtraForeignKeys = (), links: ExtraForeignKeys = ()
) -> list[ForeignKey]:
    """Every foreign key of the database: declared ones, then extra ones for tables that declare none, then
    `links` (join links the generator keeps as inclusions: the neighbour's manifest lists them) everywhere."""
    tables = table_names(conn)
    by_lower = {t.lower(): t for t in tables}
    columns = {t: {c.lower(): c for c in _columns(conn, t)} for t in tables}
    found: list[ForeignKey] = []
    declaring: set[str] = set()
    for t in tables:
        groups: dict[int, list[tuple]] = {}
        for r in conn.execute(f"PRAGMA foreign_key_list({quoted(t)})").fetchall():
            groups.setdefault(r[0], []).append(r)
        for rows in groups.values():
            rows.sort(key=lambda r: r[1])
            parent = by_lower.get(str(rows[0][2]).lower())
            if parent is None:
                continue  # a key to a table that does not exist constrains nothing SQLite can check
            src = tuple(r[3] for r in rows)
            dst = tuple(r[4] for r in rows)
            if any(d is None for d in dst):
                dst = _primary_key(conn, parent)
                if len(dst) != len(src):
                    continue
            declaring.add(t)
            found.append(ForeignKey(t, src, parent, dst, True))
    kept = [(pair, False) for pair in extra] + [(pair, True) for pair in links]
    for ((src_t, src_c), (dst_t, dst_c)), everywhere in kept:
        child, parent = by_lower.get(src_t.lower()), by_lower.get(dst_t.lower())
        if child is None or parent is None or (child in declaring and not everywhere):
            continue
        c, p = columns[child].get(src_c.lower()), columns[parent].get(dst_c.lower())
        if c is not None and p is not None:
            found.append(ForeignKey(child, (c,), parent, (p,), False))
    return found


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f"PRAGMA table_xinfo({quoted(table)})").fetchall() if r[6] == 0]


def _primary_key(conn: sqlite3.Connection, table: str) -> tuple[str, ...]:
    info = [r for r in conn.execute(f"PRAGMA table_info({quoted(table)})").fetchall() if r[5]]
    return tuple(r[1] for r in sorted(info, key=lambda r: r[5]))


def orphans(conn: sqlite3.Connection, child: str, keys: list[ForeignKey]) -> set[int]:
    """Rowids of `child`'s rows whose parent row is gone, under the keys of `child` in `keys`.

    Declared keys are asked of SQLite (`PRAGMA foreign_key_check`); when SQLite refuses (a key to a
    column that is not unique: "foreign key mismatch") or the key is not declared, the rows are found by
    a NOT EXISTS query with the same meaning.
    """
    mine = [k for k in keys if k.child == child]
    found: set[int] = set()
    manual = [k for k in mine if not k.declared]
    if any(k.declared for k in mine):
        try:
            found.update(
                r[1] for r in conn.execute(f"PRAGMA foreign_key_check({quoted(child)})") if r[1] is not None
            )
        except sqlite3.OperationalError:
            manual += [k for k in mine if k.declared]
    for k in manual:
        found.update(_orphans_of(conn, k))
    return found


def _orphans_of(conn: sqlite3.Connection, key: ForeignKey) -> list[int]:
    present = " AND ".join(f"c.{quoted(col)} IS NOT NULL" for col in key.child_columns)
    match = " AND ".join(
        f"p.{quoted(pc)} = c.{quoted(cc)}"
        for cc, pc in zip(key.child_columns, key.parent_columns, strict=True)
    )
    sql = (
        f"SELECT c.rowid FROM {quoted(key.child)} AS c WHERE {present} AND NOT EXISTS "
        f"(SELECT 1 FROM {quoted(key.parent)} AS p WHERE {match})"
    )
    try:
        return [r[0] for r in conn.execute(sql)]
    except sqlite3.OperationalError:
        return []  # e.g. a WITHOUT ROWID child: nothing can be deleted by rowid there


def problems(conn: sqlite3.Connection, keys: list[ForeignKey]) -> list[str]:
    """What a finished witness breaks: orphan rows, duplicate keys, NULLs in NOT NULL columns. [] = none."""
    out: list[str] = []
    for t in table_names(conn):
        if conn.execute(f"SELECT 1 FROM {quoted(t)} LIMIT 1").fetchone() is None:
            continue  # an empty table breaks nothing
        if n := len(orphans(conn, t, keys)):
            out.append(f"{t}: {n} row(s) point at a missing parent")
        for r in conn.execute(f"PRAGMA table_info({quoted(t)})").fetchall():
            if r[3]:
                nulls = conn.execute(
                    f"SELECT count(*) FROM {quoted(t)} WHERE {quoted(r[1])} IS NULL"
                ).fetchone()[0]
                if nulls:
                    out.append(f"{t}.{r[1]}: {nulls} NULL(s) in a NOT NULL column")
        for idx in conn.execute(f"PRAGMA index_list({quoted(t)})").fetchall():
            if not idx[2]:
                continue  # not a unique index
            cols = [c[2] for c in conn.execute(f"PRAGMA index_info({quoted(idx[1])})").fetchall()]
            if not cols or None in cols:
                continue  # an expression index: SQLite itself enforces it on every insert
            names = ", ".join(quoted(c) for c in cols)
            present = " AND ".join(f"{quoted(c)} IS NOT NULL" for c in cols)
            dup = conn.execute(
                f"SELECT count(*) FROM (SELECT 1 FROM {quoted(t)} WHERE {present} GROUP BY {names} "
                "HAVING count(*) > 1)"
            ).fetchone()[0]
            if dup:
                out.append(f"{t}({', '.join(cols)}): {dup} duplicated key value(s)")
    return out
