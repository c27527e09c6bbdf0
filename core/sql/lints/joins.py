"""Join conditions that do not join: two columns of one alias, or a condition that misses a side."""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp

from sqltriage.core.sql.lints.base import Check, Lint, Query, short
from sqltriage.core.sql.parse import owning_select, scope_sources, unwrap

JOIN_ON_SAME_ALIAS = Lint(
    "join-on-same-alias",
    "a join condition equating two columns of one alias",
    "`T2.PostId = T2.Id` compares two columns of the same row, so it links the joined table to nothing (a "
    "cross join filtered by an odd condition); one side was meant to be another alias (`T1.Id`).",
)
JOIN_NOT_LINKING = Lint(
    "join-not-linking",
    "a join condition that does not link the joined tables",
    "The ON condition reads no column of the table it joins, or none of the tables before it, so every row "
    "pairs with every row that passes it (a cross join); a condition between the two was meant.",
)


def join_on_same_alias(q: Query) -> Iterator[str]:
    for join in q.nodes(exp.Join):
        for eq in _own_equalities(join):
            if _same_alias_pair(eq):
                yield short(eq)


def _own_equalities(join: exp.Join) -> list[exp.EQ]:
    on = join.args.get("on")
    if not isinstance(on, exp.Expression):
        return []
    return [eq for eq in on.find_all(exp.EQ) if owning_select(eq) is join.parent]


def _same_alias_pair(eq: exp.EQ) -> bool:
    left, right = unwrap(eq.this), unwrap(eq.expression)
    return (
        isinstance(left, exp.Column)
        and isinstance(right, exp.Column)
        and bool(left.table)
        and left.table.lower() == (right.table or "").lower()
        and left.name.lower() != right.name.lower()
    )


def join_not_linking(q: Query) -> Iterator[str]:
    for select in q.nodes(exp.Select):
        sources, joins = scope_sources(select), select.args.get("joins") or []
        names = [(s.alias_or_name or "").lower() for s in sources]
        if len(sources) != 1 + len(joins) or len(set(names)) != len(names) or "" in names:
            continue  # an unnamed or repeated source: which side a column is on cannot be told
        for position, join in enumerate(joins, start=1):
            on = join.args.get("on")
            if not isinstance(on, exp.Expression) or any(_same_alias_pair(e) for e in _own_equalities(join)):
                continue
            sides = _sides(q, on, select, names)
            if sides is None or not sides:
                continue
            joined, before = names[position], set(names[:position])
            if joined not in sides or not sides & before:
                yield short(on)


def _sides(q: Query, on: exp.Expression, select: exp.Select, names: list[str]) -> set[str] | None:
    """The sources (by alias) the condition's own columns read; None when one of them cannot be placed."""
    tables = {}
    for source, name in zip(scope_sources(select), names, strict=True):
        if isinstance(source, exp.Table):
            tables.setdefault(source.name.lower(), []).append(name)
    sides: set[str] = set()
    for col in on.find_all(exp.Column):
        if owning_select(col) is not select:
            continue
        if col.table:
            if col.table.lower() not in names:
                return None  # an outer query's column
            sides.add(col.table.lower())
            continue
        table = q.table_of(col)
        owners = tables.get(table or "", [])
        if len(owners) != 1:
            return None
        sides.add(owners[0])
    return sides


CHECKS: tuple[tuple[Lint, Check], ...] = (
    (JOIN_ON_SAME_ALIAS, join_on_same_alias),
    (JOIN_NOT_LINKING, join_not_linking),
)
