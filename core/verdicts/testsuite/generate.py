"""One neighbour database: the original's schema, filled with generated rows, then planted ones.

Tables are filled in foreign-key order (parents first) so that a foreign-key column draws from the
values its parent table actually holds — and so does a column the golds join on without a declared key
(a mined link); primary keys, UNIQUE columns and columns unique in practice stay unique; every value
respects its column's mined rule; row counts go from a handful to a couple of thousand per table. Then
the planter adds the rows on which the golds return something (see `plant.py`). The original file is
only ever read (see `schema.read_db`).
"""

from __future__ import annotations

import math
import random
import sqlite3
from pathlib import Path

from sqltriage.core.verdicts.testsuite.literals import ANY_COLUMN, GoldLiterals
from sqltriage.core.verdicts.testsuite.mine import Mined
from sqltriage.core.verdicts.testsuite.plant import GoldPlan, Planter
from sqltriage.core.verdicts.testsuite.schema import DbInfo, TableInfo, _q
from sqltriage.core.verdicts.testsuite.values import ColumnValues, kind_of

MIN_ROWS = 3
MAX_ROWS = 2_000
UNIQUE_TRIES = 12  # draws before a key column falls back to a value built to be new
PLANT_SHARE = 0.85  # of the golds, planted in a planted neighbour (the rest stay as chance makes them)
LINK_SHARE = 0.75  # a column linked to another by a gold join (no inclusion seen) draws from it this often


def fill_order(db: DbInfo, mined: Mined | None = None) -> list[TableInfo]:
    """Parents before children (declared order breaks ties; a cycle is cut where it closes)."""
    by_name = {t.name.lower(): t for t in db.tables}
    links: dict[str, list[str]] = {}
    for link in mined.links if mined is not None else []:
        links.setdefault(link.child[0].lower(), []).append(link.parent[0])
    done: list[TableInfo] = []
    seen: set[str] = set()
    visiting: set[str] = set()

    def visit(t: TableInfo) -> None:
        key = t.name.lower()
        if key in seen or key in visiting:
            return
        visiting.add(key)
        for parent in [p for _c, p, _pc in t.foreign_keys] + links.get(key, []):
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


def build_database(
    db: DbInfo,
    literals: GoldLiterals,
    rng: random.Random,
    out: Path,
    mined: Mined | None = None,
    plans: list[GoldPlan] | None = None,
) -> list[str]:
    """Write one neighbour to `out` (a new file), planting the `plans`; return what could not be reproduced."""
    mined = mined if mined is not None else Mined()
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
        order = [t for t in fill_order(db, mined) if t.name.lower() in keep]
        gens: dict[tuple[str, str], ColumnValues] = {}
        for t in order:
            gens.update(_fill_table(conn, t, literals, rng, filled, len(order), mined))
        if plans:
            planter = Planter(conn, db, mined, gens, order, rng)
            for plan in plans:
                if rng.random() < PLANT_SHARE:
                    planter.plant(plan)
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
    mined: Mined,
) -> dict[tuple[str, str], ColumnValues]:
    n = row_count(table, rng, n_tables)
    parents = {c.lower(): (p.lower(), pc.lower()) for c, p, pc in table.foreign_keys}
    loose_links: set[str] = set()
    for link in mined.links:
        col = link.child[1].lower()
        if link.child[0].lower() == table.name.lower() and col not in parents:
            parents[col] = (link.parent[0].lower(), link.parent[1].lower())
            if not link.inclusion:
                loose_links.add(col)
    gens: list[ColumnValues] = []
    for c in table.columns:
        lits = literals.by_column.get(c.name.lower(), [])
        loose = [v for v in literals.by_column.get(ANY_COLUMN, []) if _fits(v, kind_of(c))]
        pats = literals.patterns.get(c.name.lower(), [])
        gens.append(ColumnValues(c, lits + loose[:5], pats, rng, mined.rule(table.name, c.name)))
    unique_cols = [
        i for i, (c, g) in enumerate(zip(table.columns, gens, strict=True)) if c.unique or g.unique
    ]
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
                if pool is not None and c.name.lower() in loose_links and rng.random() >= LINK_SHARE:
                    pool = None  # a link no key declares: now and then a value of the column's own
                if pool is not None:
                    if g.nullable and g.null_share and rng.random() < g.null_share / 3:
                        row.append(None)
                    elif not pool:
                        row.append(g.fresh() if c.not_null or c.pk or not g.nullable else None)
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
    return {(table.name.lower(), c.name.lower()): g for c, g in zip(table.columns, gens, strict=True)}


def _fits(value: object, kind: str) -> bool:
    if kind in ("int", "real"):
        return isinstance(value, int | float)
    return isinstance(value, str)
