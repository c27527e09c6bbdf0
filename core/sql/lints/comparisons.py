"""Comparisons that cannot mean what they say: a column against itself, NULL by `=`, a LIKE with no
wildcard, text against a number."""

from __future__ import annotations

import re
from collections.abc import Iterator

from sqlglot import exp

from sqltriage.core.sql.lints.base import INT, NUMBER, REAL, TEXT, Check, Lint, Query, short
from sqltriage.core.sql.parse import unwrap

SELF_COMPARISON = Lint(
    "self-comparison",
    "a column compared with itself",
    "`x = x` holds on every row where x is not NULL (and `x <> x` on none): the comparison filters or joins "
    "nothing, and another column (often of another table) was meant.",
)
EQUALS_NULL = Lint(
    "equals-null",
    "`= NULL` or `!= NULL`",
    "A comparison with NULL is never true, so `x = NULL` keeps no row and `x != NULL` keeps none either: "
    "`x IS NULL` / `x IS NOT NULL` was meant.",
)
LIKE_WITHOUT_WILDCARD = Lint(
    "like-without-wildcard",
    "LIKE with a pattern that has no wildcard",
    "A LIKE pattern without % or _ matches only the whole value (ignoring case), which is `=` written "
    "ambiguously: a containment (`'%x%'`) or a prefix was usually meant.",
)
TEXT_COMPARED_WITH_NUMBER = Lint(
    "text-compared-with-number",
    "a text column ordered against a number",
    "The schema types the column as text: `<`, `>` and BETWEEN against a number compare the digits as "
    "text in SQLite ('10' < '9'), and in other engines fail; a CAST or a number column was meant.",
    doubts=False,
)
NUMBER_COMPARED_WITH_WORD = Lint(
    "number-compared-with-word",
    "a number column compared with a word",
    "The schema types the column as a number, and the value is a string that is not a number: no row can "
    "match, so another column (or the value's number) was meant.",
)

_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.NullSafeNEQ)
_ORDERINGS = (exp.GT, exp.GTE, exp.LT, exp.LTE)
_NUMERIC = re.compile(r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$")


def self_comparison(q: Query) -> Iterator[str]:
    for node in q.nodes(*_COMPARISONS):
        left, right = unwrap(node.this), unwrap(node.expression)
        if isinstance(left, exp.Column) and isinstance(right, exp.Column) and _same_column(left, right):
            yield short(node)


def _same_column(a: exp.Column, b: exp.Column) -> bool:
    return a.name.lower() == b.name.lower() and (a.table or "").lower() == (b.table or "").lower()


def equals_null(q: Query) -> Iterator[str]:
    for node in q.nodes(exp.EQ, exp.NEQ):
        if isinstance(unwrap(node.this), exp.Null) or isinstance(unwrap(node.expression), exp.Null):
            yield short(node)


def like_without_wildcard(q: Query) -> Iterator[str]:
    for node in q.nodes(exp.Like, exp.ILike):
        pattern = unwrap(node.expression)
        if isinstance(pattern, exp.Literal) and pattern.is_string and not set(pattern.this) & {"%", "_"}:
            yield short(node)


def text_compared_with_number(q: Query) -> Iterator[str]:
    for node, column, value in _column_against_value(q, _ORDERINGS, with_between=True):
        if q.kind_of_column(column) == TEXT and isinstance(value, exp.Literal) and not value.is_string:
            yield short(node)


def number_compared_with_word(q: Query) -> Iterator[str]:
    for node, column, value in _column_against_value(q, (*_COMPARISONS, exp.In), with_between=True):
        if (
            isinstance(value, exp.Literal)
            and value.is_string
            and value.this.strip()
            and not _NUMERIC.match(value.this)
            and q.kind_of_column(column) in (NUMBER, INT, REAL)
        ):
            yield short(node)


def _column_against_value(
    q: Query, kinds: tuple[type[exp.Expression], ...], *, with_between: bool
) -> Iterator[tuple[exp.Expression, exp.Column, exp.Expression]]:
    """(comparison, its column side, each value side) for comparisons of a bare column with values."""
    for node in q.nodes(*kinds):
        if isinstance(node, exp.In):
            col = unwrap(node.this)
            if isinstance(col, exp.Column):
                for value in node.expressions:
                    yield node, col, unwrap(value)
            continue
        left, right = unwrap(node.this), unwrap(node.expression)
        if isinstance(left, exp.Column):
            yield node, left, right
        elif isinstance(right, exp.Column):
            yield node, right, left
    if with_between:
        for node in q.nodes(exp.Between):
            col = unwrap(node.this)
            if isinstance(col, exp.Column):
                for bound in (node.args.get("low"), node.args.get("high")):
                    if isinstance(bound, exp.Expression):
                        yield node, col, unwrap(bound)


CHECKS: tuple[tuple[Lint, Check], ...] = (
    (SELF_COMPARISON, self_comparison),
    (EQUALS_NULL, equals_null),
    (LIKE_WITHOUT_WILDCARD, like_without_wildcard),
    (TEXT_COMPARED_WITH_NUMBER, text_compared_with_number),
    (NUMBER_COMPARED_WITH_WORD, number_compared_with_word),
)
