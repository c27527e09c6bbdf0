"""The literals of the gold queries, attached to the columns they are compared with.

A neighbour database that contains the gold's own constants (and values one step away from them) makes
the gold return rows, and makes `>` and `>=`, or `= 'a'` and `LIKE 'a%'`, give different answers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

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


def gold_literals(gold_sqls: Iterable[str]) -> GoldLiterals:
    """Every comparison `column OP literal` (also IN, BETWEEN, LIKE) of the gold queries, by column name."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    out = GoldLiterals()
    for sql in gold_sqls:
        try:
            tree = sqlglot.parse_one(sql, read="sqlite")
        except (SqlglotError, ValueError, RecursionError):
            continue
        if tree is None:
            continue
        for node in tree.walk():
            if isinstance(node, exp.Like | exp.ILike):
                col, pat = node.this, node.expression
                if isinstance(pat, exp.Literal) and pat.is_string:
                    out.add_pattern(_column_key(col), pat.this)
            elif isinstance(node, exp.EQ | exp.NEQ | exp.GT | exp.GTE | exp.LT | exp.LTE):
                for col, lit in ((node.this, node.expression), (node.expression, node.this)):
                    value = literal_value(lit)
                    if value is not None:
                        out.add(_column_key(col), value)
            elif isinstance(node, exp.In):
                for item in node.expressions:
                    value = literal_value(item)
                    if value is not None:
                        out.add(_column_key(node.this), value)
            elif isinstance(node, exp.Between):
                for bound in (node.args.get("low"), node.args.get("high")):
                    value = literal_value(bound)
                    if value is not None:
                        out.add(_column_key(node.this), value)
    return out


def _column_key(node: object) -> str:
    from sqlglot import exp

    if isinstance(node, exp.Column):
        return node.name.lower()
    return ANY_COLUMN
