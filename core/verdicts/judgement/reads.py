"""What a pair of queries reads: its tables, its columns, the column pairs it equates, its literals.

A witness can break a regularity anywhere, but only what the queries read can make them differ: a NULL in
a column neither names is filler. Columns are resolved to tables by the query's aliases; an unqualified
column belongs to every read table that has it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Ref = tuple[str, str]  # (table lower, column lower)


@dataclass(slots=True)
class Reads:
    tables: set[str] = field(default_factory=set)
    columns: set[Ref] = field(default_factory=set)
    equated: set[tuple[Ref, Ref]] = field(default_factory=set)  # a.x = b.y between two tables
    grouped: set[Ref] = field(default_factory=set)  # GROUP BY, DISTINCT, join or IN on it: used as identity
    matched: set[tuple[Ref, Ref]] = field(default_factory=set)  # x IN (SELECT y …), NOT IN too: (x, y)
    literals: set[object] = field(default_factory=set)
    star: set[str] = field(default_factory=set)  # tables read with `t.*` or `*`


def reads_of(sql: str, columns_of: dict[str, set[str]]) -> Reads:
    """What `sql` reads; `columns_of` maps each table (lower) to its columns (lower). Unparseable: nothing."""
    from sqltriage.core.sql.parse import parse_sql

    out = Reads()
    parsed = parse_sql(sql)
    if not parsed.ok or parsed.tree is None:
        return out
    _walk(parsed.tree, columns_of, out)
    return out


def _walk(tree: Any, columns_of: dict[str, set[str]], out: Reads) -> None:
    from sqlglot import exp

    aliases: dict[str, str] = {}
    for t in tree.find_all(exp.Table):
        name = t.name.lower()
        if name not in columns_of:
            continue
        out.tables.add(name)
        aliases[(t.alias or t.name).lower()] = name
        aliases.setdefault(name, name)

    def resolve(col: exp.Column) -> list[Ref]:
        name = col.name.lower()
        if col.table:
            t = aliases.get(col.table.lower())
            return [(t, name)] if t is not None and name in columns_of.get(t, ()) else []
        return sorted((t, name) for t in out.tables if name in columns_of.get(t, ()))

    for col in tree.find_all(exp.Column):
        out.columns.update(resolve(col))
    for star in tree.find_all(exp.Star):
        parent = star.parent
        if isinstance(parent, exp.Column) and parent.table:
            t = aliases.get(parent.table.lower())
            out.star.update([t] if t else [])
        elif not isinstance(parent, exp.Count):
            out.star.update(out.tables)
    for eq in tree.find_all(exp.EQ):
        left, right = eq.this, eq.expression
        if isinstance(left, exp.Column) and isinstance(right, exp.Column):
            for a in resolve(left):
                for b in resolve(right):
                    if a[0] != b[0]:
                        out.equated.add((a, b))
                        out.grouped.update((a, b))
    for group in tree.find_all(exp.Group):
        for e in group.expressions:
            if isinstance(e, exp.Column):
                out.grouped.update(resolve(e))
    for sel in tree.find_all(exp.Select):
        if sel.args.get("distinct") is not None:
            for e in sel.expressions:
                if isinstance(e.unalias(), exp.Column):
                    out.grouped.update(resolve(e.unalias()))
    for node in tree.find_all(exp.In):
        query = node.args.get("query")
        if query is not None and isinstance(node.this, exp.Column):
            out.grouped.update(resolve(node.this))
            inner = query.this if isinstance(query, exp.Subquery) else query
            if isinstance(inner, exp.Select) and inner.expressions:
                first = inner.expressions[0].unalias()
                if isinstance(first, exp.Column):
                    out.grouped.update(resolve(first))
            for first in _first_columns(inner):
                out.matched.update((a, b) for a in resolve(node.this) for b in resolve(first) if a != b)
    for setop in tree.find_all(exp.SetOperation):  # INTERSECT/EXCEPT/UNION match rows by their values
        for side in (setop.this, setop.expression):
            if isinstance(side, exp.Select):
                for e in side.expressions:
                    if isinstance(e.unalias(), exp.Column):
                        out.grouped.update(resolve(e.unalias()))
    for lit in tree.find_all(exp.Literal):
        out.literals.add(_literal(lit))


def _first_columns(query: Any) -> list[Any]:
    """The first selected column of a subquery, of each side of a set operation."""
    from sqlglot import exp

    if isinstance(query, exp.Subquery):
        return _first_columns(query.this)
    if isinstance(query, exp.SetOperation):
        return _first_columns(query.this) + _first_columns(query.expression)
    if isinstance(query, exp.Select) and query.expressions:
        first = query.expressions[0].unalias()
        return [first] if isinstance(first, exp.Column) else []
    return []


def _literal(lit: Any) -> object:
    from sqltriage.core.verdicts.judgement.regularities import normalised

    return lit.this if lit.is_string else normalised(lit.this)


def merge(a: Reads, b: Reads) -> Reads:
    return Reads(
        tables=a.tables | b.tables,
        columns=a.columns | b.columns,
        equated=a.equated | b.equated,
        grouped=a.grouped | b.grouped,
        matched=a.matched | b.matched,
        literals=a.literals | b.literals,
        star=a.star | b.star,
    )
