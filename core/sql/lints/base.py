"""What every lint reads: the query walked once, and each column's table, type and keys per the schema.

A leaf below the lint modules (they import it, never the package), so the registry in `__init__` can import
them all without a cycle.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from sqlglot import exp

from sqltriage.core.model import Column, Schema
from sqltriage.core.sql.parse import owning_select, resolve_column_table, table_scope, unwrap


@dataclass(frozen=True, slots=True)
class Lint:
    """One likely mistake a query's text shows, whatever its data: its id, a title and why it is one."""

    id: str  # kebab-case, stable: stored in the workspace's gold_lints / pred_lints
    title: str
    explanation: str
    # A hit doubts the query in the judgement (a gold flag; an EX pass made unsure). Advisory lints (False)
    # are listed but doubt nothing: they mark a fragility the benchmarks' accepted golds share.
    doubts: bool = True


@dataclass(frozen=True, slots=True)
class LintHit:
    """A lint found in one query; `detail` says where (the offending expression), on one short line."""

    id: str
    detail: str


# Value kinds a lint reasons about: an integer, a real, a number of unknown kind, text, a date or time.
INT, REAL, NUMBER, TEXT, TIME = "int", "real", "number", "text", "time"
NULL_KIND = "null"  # a NULL literal, or a CASE branch left out: no kind of its own
_SCHEMA_KINDS = {
    "integer": INT,
    "int": INT,
    "real": REAL,
    "float": REAL,
    "double": REAL,
    "number": NUMBER,  # Spider's tables.json: integers and reals alike
    "numeric": NUMBER,
    "text": TEXT,
    "time": TIME,
    "date": TIME,
    "datetime": TIME,
}
DETAIL_WIDTH = 90


class Query:
    """One query's nodes by type, read off one walk, and its columns resolved against the schema."""

    def __init__(self, tree: exp.Expression, schema: Schema | None, question: str | None) -> None:
        self.tree = tree
        self.schema = schema
        self.question = (question or "").lower()
        self._nodes: dict[type, list[exp.Expression]] = {}
        for node in tree.walk():
            self._nodes.setdefault(type(node), []).append(node)
        self._scopes: dict[int, tuple[dict[str, str | None], list[dict[str, str | None]]]] = {}
        self._keys = {(t.lower(), c.lower()) for t, c in schema.primary_keys} if schema else set()
        self._key_tables: dict[str, int] = {}
        for t, _ in self._keys:
            self._key_tables[t] = self._key_tables.get(t, 0) + 1

    def nodes(self, *kinds: type[exp.Expression]) -> Iterator[exp.Expression]:
        """Every node of exactly these types, from the one walk: sixteen lints walking the tree each would
        cost more than the rest of linting (sqlglot's classes asked for are leaves: EQ, Count, Div, …)."""
        for kind in kinds:
            yield from self._nodes.get(kind, ())

    def has_question(self, pattern: re.Pattern[str]) -> bool:
        """Without a question nothing is said, so a lint that needs one stays silent."""
        return bool(self.question) and pattern.search(self.question) is not None

    # ----- columns -----

    def table_of(self, col: exp.Column) -> str | None:
        """The real (lower-case) table a column reads, or None when the query does not say."""
        select = owning_select(col)
        if select is None:
            return None
        scope, outer = self._scope(select)
        table = resolve_column_table(col, scope, outer, self.schema)
        if table is None or (col.table and col.table.lower() in scope and scope[col.table.lower()] is None):
            return None  # a derived table's column: its type is the subquery's, not a schema column's
        return table

    def schema_column(self, col: exp.Column) -> tuple[str, Column] | None:
        """(real table, the schema's column) a column reads; None when the schema does not have it."""
        if self.schema is None:
            return None
        table = self.table_of(col)
        t = self.schema.table(table) if table else None
        if t is None or table is None:
            return None
        name = col.name.lower()
        return next(((table, c) for c in t.columns if c.name.lower() == name), None)

    def kind_of_column(self, col: exp.Column) -> str | None:
        """The schema's kind of a column (INT, REAL, NUMBER, TEXT, TIME), None when unknown."""
        found = self.schema_column(col)
        return _SCHEMA_KINDS.get(found[1].type.lower()) if found else None

    def is_key(self, table: str, column: str) -> bool:
        """The column alone is its table's primary key: no two rows share it (part of a composite key
        is no such promise)."""
        t = table.lower()
        return (t, column.lower()) in self._keys and self._key_tables.get(t) == 1

    def key_of(self, table: str) -> str | None:
        """A table's single-column primary key, None when it has none or a composite one."""
        t = table.lower()
        if self._key_tables.get(t) != 1:
            return None
        return next(c for tt, c in self._keys if tt == t)

    def _scope(self, select: exp.Select) -> tuple[dict[str, str | None], list[dict[str, str | None]]]:
        """The SELECT's own sources and its enclosing queries' (a correlated column reads those), kept per
        SELECT: every column of it asks."""
        found = self._scopes.get(id(select))
        if found is None:
            outer = []
            parent = select.parent
            while parent is not None:
                if isinstance(parent, exp.Select):
                    outer.append(table_scope(parent))
                parent = parent.parent
            found = self._scopes[id(select)] = (table_scope(select), outer)
        return found

    # ----- values -----

    def kind_of(self, node: exp.Expression) -> str | None:
        """The kind of value an expression gives in SQLite, None when it cannot be told."""
        node = unwrap(node)
        if isinstance(node, exp.Literal):
            if node.is_string:
                return TEXT
            return REAL if any(ch in node.this for ch in ".eE") else INT
        if isinstance(node, exp.Neg):
            return self.kind_of(node.this)
        if isinstance(node, exp.Column):
            return self.kind_of_column(node)
        if isinstance(node, (exp.Count, exp.Length)):
            return INT
        if isinstance(node, exp.Avg):
            return REAL
        if isinstance(node, exp.Sum):
            return self.kind_of(node.this)
        if isinstance(node, (exp.Max, exp.Min)):
            return self.kind_of(node.this)
        if isinstance(node, exp.Cast):
            return _cast_kind(node)
        if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Mod, exp.Div)):
            left, right = self.kind_of(node.this), self.kind_of(node.expression)
            if REAL in (left, right):
                return REAL
            return INT if left == right == INT else None
        if isinstance(node, (exp.Case, exp.If)):
            kinds = {self.kind_of(v) for v in _branches(node)}
            kinds.discard(NULL_KIND)
            return kinds.pop() if len(kinds) == 1 else None
        if isinstance(node, exp.Null):
            return NULL_KIND
        return None


def _branches(node: exp.Case | exp.If) -> list[exp.Expression]:
    """The values a CASE or IIF can give (a missing ELSE gives NULL)."""
    if isinstance(node, exp.If):
        values = [node.args.get("true"), node.args.get("false")]
    else:
        values = [i.args.get("true") for i in node.args.get("ifs") or []] + [node.args.get("default")]
    return [v if v is not None else exp.Null() for v in values]


def _cast_kind(node: exp.Cast) -> str | None:
    to = node.to.this if isinstance(node.to, exp.DataType) else None
    if to in exp.DataType.INTEGER_TYPES:
        return INT
    if to in exp.DataType.REAL_TYPES or to in (exp.DataType.Type.DECIMAL,):
        return REAL
    if to in exp.DataType.TEXT_TYPES:
        return TEXT
    return None


def short(node: exp.Expression) -> str:
    """An expression as SQL on one line, cut to a readable width."""
    try:
        text = node.sql(dialect="sqlite")
    except Exception:  # generation of an odd tree must not stop a lint
        text = type(node).__name__
    text = " ".join(text.split())
    return text if len(text) <= DETAIL_WIDTH else text[: DETAIL_WIDTH - 1] + "…"


Check = Callable[[Query], Iterator[str]]  # yields one detail per place the lint finds
