"""Groups that are not the things counted: GROUP BY a name while the key is at hand, HAVING with no groups."""

from __future__ import annotations

import re
from collections.abc import Iterator

from sqlglot import exp

from sqltriage.core.sql.lints.base import TEXT, Check, Lint, Query, short
from sqltriage.core.sql.parse import select_columns, unwrap

GROUP_BY_NAME = Lint(
    "group-by-name",
    "GROUP BY a name while the table's key is at hand",
    "Grouping by a name or title merges the rows of two things that share it (two students named Smith); "
    "the query already uses the table's key, which was meant as the group (with the name beside it).",
    doubts=False,
)
HAVING_WITHOUT_GROUP_BY = Lint(
    "having-without-group-by",
    "HAVING without GROUP BY",
    "Without GROUP BY the whole result is one group: HAVING then keeps all rows or none (and older SQLite "
    "rejects it); a WHERE condition, or a GROUP BY, was meant.",
)

_NAME = re.compile(r"name|title", re.IGNORECASE)


def group_by_name(q: Query) -> Iterator[str]:
    for select in q.nodes(exp.Select):
        group = select.args.get("group")
        if group is None or not group.expressions:
            continue
        columns = [unwrap(g) for g in group.expressions]
        if not all(isinstance(c, exp.Column) for c in columns):
            continue
        tables = {q.table_of(c) for c in columns}
        qualifiers = {(c.table or "").lower() for c in columns}
        if len(tables) != 1 or None in tables or len(qualifiers) != 1:
            continue
        (table,) = tables
        key = q.key_of(table)
        if key is None or any(c.name.lower() == key for c in columns):
            continue
        if not any(_NAME.search(c.name) and q.kind_of_column(c) == TEXT for c in columns):
            continue
        (qualifier,) = qualifiers
        at_hand = any(
            c.name.lower() == key and (c.table or "").lower() == qualifier and q.table_of(c) == table
            for c in select_columns(select)
        )
        if at_hand:
            yield short(group)


def having_without_group_by(q: Query) -> Iterator[str]:
    for select in q.nodes(exp.Select):
        having = select.args.get("having")
        if having is not None and select.args.get("group") is None:
            yield short(having)


CHECKS: tuple[tuple[Lint, Check], ...] = (
    (GROUP_BY_NAME, group_by_name),
    (HAVING_WITHOUT_GROUP_BY, having_without_group_by),
)
