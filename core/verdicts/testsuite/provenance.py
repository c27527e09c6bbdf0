"""Which rows of a database a query reads past its joins and filters: where a witness's shrinking starts.

Each SELECT of the query (set-operation branches and subqueries included) is re-run with its FROM, joins and
WHERE unchanged but a list of the rowids of its tables as the result (no grouping, ordering or limit): the
rows that survive the filters. A row outside every such list can only matter through an aggregate of
nothing or a NOT EXISTS, so keeping only these rows (and the parents they point at) usually keeps the
difference between gold and prediction; the caller checks that it does and starts from the whole database
when it does not. A SELECT that cannot be rewritten (a correlated subquery, a table without rowids, a
FROM that is itself a subquery) adds nothing. The rewritten texts run through the read-only `execute`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

ROW_CAP = 20_000  # rowids read per rewritten SELECT; beyond that the cut would keep too much to help

RowIds = dict[str, set[int]]  # lower-cased table name -> rowids


@functools.lru_cache(maxsize=2048)
def rowid_queries(sql: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(rewritten SELECT text, the lower-cased table of each result column) per SELECT of `sql`; kept per
    text, as a gold is shrunk against several predictions."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except (SqlglotError, RecursionError, ValueError):
        return ()
    if tree is None:
        return ()
    out: list[tuple[str, tuple[str, ...]]] = []
    for select in tree.find_all(exp.Select):
        key = "from_" if "from_" in select.args else "from"  # sqlglot's name for it changed in version 26
        sources = [select.args.get(key), *(select.args.get("joins") or [])]
        tables: list[exp.Table] = []
        for src in sources:
            node = src.this if src is not None else None
            if not isinstance(node, exp.Table) or not node.name:
                tables = []
                break  # a subquery in FROM: its rows are its own SELECT's
            tables.append(node)
        if not tables:
            continue
        columns = [exp.column("rowid", table=t.alias_or_name) for t in tables]
        rewritten = exp.select(*columns)
        rewritten.set(key, select.args[key].copy())
        if select.args.get("joins"):
            rewritten.set("joins", [j.copy() for j in select.args["joins"]])
        if select.args.get("where") is not None:
            rewritten.set("where", select.args["where"].copy())
        out.append((rewritten.sql(dialect="sqlite"), tuple(t.name.lower() for t in tables)))
    return tuple(out)


def read_rows(texts: list[str] | tuple[str, ...], run: Callable[[str], Any]) -> RowIds:
    """The rowids the SELECTs of `texts` read, per table; `run(sql)` executes read-only (an ExecResult).

    A table appears (perhaps with no rowid) only when some SELECT reading it could be rewritten and ran."""
    found: RowIds = {}
    for text in texts:
        for query, tables in rowid_queries(text):
            result = run(query)
            if not result.ok or result.truncated:
                continue
            for table in tables:
                found.setdefault(table, set())
            for row in result.rows:
                for table, rid in zip(tables, row, strict=False):
                    if isinstance(rid, int):
                        found.setdefault(table, set()).add(rid)
    return found
