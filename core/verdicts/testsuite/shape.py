"""What a gold query asks of the data: its tables, the column pairs it joins on, and its filters.

A neighbour can only tell a gold from a wrong prediction where the gold returns rows. This module reads a
gold query (sqlglot) into one `SelectShape` per SELECT — each branch of a set operation, and each
`IN (SELECT …)` subquery nested under a column — so that `plant.py` can insert rows that satisfy it.
Join equalities count wherever they are written (ON or WHERE) and whether or not a key declares them.
A `"double-quoted"` word that names no column is a string, as SQLite reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqltriage.core.verdicts.testsuite.literals import literal_value
from sqltriage.core.verdicts.testsuite.schema import DbInfo

Member = tuple[str, str]  # (alias lower-case, column name as the schema spells it)

# conditions on one column: op, then its constants
EQ, NE, IN, NOT_IN, LIKE, NOT_LIKE, CMP, IS_NULL, NOT_NULL = (
    "eq",
    "ne",
    "in",
    "not_in",
    "like",
    "not_like",
    "cmp",
    "null",
    "not_null",
)


@dataclass(frozen=True, slots=True)
class Cond:
    member: Member
    op: str
    values: tuple = ()  # constants; for CMP: (operator text, constant) with '>', '>=', '<', '<='


@dataclass(slots=True)
class SelectShape:
    aliases: dict[str, str] = field(default_factory=dict)  # alias lower → table name as in the schema
    joins: list[tuple[Member, Member]] = field(default_factory=list)  # column = column
    conds: list[Cond] = field(default_factory=list)  # every conjunct that must hold
    choices: list[list[list[Cond]]] = field(default_factory=list)  # OR: one alternative of each must hold
    col_cmps: list[tuple[Member, str, Member]] = field(default_factory=list)  # a.x < b.y
    subqueries: list[tuple[Member, SelectShape, Member]] = field(default_factory=list)  # x IN (SELECT y …)
    group_by: list[Member] = field(default_factory=list)
    min_group: int = 1  # rows per group that HAVING count(*) asks for
    outputs: list[Member | None] = field(default_factory=list)  # the SELECT list's plain columns
    combine: str | None = None  # "intersect", "except" or "union" with the branch before it
    notes: list[str] = field(default_factory=list)  # what could not be read, and so is not planted
    empty: str | None = None  # why the query can return no row at all, when its filters contradict


def read_shapes(sql: str, db: DbInfo, tree: Any = None) -> tuple[list[SelectShape], str | None]:
    """The SELECTs of `sql` to plant (set-operation branches each), or the reason there are none.
    `tree`: its parse when already made (read only)."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    if tree is None:
        try:
            tree = sqlglot.parse_one(sql, read="sqlite")
        except (SqlglotError, ValueError, RecursionError) as exc:
            return [], f"gold does not parse ({type(exc).__name__})"
    if tree is None:
        return [], "gold is empty"
    selects: list = []
    _branches(tree, selects, None)
    if not selects:
        return [], "no SELECT to plant"
    shapes = []
    for s, combine in selects:
        if not isinstance(s, exp.Select):
            continue
        shape = _shape(s, db)
        shape.combine = combine
        shapes.append(shape)
    return shapes, None if shapes else "no SELECT to plant"


def _branches(node: object, out: list, combine: str | None) -> None:
    from sqlglot import exp

    if isinstance(node, exp.SetOperation):
        _branches(node.this, out, combine)
        _branches(node.expression, out, type(node).__name__.lower())
    elif isinstance(node, exp.Subquery):
        _branches(node.this, out, combine)
    else:
        out.append((node, combine))


def _shape(select: object, db: DbInfo) -> SelectShape:
    from sqlglot import exp

    shape = SelectShape()
    froms = []
    src = select.args.get("from_") or select.args.get("from")
    if src is not None:
        froms.append(src.this)
    joins = select.args.get("joins") or []
    froms += [j.this for j in joins]
    for f in froms:
        if isinstance(f, exp.Table) and db.table(f.name) is not None:
            alias = (f.alias or f.name).lower()
            shape.aliases[alias] = db.table(f.name).name  # type: ignore[union-attr]
        else:
            shape.notes.append("a FROM item that is not a table of the schema is not planted")
    conjuncts: list = []
    for j in joins:
        if j.args.get("on") is not None:
            conjuncts += _split_and(j.args["on"])
    if select.args.get("where") is not None:
        conjuncts += _split_and(select.args["where"].this)
    reader = _Reader(shape, db)
    for c in conjuncts:
        reader.conjunct(c)
    shape.outputs = [
        reader.member(e.unalias() if isinstance(e, exp.Alias) else e) for e in select.expressions
    ]
    group = select.args.get("group")
    if group is not None:
        shape.group_by = [m for e in group.expressions if (m := reader.member(e)) is not None]
    having = select.args.get("having")
    if having is not None:
        for c in _split_and(having.this):
            reader.having(c)
    limit = select.args.get("limit")
    if limit is not None and literal_value(limit.expression) == 0:
        shape.empty = "LIMIT 0"
    return shape


def _split_and(node: object) -> list:
    from sqlglot import exp

    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.And):
        return _split_and(node.this) + _split_and(node.expression)
    return [node]


_FLIP = {">": "<", ">=": "<=", "<": ">", "<=": ">="}


class _Reader:
    def __init__(self, shape: SelectShape, db: DbInfo) -> None:
        self.shape = shape
        self.db = db

    def member(self, node: object) -> Member | None:
        """The (alias, column) a column reference names in this SELECT, or None."""
        from sqlglot import exp

        if not isinstance(node, exp.Column):
            return None
        name = node.name
        qual = node.table.lower() if node.table else ""
        candidates = [qual] if qual else list(self.shape.aliases)
        for alias in candidates:
            table = self.db.table(self.shape.aliases.get(alias, ""))
            col = table.column(name) if table is not None else None
            if col is not None:
                return (alias, col.name)
        return None

    def constant(self, node: object) -> tuple[bool, object]:
        """(is a constant, its value): literals, negated literals, and "double-quoted" words naming no column."""
        from sqlglot import exp

        value = literal_value(node)
        if value is not None:
            return True, value
        if isinstance(node, exp.Column) and not node.table and self.member(node) is None:
            ident = node.this
            if isinstance(ident, exp.Identifier) and ident.quoted:
                return True, ident.this
        if isinstance(node, exp.Null):
            return True, None
        return False, None

    def conds_of(self, node: object) -> list[Cond] | None:
        """The simple per-column conditions of one conjunct, or None when it is not simple."""
        from sqlglot import exp

        negate = False
        while isinstance(node, exp.Not | exp.Paren):
            if isinstance(node, exp.Not):
                negate = not negate
            node = node.this
        ops = {exp.EQ: "=", exp.NEQ: "<>", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<="}
        for cls, text in ops.items():
            if type(node) is cls:
                left, right = node.this, node.expression
                m, (is_c, value) = self.member(left), self.constant(right)
                if m is None:
                    m, (is_c, value) = self.member(right), self.constant(left)
                    text = _FLIP.get(text, text)
                if m is None or not is_c or value is None:
                    return None
                if negate:
                    text = {"=": "<>", "<>": "=", ">": "<=", ">=": "<", "<": ">=", "<=": ">"}[text]
                if text == "=":
                    return [Cond(m, EQ, (value,))]
                if text == "<>":
                    return [Cond(m, NE, (value,))]
                return [Cond(m, CMP, (text, value))]
        if isinstance(node, exp.In) and not node.args.get("query"):
            m = self.member(node.this)
            values = [self.constant(e) for e in node.expressions]
            if m is None or not values or not all(ok for ok, _ in values):
                return None
            return [Cond(m, NOT_IN if negate else IN, tuple(v for _, v in values))]
        if isinstance(node, exp.Like):
            m, (is_c, pattern) = self.member(node.this), self.constant(node.expression)
            if m is None or not is_c or not isinstance(pattern, str):
                return None
            return [Cond(m, NOT_LIKE if negate else LIKE, (pattern,))]
        if isinstance(node, exp.Between) and not negate:
            m = self.member(node.this)
            (ok_lo, lo), (ok_hi, hi) = (
                self.constant(node.args.get("low")),
                self.constant(node.args.get("high")),
            )
            if m is None or not (ok_lo and ok_hi) or lo is None or hi is None:
                return None
            return [Cond(m, CMP, (">=", lo)), Cond(m, CMP, ("<=", hi))]
        if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
            m = self.member(node.this)
            if m is None:
                return None
            return [Cond(m, NOT_NULL if negate else IS_NULL)]
        return None

    def conjunct(self, node: object) -> None:
        from sqlglot import exp

        shape = self.shape
        inner = node
        while isinstance(inner, exp.Paren):
            inner = inner.this
        if isinstance(inner, exp.EQ):
            a, b = self.member(inner.this), self.member(inner.expression)
            if a is not None and b is not None:
                if a != b:
                    shape.joins.append((a, b))
                return
        simple = self.conds_of(inner)
        if simple is not None:
            shape.conds += simple
            return
        if isinstance(inner, exp.Or):
            alternatives = [self.conds_of(d) for d in _split_or(inner)]
            usable = [a for a in alternatives if a]
            if usable:
                shape.choices.append(usable)
                return
        if isinstance(inner, exp.In) and isinstance(inner.args.get("query"), exp.Subquery | exp.Select):
            m = self.member(inner.this)
            sub = inner.args["query"]
            sub = sub.this if isinstance(sub, exp.Subquery) else sub
            if m is not None and isinstance(sub, exp.Select) and len(sub.expressions) == 1:
                sub_shape = _shape(sub, self.db)
                target = _Reader(sub_shape, self.db).member(sub.expressions[0])
                if target is not None:
                    shape.subqueries.append((m, sub_shape, target))
                    return
            shape.notes.append("subquery not planted")
            return
        cmp_ops = {exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<="}
        for cls, text in cmp_ops.items():
            if type(inner) is cls:
                a, b = self.member(inner.this), self.member(inner.expression)
                if a is not None and b is not None:
                    shape.col_cmps.append((a, text, b))
                    return
        if any(isinstance(n, exp.Subquery | exp.Select) for n in inner.walk()):
            shape.notes.append("subquery not planted")
        else:
            shape.notes.append(f"condition not planted: {inner.sql(dialect='sqlite')[:60]}")

    def having(self, node: object) -> None:
        """HAVING count(*) > n (or >=, =, and count of a column): the group needs that many rows."""
        from sqlglot import exp

        while isinstance(node, exp.Paren):
            node = node.this
        ops = {exp.GT: 1, exp.GTE: 0, exp.EQ: 0}
        step = ops.get(type(node))
        if step is None:
            return
        left, right = node.this, node.expression
        if isinstance(left, exp.Count):
            n = literal_value(right)
            if isinstance(n, int | float) and n >= 0:
                self.shape.min_group = max(self.shape.min_group, int(n) + step)


def _split_or(node: object) -> list:
    from sqlglot import exp

    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Or):
        return _split_or(node.this) + _split_or(node.expression)
    return [node]
