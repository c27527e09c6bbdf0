"""Constraints mined from the original database and its gold queries, so that neighbours stay realistic.

A neighbour that refutes a prediction on data the database could never hold (a country code outside its
ten codes, a negative age, a NULL where no row has one) refutes nothing. Besides the declared keys, each
column gets, from the original's sampled values (`schema.SAMPLE_ROWS` rows per table):

- a categorical domain: at most `CATEGORICAL_MAX` distinct values, each seen twice on average over at
  least `CATEGORICAL_ROWS` rows → only those values (and the gold literals compared with the column) are drawn;
- a numeric range: min..max of the values, widened to each gold literal compared with the column and one
  step beyond it (so that `age > 50` can hold where 50 is the largest age seen);
- never NULL: no NULL among at least `EVIDENCE_ROWS` rows → no NULL is generated;
- unique: all values distinct over at least `UNIQUE_EVIDENCE_ROWS` rows → kept unique like a key.

Key columns (primary, UNIQUE, foreign, link) keep their own rules and get no domain or range. The join
links are the column pairs the golds compare with `=` (ON or WHERE, or `x IN (SELECT y …)`) that no
foreign key declares; where the original's values of one side all occur on the other (an inclusion
dependency), the link is kept like a foreign key (the child draws only from its parent's values),
else the child draws mostly from its partner's values.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from sqltriage.core.verdicts.testsuite.column_rule import ColumnRule
from sqltriage.core.verdicts.testsuite.literals import GoldLiterals
from sqltriage.core.verdicts.testsuite.schema import DbInfo, TableInfo
from sqltriage.core.verdicts.testsuite.shape import SelectShape, read_shapes
from sqltriage.core.verdicts.testsuite.values import kind_of

CATEGORICAL_MAX = 12
CATEGORICAL_ROWS = 10
# No NULL (or no duplicate) among n rows is weak evidence when n is small: a column NULL in one row of
# ten shows no NULL in 10 rows 35% of the time, in 30 rows 4% of the time.
EVIDENCE_ROWS = 30
UNIQUE_EVIDENCE_ROWS = 30


@dataclass(frozen=True, slots=True)
class Link:
    child: tuple[str, str]  # (table, column) as the schema spells them
    parent: tuple[str, str]
    inclusion: bool  # the original's child values all occur among the parent's


@dataclass(slots=True)
class Mined:
    rules: dict[tuple[str, str], ColumnRule] = field(default_factory=dict)  # (table lower, column lower)
    links: list[Link] = field(default_factory=list)

    def rule(self, table: str, column: str) -> ColumnRule:
        return self.rules.get((table.lower(), column.lower())) or ColumnRule()


def mine(db: DbInfo, literals: GoldLiterals, shapes: Iterable[SelectShape]) -> Mined:
    """The rules of every column and the join links read from the golds' shapes."""
    out = Mined()
    out.links = _links(db, shapes)
    keyish = {(lk.child[0].lower(), lk.child[1].lower()) for lk in out.links}
    for t in db.tables:
        keyish.update((t.name.lower(), fk[0].lower()) for fk in t.foreign_keys)
        for c in t.columns:
            out.rules[(t.name.lower(), c.name.lower())] = _rule(t, c, literals, keyish)
    return out


def _rule(table: TableInfo, column: object, literals: GoldLiterals, keyish: set) -> ColumnRule:
    values = column.values  # type: ignore[attr-defined]
    present = [v for v in values if v is not None]
    rule = ColumnRule()
    rule.never_null = len(values) >= EVIDENCE_ROWS and not any(v is None for v in values)
    distinct = set(present)
    key = column.pk or column.unique or (table.name.lower(), column.name.lower()) in keyish  # type: ignore[attr-defined]
    kind = kind_of(column)  # type: ignore[arg-type]
    rule.unique = (
        not key
        and kind in ("int", "text")
        and len(present) >= UNIQUE_EVIDENCE_ROWS
        and len(distinct) == len(present) == len(values)
    )
    if key or rule.unique:
        return rule
    lits = literals.by_column.get(column.name.lower(), [])  # type: ignore[attr-defined]
    if (
        kind in ("int", "text")
        and len(present) >= CATEGORICAL_ROWS
        and len(distinct) <= CATEGORICAL_MAX
        and len(present) >= 2 * len(distinct)
    ):
        fits = [v for v in lits if isinstance(v, str) == (kind == "text")]
        domain = sorted(distinct, key=repr) + [v for v in fits if v not in distinct]
        rule.domain = domain
        return rule
    numbers = [v for v in present if isinstance(v, int | float) and not isinstance(v, bool)]
    if kind in ("int", "real") and len(numbers) >= 2:
        low, high = min(numbers), max(numbers)
        step = 1
        for v in lits:
            if isinstance(v, int | float) and not isinstance(v, bool):
                low, high = min(low, v - step), max(high, v + step)
        rule.low, rule.high = low, high
    return rule


def _links(db: DbInfo, shapes: Iterable[SelectShape]) -> list[Link]:
    declared = set()
    for t in db.tables:
        for col, parent, pcol in t.foreign_keys:
            a, b = (t.name.lower(), col.lower()), (parent.lower(), pcol.lower())
            declared.update({(a, b), (b, a)})
    seen: set = set()
    out: list[Link] = []

    def consider(shape: SelectShape, pairs: list) -> None:
        for (a_alias, a_col), (b_alias, b_col) in pairs:
            ta, tb = shape.aliases.get(a_alias), shape.aliases.get(b_alias)
            if ta is None or tb is None:
                continue
            a, b = (ta, a_col), (tb, b_col)
            low_pair = ((ta.lower(), a_col.lower()), (tb.lower(), b_col.lower()))
            if low_pair[0] == low_pair[1] or low_pair in declared or low_pair in seen:
                continue
            seen.update({low_pair, (low_pair[1], low_pair[0])})
            out.append(_direct(db, a, b))

    def walk(shape: SelectShape) -> None:
        consider(shape, shape.joins)
        for outer, sub, target in shape.subqueries:
            # the subquery's aliases may shadow the outer ones: name them apart
            aliases = {"o." + k: v for k, v in shape.aliases.items()}
            aliases.update({"s." + k: v for k, v in sub.aliases.items()})
            merged = SelectShape(aliases=aliases)
            consider(merged, [(("o." + outer[0], outer[1]), ("s." + target[0], target[1]))])
            walk(sub)

    for shape in shapes:
        walk(shape)
    return out


def _direct(db: DbInfo, a: tuple[str, str], b: tuple[str, str]) -> Link:
    """Which side is the parent: the unique one, else the one whose values hold the other's."""
    va, vb = _values(db, a), _values(db, b)
    ua, ub = _is_unique(db, a), _is_unique(db, b)
    if ua != ub:
        parent, child, pv, cv = (a, b, va, vb) if ua else (b, a, vb, va)
    elif vb <= va and not va <= vb:
        parent, child, pv, cv = a, b, va, vb
    elif va <= vb and not vb <= va:
        parent, child, pv, cv = b, a, vb, va
    else:
        parent, child, pv, cv = (a, b, va, vb) if len(va) >= len(vb) else (b, a, vb, va)
    return Link(child, parent, bool(pv) and cv <= pv)


def _values(db: DbInfo, ref: tuple[str, str]) -> set:
    t = db.table(ref[0])
    c = t.column(ref[1]) if t is not None else None
    return {_norm(v) for v in c.values if v is not None} if c is not None else set()


def _norm(v: object) -> object:
    """As SQLite's `=` between an INTEGER and a numeric TEXT column would see it (affinity applied)."""
    if isinstance(v, str):
        try:
            return int(v)
        except ValueError:
            return v
    return v


def _is_unique(db: DbInfo, ref: tuple[str, str]) -> bool:
    t = db.table(ref[0])
    c = t.column(ref[1]) if t is not None else None
    return bool(c is not None and (c.unique or (c.pk and len(t.pk_columns) == 1)))  # type: ignore[union-attr]


def gold_shapes(
    db: DbInfo, gold_sqls: Iterable[str], trees: dict | None = None
) -> dict[str, tuple[list[SelectShape], str | None]]:
    """Each gold's shapes (or the reason it has none), read once per database (`trees`: parses already made,
    sql → tree, for the golds that parse)."""
    trees = trees or {}
    return {sql: read_shapes(sql, db, trees.get(sql)) for sql in gold_sqls}
