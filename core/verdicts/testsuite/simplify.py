"""The last stage of shrinking a witness: long cell values made short, where that changes nothing.

Once the rows are minimal, a generated string of 40 characters or a number like 1837462918.4417 still
makes the witness hard to read. Each long cell (text over `LONG_TEXT` characters, an integer of five
digits or more, a real with more than two decimals) gets one or two simpler candidates: in a categorical
column (mined.py) the shortest values the neighbour holds there (so still values of the original), else
a short prefix of the text; for a number its leading digits or a rounded value, inside the mined range.
Key columns (primary, foreign, a tables.json key, a mined link) are left alone: their values are joins.

A candidate is kept only if gold and prediction still differ under the row's comparison and every
constraint still holds: SQLite itself refuses an UPDATE that breaks PRIMARY KEY, UNIQUE, NOT NULL or
CHECK; a column unique in practice is checked here; nothing is ever set to NULL. All candidates are first
tried at once (one step when no long value separates them), and a group that loses the difference is split
in halves, down to single cells that then try their second candidate, within a fixed number of attempts. Old values wait in an attached table, so a candidate taken back restores exact types and bytes.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from sqltriage.core.verdicts.testsuite.constraints import ForeignKey, quoted

LONG_TEXT = 12  # characters: a text longer than this is worth shortening
LONG_INT = 10_000  # an integer this large (in absolute value) is worth shortening
MAX_ATTEMPTS = 8  # differences tested per witness by this stage (the first tries every cell at once)
MAX_CELLS = 24  # long cells considered per witness

Column = tuple[str, str]  # (table, column), lower case


@dataclass(frozen=True, slots=True)
class ValueRules:
    """The mined rules a simpler value must keep (the neighbour set's manifest names them)."""

    categorical: frozenset[Column] = frozenset()
    ranges: tuple[tuple[Column, float, float], ...] = ()
    unique: frozenset[Column] = frozenset()
    linked: frozenset[Column] = frozenset()  # both sides of every mined join link: left alone
    neighbour: Path | None = None  # where a categorical column's values are read

    def range_of(self, column: Column) -> tuple[float, float] | None:
        return next(((lo, hi) for c, lo, hi in self.ranges if c == column), None)


@functools.lru_cache(maxsize=64)
def _manifest_rules(manifest: Path) -> ValueRules | None:
    try:
        mined = json.loads(manifest.read_text())["mined"]

        def pair(name: str) -> Column:
            t, c = name.split(".", 1)
            return (t.lower(), c.lower())

        linked = set()
        for lk in mined.get("links", []):
            linked.update(
                {(str(lk[0]).lower(), str(lk[1]).lower()), (str(lk[2]).lower(), str(lk[3]).lower())}
            )
        return ValueRules(
            categorical=frozenset(pair(n) for n in mined.get("categorical", [])),
            ranges=tuple((pair(n), float(lo), float(hi)) for n, (lo, hi) in mined.get("ranges", {}).items()),
            unique=frozenset(pair(n) for n in mined.get("unique", [])),
            linked=frozenset(linked),
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def value_rules(neighbour: Path) -> ValueRules | None:
    """The rules of the neighbour's set, or None when its manifest cannot be read (values then stay as
    they are: a value cannot be judged realistic without them)."""
    rules = _manifest_rules(neighbour.parent / "manifest.json")
    if rules is None:
        return None
    return ValueRules(rules.categorical, rules.ranges, rules.unique, rules.linked, neighbour)


@dataclass(frozen=True, slots=True)
class _Cell:
    table: str
    column: str
    rowid: int
    value: object
    candidates: tuple[object, ...]


def simplify_values(
    conn: sqlite3.Connection,
    tables: list[str],
    keys: list[ForeignKey],
    rules: ValueRules,
    still_differs: Callable[[set[str]], bool],
    *,
    attempts: int = MAX_ATTEMPTS,
) -> int:
    """Replace long values of `conn`'s `tables` (main schema, rowid tables) by simpler ones while
    `still_differs(changed tables)` holds; the cells changed. `still_differs` runs both queries once."""
    if attempts <= 0:
        return 0
    cells = _long_cells(conn, tables, keys, rules)
    if not cells:
        return 0
    stash = _Stash(conn)
    try:
        return _in_groups(stash, cells, rules, still_differs, attempts)
    finally:
        stash.close()


def _in_groups(
    stash: _Stash,
    cells: list[_Cell],
    rules: ValueRules,
    still_differs: Callable[[set[str]], bool],
    attempts: int,
) -> int:
    """Every cell's first candidate at once; a group that loses the difference is split in halves, and a
    single cell that loses it tries its second candidate. The cells changed."""
    changed = 0
    todo: list[tuple[list[_Cell], int]] = [(cells, 0)]  # (cells, which candidate)
    while todo and attempts > 0:
        group, which = todo.pop(0)
        made = stash.apply([(c, c.candidates[which]) for c in group], rules)
        if made:
            attempts -= 1
            if still_differs({c.table for c, _ in made}):
                changed += len(made)
                continue
            stash.undo()
        if len(group) > 1:
            half = (len(group) + 1) // 2
            todo += [(group[:half], which), (group[half:], which)]
        elif which + 1 < len(group[0].candidates):
            todo.append((group, which + 1))
    return changed


class _Stash:
    """Cell updates that can be taken back: old values wait in an attached in-memory table."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        conn.execute("ATTACH ':memory:' AS cells")
        conn.execute("CREATE TABLE cells.old (k INTEGER PRIMARY KEY, t, c, r, v)")  # v untyped: kept as is
        self.pending = False

    def apply(self, changes: list[tuple[_Cell, object]], rules: ValueRules) -> list[tuple[_Cell, object]]:
        """Make the changes SQLite and the mined unique columns accept (the others are skipped); those made."""
        self.conn.execute("DELETE FROM cells.old")
        made: list[tuple[_Cell, object]] = []
        for k, (cell, value) in enumerate(changes):
            t, c = quoted(cell.table), quoted(cell.column)
            self.conn.execute(
                f"INSERT INTO cells.old SELECT ?, ?, ?, rowid, {c} FROM main.{t} WHERE rowid = ?",
                (k, cell.table, cell.column, cell.rowid),
            )
            try:
                self.conn.execute(f"UPDATE main.{t} SET {c} = ? WHERE rowid = ?", (value, cell.rowid))
            except sqlite3.IntegrityError:  # a key, UNIQUE, NOT NULL or CHECK constraint refused it
                self.conn.execute("DELETE FROM cells.old WHERE k = ?", (k,))
                continue
            if (cell.table.lower(), cell.column.lower()) in rules.unique and _repeats(self.conn, t, c):
                self._restore(k)
                continue
            made.append((cell, value))
        self.pending = bool(made)
        return made

    def _restore(self, k: int) -> None:
        t, c, r = self.conn.execute("SELECT t, c, r FROM cells.old WHERE k = ?", (k,)).fetchone()
        self.conn.execute(
            f"UPDATE main.{quoted(t)} SET {quoted(c)} = (SELECT v FROM cells.old WHERE k = ?) WHERE rowid = ?",
            (k, r),
        )
        self.conn.execute("DELETE FROM cells.old WHERE k = ?", (k,))

    def undo(self) -> None:
        for (k,) in self.conn.execute("SELECT k FROM cells.old ORDER BY k DESC").fetchall():
            self._restore(k)
        self.pending = False

    def close(self) -> None:
        self.conn.execute("DETACH cells")


def _repeats(conn: sqlite3.Connection, t: str, c: str) -> bool:
    sql = f"SELECT count({c}) - count(DISTINCT {c}) FROM main.{t}"
    return bool(conn.execute(sql).fetchone()[0])


def _long_cells(
    conn: sqlite3.Connection, tables: list[str], keys: list[ForeignKey], rules: ValueRules
) -> list[_Cell]:
    """The long cells of non-key columns, in table, column and row order, with their candidates."""
    keyed = {(k.child.lower(), c.lower()) for k in keys for c in k.child_columns}
    keyed |= {(k.parent.lower(), c.lower()) for k in keys for c in k.parent_columns}
    keyed |= rules.linked
    long = (
        f"(typeof(%s) = 'text' AND length(%s) > {LONG_TEXT}) OR (typeof(%s) = 'integer' AND abs(%s) >= "
        f"{LONG_INT}) OR (typeof(%s) = 'real' AND (abs(%s) >= {LONG_INT} OR round(%s, 2) <> %s))"
    )
    out: list[_Cell] = []
    for table in tables:
        if conn.execute(f"SELECT 1 FROM main.{quoted(table)} LIMIT 1").fetchone() is None:
            continue  # most tables of a witness are empty
        info = conn.execute(f"PRAGMA main.table_xinfo({quoted(table)})").fetchall()
        for r in info:
            name, pk, hidden = r[1], r[5], r[6]
            column = (table.lower(), name.lower())
            if pk or hidden or column in keyed:
                continue
            c = quoted(name)
            found = conn.execute(
                f"SELECT rowid, {c} FROM main.{quoted(table)} WHERE {long % ((c,) * 8)} ORDER BY rowid"
            ).fetchall()
            for rowid, value in found:
                candidates = _candidates(value, column, rules, conn, table)
                if candidates:
                    out.append(_Cell(table, name, rowid, value, candidates))
                if len(out) >= MAX_CELLS:
                    return out
    return out


def _candidates(
    value: object, column: Column, rules: ValueRules, conn: sqlite3.Connection, table: str
) -> tuple[object, ...]:
    """Up to two simpler values for one cell, simplest first, each keeping the column's mined rule."""
    if isinstance(value, str):
        if "\ufffd" in value:
            return ()  # not valid UTF-8: its exact bytes cannot be told apart from a candidate's
        if column in rules.categorical:
            return _domain_values(rules, table, column[1], value)
        found: list[object] = []
        for size in (4, 10):
            short = value[:size].rstrip() or value[:size]
            if short != value and short not in found:
                found.append(short)
        return tuple(found)
    if column in rules.categorical or isinstance(value, bool) or not isinstance(value, int | float):
        return ()
    if isinstance(value, int):  # its two leading digits, then the value rounded to them
        options: list[float] = [int(str(abs(value))[:2]) * (1 if value >= 0 else -1), _round_to(value, 2)]
    else:  # a whole number, then two decimals
        whole = float(round(value)) if abs(value) < LONG_INT else float(_round_to(value, 2))
        options = [whole, round(value, 2)]
    bounds = rules.range_of(column)
    kept: list[object] = []
    for v in options:
        if v == value or v in kept or (bounds is not None and not bounds[0] <= v <= bounds[1]):
            continue
        kept.append(v)
    return tuple(kept)


def _round_to(value: float, significant: int) -> int:
    """`value` rounded to its leading `significant` digits, as an integer (1837462918 -> 1800000000)."""
    scale = 10 ** max(0, len(str(int(abs(value)))) - significant)
    return int(round(value / scale) * scale)


def _domain_values(rules: ValueRules, table: str, column: str, value: str) -> tuple[object, ...]:
    """The two shortest texts the neighbour holds in a categorical column (all values of its domain),
    shorter than `value`."""
    if rules.neighbour is None:
        return ()
    return tuple(v for v in _texts_of(rules.neighbour, table.lower(), column)[:2] if len(v) < len(value))


@functools.lru_cache(maxsize=256)
def _texts_of(neighbour: Path, table: str, column: str) -> tuple[str, ...]:
    """A neighbour's distinct texts in one column, shortest first (a neighbour file never changes)."""
    try:
        conn = sqlite3.connect(f"file:{quote(str(neighbour.resolve()))}?mode=ro", uri=True)
    except sqlite3.Error:
        return ()
    try:
        conn.text_factory = lambda raw: raw.decode("utf-8", errors="replace")
        found = conn.execute(
            f"SELECT DISTINCT {quoted(column)} FROM {quoted(table)} WHERE typeof({quoted(column)}) = 'text'"
        ).fetchall()
    except sqlite3.Error:
        return ()
    finally:
        conn.close()
    texts = [r[0] for r in found if "\ufffd" not in r[0]]
    return tuple(sorted(texts, key=lambda s: (len(s), s)))
