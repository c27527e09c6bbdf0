"""Two queries that differ only in the order of their inner joins, decided without the solver.

`FROM concert JOIN stadium ON …` and `FROM stadium JOIN concert ON …` read the same bag of joined rows on
every database, of any size: an inner join is commutative and associative, and a condition means the same in
its ON as in the WHERE. What SQLite may do differently with the other order is only the order in which rows
come out, and which row of a group a bare column is read from. So after the query is written one way
(`canonical.canonical_tree`: case, aliases, output names), each SELECT's inner joins become one set of tables and
one set of conditions. Two queries equal in that form return the same result on every database when
nothing in them depends on row order: no ORDER BY but an outermost one the EX comparison ignores (the gold
does not sort, or sets are compared), no LIMIT or OFFSET, no bare column a group's key does not determine, no
aggregate whose value follows row order. (A sorted pair is handed here as the bag of rows that reaches its
sort, sorted_rows.py: the question of its ties stays with the solver.)

Anything else (a LEFT JOIN, USING, a table read twice, `SELECT *`, a column this module cannot place in one
table, a function outside the plain deterministic ones) is not decided here: the solver takes the pair.
"""

from __future__ import annotations

from typing import Any

_ORDER_FREE_AGGREGATES = ("Count", "Sum", "Avg", "Min", "Max")


class _NotShown(Exception):
    """The pair is not shown equal here (not: shown different)."""


def same_up_to_join_order(gold_sql: str, pred_sql: str, mode: str, tables: dict[str, Any]) -> bool:
    """Whether the two return the same result on every database, told from their inner joins alone.
    `tables`: the database's tables by lower-case name, each `(TableInfo, columns)` as tables.db_info gives
    them (their column names and keys)."""
    try:
        (gold, gold_sorts), (pred, _) = (_joins_as_sets(sql, mode, tables) for sql in (gold_sql, pred_sql))
    except Exception:  # _NotShown, or what sqlglot cannot read or write: not recognised
        return False
    return gold == pred and not (mode == "spider" and gold_sorts)


def _joins_as_sets(sql: str, mode: str, tables: dict[str, Any]) -> tuple[str, bool]:
    """The query with each SELECT's inner joins written as a sorted set of tables and of conditions, and
    whether its outermost query sorts."""
    import sqlglot
    from sqlglot import exp

    from sqltriage.core.verdicts.verify.canonical import canonical

    columns = frozenset(c.name.lower() for _, cols in tables.values() for c in cols)
    written = canonical(sql, mode, columns)  # kept per text: a gold is met once per prediction
    if written is None:
        raise _NotShown("sqlglot cannot read it")
    tree = sqlglot.parse_one(written, read="sqlite")
    if any(tree.find_all(exp.Window, exp.Rand, exp.Anonymous, exp.GroupConcat, exp.Limit, exp.Offset)):
        raise _NotShown("row order, a cut or chance decides")
    sorts = tree.args.get("order") is not None
    if any(o is not tree.args.get("order") for o in tree.find_all(exp.Order)):
        raise _NotShown("an inner ORDER BY")
    selects = list(tree.find_all(exp.Select))
    for select in reversed(selects):  # inner queries first: a condition holding one is sorted by its text
        if select.args.get("joins"):
            _as_sets(select, tables)
    return tree.sql(dialect="sqlite", copy=False), sorts


def _as_sets(select: Any, tables: dict[str, Any]) -> None:
    from sqlglot import exp

    items = [select.args["from_"].this, *(j.this for j in select.args["joins"])]
    for j in select.args["joins"]:
        if j.side or (j.kind or "").upper() not in ("", "INNER", "CROSS") or j.args.get("using"):
            raise _NotShown("not an inner join")
        if j.args.get("method"):
            raise _NotShown("a NATURAL join")
    names = []
    for t in items:
        if "collate" in getattr(tables.get(t.name.lower(), (None,))[0], "ddl", "").lower():
            raise _NotShown("a collation: `a = b` compares by the left side's")
        if not isinstance(t, exp.Table) or t.alias or t.name.lower() not in tables:
            raise _NotShown("a subquery, a table read twice or an unknown table")
        names.append(t.name.lower())
    if len(set(names)) != len(names):
        raise _NotShown("a table read twice")
    if any(isinstance(e, exp.Star) or (isinstance(e, exp.Column) and e.is_star) for e in select.expressions):
        raise _NotShown("SELECT *: its columns follow the join order")
    own = {n: {c.name.lower() for c in tables[n][1]} for n in names}
    for c in list(select.find_all(exp.Column)):
        if c.parent_select is not select:
            continue
        if not c.table:
            holders = [n for n in names if c.name.lower() in own[n]]
            if len(holders) != 1:
                raise _NotShown(f"column {c.name} is not in exactly one table of the join")
            c.set("table", exp.to_identifier(holders[0]))
    _bare_columns_determined(select, tables)
    conditions = [c for j in select.args["joins"] if j.args.get("on") for c in _conjuncts(j.args["on"])]
    where = select.args.get("where")
    if where is not None:
        conditions += _conjuncts(where.this)
    written = sorted(
        {_symmetric(c).sql(dialect="sqlite", copy=False): _symmetric(c) for c in conditions}.items()
    )
    order = sorted(range(len(items)), key=lambda i: names[i])
    select.set("from_", exp.From(this=items[order[0]]))
    select.set("joins", [exp.Join(this=items[i]) for i in order[1:]])
    select.set("where", exp.Where(this=exp.and_(*(c for _, c in written))) if written else None)


def _conjuncts(cond: Any) -> list[Any]:
    from sqlglot import exp

    while isinstance(cond, exp.Paren):
        cond = cond.this
    if isinstance(cond, exp.And):
        return _conjuncts(cond.left) + _conjuncts(cond.right)
    return [cond]


def _symmetric(cond: Any) -> Any:
    """`a = b` and `b = a` written one way."""
    from sqlglot import exp

    if isinstance(cond, exp.EQ):
        left, right = cond.left, cond.right
        if left.sql(dialect="sqlite", copy=False) > right.sql(dialect="sqlite", copy=False):
            return exp.EQ(this=right.copy(), expression=left.copy())
    return cond


def _bare_columns_determined(select: Any, tables: dict[str, Any]) -> None:
    """A grouped or aggregating SELECT reads a column outside any aggregate from some row of its group: the
    join order may pick another row, unless the group holds one value of it (the column is grouped on, or
    its table's key is)."""
    from sqlglot import exp

    aggregates = [a for a in select.find_all(exp.AggFunc) if a.parent_select is select]
    if any(type(a).__name__ not in _ORDER_FREE_AGGREGATES for a in aggregates):
        raise _NotShown("an aggregate whose value may follow row order")
    group = select.args.get("group")
    if not aggregates and group is None:
        return
    grouped = {e.sql(dialect="sqlite", copy=False) for e in group.expressions} if group is not None else set()
    grouped_columns = {
        (e.table.lower(), e.name.lower())
        for e in (group.expressions if group else [])
        if isinstance(e, exp.Column)
    }
    for c in select.find_all(exp.Column):
        if c.parent_select is not select or c.find_ancestor(exp.AggFunc) is not None:
            continue
        if c.find_ancestor(exp.Group) is not None or c.find_ancestor(exp.Where) is not None:
            continue
        if c.find_ancestor(exp.Join) is not None:
            continue
        if c.sql(dialect="sqlite", copy=False) in grouped or any(
            p.sql(dialect="sqlite", copy=False) in grouped for p in _enclosing(c, select)
        ):
            continue
        table = c.table.lower()
        info = tables.get(table)
        if info is None or not _key_grouped(info[0], table, grouped_columns):
            raise _NotShown(f"bare column {c.sql(dialect='sqlite')}")


def _enclosing(node: Any, select: Any) -> list[Any]:
    out = []
    while node.parent is not None and node.parent is not select:
        node = node.parent
        out.append(node)
    return out


def _key_grouped(table: Any, name: str, grouped: set[tuple[str, str]]) -> bool:
    keys = [tuple(table.pk_columns)] if table.pk_columns else []
    keys += [(c.name,) for c in table.columns if c.unique]
    keys += [tuple(g) for g in table.unique_groups]
    return any(k and all((name, col.lower()) in grouped for col in k) for k in keys)
