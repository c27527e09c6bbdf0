"""Two sorts of the same rows: the case the ties under a LIMIT leave undecided.

`GROUP BY language ORDER BY count(*) DESC LIMIT 1` against the same query ordered by `count(countrycode)`
(a column never NULL), or a join written the other way round: on a database where two rows tie, the solver
may pick a different tied row for each, so the pair could only be `unknown` ("they differ only where ORDER
BY keys tie"). Yet what SQL allows such a query to return depends only on the bag of rows that reach its
sort, each row taken as its select items and its sort keys: any order of that bag by the keys, cut by the
LIMIT, projected on the items. So when the two queries sort alike (the same directions, the same LIMIT and
OFFSET) and those bags are the same on every database, the two allow exactly the same answers. That is asked
of the solver as a pair of its own, compared as bags: each query with its sort keys appended to its select
items and without ORDER BY, LIMIT and OFFSET. Verified there means verified here, up to how ties fall (the
note of a sort's ties: SQLite may still keep a different tied row for each).
"""

from __future__ import annotations

from typing import Any


def sorted_rows_pair(
    gold_sql: str, pred_sql: str, mode: str, columns: frozenset | None
) -> tuple[str, str] | None:
    """The derived pair (gold side, prediction side), or None when the two do not sort alike at the top
    (or are not single SELECTs, or cannot be read)."""
    import sqlglot
    from sqlglot import exp

    from sqltriage.core.verdicts.exec_compare import spider_sql
    from sqltriage.core.verdicts.verify.canonical import canonical_tree

    try:
        trees = []
        for sql in (gold_sql, pred_sql):
            tree = sqlglot.parse_one(spider_sql(sql) if mode == "spider" else sql, read="sqlite")
            trees.append(sqlglot.parse_one(canonical_tree(tree, False, columns), read="sqlite"))
    except Exception:  # what sqlglot cannot read is not recognised
        return None
    if not all(isinstance(t, exp.Select) and not t.args.get("distinct") for t in trees):
        return None
    gold, pred = trees
    keys = [_keys(gold), _keys(pred)]
    if not keys[0] or len(keys[0]) != len(keys[1]) or len(gold.expressions) != len(pred.expressions):
        return None
    if [bool(o.args.get("desc")) for o in keys[0]] != [bool(o.args.get("desc")) for o in keys[1]]:
        return None
    if any(isinstance(o.this, exp.Literal) for k in keys for o in k):
        return None  # ORDER BY 2: a position, not a value
    for arg in ("limit", "offset"):
        written = [
            t.args.get(arg).sql(dialect="sqlite", copy=False) if t.args.get(arg) else "" for t in trees
        ]
        if written[0] != written[1]:
            return None
    out = []
    for tree, own in zip(trees, keys, strict=True):
        rows = tree.copy()
        rows.set("expressions", [*(e.copy() for e in tree.expressions), *(o.this.copy() for o in own)])
        for arg in ("order", "limit", "offset"):
            rows.set(arg, None)
        out.append(rows.sql(dialect="sqlite", copy=False))
    return out[0], out[1]


def _keys(select: Any) -> list:
    order = select.args.get("order")
    return list(order.expressions) if order else []
