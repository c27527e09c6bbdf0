"""Spider's hardness levels (easy, medium, hard, extra), computed on sqlglot trees.

A port of `eval_hardness`, `count_component1`, `count_component2` and `count_others` from the official
Spider evaluation (taoyds/spider, taoyds/test-suite-sql-eval `evaluation.py`). The official code counts on
its own parse (`process_sql.py`); the rules below reproduce what that parse yields, quirks included, so
that the levels agree with every published per-level figure:

- only the outermost SELECT counts (for `A UNION B`, the left operand; the set operator adds 1 to the
  nesting count), and an ORDER BY / LIMIT written after a set operation belongs to its last operand;
- nested queries count only where they are a condition's value (WHERE, HAVING, JOIN ... ON), not in FROM;
- the official "aggregate" count also counts WHERE/HAVING conditions negated with NOT (`NOT IN`,
  `NOT LIKE`, `NOT BETWEEN`) and every AND/OR inside HAVING, and does not count the aggregate inside a
  HAVING or WHERE condition — it reads the first field of each condition tuple, which is the NOT flag.
"""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp

_NESTED = (exp.Select, exp.SetOperation, exp.Subquery)


def spider_hardness(tree: exp.Expression) -> str:
    """easy | medium | hard | extra for a parsed query ("" for a statement that is not a query)."""
    top, has_set_op = _outermost_select(tree)
    if top is None:
        return ""
    comp1, comp2 = count_components(top)
    comp2 += 1 if has_set_op else 0
    others = count_others(top)
    if comp1 <= 1 and others == 0 and comp2 == 0:
        return "easy"
    if (others <= 2 and comp1 <= 1 and comp2 == 0) or (comp1 <= 2 and others < 2 and comp2 == 0):
        return "medium"
    if (
        (others > 2 and comp1 <= 2 and comp2 == 0)
        or (2 < comp1 <= 3 and others <= 2 and comp2 == 0)
        or (comp1 <= 1 and others == 0 and comp2 <= 1)
    ):
        return "hard"
    return "extra"


def count_components(select: exp.Select) -> tuple[int, int]:
    """The official `count_component1` and `count_component2`, from one pass over each condition.

    The first: WHERE, GROUP BY, ORDER BY, LIMIT, each join, each OR and each LIKE in the conditions.
    The second: queries nested as condition values (the set operator is added by the caller).
    """
    comp1 = sum(1 for key in ("where", "group", "order", "limit") if select.args.get(key) is not None)
    comp1 += len(select.args.get("joins") or [])
    comp2 = 0
    for cond in _condition_roots(select):
        for n in _shallow(cond, include_nested=True):
            if isinstance(n, _NESTED):
                comp2 += 1
            elif isinstance(n, (exp.Or, exp.Like)):
                comp1 += 1
    return comp1, comp2


def count_others(select: exp.Select) -> int:
    """More than one aggregate, select item, WHERE condition or GROUP BY column: one point each."""
    agg = sum(1 for e in select.expressions if isinstance(_unalias(e), exp.AggFunc))
    where = select.args.get("where")
    where_units = _condition_units(where.this) if where is not None else []
    agg += sum(1 for u in where_units if _negated(u))
    group = select.args.get("group")
    group_items = list(group.expressions) if group is not None else []
    agg += sum(1 for g in group_items if isinstance(g, exp.AggFunc))
    order = select.args.get("order")
    if order is not None:
        for ordered in order.expressions:
            value = ordered.this if isinstance(ordered, exp.Ordered) else ordered
            value = _unparen(value)
            if isinstance(value, exp.AggFunc):
                agg += 1
            elif isinstance(value, exp.Binary) and not isinstance(value, exp.Connector):
                agg += sum(1 for side in (value.this, value.expression) if isinstance(side, exp.AggFunc))
    having = select.args.get("having")
    if having is not None:
        units = _condition_units(having.this)
        agg += len(units) - 1  # every AND / OR between HAVING conditions
        agg += sum(1 for u in units if _negated(u))
    count = 1 if agg > 1 else 0
    count += 1 if len(select.expressions) > 1 else 0
    count += 1 if len(where_units) > 1 else 0
    count += 1 if len(group_items) > 1 else 0
    return count


def _outermost_select(tree: exp.Expression) -> tuple[exp.Select | None, bool]:
    node = _unparen(tree)
    has_set_op = False
    while isinstance(node, exp.SetOperation):
        has_set_op = True
        node = _unparen(node.this)
    return (node if isinstance(node, exp.Select) else None), has_set_op


def _unparen(node: exp.Expression) -> exp.Expression:
    while isinstance(node, (exp.Paren, exp.Subquery)) and isinstance(node.this, exp.Expression):
        if isinstance(node, exp.Subquery) and node.args.get("alias") is not None:
            break
        node = node.this
    return node


def _unalias(node: exp.Expression) -> exp.Expression:
    return node.this if isinstance(node, exp.Alias) else node


def _condition_roots(select: exp.Select) -> list[exp.Expression]:
    roots = []
    for join in select.args.get("joins") or []:
        if join.args.get("on") is not None:
            roots.append(join.args["on"])
    for key in ("where", "having"):
        clause = select.args.get(key)
        if clause is not None:
            roots.append(clause.this)
    return roots


def _condition_units(cond: exp.Expression) -> list[exp.Expression]:
    """The comparisons joined by AND / OR, as Spider's flat condition list holds them."""
    cond = cond.this if isinstance(cond, exp.Paren) else cond
    if isinstance(cond, exp.Connector):
        return _condition_units(cond.this) + _condition_units(cond.expression)
    return [cond]


def _negated(unit: exp.Expression) -> bool:
    return isinstance(unit, exp.Not) or bool(unit.args.get("negate"))


def _shallow(node: exp.Expression, include_nested: bool = False) -> Iterator[exp.Expression]:
    """Nodes of a condition without entering the queries nested in it (yielded if asked)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, _NESTED) and current is not node:
            if include_nested:
                yield current
            continue
        yield current
        stack.extend(current.iter_expressions())
