"""Counting mistakes: COUNT of a CASE that never yields NULL, a count of "different" things without DISTINCT."""

from __future__ import annotations

import re
from collections.abc import Iterator

from sqlglot import exp

from sqltriage.core.sql.lints.base import Check, Lint, Query, short
from sqltriage.core.sql.parse import unwrap

COUNT_CASE_ELSE_ZERO = Lint(
    "count-case-else-zero",
    "COUNT of a CASE (or IIF) whose other branch is a value",
    "COUNT counts every non-NULL value and 0 is not NULL: COUNT(CASE WHEN c THEN 1 ELSE 0 END) counts every "
    "row, not the rows where c holds (SUM of it, or no ELSE, was meant).",
)
COUNT_WITHOUT_DISTINCT = Lint(
    "count-without-distinct",
    "question counts different things, COUNT has no DISTINCT",
    "The question asks how many different (distinct, unique) things there are, yet the query counts a column "
    "that is not a key without DISTINCT, so a value met twice is counted twice.",
    doubts=False,
)


def count_case_else_zero(q: Query) -> Iterator[str]:
    for node in q.nodes(exp.Count):
        arg = node.this
        if isinstance(arg, exp.Distinct):
            exprs = arg.expressions
            arg = exprs[0] if len(exprs) == 1 else None
        arg = unwrap(arg) if isinstance(arg, exp.Expression) else None
        if isinstance(arg, exp.Case):
            other = arg.args.get("default")
        elif isinstance(arg, exp.If):
            other = arg.args.get("false")
        else:
            continue
        if isinstance(other, exp.Literal):
            yield short(node)


_DIFFERENT = re.compile(r"\b(how many|number of|count of|count the)\s+(different|distinct|unique)\b")


def count_without_distinct(q: Query) -> Iterator[str]:
    if not q.has_question(_DIFFERENT):
        return
    counts = list(q.nodes(exp.Count))
    if len(counts) != 1 or any(
        isinstance(s, exp.Select) and s.args.get("distinct") for s in q.nodes(exp.Select)
    ):
        return
    (count,) = counts
    col = count.this
    if not isinstance(col, exp.Column) or isinstance(col.this, exp.Star):
        return
    found = q.schema_column(col)
    if found is None or q.is_key(found[0], col.name):
        return
    yield short(count)


CHECKS: tuple[tuple[Lint, Check], ...] = (
    (COUNT_CASE_ELSE_ZERO, count_case_else_zero),
    (COUNT_WITHOUT_DISTINCT, count_without_distinct),
)
