"""Where a witness database breaks a regularity of the original data, in what the two queries read.

Each breach names its kind (the assumption vocabulary of docs/judgement.md), the column, the value and the
witness rows that hold it, so that `repair` can undo it on a copy and the reader can be told in one line.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from sqltriage.core.verdicts.judgement.reads import Reads
from sqltriage.core.verdicts.judgement.regularities import ColumnFacts, Regularities, normalised

# The assumptions, the most telling first: the order a row's several needed assumptions are named in.
KINDS = ("tie", "duplicate", "dangling", "null", "empty", "domain")
MOSTLY_NAMED = 0.8  # a text column this distinct names its rows: a value the question names is one row
DOMAIN_SLACK = 1.0  # a number beyond the data's range by more than this many spans is outside its domain


@dataclass(frozen=True, slots=True)
class Breach:
    kind: str
    table: str  # as the witness spells it
    column: str = ""
    value: object = None
    rowids: tuple[int, ...] = ()
    # dangling: the (table, column) the value should occur in; else the column the queries equate it with
    parent: tuple[str, str] | None = None


def q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def witness_columns(conn: sqlite3.Connection) -> dict[str, tuple[str, list[str]]]:
    """table lower → (table as spelled, its columns as spelled)."""
    out = {}
    for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
    ):
        out[name.lower()] = (name, [r[1] for r in conn.execute(f"PRAGMA table_info({q(name)})")])
    return out


def breaches(conn: sqlite3.Connection, regs: Regularities, reads: Reads) -> list[Breach]:
    """Every breach of the witness on `conn`, in a fixed order."""
    tables = witness_columns(conn)
    out: list[Breach] = []
    for low in sorted(reads.tables):
        if low not in tables or regs.tables.get(low, 0) == 0:
            continue
        name, cols = tables[low]
        rows = conn.execute(f"SELECT rowid, * FROM {q(name)}").fetchall()
        if not rows:
            out.append(Breach("empty", name))
            continue
        for i, col in enumerate(cols, start=1):
            key = (low, col.lower())
            facts = regs.facts(low, col)
            if facts is None or not (key in reads.columns or low in reads.star):
                continue
            partners = sorted(b if a == key else a for a, b in reads.equated if key in (a, b))
            joined = key in regs.references or bool(partners)
            found = _column_breaches(Place(name, col, i, cols, rows), facts, regs, reads, joined)
            partner = _spelled(tables, partners[0]) if partners else None
            out.extend(Breach(b.kind, b.table, b.column, b.value, b.rowids, partner) for b in found)
    out.extend(_dangling(conn, regs, reads, tables))
    out.extend(_childless(conn, regs, reads, tables))
    return out


@dataclass(frozen=True, slots=True)
class Place:
    """A witness column: its table and name as spelled, its position in `rows` (rowid first) and the
    table's columns."""

    table: str
    column: str
    index: int
    columns: list[str]
    rows: list[tuple]


def _named(place: Place, row: tuple, literals: set) -> dict[str, object]:
    """The other columns of a witness row whose values the queries name: the rows the question is about."""
    return {
        c: row[j]
        for j, c in enumerate(place.columns, start=1)
        if j != place.index and row[j] is not None and normalised(row[j]) in literals
    }


def _column_breaches(
    place: Place, facts: ColumnFacts, regs: Regularities, reads: Reads, joined: bool
) -> list[Breach]:
    """`joined`: the queries equate the column with another table's: its values are references, whose
    realism is `_dangling`'s to judge (a new id is no value outside the domain), save their format."""
    table, col = place.table, place.column
    values = [(r[0], r[place.index]) for r in place.rows]
    out: list[Breach] = []
    nulls = tuple(rid for rid, v in values if v is None)
    if nulls and facts.never_null:
        out.append(Breach("null", table, col, None, nulls))
    elif nulls:  # NULLs occur, but never among the rows the queries name (no Asian country lacks a value)
        for r in place.rows:
            named = _named(place, r, reads.literals) if r[place.index] is None else {}
            if named and regs.count(table, col, named, null=True) == 0 and regs.count(table, col, named) > 0:
                out.append(Breach("null", table, col, None, (r[0],)))
                break
    seen: dict[object, list[int]] = {}
    for rid, v in values:
        if v is not None:
            seen.setdefault(normalised(v), []).append(rid)
    repeated = [(v, rids) for v, rids in seen.items() if len(rids) > 1]
    if repeated and _unique_here(facts, col, (table.lower(), col.lower()), reads):
        out.append(Breach("duplicate", table, col, repeated[0][0], tuple(repeated[0][1])))
    elif repeated and facts.kind == "text" and facts.distinct >= MOSTLY_NAMED * (facts.rows - facts.nulls):
        for v, rids in repeated:  # the one the question names is unique in the data: two Kyles are invented
            if v in reads.literals and 0 <= regs.count(table, col, {col: v}) <= 1:
                out.append(Breach("duplicate", table, col, v, tuple(rids)))
                break
    identity = joined or facts.identifying(col) or facts.key
    for rid, v in values:
        if v is not None and _outside(v, facts, reads.literals, identity):
            out.append(Breach("domain", table, col, v, (rid,)))
            break
    return out


def _unique_here(facts: ColumnFacts, col: str, key: tuple[str, str], reads: Reads) -> bool:
    """No two rows share a value in a realistic database: an identifying column, or a text column whose
    values are all distinct in the data and that the queries group, join or match by (a lookup table's
    types: grouping by a type the data never repeats)."""
    if facts.identifying(col):
        return True
    return facts.all_distinct and facts.kind == "text" and facts.rows >= 3 and key in reads.grouped


def _outside(value: object, facts, literals: set, identity: bool) -> bool:
    """A value the column never holds: not among its few values, far outside its range, text where it
    holds numbers, or an integer written otherwise than the data writes them ('04' for '4'). A column
    used as an identity is held to its format only: any new id is as real as the old ones."""
    v = normalised(value)
    if v in literals or value in literals:
        return False
    if facts.integer_text and isinstance(value, str) and (not isinstance(v, int) or str(v) != value):
        return True
    if identity:
        return False
    if facts.domain is not None:
        return v not in {normalised(d) for d in facts.domain}
    if facts.kind in ("int", "real"):
        if not isinstance(v, int | float) or isinstance(v, bool):
            return True  # text where the data holds only numbers
        if facts.low is not None and facts.high is not None:
            slack = max(facts.high - facts.low, 1) * DOMAIN_SLACK
            return not facts.low - slack <= v <= facts.high + slack
    return False


def _spelled(tables: dict, ref: tuple[str, str]) -> tuple[str, str] | None:
    if ref[0] not in tables:
        return None
    name, cols = tables[ref[0]]
    col = next((c for c in cols if c.lower() == ref[1]), None)
    return None if col is None else (name, col)


def _dangling(conn: sqlite3.Connection, regs: Regularities, reads: Reads, tables: dict) -> list[Breach]:
    """A value of one side of an equated pair missing from the other side, where the original's values of
    that side all occur on the other (a reference that always resolves in the data)."""
    out: list[Breach] = []
    for a, b in sorted(reads.equated):
        for child, parent in ((a, b), (b, a)):
            if child[0] not in tables or parent[0] not in tables:
                continue
            facts = regs.facts(*child)
            if facts is not None and facts.key:
                continue  # a table's own key refers to nothing: a pet no one owns is no broken reference
            if regs.path is None:  # the schema alone: a declared foreign key resolves
                if (child, parent) not in regs.links:
                    continue
            else:
                child_values = regs.values(*child)
                if not child_values or not child_values <= regs.values(*parent):
                    continue
            c_name, c_cols = tables[child[0]]
            p_name, p_cols = tables[parent[0]]
            c_col = next((c for c in c_cols if c.lower() == child[1]), None)
            p_col = next((c for c in p_cols if c.lower() == parent[1]), None)
            if c_col is None or p_col is None:
                continue
            present = {normalised(r[0]) for r in conn.execute(f"SELECT {q(p_col)} FROM {q(p_name)}")}
            for rid, v in conn.execute(f"SELECT rowid, {q(c_col)} FROM {q(c_name)}"):
                if v is not None and normalised(v) not in present:
                    out.append(Breach("dangling", c_name, c_col, v, (rid,), (p_name, p_col)))
                    break
    return out


def _childless(conn: sqlite3.Connection, regs: Regularities, reads: Reads, tables: dict) -> list[Breach]:
    """An empty group: a row of a referenced table that no row refers to, where in the data every one of
    them is referred to (every template type has templates) and the queries read both tables."""
    out: list[Breach] = []
    for child, parent in sorted(regs.links):
        if child[0] not in reads.tables or parent[0] not in reads.tables:
            continue
        if child[0] not in tables or parent[0] not in tables or child[0] == parent[0]:
            continue
        parent_values = regs.values(*parent)
        if not parent_values or not parent_values <= regs.values(*child):
            continue
        c_col = _spelled(tables, child)
        p_col = _spelled(tables, parent)
        if c_col is None or p_col is None:
            continue
        used = {normalised(r[0]) for r in conn.execute(f"SELECT {q(c_col[1])} FROM {q(c_col[0])}")}
        for rid, v in conn.execute(f"SELECT rowid, {q(p_col[1])} FROM {q(p_col[0])}"):
            if v is not None and normalised(v) not in used:
                out.append(Breach("empty", p_col[0], p_col[1], v, (rid,), c_col))
                break
    return out
