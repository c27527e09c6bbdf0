"""Where a witness database breaks a regularity of the original data, in what the two queries read.

Each breach names its kind (the assumption vocabulary of docs/judgement.md), the column, the value and the
witness rows that hold it, so that `repair` can undo it on a copy and the reader can be told in one line.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from sqltriage.core.verdicts.judgement.reads import Reads
from sqltriage.core.verdicts.judgement.regularities import Regularities, normalised

# The assumptions, the most telling first: the order a row's several needed assumptions are named in.
KINDS = ("tie", "duplicate", "dangling", "null", "empty", "domain")
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
            values = [(r[0], r[i]) for r in rows]
            partners = sorted(b if a == key else a for a, b in reads.equated if key in (a, b))
            joined = key in regs.references or bool(partners)
            found = _column_breaches(name, col, values, facts, reads, joined)
            partner = _spelled(tables, partners[0]) if partners else None
            out.extend(Breach(b.kind, b.table, b.column, b.value, b.rowids, partner) for b in found)
    out.extend(_dangling(conn, regs, reads, tables))
    return out


def _column_breaches(table: str, col: str, values: list, facts, reads: Reads, joined: bool) -> list[Breach]:
    """`joined`: the queries equate the column with another table's: its values are references, whose
    realism is `_dangling`'s to judge (a new id is no value outside the domain), save their format."""
    out: list[Breach] = []
    nulls = tuple(rid for rid, v in values if v is None)
    if nulls and facts.never_null:
        out.append(Breach("null", table, col, None, nulls))
    if facts.identifying(col):
        seen: dict[object, list[int]] = {}
        for rid, v in values:
            if v is not None:
                seen.setdefault(normalised(v), []).append(rid)
        for v, rids in seen.items():
            if len(rids) > 1:
                out.append(Breach("duplicate", table, col, v, tuple(rids)))
                break
    identity = joined or facts.identifying(col) or facts.key
    for rid, v in values:
        if v is not None and _outside(v, facts, reads.literals, identity):
            out.append(Breach("domain", table, col, v, (rid,)))
            break
    return out


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
