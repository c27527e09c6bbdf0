"""The literals of the gold queries, attached to the columns they are compared with.

A neighbour database that contains the gold's own constants (and values one step away from them) makes
the gold return rows, and makes `>` and `>=`, or `= 'a'` and `LIKE 'a%'`, give different answers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

ANY_COLUMN = ""  # key of the literals that are compared with no single column


@dataclass(slots=True)
class GoldLiterals:
    by_column: dict[str, list] = field(default_factory=dict)  # lower-case column name → values
    patterns: dict[str, list[str]] = field(default_factory=dict)  # lower-case column name → LIKE patterns

    def add(self, column: str, value: object) -> None:
        values = self.by_column.setdefault(column, [])
        if value not in values:
            values.append(value)

    def add_pattern(self, column: str, pattern: str) -> None:
        patterns = self.patterns.setdefault(column, [])
        if pattern not in patterns:
            patterns.append(pattern)


def literal_value(node: object) -> object:
    """A sqlglot literal as the Python value SQLite would compare with (int, float or str)."""
    from sqlglot import exp

    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal):
        inner = literal_value(node.this)
        return -inner if isinstance(inner, int | float) else inner
    if not isinstance(node, exp.Literal):
        return None
    if node.is_string:
        return node.this
    text = node.this
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return None


def gold_literals(
    gold_sqls: Iterable[str], column_names: Iterable[str] = (), trees: dict[str, Any] | None = None
) -> GoldLiterals:
    """Every comparison `column OP literal` (also IN, BETWEEN, LIKE) of the gold queries, by column name.

    With the schema's `column_names`, a "double-quoted" word that names no column counts as the string
    SQLite reads it as. `trees`: parses already made (sql → tree, None where it does not parse), read only.
    """
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    out = GoldLiterals()
    names = {n.lower() for n in column_names}

    def value_of(node: object) -> object:
        value = literal_value(node)
        if value is None and names and isinstance(node, exp.Column) and not node.table:
            ident = node.this
            if isinstance(ident, exp.Identifier) and ident.quoted and ident.this.lower() not in names:
                return ident.this
        return value

    for sql in gold_sqls:
        if trees is not None and sql in trees:
            tree = trees[sql]
        else:
            try:
                tree = sqlglot.parse_one(sql, read="sqlite")
            except (SqlglotError, ValueError, RecursionError):
                continue
        if tree is None:
            continue
        for node in tree.walk():
            if isinstance(node, exp.Like | exp.ILike):
                col, pat = node.this, value_of(node.expression)
                if isinstance(pat, str):
                    out.add_pattern(_column_key(col), pat)
            elif isinstance(node, exp.EQ | exp.NEQ | exp.GT | exp.GTE | exp.LT | exp.LTE):
                for col, lit in ((node.this, node.expression), (node.expression, node.this)):
                    value = value_of(lit)
                    if value is not None:
                        out.add(_column_key(col), value)
            elif isinstance(node, exp.In):
                for item in node.expressions:
                    value = value_of(item)
                    if value is not None:
                        out.add(_column_key(node.this), value)
            elif isinstance(node, exp.Between):
                for bound in (node.args.get("low"), node.args.get("high")):
                    value = value_of(bound)
                    if value is not None:
                        out.add(_column_key(node.this), value)
    return out


def _column_key(node: object) -> str:
    from sqlglot import exp

    if isinstance(node, exp.Column):
        return node.name.lower()
    return ANY_COLUMN
