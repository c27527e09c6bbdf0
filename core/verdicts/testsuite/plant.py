"""Planting: insert rows on which a gold query returns something, and near-misses on which it almost does.

A constructive planter (no solver): for each SELECT of a gold (`shape.SelectShape`), the columns its join
equalities tie together form classes that share one value; each class gets a value that satisfies every
filter on its members (equalities, IN, LIKE, ranges, IS NULL, comparisons between columns), drawn where
possible from the column's real values and always within its mined rule; then one row per table of the
FROM clause is inserted, parents first. A foreign-key (or inclusion-link) value whose parent row is
missing gets its parent planted too; a unique value that already exists reuses that row. Then copies
(groups of the size HAVING asks for, or duplicates) and near-misses: the same combination with one
filter violated (a comparison's boundary value itself), one partner row missing, or one NULL.
Every choice comes from the candidate's `random.Random`.
"""

from __future__ import annotations

import random
import re
import sqlite3
from dataclasses import dataclass, field

from sqltriage.core.verdicts.testsuite.mine import Mined
from sqltriage.core.verdicts.testsuite.schema import DbInfo, TableInfo, _q
from sqltriage.core.verdicts.testsuite.shape import (
    CMP,
    EQ,
    IN,
    IS_NULL,
    LIKE,
    NE,
    NOT_IN,
    NOT_LIKE,
    NOT_NULL,
    Cond,
    Member,
    SelectShape,
)
from sqltriage.core.verdicts.testsuite.values import ColumnValues

MAX_COPIES = 6  # rows per group planted for HAVING count(*) > n
PARENT_DEPTH = 3  # parents planted for a planted foreign-key value, at most this deep
NEAR_MISS_SHARE = 0.5


@dataclass(slots=True)
class GoldPlan:
    sql: str
    shapes: list[SelectShape]
    reason: str | None = None  # why nothing is planted for this gold


@dataclass(slots=True)
class _Combo:
    values: dict[Member, object] = field(default_factory=dict)


class Planter:
    """Plants into one open neighbour database; caches the values of the columns it looks up."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        db: DbInfo,
        mined: Mined,
        gens: dict[tuple[str, str], ColumnValues],
        order: list[TableInfo],
        rng: random.Random,
    ) -> None:
        self.conn, self.db, self.mined, self.gens, self.rng = conn, db, mined, gens, rng
        self.rank = {t.name.lower(): i for i, t in enumerate(order)}
        self.parents: dict[tuple[str, str], tuple[str, str]] = {}
        for t in db.tables:
            for col, parent, pcol in t.foreign_keys:
                self.parents[(t.name.lower(), col.lower())] = (parent, pcol)
        for link in mined.links:
            if link.inclusion:
                key = (link.child[0].lower(), link.child[1].lower())
                self.parents.setdefault(key, link.parent)
        self.referenced = {(p.lower(), c.lower()) for p, c in self.parents.values()}
        self._cache: dict[tuple[str, str], list] = {}
        self._sets: dict[tuple[str, str], set] = {}
        self._pools: dict[tuple, tuple[dict, list, list]] = {}

    # ------------------------------------------------------------- public

    def plant(self, plan: GoldPlan) -> None:
        before: list[object] | None = None  # the previous branch's output values
        for shape in plan.shapes:
            if shape.empty or not shape.aliases:
                before = None
                continue
            preset: dict[Member, object] = {}
            shared = shape.combine == "intersect" or (shape.combine == "except" and self.rng.random() < 0.5)
            if shared and before is not None:
                preset = {m: v for m, v in zip(shape.outputs, before, strict=False) if m is not None}
            main = self._plant_shape(shape, preset, None)
            if main is None:
                before = None
                continue
            before = [main.get(m) if m is not None else None for m in shape.outputs]
            self._copies(shape, main)
            self._near_misses(shape)

    # ------------------------------------------------------------- copies and near-misses

    def _copies(self, shape: SelectShape, main: dict[Member, object]) -> None:
        rng = self.rng
        n = min(MAX_COPIES, shape.min_group) - 1 + (1 if rng.random() < 0.35 else 0)
        if n <= 0:
            return
        groups = set(shape.group_by)
        classes = _classes(shape, shape.conds)
        keep: dict[Member, object] = {}
        for cls in classes:
            shares = bool(cls & groups) if groups else not any(self._unique(shape, m) for m in cls)
            if shares:
                keep.update({m: main[m] for m in cls if m in main})
        for _ in range(n):
            self._plant_shape(shape, keep, None)

    def _near_misses(self, shape: SelectShape) -> None:
        rng = self.rng
        for i in range(len(shape.conds)):
            if rng.random() < NEAR_MISS_SHARE:
                self._plant_shape(shape, {}, ("violate", i))
        if len(shape.aliases) > 1 and rng.random() < NEAR_MISS_SHARE:
            children = [a for a in shape.aliases if not self._is_parent_in(shape, a)]
            if children:
                self._plant_shape(shape, {}, ("omit", rng.choice(sorted(children))))
        nullable = sorted({c.member for c in shape.conds if self._nullable(shape, c.member)})
        if nullable and rng.random() < NEAR_MISS_SHARE:
            self._plant_shape(shape, {}, ("null", rng.choice(nullable)))

    def _is_parent_in(self, shape: SelectShape, alias: str) -> bool:
        """Whether another table of the join points at this alias's table through a key or inclusion link."""
        table = shape.aliases[alias].lower()
        for a, b in shape.joins:
            for child, parent in ((a, b), (b, a)):
                if parent[0] == alias and child[0] != alias:
                    ct = shape.aliases.get(child[0], "").lower()
                    if self.parents.get((ct, child[1].lower()), ("", ""))[0].lower() == table:
                        return True
        return False

    # ------------------------------------------------------------- one combination

    def _plant_shape(
        self, shape: SelectShape, preset: dict[Member, object], variant: tuple | None
    ) -> dict[Member, object] | None:
        rng = self.rng
        conds = list(shape.conds)
        for alternatives in shape.choices:
            conds += rng.choice(alternatives)
        if variant is not None and variant[0] == "violate":
            broken = _violated(shape.conds[variant[1]], self._nullable(shape, shape.conds[variant[1]].member))
            if broken is None:
                return None
            conds[variant[1]] = broken
        if variant is not None and variant[0] == "null":
            conds = [c for c in conds if c.member != variant[1]] + [Cond(variant[1], IS_NULL)]
        values: dict[Member, object] = {}
        for cls in _classes(shape, conds):
            fixed = [preset[m] for m in cls if m in preset]
            if fixed:
                value: object = fixed[0]
            else:
                extra = self._column_bounds(shape, cls, values)
                ok, value = self._choose(shape, cls, [c for c in conds if c.member in cls] + extra)
                if not ok:
                    return None
            values.update({m: value for m in cls})
        omit = variant[1] if variant is not None and variant[0] == "omit" else None
        rows: dict[str, dict[str, object]] = {a: {} for a in shape.aliases if a != omit}
        for (alias, col), v in values.items():
            if alias in rows:
                rows[alias][col] = v
        for alias in sorted(rows, key=lambda a: (self.rank.get(shape.aliases[a].lower(), 0), a)):
            table = self.db.table(shape.aliases[alias])
            if table is not None:
                self._insert(table, rows[alias], 0)
        if variant is None:
            for outer, sub, target in shape.subqueries:
                if outer in values and values[outer] is not None and not sub.empty and sub.aliases:
                    self._plant_shape(sub, {target: values[outer]}, None)
        return values

    def _column_bounds(
        self, shape: SelectShape, cls: set[Member], values: dict[Member, object]
    ) -> list[Cond]:
        """`a.x < b.y` with one side already valued: a bound on the other side."""
        out = []
        for a, op, b in shape.col_cmps:
            if a in cls and b in values and values[b] is not None:
                out.append(Cond(a, CMP, (op, values[b])))
            elif b in cls and a in values and values[a] is not None:
                flipped = {">": "<", ">=": "<=", "<": ">", "<=": ">="}[op]
                out.append(Cond(b, CMP, (flipped, values[a])))
        return out

    # ------------------------------------------------------------- values

    def _choose(self, shape: SelectShape, cls: set[Member], conds: list[Cond]) -> tuple[bool, object]:
        """A value that every condition on the class accepts and every member's rule admits."""
        rng = self.rng
        refs = [(shape.aliases[a], c) for a, c in sorted(cls)]
        if any(c.op == IS_NULL for c in conds):
            ok = len(cls) == 1 and all(self._nullable(shape, m) for m in cls) and _accepts(None, conds)
            return ok, None
        pool, fitting, admitted_pool = self._pool(refs)
        constants = _constants(conds, self._gen(refs[0]), rng)
        # The pool's values first, then the constants it lacks, as one list without repeats: the order
        # (and so the seeded choice) of each filtered list below is that of the pool followed by constants.
        extra = [v for v in dict.fromkeys(constants) if v is not None and v not in pool]
        extra = [v for v in extra if _accepts(v, conds) and all(self._kind_fits(r, v) for r in refs)]
        admitted = [v for v in admitted_pool if _accepts(v, conds)] if conds else list(admitted_pool)
        admitted += [v for v in extra if all(self._admits(r, v) for r in refs)]
        candidates = admitted
        if not admitted:
            # the gold's own constants may go where the original's values do not (mine.py widens to them)
            literal = [
                v for c in conds if c.op in (EQ, IN, CMP) for v in (c.values[1:] if c.op == CMP else c.values)
            ]
            fits = [v for v in fitting if _accepts(v, conds)] + extra
            candidates = [v for v in fits if v in literal]
        unique_refs = [r for r in refs if self._unique_ref(r)]
        if unique_refs:
            taken = [self._set(r) for r in unique_refs]
            free = [v for v in candidates if not any(v in t for t in taken)]
            if free or not conds:
                candidates = free
        if candidates:
            return True, rng.choice(candidates)
        if conds:
            return False, None
        gen = self._gen(refs[0])
        for attempt in range(20):
            v = gen.fresh() if gen is not None else rng.randint(1, 10_000)
            if v is not None and not any(v in self._set(r) for r in unique_refs):
                return True, v
            if attempt == 19 and gen is not None:
                return True, gen.unique_fallback(self._set(refs[0]), rng.randint(1, 1000))
        return False, None

    def _pool(self, refs: list[tuple[str, str]]) -> tuple[dict, list, list]:
        """The values the class's columns draw from (without repeats or NULL), those of a kind every column
        fits, and of these those every column's rule admits: the same for every combination planted on
        these columns, and a rule's domain check is a scan of a list."""
        key = tuple(refs)
        if key not in self._pools:
            pool: list = []
            for t, c in refs:
                gen = self.gens.get((t.lower(), c.lower()))
                if gen is not None:
                    pool += gen.domain if gen.domain is not None else gen.both
            seen = dict.fromkeys(pool)
            seen.pop(None, None)
            fitting = [v for v in seen if all(self._kind_fits(r, v) for r in refs)]
            admitted = [v for v in fitting if all(self._admits(r, v) for r in refs)]
            self._pools[key] = (seen, fitting, admitted)
        return self._pools[key]

    def _gen(self, ref: tuple[str, str]) -> ColumnValues | None:
        return self.gens.get((ref[0].lower(), ref[1].lower()))

    def _kind_fits(self, ref: tuple[str, str], value: object) -> bool:
        """A number for a numeric column (a literal of another column of the same name may be text)."""
        gen = self._gen(ref)
        if gen is None or gen.kind not in ("int", "real") or isinstance(value, int | float):
            return True
        try:
            float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return False
        return True

    def _admits(self, ref: tuple[str, str], value: object) -> bool:
        return self.mined.rule(*ref).admits(value)

    def _unique_ref(self, ref: tuple[str, str]) -> bool:
        t = self.db.table(ref[0])
        c = t.column(ref[1]) if t is not None else None
        if c is None:
            return False
        return c.unique or (c.pk and len(t.pk_columns) == 1) or self.mined.rule(*ref).unique  # type: ignore[union-attr]

    def _unique(self, shape: SelectShape, m: Member) -> bool:
        return self._unique_ref((shape.aliases[m[0]], m[1]))

    def _nullable(self, shape: SelectShape, m: Member) -> bool:
        t = self.db.table(shape.aliases.get(m[0], ""))
        c = t.column(m[1]) if t is not None else None
        if c is None or c.not_null or c.pk:
            return False
        return not self.mined.rule(t.name, c.name).never_null  # type: ignore[union-attr]

    # ------------------------------------------------------------- rows

    def _col(self, ref: tuple[str, str]) -> list:
        key = (ref[0].lower(), ref[1].lower())
        if key not in self._cache:
            try:
                rows = self.conn.execute(
                    f"SELECT {_q(ref[1])} FROM {_q(ref[0])} WHERE {_q(ref[1])} IS NOT NULL"
                )
                self._cache[key] = [r[0] for r in rows]
            except sqlite3.Error:
                self._cache[key] = []
        return self._cache[key]

    def _set(self, ref: tuple[str, str]) -> set:
        key = (ref[0].lower(), ref[1].lower())
        if key not in self._sets:
            self._sets[key] = set(self._col(ref))
        return self._sets[key]

    def _insert(self, table: TableInfo, bound: dict[str, object], depth: int) -> bool:
        """One row with the `bound` values (the rest generated), parents first; reuse a row whose key exists."""
        rng = self.rng
        t = table.name
        for col, v in bound.items():
            if v is not None and self._unique_ref((t, col)) and v in self._set((t, col)):
                return self._update(table, col, v, bound)
        for _attempt in range(3):
            row: dict[str, object] = {}
            for c in table.columns:
                if c.name in bound:
                    row[c.name] = bound[c.name]
                    continue
                gen = self._gen((t, c.name))
                parent = self.parents.get((t.lower(), c.name.lower()))
                must = c.not_null or c.pk or (gen is not None and not gen.nullable)
                if parent is not None:
                    pool = self._col(parent)
                    row[c.name] = rng.choice(pool) if pool else (gen.fresh() if must and gen else None)
                elif self._unique_ref((t, c.name)):
                    used = self._set((t, c.name))
                    v = gen.fresh() if gen else None
                    tries = 0
                    while (v is None or v in used) and tries < 12 and gen is not None:
                        v, tries = gen.fresh(), tries + 1
                    if (v is None or v in used) and gen is not None:
                        v = gen.unique_fallback(used, rng.randint(1, 10_000))
                    row[c.name] = v
                else:
                    v = gen.draw() if gen else None
                    row[c.name] = gen.fresh() if v is None and must and gen else v
            if (
                table.pk_columns
                and len(table.pk_columns) > 1
                and self._row_exists(table, table.pk_columns, row)
            ):
                continue
            if any(len(g) > 1 and self._row_exists(table, g, row) for g in table.unique_groups):
                continue
            if self._parents_of(row, t, depth) and self._write(table, row):
                return True
        return False

    def _parents_of(self, row: dict[str, object], t: str, depth: int) -> bool:
        """Every foreign-key (or inclusion-link) value of `row` present in its parent, planting what is not."""
        for col, v in row.items():
            parent = self.parents.get((t.lower(), col.lower()))
            if parent is None or v is None or v in self._set(parent):
                continue
            ptable = self.db.table(parent[0])
            pcol = ptable.column(parent[1]) if ptable is not None else None
            if ptable is None or pcol is None or depth >= PARENT_DEPTH:
                return False
            if not self._insert(ptable, {pcol.name: v}, depth + 1) or v not in self._set(parent):
                return False
        return True

    def _row_exists(self, table: TableInfo, cols: tuple[str, ...], row: dict[str, object]) -> bool:
        if any(row.get(c) is None for c in cols):
            return False
        where = " AND ".join(f"{_q(c)} = ?" for c in cols)
        sql = f"SELECT 1 FROM {_q(table.name)} WHERE {where} LIMIT 1"
        return self.conn.execute(sql, [row[c] for c in cols]).fetchone() is not None

    def _write(self, table: TableInfo, row: dict[str, object]) -> bool:
        cols = list(row)
        sql = (
            f"INSERT INTO {_q(table.name)} ({', '.join(_q(c) for c in cols)}) "
            f"VALUES ({', '.join('?' for _ in cols)})"
        )
        self.conn.execute("SAVEPOINT plant")
        try:
            cur = self.conn.execute(sql, [row[c] for c in cols])
        except sqlite3.Error:
            self.conn.execute("ROLLBACK TO plant")
            self.conn.execute("RELEASE plant")
            return False
        self.conn.execute("RELEASE plant")
        stored = row
        try:
            got = self.conn.execute(
                f"SELECT {', '.join(_q(c) for c in cols)} FROM {_q(table.name)} WHERE rowid = ?",
                (cur.lastrowid,),
            ).fetchone()
            if got is not None:
                stored = dict(zip(cols, got, strict=True))
        except sqlite3.Error:  # a WITHOUT ROWID table: what was sent is what is stored, near enough
            pass
        for c, v in stored.items():
            key = (table.name.lower(), c.lower())
            if v is not None and key in self._cache:
                self._cache[key].append(v)
                if key in self._sets:
                    self._sets[key].add(v)
        return True

    def _update(self, table: TableInfo, key_col: str, key: object, bound: dict[str, object]) -> bool:
        """Give the existing row with this key the other bound values (never a key or a referenced column)."""
        t = table.name
        sets = {
            c: v
            for c, v in bound.items()
            if c != key_col
            and not self._unique_ref((t, c))
            and (t.lower(), c.lower()) not in self.referenced
            and (t.lower(), c.lower()) not in self.parents
            and not any(c in g for g in table.unique_groups)
            and (v is not None or self._nullable_ref(table, c))
        }
        if not sets:
            return True
        sql = f"UPDATE {_q(t)} SET {', '.join(f'{_q(c)} = ?' for c in sets)} WHERE {_q(key_col)} = ?"
        try:
            self.conn.execute(sql, [*sets.values(), key])
        except sqlite3.Error:
            return False
        for c in sets:
            self._cache.pop((t.lower(), c.lower()), None)
            self._sets.pop((t.lower(), c.lower()), None)
        return True

    def _nullable_ref(self, table: TableInfo, col: str) -> bool:
        c = table.column(col)
        return (
            c is not None and not c.not_null and not c.pk and not self.mined.rule(table.name, col).never_null
        )


# ----------------------------------------------------------------- helpers


def _classes(shape: SelectShape, conds: list[Cond]) -> list[set[Member]]:
    """Members tied by join equalities, plus every member a filter, GROUP BY or subquery names."""
    parent: dict[Member, Member] = {}

    def find(m: Member) -> Member:
        parent.setdefault(m, m)
        while parent[m] != m:
            parent[m] = parent[parent[m]]
            m = parent[m]
        return m

    for a, b in shape.joins:
        parent[find(a)] = find(b)
    named = [c.member for c in conds] + shape.group_by + [o for o, _, _ in shape.subqueries]
    for m in named + [o for o in shape.outputs if o is not None]:
        find(m)
    for a, _, b in shape.col_cmps:
        find(a), find(b)
    groups: dict[Member, set[Member]] = {}
    for m in parent:
        groups.setdefault(find(m), set()).add(m)
    return sorted(groups.values(), key=lambda g: sorted(g))


_NEGATED = {EQ: NE, NE: EQ, IN: NOT_IN, NOT_IN: IN, LIKE: NOT_LIKE, NOT_LIKE: LIKE}


def _violated(cond: Cond, nullable: bool) -> Cond | None:
    """The near-miss of one filter: a comparison's boundary, a value outside, a NULL."""
    op, vals = cond.op, cond.values
    if op in _NEGATED:
        return Cond(cond.member, _NEGATED[op], vals)
    if op == CMP:
        text, value = vals
        if text in (">", "<"):
            return Cond(cond.member, EQ, (value,))  # the boundary itself: `>` and `>=` disagree there
        return Cond(cond.member, CMP, ({">=": "<", "<=": ">"}[text], value))
    if op == IS_NULL:
        return Cond(cond.member, NOT_NULL)
    if op == NOT_NULL and nullable:
        return Cond(cond.member, IS_NULL)
    return None


def _constants(conds: list[Cond], gen: ColumnValues | None, rng: random.Random) -> list:
    """Values built from the conditions themselves: the constants, one step past a bound, a LIKE match."""
    out: list = []
    for c in conds:
        if c.op in (EQ, IN):
            out += list(c.values)
        elif c.op == LIKE and gen is not None:
            out.append(gen._from_pattern(c.values[0]))
        elif c.op == CMP:
            v = c.values[1]
            if isinstance(v, int | float) and not isinstance(v, bool):
                step = 1 if isinstance(v, int) else 0.5
                out += [v, v + step, v - step]
            elif isinstance(v, str):
                out += [v, v + "a", v[:-1]]
    lows = [c.values[1] for c in conds if c.op == CMP and c.values[0] in (">", ">=")]
    highs = [c.values[1] for c in conds if c.op == CMP and c.values[0] in ("<", "<=")]
    nums = [x for x in lows + highs if isinstance(x, int | float)]
    if lows and highs and len(nums) == len(lows + highs):
        lo, hi = max(lows), min(highs)
        out.append((lo + hi) / 2 if isinstance(lo, float) or isinstance(hi, float) else (lo + hi) // 2)
    return out


def _accepts(value: object, conds: list[Cond]) -> bool:
    return all(_holds(value, c) for c in conds)


def _holds(value: object, c: Cond) -> bool:
    if c.op == IS_NULL:
        return value is None
    if value is None:
        return False
    if c.op == NOT_NULL:
        return True
    if c.op == EQ:
        return _eq(value, c.values[0])
    if c.op == NE:
        return not _eq(value, c.values[0])
    if c.op == IN:
        return any(_eq(value, v) for v in c.values)
    if c.op == NOT_IN:
        return not any(_eq(value, v) for v in c.values)
    if c.op in (LIKE, NOT_LIKE):
        hit = isinstance(value, str | int | float) and _like(str(c.values[0])).match(str(value)) is not None
        return hit if c.op == LIKE else not hit
    if c.op == CMP:
        text, bound = c.values
        a, b = _comparable(value, bound)
        if a is None:
            return False
        return {">": a > b, ">=": a >= b, "<": a < b, "<=": a <= b}[text]
    return False


def _eq(a: object, b: object) -> bool:
    x, y = _comparable(a, b)
    return x is not None and x == y


def _comparable(a: object, b: object) -> tuple:
    """Both as numbers when either is one and the other reads as one (SQLite's affinity), else as text."""
    nums = []
    for v in (a, b):
        if isinstance(v, int | float) and not isinstance(v, bool):
            nums.append(v)
        else:
            try:
                nums.append(float(v))  # type: ignore[arg-type]
            except (TypeError, ValueError):
                nums.append(None)
    if (isinstance(a, int | float) or isinstance(b, int | float)) and None not in nums:
        return nums[0], nums[1]
    if isinstance(a, str) and isinstance(b, str):
        return a, b
    return None, None


_LIKE_CACHE: dict[str, re.Pattern] = {}


def _like(pattern: str) -> re.Pattern:
    """SQLite's LIKE (ASCII case folded, `%` any run, `_` one character) as a regular expression."""
    if pattern not in _LIKE_CACHE:
        parts = [".*" if ch == "%" else "." if ch == "_" else re.escape(ch) for ch in pattern]
        _LIKE_CACHE[pattern] = re.compile("".join(parts) + r"\Z", re.IGNORECASE | re.DOTALL)
    return _LIKE_CACHE[pattern]
