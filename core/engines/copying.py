"""Reading a SQLite database for a copy into a server: what type each column gets, and its rows.

SQLite's types are declared but not enforced (a column declared INTEGER may hold text), while a server's
are. Each column keeps a type of its declared family when every stored value fits it, and otherwise
becomes text, with a note saying so: a copy never fails nor silently alters a value for a type. Dates and
timestamps become the server's date types only when every value is an ISO date (so `EXTRACT` works as the
dialect's gold queries expect); otherwise they stay text, as SQLite holds them.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sqltriage.core.engines.base import DbSchema, TableInfo

# booleans stay integers (as SQLite holds them): the dialects' gold queries compare them with 0 and 1
KINDS = ("integer", "bigint", "double", "decimal", "text", "blob", "date", "timestamp")
_DECIMAL = re.compile(r"(?:decimal|numeric)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)", re.I)
_VARCHAR = re.compile(r"(?:var)?char(?:acter)?(?:\s+varying)?\s*\(\s*(\d+)\s*\)", re.I)
INT32 = 2**31 - 1


@dataclass(frozen=True, slots=True)
class ColumnPlan:
    """A column's target type, engine-neutral: `kind` one of KINDS, `length` the longest text in it."""

    name: str
    kind: str
    declared: str
    length: int = 0  # characters of the longest text value (sizes MySQL's key columns)
    precision: tuple[int, int] | None = None  # DECIMAL(p, s) as declared, when the values fit


def open_source(path: Path) -> sqlite3.Connection:
    """A read-only connection whose text that is not UTF-8 comes back with U+FFFD (as evaluation reads it)."""
    conn = sqlite3.connect(f"file:{path.resolve()}?mode=ro", uri=True)
    conn.text_factory = lambda raw: raw.decode("utf-8", errors="replace")
    return conn


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def affinity(declared: str) -> str:
    """SQLite's column affinity rules (section 3.1 of its datatype documentation)."""
    d = declared.upper()
    if "INT" in d:
        return "integer"
    if any(k in d for k in ("CHAR", "CLOB", "TEXT")):
        return "text"
    if not d or "BLOB" in d:
        return "blob"
    if any(k in d for k in ("REAL", "FLOA", "DOUB")):
        return "real"
    return "numeric"


def key_partners(schema: DbSchema) -> dict[tuple[str, str], str]:
    """(table, column) → the declared type of the column a foreign key joins it with, both ways."""
    declared = {(t.name.lower(), c.name.lower()): c.type for t in schema.tables for c in t.columns}
    out: dict[tuple[str, str], str] = {}
    for t in schema.tables:
        for fk in t.foreign_keys:
            for a, b in zip(fk.columns, fk.ref_columns, strict=False):
                here, there = (t.name.lower(), a.lower()), (fk.ref_table.lower(), (b or "").lower())
                if there in declared:
                    out.setdefault(here, declared[there])
                    out.setdefault(there, declared[here])
    return out


def plan_table(
    conn: sqlite3.Connection, table: TableInfo, partners: dict[tuple[str, str], str] | None = None
) -> tuple[list[ColumnPlan], list[str]]:
    """The target type of each column and notes on those that could not keep their declared family.

    With `partners` (`db copy --numbers-from-text`), a column declared text holding only numbers written as
    text (Spider's `Year`, ids declared text) becomes a number, unless a foreign key joins it to a text
    column: SQLite compares it with numbers by value (its type affinity), where a server would refuse
    `text = integer` or compare text. Off by default: BIRD's golds read such columns as text (`SUBSTR` of
    yearmonth's `Date`, '201201'), as its PostgreSQL and MySQL versions declare them."""
    plans, notes = [], []
    t = _q(table.name)
    for col in table.columns:
        c = _q(col.name)
        kinds = dict(conn.execute(f"SELECT typeof({c}), count(*) FROM {t} GROUP BY 1").fetchall())
        kinds.pop("null", None)
        length = conn.execute(f"SELECT max(length(CAST({c} AS TEXT))) FROM {t}").fetchone()[0] or 0
        declared = col.type
        aff, d = affinity(declared), declared.lower()
        kind = _kind(conn, t, c, aff, d, set(kinds))
        partner = (partners or {}).get((table.name.lower(), col.name.lower()))
        if (
            partners is not None
            and kind == "text"
            and kinds == {"text": kinds.get("text", 0)}
            and (partner is None or affinity(partner) != "text")
        ):
            odd, fractions = conn.execute(
                f"SELECT sum({c} NOT GLOB '[0-9]*' AND {c} NOT GLOB '-[0-9]*' OR {c} GLOB '*[^0-9.-]*'"
                f" OR {c} GLOB '?*-*' OR {c} GLOB '*.*.*' OR {c} GLOB '*.' OR {c} GLOB '0[0-9]*'"
                f" OR length({c}) > 18), sum({c} GLOB '*.*') FROM {t} WHERE {c} IS NOT NULL"
            ).fetchone()
            if not odd:
                kind = "double" if fractions else "integer"
                notes.append(f"{table.name}.{col.name}: declared {declared} but holds only numbers: copied as "
                             f"{'a real' if fractions else 'an integer'} (SQLite compares it with numbers by "
                             "value, a server would refuse or compare as text)")  # fmt: skip
        precision = None
        if kind == "double" and (m := _DECIMAL.search(declared)) and set(kinds) <= {"integer", "real"}:
            kind, precision = "decimal", (int(m.group(1)), int(m.group(2) or 0))
            too_big = (
                conn.execute(
                    f"SELECT count(*) FROM {t} WHERE abs({c}) >= power(10, ?) OR round({c}, ?) != {c}",
                    (precision[0] - precision[1], precision[1]),
                ).fetchone()[0]
                if _has_power(conn)
                else 1
            )
            if too_big:
                kind, precision = "double", None
        if kind == "integer":
            lo, hi = conn.execute(
                f"SELECT min(CAST({c} AS INTEGER)), max(CAST({c} AS INTEGER)) FROM {t}"
            ).fetchone()
            if lo is not None and (lo < -INT32 - 1 or hi > INT32):
                kind = "bigint"
        widened = aff in ("integer", "real", "numeric") or (aff == "blob" and set(kinds) != {"text"})
        if kind == "text" and kinds and widened and not ("date" in d or "time" in d):
            notes.append(f"{table.name}.{col.name}: declared {declared or 'without a type'} but holds "
                         f"{', '.join(sorted(kinds))} values: copied as text")  # fmt: skip
        plans.append(ColumnPlan(col.name, kind, declared, int(length), precision))
    return plans, notes


def _has_power(conn: sqlite3.Connection) -> bool:
    try:
        conn.execute("SELECT power(10, 2)")
    except sqlite3.OperationalError:
        return False
    return True


def _kind(conn: sqlite3.Connection, t: str, c: str, aff: str, d: str, kinds: set[str]) -> str:
    if "blob" in kinds:
        return "blob" if kinds == {"blob"} else "text"
    if ("date" in d or "time" in d) and kinds <= {"text"} and "int" not in d:
        if "time" in d or "datetime" in d:
            bad = conn.execute(
                f"SELECT count(*) FROM {t} WHERE {c} IS NOT NULL AND (datetime({c}) IS NULL"
                f" OR length({c}) NOT IN (10, 16, 19) OR substr({c}, 1, 10) != date({c}))"
            ).fetchone()[0]
            if not bad and kinds:
                return "timestamp"
        elif "date" in d:
            bad = conn.execute(
                f"SELECT count(*) FROM {t} WHERE {c} IS NOT NULL AND {c} != date({c})"
            ).fetchone()[0]
            if not bad and kinds:
                return "date"
        return "text"
    if aff == "integer":
        if kinds <= {"integer"}:
            return "integer"
        return "double" if kinds <= {"integer", "real"} else "text"
    if aff in ("real", "numeric"):
        if aff == "numeric" and kinds <= {"integer"} and not _DECIMAL.search(d):
            return "integer" if kinds else "double"
        return "double" if kinds <= {"integer", "real"} else "text"
    if aff == "blob":  # no declared type: what the values are
        if not kinds or kinds <= {"text"}:
            return "text"
        if kinds <= {"integer"}:
            return "integer"
        if kinds <= {"integer", "real"}:
            return "double"
        return "text"
    return "text"


def rows(conn: sqlite3.Connection, table: TableInfo, plans: list[ColumnPlan]) -> Iterator[tuple]:
    """The table's rows, each value converted to what its column's target type takes."""
    cols = ", ".join(_q(p.name) for p in plans)
    convert = [_converter(p.kind) for p in plans]
    identity = all(f is None for f in convert)
    for row in conn.execute(f"SELECT {cols} FROM {_q(table.name)}"):
        if identity:
            yield row
        else:
            yield tuple(v if f is None or v is None else f(v) for f, v in zip(convert, row, strict=True))


def _text(v: object) -> str:
    if isinstance(v, bytes):
        v = v.decode("utf-8", errors="replace")
    elif isinstance(v, float) and v.is_integer() and abs(v) < 1e16:
        v = repr(v)  # SQLite's own text of a real keeps its ".0"
    return str(v).replace("\x00", "")  # servers refuse NUL in text


def _converter(kind: str):
    if kind == "integer":
        return int
    if kind == "double":
        return float
    if kind == "text":
        return _text
    return None
