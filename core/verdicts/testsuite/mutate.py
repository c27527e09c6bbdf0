"""Near-miss variants ("mutants") of a gold query, for choosing the neighbours that tell queries apart.

Each mutant changes one thing, as the mistakes of models do: a WHERE/HAVING conjunct dropped, an
aggregate swapped, a comparison loosened or flipped, a numeric literal moved by one, ASC/DESC flipped,
DISTINCT dropped or added, a LIMIT changed, a set operation swapped, an inner join made a left join.
A walk over the sqlglot tree; deterministic (mutants come out in tree order).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

MAX_MUTANTS = 16

_AGG_SWAPS = {"Max": "Min", "Min": "Max", "Sum": "Avg", "Avg": "Sum", "Count": "Sum"}
_CMP_SWAPS = {"GT": "GTE", "GTE": "GT", "LT": "LTE", "LTE": "LT", "EQ": "NEQ", "NEQ": "EQ"}
_SETOP_SWAPS = {"Union": "Intersect", "Intersect": "Except", "Except": "Union"}


def mutants(sql: str, limit: int = MAX_MUTANTS, *, distinct: bool = True) -> list[str]:
    """Up to `limit` distinct SQL texts, each one edit away from `sql`; none when it does not parse.

    `distinct=False` leaves DISTINCT alone (Spider's evaluator removes it before comparing anyway).
    """
    import sqlglot
    from sqlglot.errors import SqlglotError

    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except (SqlglotError, ValueError, RecursionError):
        return []
    if tree is None:
        return []
    seen = {tree.sql(dialect="sqlite")}
    out: list[str] = []
    for position, change in _edits(tree, distinct):
        try:
            copy = tree.copy()
            target = _find(copy, position)
            if target is None:
                continue
            replaced = change(target)
            root = replaced if target is copy and replaced is not None else copy
            text = root.sql(dialect="sqlite")
        except (SqlglotError, ValueError, RecursionError, AttributeError, TypeError):
            continue
        if text not in seen:
            seen.add(text)
            out.append(text)
    if len(out) <= limit:
        return out
    step = len(out) / limit  # spread over the whole query, not only its first clauses
    return [out[int(i * step)] for i in range(limit)]


Edit = tuple[int, Callable[[object], object]]  # (node position in the walk, change applied to the copy)


def _find(tree: object, position: int) -> object | None:
    for i, node in enumerate(tree.walk()):  # type: ignore[attr-defined]
        if i == position:
            return node
    return None


def _edits(tree: object, distinct: bool) -> Iterator[Edit]:
    from sqlglot import exp

    for i, node in enumerate(tree.walk()):  # type: ignore[attr-defined]
        name = type(node).__name__
        if isinstance(node, exp.And):
            yield i, lambda n: n.replace(n.this)
            yield i, lambda n: n.replace(n.expression)
        elif isinstance(node, exp.Or):
            yield i, lambda n: n.replace(exp.And(this=n.this.copy(), expression=n.expression.copy()))
        if name in _CMP_SWAPS:
            other = getattr(exp, _CMP_SWAPS[name])
            yield (
                i,
                lambda n, other=other: n.replace(other(this=n.this.copy(), expression=n.expression.copy())),
            )
        if name in _AGG_SWAPS and isinstance(node, exp.AggFunc) and not isinstance(node.this, exp.Star):
            other = getattr(exp, _AGG_SWAPS[name])
            yield i, lambda n, other=other: n.replace(other(this=n.this.copy()))
        if distinct and isinstance(node, exp.Count) and not isinstance(node.this, exp.Distinct | exp.Star):
            yield i, lambda n: n.replace(exp.Count(this=exp.Distinct(expressions=[n.this.copy()])))
        if isinstance(node, exp.Literal) and not node.is_string and isinstance(node.parent, exp.Binary):
            yield i, lambda n: n.replace(exp.Literal.number(_step(n.this)))
        if isinstance(node, exp.Ordered):
            yield (
                i,
                lambda n: (
                    n.set("nulls_first", bool(n.args.get("desc"))),
                    n.set("desc", not n.args.get("desc")),
                )[-1],
            )
        if isinstance(node, exp.Select):
            if not distinct:
                pass
            elif node.args.get("distinct"):
                yield i, lambda n: n.set("distinct", None)
            else:
                yield i, lambda n: n.set("distinct", exp.Distinct())
            if node.args.get("where") is not None:
                yield i, lambda n: n.set("where", None)
        if isinstance(node, exp.Limit):
            yield i, lambda n: n.set("expression", exp.Literal.number(_step(n.expression.name)))
        if name in _SETOP_SWAPS and isinstance(node, exp.SetOperation):
            other = getattr(exp, _SETOP_SWAPS[name])
            yield (
                i,
                lambda n, other=other: n.replace(
                    other(this=n.this.copy(), expression=n.expression.copy(), distinct=n.args.get("distinct"))
                ),
            )
        if isinstance(node, exp.Join) and not node.args.get("side"):
            yield i, lambda n: n.set("side", "LEFT")


def _step(text: str) -> str:
    try:
        return str(int(text) + 1)
    except ValueError:
        try:
            return repr(float(text) + 1)
        except ValueError:
            return text
