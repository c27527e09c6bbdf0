"""What a proof up to N rows per table cannot see: counts and cuts that need more rows than that, and
rounding on one side only.

`HAVING count(*) > 10` against `HAVING count(*) >= 10` differ only on a group of ten rows. On databases of at
most 3 rows per table neither HAVING ever holds (with keys and foreign keys, a join's group is no larger than
its tables), so both results are empty and the pair would be `verified` vacuously; a neighbour of the
original's size refutes it. The same holds for a LIMIT or OFFSET that no result of that size reaches. Such a
pair is `unknown`, with the construct and the bound named, rather than a proof of nothing.
"""

from __future__ import annotations

from typing import Any

_COMPARISONS = ("EQ", "NEQ", "GT", "GTE", "LT", "LTE")


def beyond_bound(trees: list[Any], bound: int) -> str | None:
    """Why a proof up to `bound` rows per table says nothing about these queries, or None."""
    from sqlglot import exp

    rounding = [sorted(_digits(r) for r in tree.find_all(exp.Round)) for tree in trees]
    if any(r != rounding[0] for r in rounding[1:]):
        # ROUND(x, 2) against x: on a few rows a ratio is a multiple of 1/2 or 1/3, which 2 digits may keep
        # whole (50.0, 100.0); a neighbour's 1/7 is not. Rounding on one side only is never proved.
        return f"ROUND on one side only needs values finer than {bound} rows per table give"
    for tree in trees:
        for node in tree.find_all(exp.Limit, exp.Offset):
            n = _number(node.expression)
            if n is not None and n >= bound:
                word = "LIMIT" if isinstance(node, exp.Limit) else "OFFSET"
                return f"{word} {_shown(n)} needs more than {bound} rows per table"
        for node in tree.find_all(*(getattr(exp, name) for name in _COMPARISONS)):
            for count, other in ((node.this, node.expression), (node.expression, node.this)):
                n = _number(other)
                if n is not None and n >= bound and _counts(count):
                    return f"a count compared with {_shown(n)} needs more than {bound} rows per table"
    return None


def bound_needed(trees: list[Any]) -> int:
    """The fewest rows per table at which the counts and cuts of these queries can be told apart: one more
    than the largest LIMIT, OFFSET or number a count is compared with (1 when there is none)."""
    from sqlglot import exp

    need = 1
    for tree in trees:
        for node in tree.find_all(exp.Limit, exp.Offset):
            n = _number(node.expression)
            if n is not None and n >= 0:
                need = max(need, int(n) + 1)
        for node in tree.find_all(*(getattr(exp, name) for name in _COMPARISONS)):
            for count, other in ((node.this, node.expression), (node.expression, node.this)):
                n = _number(other)
                if n is not None and n >= 0 and _counts(count):
                    need = max(need, int(n) + 1)
    return need


def _digits(node: Any) -> str:
    """A ROUND's digits as written (`0` when none)."""
    digits = node.args.get("decimals")
    return "0" if digits is None else digits.sql(dialect="sqlite")


def _counts(node: Any) -> bool:
    """A COUNT, or arithmetic over one (count(*) + 1, 2 * count(x))."""
    from sqlglot import exp

    if isinstance(node, exp.Count):
        return True
    if isinstance(node, exp.Paren | exp.Neg):
        return _counts(node.this)
    if isinstance(node, exp.Binary) and isinstance(node, exp.Add | exp.Sub | exp.Mul | exp.Div):
        return _counts(node.this) or _counts(node.expression)
    return False


def _number(node: Any) -> float | None:
    from sqlglot import exp

    if isinstance(node, exp.Neg):
        inner = _number(node.this)
        return None if inner is None else -inner
    if isinstance(node, exp.Paren):
        return _number(node.this)
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return float(node.this)
        except ValueError:
            return None
    return None


def _shown(n: float) -> str:
    return str(int(n)) if n == int(n) else str(n)
