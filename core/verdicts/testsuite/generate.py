"""One random neighbour database: the original's schema, filled with generated rows.

Tables are filled in foreign-key order (parents first) so that a foreign-key column draws from the
values its parent table actually holds; primary keys and UNIQUE columns stay unique; row counts go from
a handful to a couple of thousand per table. The original file is only ever read (see `schema.read_db`).
"""

from __future__ import annotations

import math
import random
import sqlite3
from pathlib import Path

from sqltriage.core.verdicts.testsuite.literals import ANY_COLUMN, GoldLiterals
from sqltriage.core.verdicts.testsuite.schema import DbInfo, TableInfo, _q
from sqltriage.core.verdicts.testsuite.values import ColumnValues, kind_of

MIN_ROWS = 3
MAX_ROWS = 2_000
UNIQUE_TRIES = 12  # draws before a key column falls back to a value built to be new


def fill_order(db: DbInfo) -> list[TableInfo]:
    """Parents before children (declared order breaks ties; a cycle is cut where it closes)."""
    by_name = {t.name.lower(): t for t in db.tables}
    done: list[TableInfo] = []
    seen: set[str] = set()
    visiting: set[str] = set()

    def visit(t: TableInfo) -> None:
        key = t.name.lower()
        if key in seen or key in visiting:
            return
        visiting.add(key)
        for _col, parent, _pcol in t.foreign_keys:
            p = by_name.get(parent.lower())
            if p is not None and p is not t:
                visit(p)
        visiting.discard(key)
        seen.add(key)
        done.append(t)

    for t in db.tables:
        visit(t)
    return done


def row_count(table: TableInfo, rng: random.Random, n_tables: int) -> int:
    """Log-uniform between a few and about twice the original size (capped), smaller for huge schemas."""
    cap = MAX_ROWS if n_tables <= 30 else max(50, MAX_ROWS * 30 // n_tables)
    high = max(20, min(2 * table.rows, cap))
    if rng.random() < 0.1:
        high = max(high, min(cap, 500))
    return round(math.exp(rng.uniform(math.log(MIN_ROWS), math.log(high))))


def build_database(db: DbInfo, literals: GoldLiterals, rng: random.Random, out: Path) -> list[str]:
    """Write one neighbour to `out` (a new file); return what could not be reproduced."""
    problems = list(db.skipped)
    conn = sqlite3.connect(out, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute("BEGIN")
        created: list[TableInfo] = []
        for t in db.tables:
            try:
                conn.execute(t.ddl)
                created.append(t)
            except sqlite3.Error as exc:
                problems.append(f"table {t.name}: cannot be created ({exc})")
        views = [s for s in db.extra_ddl if s.lstrip().upper().startswith("CREATE VIEW")]
        for sql in db.extra_ddl:
            if sql not in views:
                try:
                    conn.execute(sql)
                except sqlite3.Error as exc:
                    problems.append(f"index not reproduced ({exc})")
        keep = {t.name.lower() for t in created}
        filled: dict[tuple[str, str], list] = {}  # (table, column) lower → values stored
        order = [t for t in fill_order(db) if t.name.lower() in keep]
        for t in order:
            _fill_table(conn, t, literals, rng, filled, len(order))
        for sql in views:
            try:
                conn.execute(sql)
            except sqlite3.Error as exc:
                problems.append(f"view not reproduced ({exc})")
        conn.execute("COMMIT")
    finally:
        conn.close()
    return problems


def _fill_table(
    conn: sqlite3.Connection,
    table: TableInfo,
    literals: GoldLiterals,
    rng: random.Random,
    filled: dict[tuple[str, str], list],
    n_tables: int,
) -> None:
    n = row_count(table, rng, n_tables)
    parents = {c.lower(): (p.lower(), pc.lower()) for c, p, pc in table.foreign_keys}
    gens: list[ColumnValues] = []
    for c in table.columns:
        lits = literals.by_column.get(c.name.lower(), [])
        loose = [v for v in literals.by_column.get(ANY_COLUMN, []) if _fits(v, kind_of(c))]
        pats = literals.patterns.get(c.name.lower(), [])
        gens.append(ColumnValues(c, lits + loose[:5], pats, rng))
    unique_cols = [i for i, c in enumerate(table.columns) if c.unique]
    groups = [tuple(i for i, c in enumerate(table.columns) if c.name in g) for g in table.unique_groups]
    used_single: dict[int, set] = {i: set() for i in unique_cols}
    used_group: list[set] = [set() for _ in groups]
    # foreign keys: a skewed or a uniform choice among the parent's values, decided per table
    skew = {c: rng.random() < 0.5 for c in parents}
    rows: list[tuple] = []
    for _ in range(n):
        ok = False
        for _attempt in range(UNIQUE_TRIES):
            row = []
            for i, (c, g) in enumerate(zip(table.columns, gens, strict=True)):
                parent = parents.get(c.name.lower())
                pool = filled.get(parent) if parent is not None else None
                if pool is not None:
                    if g.null_share and rng.random() < g.null_share / 3:
                        row.append(None)
                    elif not pool:
                        row.append(None if not (c.not_null or c.pk) else g.fresh())
                    else:
                        pick = int(len(pool) * rng.random() ** 2.5) if skew[c.name.lower()] else None
                        row.append(pool[pick] if pick is not None else rng.choice(pool))
                elif i in used_single:
                    value = g.fresh()
                    tries = 0
                    while (value is None or value in used_single[i]) and tries < UNIQUE_TRIES:
                        value, tries = g.fresh(), tries + 1
                    if value is None or value in used_single[i]:
                        value = g.unique_fallback(used_single[i], len(rows))
                    row.append(value)
                else:
                    value = g.draw()
                    if value is None and c.not_null:
                        value = g.fresh()
                    row.append(value)
            if any(row[i] in used_single[i] for i in unique_cols if row[i] is not None):
                continue
            keys = [tuple(row[i] for i in grp) for grp in groups]
            if any(k in used for k, used in zip(keys, used_group, strict=True)):
                continue
            ok = True
            break
        if not ok:
            continue
        for i in unique_cols:
            used_single[i].add(row[i])
        for k, used in zip(keys, used_group, strict=True):
            used.add(k)
        rows.append(tuple(row))
    if table.columns:
        cols = ", ".join(_q(c.name) for c in table.columns)
        marks = ", ".join("?" for _ in table.columns)
        insert = f"INSERT OR IGNORE INTO {_q(table.name)} ({cols}) VALUES ({marks})"
        conn.execute("SAVEPOINT fill")
        try:
            conn.executemany(insert, rows)
        except sqlite3.Error:  # e.g. a text value for an INTEGER PRIMARY KEY: keep the rows that fit
            conn.execute("ROLLBACK TO fill")
            for row in rows:
                try:
                    conn.execute(insert, row)
                except sqlite3.Error:
                    continue
        conn.execute("RELEASE fill")
        stored = conn.execute(f"SELECT {cols} FROM {_q(table.name)}").fetchall()
        for i, c in enumerate(table.columns):
            filled[(table.name.lower(), c.name.lower())] = [r[i] for r in stored if r[i] is not None]


def _fits(value: object, kind: str) -> bool:
    if kind in ("int", "real"):
        return isinstance(value, int | float)
    return isinstance(value, str)
