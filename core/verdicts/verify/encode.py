"""One query (a sqlglot tree) over the symbolic tables → a symbolic relation: rows with presence conditions.

FROM is the product of the tables' rows (LEFT JOIN adds each left row padded with NULLs when nothing
matches); WHERE, GROUP BY/HAVING, the select list, DISTINCT and ORDER BY/LIMIT follow, each as formulas
over the row conditions (aggregate.py). Where SQLite's choice is unspecified — the row a bare column in a
group comes from, the order of ties under ORDER BY, the first row of a scalar subquery — the encoding
chooses freely (a fresh term constrained to the possible values): `verified` then holds whatever SQLite
picks, and a refutation that rests on one choice is re-run in SQLite before it is believed.
"""

from __future__ import annotations

import itertools
from typing import Any

from sqlglot import exp

import sqltriage.core.verdicts.verify.aggregate as agg
import sqltriage.core.verdicts.verify.functions as functions
import sqltriage.core.verdicts.verify.symbolic as s
from sqltriage.core.verdicts.verify.budget import UNITS_PER_STEP, Allowance, OutOfBudget
from sqltriage.core.verdicts.verify.relation import Ctx, Env, Rel, Scope, TooLarge
from sqltriage.core.verdicts.verify.symbolic import Tri, Unsupported, Val
from sqltriage.core.verdicts.verify.tables import SymDatabase

_CMP = {exp.EQ: "=", exp.NEQ: "!=", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<="}
_ARITH = {exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/", exp.Mod: "%", exp.DPipe: "||"}


Timeout = OutOfBudget  # the encoding spent its question's units


class Encoder:
    def __init__(self, db: SymDatabase, allowance: Allowance, max_rows: int = 4096) -> None:
        self.db = db
        self.allowance = allowance
        self.spent = 0  # units this encoding has cost so far, the gold's included when copied
        self.ticks = 0  # steps this object took itself (the calibration's count)
        self.max_rows = max_rows
        self.facts: list[Any] = []  # constraints on the free choices (bare columns, tie orders, …)
        self.ties: list[Any] = []  # "these two present rows tie on their ORDER BY keys", per pair
        self._names = itertools.count()
        self.ctes: list[dict[str, tuple[exp.Expression, Env, list[str]]]] = []  # WITH scopes, innermost last

    def copy(self, allowance: Allowance, *, charge: bool = True) -> Encoder:
        """This encoder's state so far (its database's too), to go on from apart under another allowance:
        the state after a gold query, from which each model's prediction of it is encoded. `charge`: the new
        allowance pays what the state cost, as if it had been encoded again (so a kept gold spends what a
        fresh one would)."""
        out = Encoder(self.db.copy(), allowance, self.max_rows)
        out.spent = self.spent
        if charge:
            allowance.charge(self.spent)
            if allowance.used > allowance.units:
                raise OutOfBudget
        out.facts, out.ties = list(self.facts), list(self.ties)
        used = next(self._names)
        self._names = itertools.count(used)
        out._names = itertools.count(used)
        return out

    def name(self, stem: str) -> str:
        return f"{stem}!{next(self._names)}"

    def tick(self) -> None:
        self.ticks += 1
        self.spent += UNITS_PER_STEP
        self.allowance.step()

    # ------------------------------------------------------------------ queries

    def query(self, node: exp.Expression, env: Env = ()) -> Rel:
        self.tick()
        with_ = node.args.get("with_") or node.args.get("with")
        if with_ is not None:
            return self._with(node, with_, env)
        if isinstance(node, exp.Subquery | exp.Paren):
            return self._modifiers(node, self.query(node.this, env))
        if isinstance(node, exp.Select):
            return self.select(node, env)
        if isinstance(node, exp.Union | exp.Intersect | exp.Except):
            return self._modifiers(node, agg.set_operation(self, node, env))
        raise Unsupported(f"query {type(node).__name__.upper()}")

    def _with(self, node: exp.Expression, with_: exp.With, env: Env) -> Rel:
        """A query under WITH: each common table expression is encoded again wherever it is read, as a
        subquery in FROM would be (SQLite may evaluate it once per reference, each with its own choices
        of ties and bare columns), seeing the ones named before it."""
        if with_.args.get("recursive"):
            raise Unsupported("WITH RECURSIVE")
        scope: dict[str, tuple[exp.Expression, Env, list[str]]] = {}
        self.ctes.append(scope)
        try:
            for cte in with_.expressions:
                columns = [
                    c.name.lower() for c in (cte.args["alias"].columns if cte.args.get("alias") else [])
                ]
                scope[cte.alias_or_name.lower()] = (cte.this, env, columns)
            body = node.copy()
            body.set("with_" if "with_" in node.args else "with", None)
            return self.query(body, env)
        finally:
            self.ctes.pop()

    def _cte(self, name: str) -> Rel | None:
        """The rows of the common table expression `name` in scope (None: there is none of that name)."""
        for i in range(len(self.ctes) - 1, -1, -1):
            found = self.ctes[i].get(name)
            if found is None:
                continue
            query, env, columns = found
            saved = self.ctes
            self.ctes = [*saved[:i], {k: v for k, v in saved[i].items() if k != name}]  # no recursion
            try:
                rel = self.query(query, env)
            finally:
                self.ctes = saved
            if columns:
                if len(columns) != len(rel.names):
                    raise Unsupported(f"WITH {name} naming {len(columns)} of {len(rel.names)} columns")
                rel = Rel(rel.rows, columns, rel.ranks, rel.single, rel.heads)
            return rel
        return None

    def _modifiers(self, node: exp.Expression, rel: Rel) -> Rel:
        """ORDER BY / LIMIT written on a set operation or a parenthesised query."""
        order, limit = node.args.get("order"), node.args.get("limit")
        if order is None and limit is None and node.args.get("offset") is None:
            return rel
        keys = None
        if order is not None:
            idx = [(self._output_key(o.this, rel), bool(o.args.get("desc"))) for o in order.expressions]
            keys = [[(vals[i], d) for i, d in idx] for _, vals in rel.rows]
        return agg.order_limit(self, node, rel, keys)

    def _output_key(self, e: exp.Expression, rel: Rel) -> int:
        if isinstance(e, exp.Literal) and not e.is_string:
            return int(e.this) - 1
        name = e.alias_or_name.lower() if isinstance(e, exp.Column | exp.Alias) else None
        if name in rel.names:
            return rel.names.index(name)
        raise Unsupported("ORDER BY of a set operation on an expression")

    def select(self, node: exp.Select, env: Env) -> Rel:
        for key in ("with", "windows", "qualify", "pivots", "laterals"):
            if node.args.get(key):
                raise Unsupported(key.upper())
        if any(isinstance(e, exp.Window) for e in node.find_all(exp.Window)):
            raise Unsupported("window function")
        rows = self.from_rows(node, env)
        aliases = {e.alias.lower(): e.this for e in node.expressions if isinstance(e, exp.Alias) and e.alias}
        where = node.args.get("where")
        if where is not None:
            rows = [
                (s.and_(c, self.cond(where.this, Ctx(sc, aliases=aliases, outer_depth=1)).t), sc)
                for c, sc in rows
            ]
        return agg.project(self, node, rows, env, aliases)

    def from_rows(self, node: exp.Select, env: Env) -> list[tuple[Any, Env]]:
        """The rows of FROM and its joins: (present, env with this row's scope first)."""
        source = node.args.get("from_") or node.args.get("from")
        if source is None:
            return [(s.TRUE, ({}, *env))]
        rows: list[tuple[Any, Scope]] = [(c, sc) for c, sc in self._source(source.this, env)]
        for join in node.args.get("joins") or []:
            side = (join.args.get("side") or "").upper()
            if side not in ("", "LEFT") or (join.args.get("kind") or "").upper() in ("NATURAL", "FULL"):
                raise Unsupported(f"{side or join.args.get('kind')} JOIN")
            right = self._source(join.this, env)
            if len(rows) * len(right) > self.max_rows:
                raise TooLarge(f"encoding too large: {len(rows) * len(right)} joined rows")
            on = join.args.get("on")
            using = join.args.get("using")
            out: list[tuple[Any, Scope]] = []
            for lc, lsc in rows:
                self.tick()
                matched = []
                for rc, rsc in right:
                    scope = {**lsc, **rsc}
                    ok = self._join_condition(on, using, scope, env, lsc, rsc)
                    cond = s.and_(lc, rc, ok)
                    matched.append(cond)
                    out.append((cond, scope))
                if side == "LEFT":
                    padded = {
                        a: {c: s.null_of(v) for c, v in cols.items()} for a, cols in right[0][1].items()
                    }
                    out.append((s.and_(lc, s.not_(s.or_(*matched)) if matched else lc), {**lsc, **padded}))
            rows = out
        return [(c, (sc, *env)) for c, sc in rows]

    def _join_condition(self, on: Any, using: Any, scope: Scope, env: Env, left: Scope, right: Scope) -> Any:
        if using:
            conds = []
            for ident in using:
                col = ident.name.lower()
                lv = next((cols[col] for cols in left.values() if col in cols), None)
                rv = next((cols[col] for cols in right.values() if col in cols), None)
                if lv is None or rv is None:
                    raise Unsupported(f"USING ({col})")
                conds.append(s.compare("=", lv, rv).t)
            return s.and_(*conds)
        if on is None or (isinstance(on, exp.Boolean) and on.this is True):
            return s.TRUE
        return self.cond(on, Ctx((scope, *env), outer_depth=1)).t

    def _source(self, node: exp.Expression, env: Env) -> list[tuple[Any, Scope]]:
        alias = node.alias_or_name.lower()
        if isinstance(node, exp.Table):
            if node.args.get("db") or node.args.get("catalog"):
                raise Unsupported("a table of another schema")
            rel = self._cte(node.name.lower()) if self.ctes else None
            if rel is not None:
                return [(c, {alias: dict(zip(rel.names, vals, strict=True))}) for c, vals in rel.rows]
            t = self.db.table(node.name)
            return [(present, {alias: dict(values)}) for present, values in t.rows]
        if isinstance(node, exp.Subquery):
            rel = self.query(node.this, env)
            return [(c, {alias: dict(zip(rel.names, vals, strict=True))}) for c, vals in rel.rows]
        raise Unsupported(f"FROM {type(node).__name__}")

    # ------------------------------------------------------------------ expressions

    def cond(self, e: exp.Expression, ctx: Ctx) -> Tri:
        self.tick()
        if isinstance(e, exp.Paren):
            return self.cond(e.this, ctx)
        if isinstance(e, exp.And):
            return s.tri_and(self.cond(e.this, ctx), self.cond(e.expression, ctx))
        if isinstance(e, exp.Or):
            return s.tri_or(self.cond(e.this, ctx), self.cond(e.expression, ctx))
        if isinstance(e, exp.Not):
            return s.tri_not(self.cond(e.this, ctx))
        if type(e) in _CMP:
            return self._compare(_CMP[type(e)], e.this, e.expression, ctx)
        if isinstance(e, exp.Is):
            if not isinstance(e.expression, exp.Null):
                raise Unsupported("IS with a value")
            v = self.value(e.this, ctx)
            return s.Tri(v.null, s.not_(v.null))
        if isinstance(e, exp.Between):
            return s.tri_and(
                self._compare(">=", e.this, e.args["low"], ctx),
                self._compare("<=", e.this, e.args["high"], ctx),
            )
        if isinstance(e, exp.In):
            return self._in(e, ctx)
        if isinstance(e, exp.Exists):
            rel = self.query(e.this, ctx.env)
            any_row = s.or_(*[c for c, _ in rel.rows]) if rel.rows else s.FALSE
            return s.Tri(any_row, s.not_(any_row))
        if isinstance(e, exp.Like):
            return agg.like(self, e, ctx)
        if isinstance(e, exp.Boolean):
            return s.tri_const(bool(e.this))
        return s.truthy(self.value(e, ctx))

    def _compare(self, op: str, a: exp.Expression, b: exp.Expression, ctx: Ctx) -> Tri:
        return s.compare(op, self.value(a, ctx), self.value(b, ctx), self.literal(a), self.literal(b))

    def _in(self, e: exp.In, ctx: Ctx) -> Tri:
        x = self.value(e.this, ctx)
        lit = self.literal(e.this)
        query = e.args.get("query")
        if query is not None:
            rel = self.query(query.this if isinstance(query, exp.Subquery) else query, ctx.env)
            if len(rel.names) != 1:
                raise Unsupported("IN over a subquery of several columns")
            parts = [(c, s.compare("=", x, vals[0], lit, False)) for c, vals in rel.rows]
            t = s.or_(*[s.and_(c, m.t) for c, m in parts]) if parts else s.FALSE
            f = s.and_(*[s.or_(s.not_(c), m.f) for c, m in parts]) if parts else s.TRUE
            return s.Tri(t, f)
        out = s.tri_const(False)
        for item in e.expressions:
            out = s.tri_or(out, s.compare("=", x, self.value(item, ctx), lit, self.literal(item)))
        return out

    def value(self, e: exp.Expression, ctx: Ctx) -> Val:
        self.tick()
        if isinstance(e, exp.Paren):
            return self.value(e.this, ctx)
        if isinstance(e, exp.Alias):
            return self.value(e.this, ctx)
        if isinstance(e, exp.Column):
            return self.column(e, ctx)
        if isinstance(e, exp.Literal):
            if e.is_string:
                return s.const(e.this)
            text = e.this
            try:
                return s.const(int(text))
            except ValueError:
                return s.const(float(text))
        if isinstance(e, exp.Null):
            return s.NULL
        if isinstance(e, exp.Boolean):
            return s.const(int(bool(e.this)))
        if isinstance(e, exp.Neg):
            return s.negate(self.value(e.this, ctx))
        if type(e) in _ARITH:
            return s.arith(_ARITH[type(e)], self.value(e.this, ctx), self.value(e.expression, ctx))
        if isinstance(e, exp.AggFunc) and type(e) in agg.AGGREGATES:
            return agg.aggregate(self, e, ctx)
        if isinstance(e, exp.Subquery | exp.Select):
            return agg.scalar(self, e.this if isinstance(e, exp.Subquery) else e, ctx)
        if isinstance(e, exp.Case | exp.If | exp.Coalesce | exp.Nullif | exp.Abs | exp.Cast):
            return agg.function(self, e, ctx)
        if type(e) in _CMP or isinstance(e, exp.And | exp.Or | exp.Not | exp.In | exp.Like | exp.Is):
            return s.tri_value(self.cond(e, ctx))
        if functions.handled(e):
            return functions.function(self, e, ctx)
        raise Unsupported(_construct_name(e))

    def column(self, e: exp.Column, ctx: Ctx) -> Val:
        if isinstance(e.this, exp.Star):
            raise Unsupported("table.* outside the select list")
        table, name = e.table.lower(), e.name.lower()
        for depth, scope in enumerate(ctx.env):
            hit = self._lookup(scope, table, name)
            if hit is None:
                continue
            alias, v = hit
            if ctx.group is not None and depth < ctx.outer_depth and (alias, name) not in ctx.keys:
                return agg.bare_column(self, e, ctx)
            return v
        if not table and e.this.args.get("quoted") and not self._is_column_name(name):
            return s.const(e.name)  # SQLite reads a double-quoted name that is no column as a string
        if not table and name in ctx.aliases:
            rest = {k: v for k, v in ctx.aliases.items() if k != name}  # an alias cannot refer to itself
            return self.value(ctx.aliases[name], Ctx(ctx.env, ctx.group, ctx.keys, rest, ctx.outer_depth))
        if table and any(table in sc for sc in ctx.env):
            col = next((c for c in self.db.info.get(table, (None, []))[1] if c.name.lower() == name), None)
            if col is not None and col.kind == "mixed":
                raise Unsupported(f"column {e.sql()} mixes text and numbers")
        raise Unsupported(f"column {e.sql()} not found")

    def _is_column_name(self, name: str) -> bool:
        return any(c.name.lower() == name for _, cols in self.db.info.values() for c in cols)

    def literal(self, e: exp.Expression) -> bool:
        """A constant SQLite gives no affinity: a literal, a negated one, or a double-quoted string."""
        if isinstance(e, exp.Column) and not e.table and e.this.args.get("quoted"):
            return not self._is_column_name(e.name.lower())
        return _is_literal(e)

    def resolve(self, e: exp.Column, env: Env) -> tuple[str, str] | None:
        table, name = e.table.lower(), e.name.lower()
        if env:
            hit = self._lookup(env[0], table, name)
            if hit is not None:
                return hit[0], name
        return None

    @staticmethod
    def _lookup(scope: Scope, table: str, name: str) -> tuple[str, Val] | None:
        if table:
            cols = scope.get(table)
            return (table, cols[name]) if cols is not None and name in cols else None
        for alias, cols in scope.items():
            if name in cols:
                return alias, cols[name]
        return None


def _is_literal(e: exp.Expression) -> bool:
    return isinstance(e, exp.Literal) or (isinstance(e, exp.Neg) and isinstance(e.this, exp.Literal))


def _construct_name(e: exp.Expression) -> str:
    """How the user wrote the construct: `function STRFTIME`, not sqlglot's name for it."""
    if isinstance(e, exp.Anonymous):
        return f"function {e.name.upper()}"
    if isinstance(e, exp.Func):
        text = e.sql(dialect="sqlite", copy=False)
        return (
            f"function {text.split('(', 1)[0].upper()}"
            if "(" in text
            else f"function {type(e).__name__.upper()}"
        )
    return type(e).__name__.upper()
