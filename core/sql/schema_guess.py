"""A schema inferred from the queries themselves, for comparing two queries when no database is given.

Tables are those the queries name; a qualified column goes to its table (aliases followed). An unqualified
column goes to a table of its SELECT that some query already qualifies it with, else to the first table
of that SELECT — the table Spider's parser would resolve it to.
"""

from __future__ import annotations

from collections.abc import Iterable

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from sqltriage.core.model import Column, Schema, Table


def _scopes(trees: list[exp.Expression]) -> list[tuple[list[str], list[exp.Column], dict[str, str]]]:
    out = []
    for tree in trees:
        for select in tree.find_all(exp.Select):
            aliases: dict[str, str] = {}
            tables: list[str] = []
            for table in select.find_all(exp.Table):
                if table.find_ancestor(exp.Select) is select:
                    name = table.name.lower()
                    tables.append(name)
                    aliases[(table.alias or table.name).lower()] = name
            cols = [
                c
                for c in select.find_all(exp.Column)
                if c.find_ancestor(exp.Select) is select and not isinstance(c.this, exp.Star)
            ]
            out.append((tables, cols, aliases))
    return out


def guess_schema(queries: Iterable[str], db_id: str = "(inferred)") -> Schema:
    trees = []
    for sql in queries:
        try:
            tree = sqlglot.parse_one(sql, read="sqlite")
        except (SqlglotError, ValueError, RecursionError):
            continue
        if tree is not None:
            trees.append(tree)
    scopes = _scopes(trees)
    columns: dict[str, dict[str, None]] = {}
    for tables, _, _ in scopes:
        for t in tables:
            columns.setdefault(t, {})
    for _, cols, aliases in scopes:
        for col in cols:
            if col.table:
                target = aliases.get(col.table.lower(), col.table.lower())
                columns.setdefault(target, {})[col.name.lower()] = None
    for tables, cols, _ in scopes:
        for col in cols:
            name = col.name.lower()
            if not col.table and tables and not any(name in columns[t] for t in tables):
                columns[tables[0]][name] = None
    return Schema(db_id, tuple(Table(t, tuple(Column(c) for c in cols)) for t, cols in columns.items()))
