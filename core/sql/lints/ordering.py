"""Row cuts that keep an arbitrary part of the answer: LIMIT without ORDER BY, LIMIT 1 over a tie the
question asks for in full, and an aggregate compared in WHERE."""

from __future__ import annotations

import re
from collections.abc import Iterator

from sqlglot import exp

from sqltriage.core.sql.lints.base import Check, Lint, Query, short
from sqltriage.core.sql.parse import unwrap

LIMIT_WITHOUT_ORDER = Lint(
    "limit-without-order-by",
    "LIMIT without ORDER BY",
    "Without ORDER BY the rows a LIMIT keeps are whichever the engine reads first, so the answer changes "
    "with the engine, an index or the file's layout; the query meant an order.",
)
LIMIT_ONE_DROPS_TIES = Lint(
    "limit-one-drops-ties",
    "ORDER BY … LIMIT 1 where several rows can share the extreme",
    "The sort key is not unique per schema, so several rows can share the top value; LIMIT 1 keeps one of "
    "them at random while the question asks for all of them (a comparison with MAX/MIN in a subquery was "
    "meant).",
    doubts=False,
)
AGGREGATE_IN_WHERE = Lint(
    "aggregate-in-where",
    "an aggregate compared in WHERE",
    "WHERE filters rows before any aggregate exists, so `WHERE x = MAX(x)` is an error in SQLite; the "
    "extreme was meant from a subquery (`WHERE x = (SELECT MAX(x) …)`) or the test belongs in HAVING.",
)

# The question asks for every row at the extreme: "all the songs of the youngest singer", "all races that
# occurred in the earliest month", "the ones with the most", "ties". Not "among all …" or "for all …" at the
# start, which set the scope the one extreme is taken in.
_EXTREME = (
    r"\b(most|least|fewest|highest|lowest|largest|smallest|biggest|oldest|youngest|earliest|latest|longest"
    r"|shortest|greatest|maximum|minimum|best|worst)\b"
)
_SEVERAL = re.compile(
    r"(?<!among )(?<!across )(?<!over )(?<!^for )(?<!^of )(?<!^in )"
    r"\ball (the )?[a-z]+ (of|with|in|from|that|who|whose|which)\b.*"
    + _EXTREME
    + r"|\b(ones|those)\b.*"
    + _EXTREME
    + r"|\b(tie|ties|tied)\b"
)


def limit_without_order(q: Query) -> Iterator[str]:
    for node in q.nodes(exp.Select, exp.Union, exp.Intersect, exp.Except):
        limit = node.args.get("limit")
        if limit is None or node.args.get("order") is not None:
            continue
        if isinstance(node, exp.Select) and _one_row(node):
            continue
        yield short(limit)


def _one_row(select: exp.Select) -> bool:
    """An aggregate without GROUP BY: one row, whatever the LIMIT."""
    if select.args.get("group") is not None:
        return False
    return all(isinstance(unwrap(e.unalias()), exp.AggFunc) for e in select.expressions)


def limit_one_drops_ties(q: Query) -> Iterator[str]:
    if q.question and not q.has_question(_SEVERAL):
        return
    for node in q.nodes(exp.Select):
        limit, order = node.args.get("limit"), node.args.get("order")
        if limit is None or order is None or unwrap(limit.expression).sql() != "1" or node.args.get("offset"):
            continue
        if not any(_may_tie(q, o.this) for o in order.expressions[:1]) or _reads_only_key(node, order):
            continue
        yield short(order)


def _reads_only_key(select: exp.Select, order: exp.Order) -> bool:
    """The select list reads nothing but the sort key's columns: tied rows give the same answer."""
    key = {c.sql().lower() for o in order.expressions for c in o.find_all(exp.Column)}
    read = {c.sql().lower() for e in select.expressions for c in e.find_all(exp.Column)}
    return bool(read) and read <= key


def _may_tie(q: Query, key: exp.Expression) -> bool:
    """Two rows can share the key: it is not its table's single-column primary key."""
    key = unwrap(key)
    if isinstance(key, exp.Column):
        table = q.table_of(key)
        return table is not None and not q.is_key(table, key.name)
    return True


def aggregate_in_where(q: Query) -> Iterator[str]:
    for where in q.nodes(exp.Where):
        select = where.parent
        for agg in where.find_all(exp.AggFunc):
            if _owning_query(agg) is select:
                yield short(agg)


def _owning_query(node: exp.Expression) -> exp.Expression | None:
    """The nearest query above the node (a set operation's ORDER BY belongs to the UNION, not a SELECT)."""
    parent = node.parent
    while parent is not None and not isinstance(parent, exp.Query):
        parent = parent.parent
    return parent


CHECKS: tuple[tuple[Lint, Check], ...] = (
    (LIMIT_WITHOUT_ORDER, limit_without_order),
    (LIMIT_ONE_DROPS_TIES, limit_one_drops_ties),
    (AGGREGATE_IN_WHERE, aggregate_in_where),
)
