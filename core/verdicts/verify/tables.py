"""Symbolic tables: up to `bound` rows per table, each row a presence flag and one symbolic value per column,
with the integrity constraints a real database of this schema keeps.

Declared constraints: primary keys and UNIQUE (no two present rows share a non-NULL key), NOT NULL, and
foreign keys (declared ones, and the `tables.json` ones of tables that declare none) between the tables
encoded. Mined from the original's values, as the neighbour generator mines them (testsuite/mine.py), so a
counterexample is data the database could hold: a column never NULL over at least `EVIDENCE_ROWS` rows stays
non-NULL, a categorical column draws from its values and the golds' and the pair's literals, and what
practice.py reads (columns unique in practice, inclusion links, tables the original fills never empty).
Rows are present as a prefix (row i only if row i−1): any table of at most `bound` rows can be listed that way, and it prunes the search.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import z3

import sqltriage.core.verdicts.verify.symbolic as s
from sqltriage.core.verdicts.verify.practice import NONE, Practice
from sqltriage.core.verdicts.verify.symbolic import Unsupported, Val, compare, fresh, real_val, same

_NUMERIC = ("INT", "REAL", "FLOA", "DOUB", "DEC", "NUM", "BOOL")
_TABLES: OrderedDict[tuple, tuple[Any, list[Any]]] = OrderedDict()  # SymDatabase._cache_key → rows, rules
_TABLES_SIZE = 256


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    kind: str  # "int" | "real" | "str"
    not_null: bool
    domain: tuple = ()  # mined categorical domain (empty: any value of the sort)
    affinity: str = "text"  # "numeric": text under a declared type of NUMERIC/INTEGER/REAL affinity
    shape: str | None = None  # "date" | "datetime": every value an ISO date of that shape (date_shape)


@dataclass(slots=True)
class SymTable:
    name: str
    columns: list[Column]
    rows: list[tuple[Any, dict[str, Val]]] = field(default_factory=list)  # (present, column → value)


@functools.lru_cache(maxsize=16)
def db_info(path: Path, extra_fks: tuple = (), practice: Practice = NONE) -> Any:
    from sqltriage.core.verdicts.testsuite.mine import CATEGORICAL_MAX, CATEGORICAL_ROWS, EVIDENCE_ROWS
    from sqltriage.core.verdicts.testsuite.schema import read_db

    info = read_db(path, extra_fks, practice.primary)
    _keep_in_practice(info, practice)
    domains = dict(practice.domains)
    out = {}
    for t in info.tables:
        cols = []
        for c in t.columns:
            present = [v for v in c.values if v is not None]
            shape = date_shape(c.declared, present)
            kind = "str" if shape is not None else _kind(c.declared, present)
            if kind is None:
                cols.append(Column(c.name, "mixed", False))
                continue
            not_null = (
                c.not_null
                or (c.pk and kind == "int")
                or (len(c.values) >= EVIDENCE_ROWS and not (len(present) < len(c.values)))
            )
            distinct = set(present)
            ref = (t.name.lower(), c.name.lower())
            keyish = (
                c.pk or c.unique or any(fk[0] == c.name for fk in t.foreign_keys) or ref in practice.joined
            )
            domain: tuple = ()
            if shape is not None and not all(_shape_fits(shape, v) for v in present):
                pass  # a declared date column holding other values: they say nothing of its dates
            elif practice.digest:  # the neighbours' own rules, literals of every gold included
                domain = tuple(v for v in domains.get(ref, ()) if _fits(kind, v))
            elif (
                not keyish
                and kind != "real"
                and len(present) >= CATEGORICAL_ROWS
                and len(distinct) <= CATEGORICAL_MAX
                and len(present) >= 2 * len(distinct)
            ):
                domain = tuple(sorted(distinct, key=repr))
            # text under a number type, and every number column: what a comparison converts (symbolic.py)
            affinity = "numeric" if kind != "str" or _affinity(c.declared) != "TEXT" else "text"
            cols.append(Column(c.name, kind, not_null, domain, affinity, shape))
        out[t.name.lower()] = (t, cols)
    return out


def _keep_in_practice(info: Any, practice: Practice) -> None:
    """Columns unique in practice as UNIQUE ones, inclusion links as foreign keys (practice.py: why)."""
    for t in info.tables:
        low = t.name.lower()
        for c in t.columns:
            if (low, c.name.lower()) in practice.unique:
                c.unique = True
        declared = {fk[0].lower() for fk in t.foreign_keys}
        for child, column, parent, parent_column in practice.links:
            col = t.column(column) if child == low else None
            par = info.table(parent)
            target = par.column(parent_column) if par is not None else None
            if col is None or target is None or column in declared:
                continue
            t.foreign_keys.append((col.name, par.name, target.name))
            declared.add(column)


def _kind(declared: str, present: list) -> str | None:
    """The sort of a column: its values' Python types when it has any, else its declared type's affinity.
    None when ints or reals mix with text (SQLite allows it; the encoding does not)."""
    types = {type(v) for v in present}
    if types and types <= {int}:
        return "int"
    if types and types <= {int, float}:
        return "real"
    if types and types <= {str}:
        return "str"
    if types:
        return None
    d = declared.upper()
    if "INT" in d:
        return "int"
    if any(k in d for k in _NUMERIC):
        return "real"
    return "str"


_ISO = {
    "date": re.compile(r"\d{4}-\d\d-\d\d"),
    "datetime": re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{1,3})?"),
}


def _affinity(declared: str) -> str:
    """SQLite's affinity of a declared type (section 3.1 of its datatype page), BLOB folded into TEXT."""
    d = declared.upper()
    if "INT" in d:
        return "INTEGER"
    if any(k in d for k in ("CHAR", "CLOB", "TEXT")) or "BLOB" in d or not d:
        return "TEXT"
    if any(k in d for k in ("REAL", "FLOA", "DOUB")):
        return "REAL"
    return "NUMERIC"


def date_shape(declared: str, present: list) -> str | None:
    """The ISO shape of the column's dates, when it is a column of dates: declared DATE, DATETIME or
    TIMESTAMP (NUMERIC affinity), or any other type with at least `EVIDENCE_ROWS` values all of one shape.
    The symbolic column then holds only valid dates of that shape, which is what lets STRFTIME, DATE and
    the rest read them as SQLite does (functions.py).

    A declared date column is taken at its word: BIRD's hold ISO text, the shape its text values share or
    else the one its type names. Its other values are not encoded: a generated database's random words
    and the year literals of the golds planted there (which NUMERIC affinity stored as integers) are no
    data a BIRD database holds (docs/verification.md, "Dates": the assumption and what it costs)."""
    from sqltriage.core.verdicts.testsuite.mine import EVIDENCE_ROWS

    texts = [v for v in present if isinstance(v, str)]
    upper = declared.upper()
    dated = any(k in upper for k in ("DATE", "TIMESTAMP")) and _affinity(declared) == "NUMERIC"
    if not dated and (not texts or len(texts) < len(present) or len(texts) < EVIDENCE_ROWS):
        return None
    for shape, pattern in _ISO.items():
        if texts and all(pattern.fullmatch(v) and _valid_date(v) for v in texts):
            return shape
    if not dated:
        return None
    return "datetime" if "TIME" in upper else "date"


def _shape_fits(shape: str, v: object) -> bool:
    return isinstance(v, str) and bool(_ISO[shape].fullmatch(v)) and _valid_date(v)


def _valid_date(text: str) -> bool:
    """A real calendar day and time (SQLite would roll 2019-02-31 over into March: not read as written)."""
    import datetime

    try:
        datetime.date(int(text[:4]), int(text[5:7]), int(text[8:10]))
        if len(text) > 10:
            datetime.time(int(text[11:13]), int(text[14:16]), int(text[17:19]))
    except ValueError:
        return False
    return text[:4] != "0000"


class SymDatabase:
    """The symbolic tables the queries read, created on first use, and the constraints among them."""

    def __init__(
        self, path: Path, bound: int, literals: frozenset, extra_fks: tuple = (), practice: Practice = NONE
    ) -> None:
        self.info = db_info(path, extra_fks, practice)
        self.source = (str(path), extra_fks, practice)
        self.bound = bound
        self.literals = literals
        # In one order whatever the process's string hashing: the order of the formula's terms steers z3's
        # search, so a set's order would make the model (the witness) differ from one process to the next.
        self.ordered_literals = tuple(sorted(literals, key=repr))
        self.tables: dict[str, SymTable] = {}
        self.constraints: list[Any] = []
        self._done_fks: set[tuple] = set()

    def copy(self) -> SymDatabase:
        """The same tables and constraints, to be extended apart (a gold's encoding, reused per prediction)."""
        out = object.__new__(SymDatabase)
        out.info, out.source, out.bound, out.literals = self.info, self.source, self.bound, self.literals
        out.ordered_literals = self.ordered_literals
        out.tables, out.constraints, out._done_fks = (
            dict(self.tables),
            list(self.constraints),
            set(self._done_fks),
        )
        return out

    def table(self, name: str) -> SymTable:
        low = name.lower()
        if low in self.tables:
            return self.tables[low]
        if low not in self.info:
            raise Unsupported(f"table {name} is not in the database")
        info, cols = self.info[low]
        key = self._cache_key(low, cols)
        cached = _TABLES.get(key)
        if cached is None:
            cached = self._build(info, cols)
            _TABLES[key] = cached
            while len(_TABLES) > _TABLES_SIZE:
                _TABLES.popitem(last=False)
        t, rules = cached
        self.constraints.extend(rules)
        self.tables[low] = t
        self._foreign_keys()
        return t

    def _cache_key(self, low: str, cols: list[Column]) -> tuple:
        """What a table's rows and own rules depend on: the schema, the bound, the text code's presence,
        and, when a column is categorical, the pair's literals and the code's constants."""
        codes = s.text_codes()
        categorical = any(c.domain for c in cols)
        return (
            self.source,
            low,
            self.bound,
            codes is None,
            self.literals if categorical else None,
            tuple(codes.book) if categorical and codes is not None else None,
        )

    def _build(self, info: Any, cols: list[Column]) -> tuple[SymTable, list[Any]]:
        """A table's symbolic rows and its own rules (foreign keys apart, which depend on the tables
        beside it). The same for every pair that reads it alike: z3 terms are named, so building again
        would give the same terms, and a gold is checked against each model's prediction in turn."""
        t = SymTable(info.name, cols)
        before = len(self.constraints)
        prev = None
        for i in range(self.bound):
            present = z3.Bool(f"{info.name}#{i}")
            values: dict[str, Val] = {}
            for c in cols:
                if c.kind == "mixed":
                    continue
                v = fresh(c.kind, f"{info.name}#{i}.{c.name}")
                # not null: a constant NULL flag, so the NULL logic over it folds away
                v = Val(v.kind, v.v, s.FALSE if c.not_null else v.null, c.affinity, c.shape)
                if c.kind == "str" and s.text_codes() is not None:
                    self.constraints.append(v.v >= 0)  # no text sorts below the empty one (code 0)
                if c.shape is not None and s.text_codes() is None:
                    self.constraints.append(s.implies(s.not_(v.null), iso_date(v.v, c.shape)))
                values[c.name.lower()] = v
                self._column_rules(present, v, c)
            if prev is not None:
                self.constraints.append(s.implies(present, prev))
            t.rows.append((present, values))
            prev = present
        if info.rows > 0 and t.rows:
            self.constraints.append(t.rows[0][0])  # a table the original fills is never empty (practice.py)
        self._keys(t, info)
        self._ascending(t, info)
        rules = self.constraints[before:]
        del self.constraints[before:]
        return t, rules

    def _column_rules(self, present: Any, v: Val, c: Column) -> None:
        if not c.not_null:
            self.constraints.append(s.implies(s.not_(present), v.null))  # absent rows hold NULLs: one model
        if c.domain:
            allowed = [x for x in (*c.domain, *self.ordered_literals) if _fits(c.kind, x)]
            if allowed:
                self.constraints.append(
                    s.implies(s.not_(v.null), s.or_(*[v.v == _z3(c.kind, x) for x in allowed]))
                )

    def _keys(self, t: SymTable, info: Any) -> None:
        groups = [g for g in [info.pk_columns, *info.unique_groups] if g]
        groups += [(c.name,) for c in info.columns if c.unique]
        for g in sorted(
            {tuple(x.lower() for x in g) for g in groups}
        ):  # sorted: the same formula in any process
            if any(col not in t.rows[0][1] for col in g):
                continue
            for i in range(len(t.rows)):
                for j in range(i + 1, len(t.rows)):
                    (pi, vi), (pj, vj) = t.rows[i], t.rows[j]
                    clash = [s.and_(s.not_(vi[c].null), same(vi[c], vj[c])) for c in g]
                    self.constraints.append(s.not_(s.and_(pi, pj, *clash)))

    def _ascending(self, t: SymTable, info: Any) -> None:
        """Present rows in ascending order of a primary key of one column that is never NULL. The queries'
        results do not depend on the order of a table's rows (every order SQL leaves open is a free
        choice), so any database is one of these with its rows renamed: the same answers, and the solver
        does not explore the orderings of every table's rows. A text key counts when text is encoded as
        integers in its own order."""
        if len(info.pk_columns) != 1:
            return
        key = info.pk_columns[0].lower()
        ordered = ("int", "real", "str") if s.text_codes() is not None else ("int", "real")
        column = next((c for c in t.columns if c.name.lower() == key), None)
        if column is None or not column.not_null or column.kind not in ordered:
            return
        for (_, a), (present, b) in itertools.pairwise(t.rows):
            self.constraints.append(s.implies(present, s.relation("<", a[key].v, b[key].v)))

    def _foreign_keys(self) -> None:
        """Each foreign key whose both tables are encoded, once both are."""
        for low, t in self.tables.items():
            info = self.info[low][0]
            for col, parent_name, parent_col in info.foreign_keys:
                key = (low, col.lower(), parent_name.lower(), parent_col.lower())
                parent = self.tables.get(parent_name.lower())
                if parent is None or key in self._done_fks:
                    continue
                self._done_fks.add(key)
                if col.lower() not in t.rows[0][1] or parent_col.lower() not in parent.rows[0][1]:
                    continue
                for present, values in t.rows:
                    v = values[col.lower()]
                    found = [s.and_(pp, _references(v, pv[parent_col.lower()])) for pp, pv in parent.rows]
                    self.constraints.append(s.implies(s.and_(present, s.not_(v.null)), s.or_(*found)))


def _references(child: Val, parent: Val) -> Any:
    """The child's key equals the parent's, as SQLite compares them; the same value when the affinity rules
    refuse the comparison (a DATE column referencing a TEXT one): the key holds the parent's value."""
    try:
        return compare("=", child, parent).t
    except Unsupported:
        return s.and_(s.not_(child.null), same(child, parent))


def iso_date(v: Any, shape: str) -> Any:
    """`v` (a z3 string) is a valid date of `shape`: digits in place, a month of 1..12, a day the month
    has (29 February in leap years only), hours below 24, minutes and seconds below 60. Under the integer
    code text has no characters: the column is then any text, a wider set of databases, which is sound
    for `verified` (a refutation is run in SQLite before it is believed)."""
    digit = z3.Range("0", "9")

    def digits(n: int) -> Any:
        return z3.Loop(digit, n, n)

    parts = [digits(4), z3.Re("-"), digits(2), z3.Re("-"), digits(2)]
    if shape == "datetime":
        fraction = z3.Option(z3.Concat(z3.Re("."), z3.Loop(digit, 1, 3)))  # milliseconds: no rounding
        parts += [z3.Re(" "), digits(2), z3.Re(":"), digits(2), z3.Re(":"), digits(2), fraction]
    year, month, day = (z3.StrToInt(z3.SubString(v, i, n)) for i, n in ((0, 4), (5, 2), (8, 2)))
    leap = z3.And(year % 4 == 0, z3.Or(year % 100 != 0, year % 400 == 0))
    days = z3.If(
        month == 2, z3.If(leap, 29, 28), z3.If(z3.Or(month == 4, month == 6, month == 9, month == 11), 30, 31)
    )
    rules = [z3.InRe(v, z3.Concat(*parts)), year >= 1, month >= 1, month <= 12, day >= 1, day <= days]
    if shape == "datetime":
        hour, minute, second = (z3.StrToInt(z3.SubString(v, i, 2)) for i in (11, 14, 17))
        rules += [hour <= 23, minute <= 59, second <= 59]
    return z3.And(*rules)


def _fits(kind: str, x: object) -> bool:
    if kind == "str":
        return isinstance(x, str)
    return isinstance(x, int | float) and not isinstance(x, bool) and (kind == "real" or isinstance(x, int))


def _z3(kind: str, x: object) -> Any:
    if kind == "str":
        return s.const(str(x)).v
    if kind == "int":
        return z3.IntVal(int(x))  # type: ignore[call-overload]
    return real_val(float(x))  # type: ignore[arg-type]
