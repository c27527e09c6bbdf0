"""The same query written differently: identifier case, spacing, table aliases, output names.

SQLite plans two such texts alike, so they agree on every database, ties included: decided without solving,
and the key under which one verdict is kept for every spelling of a prediction (columns.py).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any


def same_query(gold_sql: str, pred_sql: str, mode: str = "spider", columns: frozenset | None = None) -> bool:
    """Whether the two are one query written differently (identifier case, spacing, table aliases, output
    names): SQLite plans them alike, so they agree on every database, ties included. Decided without solving.
    `columns` (the database's column names, lower case) lets a double-quoted name that is no column be read
    as the string SQLite reads it."""
    from sqltriage.core.verdicts.exec_compare import spider_sql

    texts = (spider_sql(gold_sql), spider_sql(pred_sql)) if mode == "spider" else (gold_sql, pred_sql)
    if bare(texts[0]) == bare(texts[1]):
        return True
    gold, pred = canonical(gold_sql, mode, columns), canonical(pred_sql, mode, columns)
    return gold is not None and gold == pred


@functools.lru_cache(maxsize=2048)
def canonical(sql: str, mode: str = "spider", columns: frozenset | None = None) -> str | None:
    """The query written one way (`canonical_tree`), None when sqlglot cannot read it. Kept per process: a gold
    is met once per model, and a prediction once by the memo of verdicts and once by `same_query`."""
    import sqlglot

    from sqltriage.core.verdicts.exec_compare import spider_sql

    try:
        tree = sqlglot.parse_one(spider_sql(sql) if mode == "spider" else sql, read="sqlite")
        return canonical_tree(tree, mode == "spider", columns)
    except Exception:  # a text sqlglot cannot read is simply not recognised as the same
        return None


def canonical_tree(tree: Any, any_column_order: bool = False, columns: frozenset | None = None) -> str:
    """The query with what cannot change SQLite's plan written one way: identifier case and quotes, table
    aliases (and the table's name on a column of a one-table query), output names, an ORDER BY on a select
    alias, ASC, a double-quoted string; with `any_column_order`, the select list in sorted order. `tree` is
    rewritten in place (every caller parses its own): copying it cost as much as parsing."""
    from collections import Counter

    from sqlglot import exp

    for c in list(tree.find_all(exp.Column)):  # "Asia": a string to SQLite when it names no column
        if not c.table and c.this.args.get("quoted") and c.parent_select is not None:
            known = columns is not None and c.name.lower() not in columns
            c.replace(exp.Literal.string(c.name if known else "\0" + c.name))
    # Each table read gets one name for the whole query: its own when it is read once, else its name and
    # its place in the query (a self-join's two sides, or an outer table a subquery also reads, must stay
    # apart: `T1.x = T2.y` is not `T2.x = T2.y`). A column's qualifier is resolved in its own query, then
    # in the enclosing ones (a correlated reference), and dropped only when it names the one table of its
    # own query.
    reads = Counter(t.name.lower() for t in tree.find_all(exp.Table))
    seen: Counter = Counter()
    scopes: dict[int, dict[str, str]] = {}
    selects = list(tree.find_all(exp.Select))
    for select in selects:
        names: dict[str, str] = {}
        for t in [t for t in select.find_all(exp.Table) if t.parent_select is select]:
            base = t.name.lower()
            seen[base] += 1
            name = base if reads[base] == 1 else f"{base}#{seen[base]}"
            names[(t.alias or t.name).lower()] = name  # an aliased table is not known by its name
            t.set("alias", None if name == base else exp.TableAlias(this=exp.to_identifier(name)))
        scopes[id(select)] = names
    for select in selects:
        own = scopes[id(select)]
        one_table = len(set(own.values())) == 1 and not select.args.get("joins")
        for c in select.find_all(exp.Column):
            if c.parent_select is not select or not c.table:
                continue
            name, scope = None, select
            while scope is not None and name is None:
                name = scopes.get(id(scope), {}).get(c.table.lower())
                scope = scope.parent_select
            if name is None:
                continue  # a subquery in FROM, by its alias: kept as written
            own_table = one_table and name in own.values()
            c.set("table", None if own_table else exp.to_identifier(name))
        named = {e.alias.lower(): e.this for e in select.expressions if isinstance(e, exp.Alias)}
        order = select.args.get("order")
        positional = False
        for o in order.expressions if order else []:
            if isinstance(o.this, exp.Column) and not o.this.table and o.this.name.lower() in named:
                o.set("this", named[o.this.name.lower()].copy())
            positional |= isinstance(o.this, exp.Literal)
            o.set("desc", True if o.args.get("desc") else None)
        columns = [e.this if isinstance(e, exp.Alias) else e for e in select.expressions]
        if any_column_order and select is tree and not positional:
            columns.sort(key=lambda e: e.sql(dialect="sqlite", copy=False).lower())
        select.set("expressions", columns)
    for ident in tree.find_all(exp.Identifier):
        ident.set("this", ident.this.lower())
        ident.set("quoted", False)
    return tree.sql(dialect="sqlite", copy=False)  # sqlglot copies the tree to write it unless told not to


@functools.lru_cache(maxsize=16)  # as db_info: a prediction's canonical form asks it once per row
def column_names(db_path: Path, extra_fks: tuple = ()) -> frozenset | None:
    from sqltriage.core.verdicts.verify.tables import db_info

    try:
        return frozenset(c.name.lower() for _, cols in db_info(db_path, extra_fks).values() for c in cols)
    except Exception:  # unreadable here: the solver's own reading reports it
        return None


def bare(sql: str) -> str:
    return " ".join(sql.strip().rstrip(";").split())
