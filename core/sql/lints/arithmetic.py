"""Arithmetic that loses what it computes: a ratio of integers."""

from __future__ import annotations

import re
from collections.abc import Iterator

from sqlglot import exp

from sqltriage.core.sql.lints.base import INT, Check, Lint, Query, short
from sqltriage.core.sql.parse import unwrap

INTEGER_DIVISION = Lint(
    "integer-division",
    "a ratio or percentage computed by integer division",
    "Both sides of the division are integers (integer columns, COUNT, SUM of integers, integer literals), "
    "so SQLite drops the fraction: a share comes out 0 and a percentage is truncated. CAST one side AS REAL "
    "(or multiply by 1.0) first.",
)
_RATIO_WORDS = re.compile(r"percent|%|ratio|rate\b|proportion|share|fraction|average|per\b|times\b")


def integer_division(q: Query) -> Iterator[str]:
    for node in q.nodes(exp.Div, exp.IntDiv):
        if isinstance(node, exp.IntDiv):
            continue  # written as integer division on purpose
        numerator, denominator = unwrap(node.this), unwrap(node.expression)
        if q.kind_of(numerator) != INT or q.kind_of(denominator) != INT:
            continue
        ratio = (
            not isinstance(denominator, exp.Literal) or _is_percentage(node) or q.has_question(_RATIO_WORDS)
        )
        if ratio:
            yield short(node)


def _is_percentage(node: exp.Div) -> bool:
    """The division's result, or its numerator, is scaled by 100."""
    parent = node.parent
    while isinstance(parent, exp.Paren):
        parent = parent.parent
    scaled = [parent] if isinstance(parent, exp.Mul) else []
    scaled += list(node.this.find_all(exp.Mul))
    return any(
        isinstance(side, exp.Literal) and side.this in ("100", "100.0")
        for mul in scaled
        for side in (unwrap(mul.this), unwrap(mul.expression))
    )


CHECKS: tuple[tuple[Lint, Check], ...] = ((INTEGER_DIVISION, integer_division),)
