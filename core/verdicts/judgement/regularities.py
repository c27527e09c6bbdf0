"""What the original database's own data shows about each column, so a witness can be held against it.

A refutation rests on a world the question never meant when its witness breaks a regularity the real data
keeps: a name no two rows share, a column that is never NULL, a table that is never empty, a reference that
always resolves, a column that holds a few values only or numbers in a range. These facts are read from the
original file once per process (aggregates over at most `SAMPLE` rows per table), never from the SQL.

A column counts as identifying when its values are all distinct and either the table is large enough for
that to be telling, or it is a key, or its name says it names or identifies something (`name`, `title`,
`code`, `*_id`, ...): in a table of six singers every name differs and so, by chance, may every age, but
only two singers sharing a name is a world the question never meant.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote

from sqltriage.core.model import Schema

SAMPLE = 20_000  # rows per table the facts are read from
DOMAIN_MAX = 12  # at most this many distinct values, each seen twice on average: a closed domain
DOMAIN_REPEAT = 2
UNIQUE_TELLING_ROWS = 30  # all distinct over this many rows tells, whatever the column's name
MOSTLY_DISTINCT = 0.9  # a naming column this distinct identifies, though a few values repeat
_NAMING = re.compile(
    r"(^|_)(name|title|code|id|key|email|mail|phone|url|isbn|ssn|login|username|number|no)s?$|name$|title$|id$",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class ColumnFacts:
    rows: int  # rows read from the table
    nulls: int
    distinct: int
    kind: str  # "int", "real", "text", "mixed" or "empty": what the non-NULL values are
    low: float | None = None  # numeric range of the values
    high: float | None = None
    domain: frozenset | None = None  # the closed set of values, when there are few and they repeat
    key: bool = False  # a declared primary key column (alone)
    integer_text: bool = False  # text whose every value is an integer as written ('12', never '012')

    @property
    def never_null(self) -> bool:
        return self.rows > 0 and self.nulls == 0

    @property
    def all_distinct(self) -> bool:
        return self.rows >= 2 and self.distinct == self.rows - self.nulls and self.nulls == 0

    def identifying(self, name: str) -> bool:
        """No two rows may share a value in a realistic database: all values distinct, and telling (a key,
        enough rows, or a name that names); or a naming text column whose values are nearly all
        distinct (a few people share a first name; two rows sharing the one asked about is still a world
        the question never meant)."""
        if self.kind in ("real", "empty", "mixed"):
            return False
        naming = bool(_NAMING.search(name))
        if self.all_distinct:
            return self.key or self.rows >= UNIQUE_TELLING_ROWS or naming
        present = self.rows - self.nulls
        return self.kind == "text" and naming and present >= 10 and self.distinct >= MOSTLY_DISTINCT * present


@dataclass(slots=True)
class Regularities:
    """Per table (lower case): its row count and, per column (lower case), its facts."""

    tables: dict[str, int] = field(default_factory=dict)
    columns: dict[tuple[str, str], ColumnFacts] = field(default_factory=dict)
    names: dict[tuple[str, str], str] = field(default_factory=dict)  # (table, column) lower → as spelled
    table_names: dict[str, str] = field(default_factory=dict)
    references: set[tuple[str, str]] = field(default_factory=set)  # both ends of every declared foreign key
    links: set[tuple[tuple[str, str], tuple[str, str]]] = field(default_factory=set)  # (child, parent) keys
    _values: dict[tuple[str, str], frozenset] = field(default_factory=dict)
    _counts: dict[tuple, int] = field(default_factory=dict)
    path: Path | None = None
    # The schema alone (no `path`): a database generated from it whose values and rows a repair may write,
    # since the schema leaves values free (`with_stand_ins`). Never read as evidence of what data holds.
    stand_ins: Path | None = None
    _stand_in_values: dict[tuple[str, str], frozenset] = field(default_factory=dict)

    def facts(self, table: str, column: str) -> ColumnFacts | None:
        return self.columns.get((table.lower(), column.lower()))

    def values(self, table: str, column: str) -> frozenset:
        """The column's distinct values (read on first use: only inclusion checks need them)."""
        key = (table.lower(), column.lower())
        if key not in self._values:
            self._values[key] = _read_values(self, key)
        return self._values[key]

    def repair_values(self, table: str, column: str) -> frozenset:
        """Values a repair may write into the column: the data's, or with no data the stand-in database's."""
        if self.path is not None or self.stand_ins is None:
            return self.values(table, column)
        key = (table.lower(), column.lower())
        if key not in self._stand_in_values:
            self._stand_in_values[key] = _read_values(self, key, self.stand_ins)
        return self._stand_in_values[key]

    @property
    def rows_source(self) -> Path | None:
        """Where a repair takes a row to fill an empty table from: the data, else the stand-in database."""
        return self.path if self.path is not None else self.stand_ins

    def count(
        self, table: str, column: str, equal: dict[str, object] | None = None, null: bool = False
    ) -> int:
        """Rows of the original whose `column` is NULL (`null`) or not, and whose other columns hold the
        values `equal` gives (column → value, compared as SQLite's `=` does): what the data shows about the
        rows a question names by its literals. -1 when it cannot be read."""
        low = table.lower()
        if self.path is None or low not in self.table_names or (low, column.lower()) not in self.names:
            return -1
        conds = [f"{_q(self.names[(low, column.lower())])} IS {'' if null else 'NOT '}NULL"]
        args: list[object] = []
        for col, value in (equal or {}).items():
            if (low, col.lower()) not in self.names:
                return -1
            conds.append(f"{_q(self.names[(low, col.lower())])} = ?")
            args.append(value)
        key = (low, " AND ".join(conds), tuple(map(repr, args)))
        if key not in self._counts:  # asked again for each model predicting the same query
            sql = f"SELECT count(*) FROM (SELECT * FROM {_q(self.table_names[low])} LIMIT {SAMPLE}) WHERE "
            conn = _connect(self.path)
            try:
                self._counts[key] = int(conn.execute(sql + " AND ".join(conds), args).fetchone()[0])
            except sqlite3.Error:
                self._counts[key] = -1
            finally:
                conn.close()
        return self._counts[key]


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True, isolation_level=None)
    conn.text_factory = lambda raw: raw.decode("utf-8", errors="replace")
    conn.execute("PRAGMA query_only = ON")
    return conn


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def regularities(path: Path) -> Regularities:
    """The facts of the database at `path`, read once per process and file version."""
    p = Path(path)
    stat = p.stat()
    return _cached(str(p.resolve()), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=32)
def _cached(path: str, _mtime: int, _size: int) -> Regularities:
    out = Regularities(path=Path(path))
    conn = _connect(Path(path))
    try:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        for t in tables:
            _read_table(conn, t, out)
    finally:
        conn.close()
    return out


def _read_table(conn: sqlite3.Connection, table: str, out: Regularities) -> None:
    info = conn.execute(f"PRAGMA table_info({_q(table)})").fetchall()
    cols = [r[1] for r in info]
    pks = [r[1] for r in info if r[5]]
    low_t = table.lower()
    out.table_names[low_t] = table
    for fk in conn.execute(f"PRAGMA foreign_key_list({_q(table)})").fetchall():
        out.references.add((low_t, str(fk[3]).lower()))
        if fk[4] is not None:
            out.references.add((str(fk[2]).lower(), str(fk[4]).lower()))
            out.links.add(((low_t, str(fk[3]).lower()), (str(fk[2]).lower(), str(fk[4]).lower())))
    sample = f"(SELECT * FROM {_q(table)} LIMIT {SAMPLE})"
    try:
        rows = conn.execute(f"SELECT count(*) FROM {sample}").fetchone()[0]
    except sqlite3.Error:
        return
    out.tables[low_t] = rows
    for c in cols:
        qc = _q(c)
        try:
            nulls, distinct, low, high = conn.execute(
                f"SELECT count(*) - count({qc}), count(DISTINCT {qc}), "
                f"min(CASE WHEN typeof({qc}) IN ('integer','real') THEN {qc} END), "
                f"max(CASE WHEN typeof({qc}) IN ('integer','real') THEN {qc} END) FROM {sample}"
            ).fetchone()
            types = {
                r[0]
                for r in conn.execute(f"SELECT DISTINCT typeof({qc}) FROM {sample} WHERE {qc} IS NOT NULL")
            }
            integer_text = (
                "text" in types
                and not conn.execute(
                    f"SELECT 1 FROM {sample} WHERE typeof({qc}) = 'text' AND "
                    f"CAST(CAST({qc} AS INTEGER) AS TEXT) != {qc} LIMIT 1"
                ).fetchone()
            )
            domain = None
            if 0 < distinct <= DOMAIN_MAX and rows - nulls >= DOMAIN_REPEAT * distinct:
                domain = frozenset(r[0] for r in conn.execute(f"SELECT DISTINCT {qc} FROM {sample}"))
        except sqlite3.Error:
            continue
        kind = _kind(types)
        out.names[(low_t, c.lower())] = c
        out.columns[(low_t, c.lower())] = ColumnFacts(
            rows=rows,
            nulls=nulls,
            distinct=distinct,
            kind=kind,
            low=low if kind in ("int", "real") else None,
            high=high if kind in ("int", "real") else None,
            domain=domain,
            key=len(pks) == 1 and pks[0] == c,
            integer_text=bool(integer_text) and kind == "text",
        )


def _kind(types: set[str]) -> str:
    if not types:
        return "empty"
    if types == {"integer"}:
        return "int"
    if types <= {"integer", "real"}:
        return "real"
    if types == {"text"}:
        return "text"
    return "mixed"


def _read_values(regs: Regularities, key: tuple[str, str], path: Path | None = None) -> frozenset:
    path = path if path is not None else regs.path
    if path is None or key not in regs.names:
        return frozenset()
    table, column = regs.table_names[key[0]], regs.names[key]
    conn = _connect(path)
    try:
        return frozenset(
            normalised(r[0])
            for r in conn.execute(f"SELECT DISTINCT {_q(column)} FROM {_q(table)} LIMIT {SAMPLE}")
            if r[0] is not None
        )
    except sqlite3.Error:
        return frozenset()
    finally:
        conn.close()


def normalised(value: object) -> object:
    """As SQLite's `=` between an INTEGER and a numeric TEXT column sees it (affinity applied)."""
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            try:
                return float(value)
            except ValueError:
                return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


SCHEMA_TELLING_ROWS = UNIQUE_TELLING_ROWS  # a declared key or a naming column is unique, whatever the size


@lru_cache(maxsize=32)
def schema_regularities(schema: Schema) -> Regularities:
    """What the schema alone says a realistic database keeps, where no data is at hand: every table holds
    rows, a declared key and a column whose name names (`name`, `title`, `code`, …) hold no two equal
    values, a declared foreign key resolves, and no column is NULL (a difference resting on a NULL is one
    the data might never show). Other values are free: a witness may hold any value there."""
    from sqltriage.core.verdicts.testsuite.from_schema import trusted_primary_keys

    out = Regularities()
    pks = {(t.lower(), c.lower()) for t, c in trusted_primary_keys(schema)}
    single = {k for k in pks if sum(1 for t, _ in pks if t == k[0]) == 1}
    for (t, c), (pt, pc) in schema.foreign_keys:
        child, parent = (t.lower(), c.lower()), (pt.lower(), pc.lower())
        out.references.update((child, parent))
        out.links.add((child, parent))
    children = {child for child, _parent in out.links}  # a reference repeats: no promise of uniqueness
    for table in schema.tables:
        low_t = table.name.lower()
        out.table_names[low_t] = table.name
        out.tables[low_t] = SCHEMA_TELLING_ROWS
        for col in table.columns:
            key = (low_t, col.name.lower())
            out.names[key] = col.name
            kind = {"number": "real", "integer": "int", "real": "real"}.get(col.type.lower(), "text")
            is_key = key in single
            if not (is_key or (_NAMING.search(col.name) and key not in children)):
                # no promise of uniqueness; a NULL, though, is an edge the schema cannot rule out nor in:
                # a difference resting on one is not taken for a realistic one
                out.columns[key] = ColumnFacts(rows=SCHEMA_TELLING_ROWS, nulls=0, distinct=2, kind=kind)
                continue
            out.columns[key] = ColumnFacts(
                rows=SCHEMA_TELLING_ROWS,
                nulls=0,
                distinct=SCHEMA_TELLING_ROWS,
                kind=kind if kind != "real" else "int" if is_key else "real",
                key=is_key,
            )
    return out


def with_stand_ins(regs: Regularities, database: Path) -> Regularities:
    """`regs` of the schema alone, whose repairs may write the values and rows of `database` (one generated
    from the schema): a witness there is then repaired as one of real data is, so a difference that survives
    every repair is told from one that needs a duplicate, a NULL or an empty table."""
    from dataclasses import replace

    return replace(regs, stand_ins=database, _stand_in_values={})
