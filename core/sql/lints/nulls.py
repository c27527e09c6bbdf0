"""NULL through NOT IN: one NULL in the subquery's column empties the result.

Keys and foreign keys are left alone: the schema says nothing of NOT NULL, and a link column holding
NULL is rare, while an attribute (a name, a date) often does."""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp

from sqltriage.core.sql.lints.base import Check, Lint, Query, short
from sqltriage.core.sql.parse import unwrap

NOT_IN_NULLABLE = Lint(
    "not-in-nullable",
    "NOT IN over a subquery column that may hold NULL",
    "`x NOT IN (SELECT c …)` is never true once c holds a NULL, so the query silently finds nothing; c is "
    "neither a key nor a foreign key of its table (an attribute, where NULL means unknown), and nothing keeps "
    "NULLs out: NOT EXISTS, or `WHERE c IS NOT NULL` inside, was meant.",
    doubts=False,
)


def not_in_nullable(q: Query) -> Iterator[str]:
    if q.schema is None:
        return
    keys = {(t.lower(), c.lower()) for t, c in q.schema.primary_keys}
    keys |= {(t.lower(), c.lower()) for (t, c), _ in q.schema.foreign_keys}
    for node in q.nodes(exp.Not):
        inner = unwrap(node.this)
        if not isinstance(inner, exp.In):
            continue
        query = inner.args.get("query")
        sub = unwrap(query) if isinstance(query, exp.Expression) else None
        if not isinstance(sub, exp.Select) or len(sub.expressions) != 1 or sub.args.get("where") is not None:
            continue  # a WHERE may already keep NULLs out: the lint cannot tell
        col = unwrap(sub.expressions[0].unalias())
        if not isinstance(col, exp.Column):
            continue
        found = q.schema_column(col)
        if found is None or (found[0], col.name.lower()) in keys:
            continue
        yield short(node)


CHECKS: tuple[tuple[Lint, Check], ...] = ((NOT_IN_NULLABLE, not_in_nullable),)
