"""Undo a breach on a private copy of the witness: does the difference survive a world the data allows?

A breach is needed by a refutation when, repaired, the two queries agree again. Repairs change as little
as they can: a duplicated name gets a name of the data that the witness does not use, a NULL a value of
the data, a dangling reference a value its partner holds (or the row goes when the partner is empty), a
value outside the domain the nearest one inside, an empty table the original's first row. A tie cannot be
repaired without inventing rows: `assumption` asks instead whether the difference is only the tie's.
"""

from __future__ import annotations

import sqlite3
from urllib.parse import quote

from sqltriage.core.verdicts.judgement.breaches import Breach, q
from sqltriage.core.verdicts.judgement.regularities import Regularities, normalised

REPAIRABLE = ("duplicate", "dangling", "null", "domain", "empty")


def copy_of(conn: sqlite3.Connection) -> sqlite3.Connection:
    out = sqlite3.connect(":memory:", isolation_level=None)
    conn.backup(out)
    return out


TRIES = 3  # values tried in turn for a NULL or a duplicate: the first may be one that hides the difference

Hints = dict[tuple[str, str], list[object]]  # (table, column) lower → values the queries compare it with


def repair(
    conn: sqlite3.Connection,
    found: list[Breach],
    regs: Regularities,
    attempt: int = 0,
    hints: Hints | None = None,
) -> bool:
    """Repair every breach of `found` on `conn` (a private copy); False when one cannot be repaired.
    `attempt` picks which of the candidate values a NULL or a duplicate gets (0: the first); `hints` puts
    first the values the witness holds in the columns the queries compare each one with."""
    for b in _parents_first(found, regs):
        if b.kind not in REPAIRABLE:
            return False
        try:
            if not _repair_one(conn, b, regs, attempt, hints or {}):
                return False
        except sqlite3.Error:
            return False
    return True


def with_parents(b: Breach, found: list[Breach], regs: Regularities) -> list[Breach]:
    """`b`, and when it is an empty table, the empty tables of `found` its rows must refer to, parents
    first (a row filled in alone would point at nothing, which is no repair)."""
    if b.kind != "empty" or b.column:
        return [b]
    empty = {x.table.lower(): x for x in found if x.kind == "empty" and not x.column}
    out: list[Breach] = []

    def visit(table: str, seen: frozenset[str]) -> None:
        for (child_t, _c), (parent_t, _p) in sorted(regs.links):
            if child_t == table and parent_t in empty and parent_t not in seen | {table}:
                visit(parent_t, seen | {table})
        if empty[table] not in out:
            out.append(empty[table])

    visit(b.table.lower(), frozenset())
    return out


def _parents_first(found: list[Breach], regs: Regularities) -> list[Breach]:
    """Empty tables filled parents first, so a filled row can refer to a filled parent; the rest as found."""
    ordered: list[Breach] = []
    for b in sorted((x for x in found if x.kind == "empty" and not x.column), key=lambda x: x.table.lower()):
        ordered += [x for x in with_parents(b, found, regs) if x not in ordered]
    return ordered + [b for b in found if b not in ordered]


def _repair_one(conn: sqlite3.Connection, b: Breach, regs: Regularities, attempt: int, hints: Hints) -> bool:
    table, col = q(b.table), q(b.column)
    if b.kind == "empty" and b.column:  # a row no one refers to: it goes, as no such row is in the data
        for rid in b.rowids:
            conn.execute(f"DELETE FROM {table} WHERE rowid = ?", (rid,))
        return True
    if b.kind == "empty":
        return _fill(conn, b.table, regs)
    if b.kind == "dangling":
        assert b.parent is not None
        partner = conn.execute(
            f"SELECT {q(b.parent[1])} FROM {q(b.parent[0])} WHERE {q(b.parent[1])} IS NOT NULL "
            f"ORDER BY rowid LIMIT 1"
        ).fetchone()
        for rid in b.rowids:
            if partner is None:
                conn.execute(f"DELETE FROM {table} WHERE rowid = ?", (rid,))
            else:
                conn.execute(f"UPDATE {table} SET {col} = ? WHERE rowid = ?", (partner[0], rid))
        return True
    used = {normalised(r[0]) for r in conn.execute(f"SELECT {col} FROM {table}")}
    fresh = [v for v in sorted(regs.repair_values(b.table, b.column), key=repr) if v not in used]
    if b.kind == "null" and b.parent is not None:  # a reference: a value its partner holds, so it resolves
        fresh = [
            r[0]
            for r in conn.execute(f"SELECT DISTINCT {q(b.parent[1])} FROM {q(b.parent[0])} ORDER BY 1")
            if r[0] is not None
        ] + fresh
    hinted = [
        v for v in hints.get((b.table.lower(), b.column.lower()), []) if v not in used or b.kind == "null"
    ]
    if regs.path is not None:  # with data, a value of the data only
        hinted = [v for v in hinted if v in regs.values(b.table, b.column)]
    fresh = list(dict.fromkeys([*hinted, *fresh]))
    if attempt and fresh:
        if attempt >= len(fresh):
            return False  # no other value to try
        fresh = fresh[attempt:] + fresh[:attempt]
    facts = regs.facts(b.table, b.column)
    doomed = b.rowids[1:] if b.kind == "duplicate" else b.rowids
    for rid in doomed:
        value = _inside(b.value, facts) if b.kind == "domain" else (fresh.pop(0) if fresh else None)
        if value is None:
            return False
        conn.execute(f"UPDATE {table} SET {col} = ? WHERE rowid = ?", (value, rid))
    return True


def _inside(value: object, facts) -> object:
    """The value of the column's domain nearest to `value`."""
    if facts is None:
        return None
    if facts.domain:
        return sorted(facts.domain, key=repr)[0]
    if facts.low is not None and facts.high is not None:
        v = normalised(value)
        if isinstance(v, int | float):
            return facts.low if v < facts.low else facts.high
        return facts.low
    return None


def _fill(conn: sqlite3.Connection, table: str, regs: Regularities) -> bool:
    """The original's first row of `table`, as the data holds it; with the schema alone, the stand-in
    database's row with the fewest NULLs, its references pointed at rows the witness holds."""
    source_path = regs.rows_source
    if source_path is None:
        return False
    source = sqlite3.connect(f"file:{quote(str(source_path))}?mode=ro", uri=True)
    try:
        if regs.path is not None:
            row = source.execute(f"SELECT * FROM {q(table)} ORDER BY rowid LIMIT 1").fetchone()
        else:
            names = [r[1] for r in source.execute(f"PRAGMA table_info({q(table)})")]
            nulls = " + ".join(f"({q(n)} IS NULL)" for n in names) or "0"
            row = source.execute(f"SELECT * FROM {q(table)} ORDER BY {nulls}, rowid LIMIT 1").fetchone()
            if row is not None:
                row = _filled(source, table, names, list(row))
                row = _referenced(conn, table, names, _resolved(conn, table, names, row, regs), regs)
    finally:
        source.close()
    if row is None:
        return False
    conn.execute(f"INSERT INTO {q(table)} VALUES ({', '.join('?' * len(row))})", row)
    return True


def _filled(source: sqlite3.Connection, table: str, names: list[str], row: list) -> list:
    """A stand-in row without NULLs where the stand-in database holds a value for the column (the
    schema promises none)."""
    for i, name in enumerate(names):
        if row[i] is None:
            found = source.execute(
                f"SELECT {q(name)} FROM {q(table)} WHERE {q(name)} IS NOT NULL ORDER BY rowid LIMIT 1"
            ).fetchone()
            row[i] = None if found is None else found[0]
    return row


def _referenced(
    conn: sqlite3.Connection, table: str, names: list[str], row: list, regs: Regularities
) -> list:
    """A stand-in row keyed as the witness's rows that refer to this table expect, so they resolve."""
    low = table.lower()
    for (child_t, child_c), (parent_t, parent_c) in sorted(regs.links):
        if parent_t != low:
            continue
        at = next((i for i, n in enumerate(names) if n.lower() == parent_c), None)
        if at is None:
            continue
        try:
            found = conn.execute(
                f"SELECT {q(child_c)} FROM {q(child_t)} WHERE {q(child_c)} IS NOT NULL "
                f"AND {q(child_c)} NOT IN (SELECT {q(parent_c)} FROM {q(parent_t)} WHERE {q(parent_c)} IS NOT NULL) "
                "ORDER BY rowid LIMIT 1"
            ).fetchone()
        except sqlite3.Error:
            continue
        if found is not None:
            row[at] = found[0]
            break  # one key column: the first reference that dangles
    return row


def _resolved(conn: sqlite3.Connection, table: str, names: list[str], row: list, regs: Regularities) -> list:
    """A stand-in row whose declared references hold values of the witness's parent rows, where it has any."""
    low = table.lower()
    for (child_t, child_c), (parent_t, parent_c) in regs.links:
        if child_t != low:
            continue
        at = next((i for i, n in enumerate(names) if n.lower() == child_c), None)
        if at is None:
            continue
        try:
            found = conn.execute(
                f"SELECT {q(parent_c)} FROM {q(parent_t)} WHERE {q(parent_c)} IS NOT NULL ORDER BY rowid LIMIT 1"
            ).fetchone()
        except sqlite3.Error:
            continue
        if found is not None:
            row[at] = found[0]
    return row
