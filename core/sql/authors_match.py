"""Partial match as the error-analysis paper's published code computes it (`pm_authors` and its parts).

The paper's text and its authors' code part ways in a few rules; `partial_match` follows the text, this
module follows the code, so that the paper's published tables can be reproduced and the two compared.
Rules, as measured on the authors' outputs (docs/partial-match.md lists each with its evidence):

- Subqueries are grouped by nesting depth; within a depth they are paired in text order, each pair
  scored by Jaccard similarity (a subquery one side lacks scores 0); the scores are averaged within
  each depth, and the depth averages are averaged. (The text averages over all pairs at once.)
- A set operation is one unit: the right branch's items join the left branch's, marked as coming from
  the right branch; the operator itself is a structural item.
- Nesting is one structural item per clause (`nesting:where`), however many subqueries the clause has.
- The equalities of `JOIN … ON` are comparison operators; `INNER JOIN` is a different operator from
  `JOIN`; a comma join is no operator.
- Variables are lists, not sets: a column used twice is two items. `*` and the LIMIT count are not
  variables; values are compared as written (strings case-sensitively, numbers by value).

Where the authors' code raises (an `IS NULL` test, an `ON` condition with OR, `EXISTS (SELECT 1 …)`,
and the other shapes in `_would_raise`), it scores every measure 0; here the scores are None and
`raises` says why, so a reader sees "their code would raise" instead of a made-up number.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlglot import exp

from sqltriage.core.model import Schema
from sqltriage.core.sql.parse import ParsedQuery, ensure_parsed, resolve_column_table, table_scope, unwrap
from sqltriage.core.sql.sqlite_syntax import sqlite_syntax_error

_COMPARISON = {exp.EQ: "=", exp.NEQ: "!=", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<="}
_ARITHMETIC = {exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/", exp.Mod: "%"}
_KEYWORD_OPERATORS = (
    (exp.Between, "between"),
    (exp.And, "and"),
    (exp.Or, "or"),
    (exp.Like, "like"),
    (exp.In, "in"),
    (exp.Exists, "exists"),
)
_CLAUSES = (
    ("expressions", "select"),
    ("from_", "from"),
    ("where", "where"),
    ("group", "groupby"),
    ("having", "having"),
    ("order", "orderby"),
    ("limit", "limit"),
)


class AuthorsCodeWouldRaise(Exception):
    """A query shape on which the authors' code raises (and then scores every measure 0)."""


@dataclass(frozen=True, slots=True)
class AuthorsUnit:
    """One unit the authors' code compares: a SELECT, or a whole set operation."""

    depth: int
    structural: tuple[str, ...]
    operators: tuple[str, ...]
    variables: tuple[str, ...]
    in_join: tuple[bool, ...] = ()  # per variable: a column of a JOIN's ON condition
    same: tuple[tuple[str, str], ...] = ()  # (column, class) for the columns its query's ONs equate


@dataclass(frozen=True, slots=True)
class AuthorsMatch:
    """Scores in [0, 1]; all None with `raises` set where the authors' code would raise."""

    sm: float | None
    om: float | None
    vm: float | None
    pm: float | None
    raises: str | None = None


def authors_partial_match(
    gold_sql: str | ParsedQuery, pred_sql: str | ParsedQuery, schema: Schema | None = None
) -> AuthorsMatch:
    """The authors' partial match of one prediction; never raises."""
    gold = ensure_parsed(gold_sql, schema)
    if not gold.ok or gold.tree is None or not isinstance(gold.tree, exp.Query):
        return AuthorsMatch(None, None, None, None, "gold query does not parse")
    pred = ensure_parsed(pred_sql, schema)
    if not pred.ok or pred.tree is None or not isinstance(pred.tree, exp.Query):
        return AuthorsMatch(None, None, None, None, "the prediction does not parse")
    if (misplaced := _clause_out_of_order(pred.sql)) is not None:
        return AuthorsMatch(None, None, None, None, f"their parser would reject it ({misplaced})")
    try:
        gold_units = _units_of_parse(gold, schema)
        pred_units = _units_of_parse(pred, schema)
    except AuthorsCodeWouldRaise as exc:
        return AuthorsMatch(None, None, None, None, str(exc))
    except (RecursionError, ValueError) as exc:
        return AuthorsMatch(None, None, None, None, f"cannot be analysed ({type(exc).__name__})")
    return compare_units(gold_units, pred_units)


_UNITS_FAIL = (AuthorsCodeWouldRaise, RecursionError, ValueError)


def _units_of_parse(parsed: ParsedQuery, schema: Schema | None) -> tuple[AuthorsUnit, ...]:
    """The units of a parse, read once per parse (an evaluation passes one gold parse for every model);
    a failure is kept too and raised again, as reading the units again would raise it."""

    def read() -> tuple[AuthorsUnit, ...] | Exception:
        try:
            return authors_units(parsed, schema)
        except _UNITS_FAIL as exc:
            return exc

    found = parsed.derived(("authors_units", schema), read)
    if isinstance(found, Exception):
        raise found.with_traceback(None)
    return found


_MISPLACED = re.compile(r'near "(WHERE|GROUP|HAVING|ORDER|LIMIT|FROM)": syntax error|incomplete input', re.I)


def _clause_out_of_order(sql: str) -> str | None:
    """SQLite's error when a clause is out of place or missing (`… GROUP BY x WHERE y`, a bare `select`).

    Their SQL parser rejects these too; other syntax SQLite rejects (`UNION (SELECT …)`) it may read.
    """
    error = sqlite_syntax_error(sql)
    return error if error is not None and _MISPLACED.search(error) else None


def authors_columns(m: AuthorsMatch) -> dict[str, float | str | None]:
    """The stored columns: `sm_authors` … `pm_authors`, and `authors_note` saying why they are empty."""
    return {
        "sm_authors": m.sm,
        "om_authors": m.om,
        "vm_authors": m.vm,
        "pm_authors": m.pm,
        "authors_note": m.raises,
    }


def compare_units(gold: Sequence[AuthorsUnit], pred: Sequence[AuthorsUnit]) -> AuthorsMatch:
    """Per-depth mean of pairwise Jaccard scores, then the mean over depths."""
    depths = sorted({u.depth for u in gold} | {u.depth for u in pred})
    per_depth: dict[str, list[float]] = {"sm": [], "om": [], "vm": []}
    for depth in depths:
        g = [u for u in gold if u.depth == depth]
        p = [u for u in pred if u.depth == depth]
        n = max(len(g), len(p))
        scores: dict[str, list[float]] = {"sm": [], "om": [], "vm": []}
        for k in range(n):
            gu = g[k] if k < len(g) else _EMPTY
            pu = p[k] if k < len(p) else _EMPTY
            for name, attr in (("sm", "structural"), ("om", "operators"), ("vm", "variables")):
                if False:
                    scores[name].append(0.0)
                elif name == "vm":
                    scores[name].append(jaccard_list(gu.variables, _toward_gold(pu, gu)))
                else:
                    scores[name].append(jaccard_list(getattr(gu, attr), getattr(pu, attr)))
        for name in per_depth:
            per_depth[name].append(sum(scores[name]) / n)
    sm, om, vm = (sum(per_depth[k]) / len(depths) for k in ("sm", "om", "vm"))
    return AuthorsMatch(sm, om, vm, (sm + om + vm) / 3)


# `NOT x IN (…)`, `NOT x LIKE …`: the parse tree is that of `x NOT IN`, the authors' parser's is not
_PREFIX_NOT = re.compile(
    r"\bNOT\s+(?!IN\b|LIKE\b|BETWEEN\b|EXISTS\b|NULL\b)[\w.`\"\[\]]+\s+(?:IN|LIKE|BETWEEN)\b", re.I
)
_EMPTY = AuthorsUnit(0, (), (), ())


def _toward_gold(pred: AuthorsUnit, gold: AuthorsUnit) -> tuple[str, ...]:
    """The prediction's variables, a column the gold lacks named as a gold column its ON equates it with.

    Only outside the ON conditions, and only through the prediction's own ON equalities.
    """
    if not pred.same or not gold.in_join:
        return pred.variables
    wanted = {v for v, on in zip(gold.variables, gold.in_join, strict=True) if not on}
    same = dict(pred.same)
    members: dict[str, list[str]] = {}
    for column, cls in pred.same:
        members.setdefault(cls, []).append(column)
    out = []
    for item, on in zip(pred.variables, pred.in_join, strict=True):
        base, sep, suffix = item.partition("#")
        if not on and item not in wanted and base in same:
            found = sorted(m + sep + suffix for m in members[same[base]] if m + sep + suffix in wanted)
            if found:
                item = found[0]
        out.append(item)
    return tuple(out)


def jaccard_list(a: Sequence[str], b: Sequence[str]) -> float:
    """Jaccard similarity where a repeated item counts once per occurrence (multiset); 1.0 when both empty."""
    # |A ∩ B| counts each item min(times in a, times in b); |A ∪ B| = |a| + |b| - |A ∩ B|. Plain dict
    # counting: Counter's `|` and `&` cost more than the whole comparison.
    left: dict[str, int] = {}
    for item in a:
        left[item] = left.get(item, 0) + 1
    both = 0
    for item in b:
        n = left.get(item, 0)
        if n:
            left[item] = n - 1
            both += 1
    union = len(a) + len(b) - both
    return both / union if union else 1.0


# ----- the units -----


def authors_units(query: str | ParsedQuery, schema: Schema | None = None) -> tuple[AuthorsUnit, ...]:
    """The units of one query, outermost first; raises AuthorsCodeWouldRaise where their code would."""
    parsed = ensure_parsed(query, schema)
    if not parsed.ok or parsed.tree is None:
        raise ValueError(parsed.error or "does not parse")
    walker = _Walker(schema, parsed.sql)
    walker.unit(parsed.tree, depth=0, outer=[])
    same = tuple(sorted(join_classes(walker.pairs).items()))
    merged: dict[int, _Items] = {}
    for depth, items in walker.emitted:
        into = merged.setdefault(depth, _Items())
        into.structural += items.structural
        into.operators += items.operators
        into.variables += items.variables
        into.in_join += items.in_join
    return tuple(
        AuthorsUnit(
            d,
            tuple(dict.fromkeys(m.structural)),
            tuple(m.operators),
            tuple(m.variables),
            tuple(m.in_join),
            same,
        )
        for d, m in sorted(merged.items())
    )


@dataclass(frozen=True, slots=True)
class _Ctx:
    scope: dict[str, str | None]  # alias or table name → table, for this SELECT
    outer: list[dict[str, str | None]]  # the enclosing SELECTs' scopes, innermost first
    prefix_not: bool = False  # the text writes `NOT x IN …`: a NOT and an IN, not one NOT IN


@dataclass
class _Items:
    structural: list[str] = field(default_factory=list)
    operators: list[str] = field(default_factory=list)
    variables: list[str] = field(default_factory=list)
    nested: list[tuple[str, exp.Expression]] = field(default_factory=list)
    in_join: list[bool] = field(default_factory=list)  # per variable: a column of an ON condition
    suffix: str = (
        ""  # marks the structure of a second subquery at one depth, or of a set operation's right side
    )
    op_prefix: str = ""  # a set operation's branches: their operators are told apart from a plain query's

    def s(self, item: str) -> None:
        self.structural.append(item + self.suffix)

    def o(self, item: str) -> None:
        self.operators.append(self.op_prefix + item)

    def v(self, item: str, in_join: bool = False) -> None:
        self.variables.append(item)
        self.in_join.append(in_join)


class _Walker:
    def __init__(self, schema: Schema | None, text: str = "") -> None:
        self.schema = schema
        self.prefix_not = bool(_PREFIX_NOT.search(text))
        self.pairs: list[tuple[str, str]] = []
        self.emitted: list[tuple[int, _Items]] = []
        self.per_depth: Counter[int] = Counter()

    def unit(
        self,
        node: exp.Expression,
        depth: int,
        outer: list[dict[str, str | None]],
        parent: _Items | None = None,
        clause: str = "",
        set_op: str = "",
    ) -> None:
        node = unwrap(node)
        if isinstance(node, exp.SetOperation):
            holder = parent
            if holder is None:  # the root: its own unit holds the operator, the branches sit beside it
                holder = _Items()
                self._emit(holder, depth)
            self._set_operation(node, depth, outer, holder, nested=parent is not None, clause=clause)
            return
        self._select_unit(node, depth, outer, self._suffix(depth), set_op)

    def _set_operation(
        self,
        node: exp.SetOperation,
        depth: int,
        outer: list[dict[str, str | None]],
        holder: _Items,
        nested: bool,
        clause: str,
        within: str = "",
    ) -> None:
        """`A op B`: the operator is an item of `holder`; B's items are marked as the right branch's.

        An operand that is itself a set operation (`A UNION B EXCEPT C` is `(A UNION B) EXCEPT C`)
        names its operator after the enclosing one, and its right branch is marked like C.
        """
        op = _set_name(node)
        holder.s(f"{clause}:{op}" if nested and not within else f"{within}{op}")
        for k, branch in enumerate((node.this, node.expression)):
            branch = unwrap(branch)
            if isinstance(branch, exp.SetOperation):
                self._set_operation(branch, depth, outer, holder, nested, clause, within=f"{op}>")
            else:
                self._select_unit(branch, depth, outer, "#1" if k else "", op)

    def _select_unit(
        self, node: exp.Expression, depth: int, outer: list[dict[str, str | None]], suffix: str, set_op: str
    ) -> None:
        items = _Items(suffix=suffix, op_prefix=f"{set_op}|" if set_op else "")
        scope = self.select(node, items, outer)
        self._emit(items, depth)
        for child_clause, child in items.nested:
            self.unit(child, depth + 1, [scope, *outer], parent=items, clause=child_clause)

    def _suffix(self, depth: int) -> str:
        k = self.per_depth[depth]
        self.per_depth[depth] += 1
        return f"#{k}" if k else ""

    def _emit(self, items: _Items, depth: int) -> None:
        self.emitted.append((depth, items))

    def select(
        self, node: exp.Expression, items: _Items, outer: list[dict[str, str | None]]
    ) -> dict[str, str | None]:
        if not isinstance(node, exp.Select):
            raise AuthorsCodeWouldRaise("their code would raise: a set operand that is not a SELECT")
        scope = table_scope(node)
        ctx = _Ctx(scope, outer, self.prefix_not)
        self.pairs += _join_pairs(node, ctx)
        for arg, clause in _CLAUSES:
            value = node.args.get(arg)
            if value is None or value == []:
                continue
            items.s(_order_item(value) if arg == "order" else clause)
            if arg == "expressions":
                for e in value:
                    if isinstance(e, exp.Literal):
                        raise AuthorsCodeWouldRaise("their code would raise: a constant as a SELECT item")
                    if isinstance(unwrap(e.unalias() if isinstance(e, exp.Alias) else e), exp.Select):
                        raise AuthorsCodeWouldRaise("their code would raise: a subquery as a SELECT item")
                    _walk(e, clause, items, ctx)
            elif arg == "from_":
                self._from(node, value, items, ctx)
            elif arg == "limit":
                continue
            else:
                _walk(value, clause, items, ctx)
        return scope

    def _from(self, node: exp.Select, from_: exp.From, items: _Items, ctx: _Ctx) -> None:
        _source(from_.this, items, ctx)
        for join in node.args.get("joins") or []:
            on = join.args.get("on")
            if on is None and not join.args.get("using"):
                _source(join.this, items, ctx)
                continue
            items.o(f"from:{_join_name(join)}")
            _source(join.this, items, ctx)
            if on is not None:
                if any(True for _ in on.find_all(exp.Or)):
                    raise AuthorsCodeWouldRaise("their code would raise: JOIN … ON with OR")
                for cmp in on.find_all(*_COMPARISON):
                    if not (isinstance(cmp.this, exp.Column) and isinstance(cmp.expression, exp.Column)):
                        raise AuthorsCodeWouldRaise(
                            "their code would raise: JOIN … ON comparing with a value"
                        )
                _walk(on, "from", items, ctx)


def _source(source: exp.Expression | None, items: _Items, ctx: _Ctx) -> None:
    if isinstance(source, exp.Table):
        items.v(f"table:{source.name.lower()}")
    elif source is not None:
        _walk(source, "from", items, ctx)


def _walk(node: exp.Expression, clause: str, items: _Items, ctx: _Ctx) -> None:
    if isinstance(node, (exp.Select, exp.SetOperation, exp.Subquery)):
        if not (clause == "from" and isinstance(unwrap(node), exp.SetOperation)):
            items.s(f"nesting:{clause}")
        items.nested.append((clause, node))
        return
    if isinstance(node, exp.Column):
        items.v(_column_item(node, ctx), in_join=clause == "from")
        return
    if isinstance(node, exp.Star):
        return
    if isinstance(node, exp.Literal) or (isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal)):
        items.v(f"value:{_value(node)}")
        return
    if isinstance(node, exp.Not) and isinstance(node.this, exp.Is):
        items.o(f"{clause}:is not null")
        _walk(node.this.this, clause, items, ctx)
        return
    if isinstance(node, exp.Is):
        raise AuthorsCodeWouldRaise("their code would raise: IS NULL")
    if isinstance(node, (exp.Any, exp.All)):
        raise AuthorsCodeWouldRaise("their code would raise: ANY / ALL")
    if isinstance(node, exp.DPipe):
        raise AuthorsCodeWouldRaise("their code would raise: || concatenation")
    if (
        isinstance(node, exp.Not)
        and ctx.prefix_not
        and isinstance(unwrap(node.this), (exp.In, exp.Like, exp.Between))
    ):
        items.o(f"{clause}:not")
        _walk(node.this, clause, items, ctx)
        return
    children = list(node.iter_expressions())
    if clause == "orderby" and isinstance(node, exp.Func):
        children = []  # the authors' code reads only plain columns in ORDER BY
    name = _operator(node)
    if name is not None:
        items.o(f"{clause}:{name}")
        if isinstance(node, exp.Not):
            inner = node.this
            while isinstance(inner, exp.Paren):
                inner = inner.this
            if _operator(inner) in ("in", "like", "between"):
                children = list(inner.iter_expressions())
    for child in children:
        _walk(child, clause, items, ctx)


def _join_pairs(node: exp.Select, ctx: _Ctx) -> list[tuple[str, str]]:
    """The (column, column) equalities of this SELECT's ON conditions."""
    pairs = []
    for join in node.args.get("joins") or []:
        on = join.args.get("on")
        if on is None:
            continue
        for eq in on.find_all(exp.EQ):
            if isinstance(eq.this, exp.Column) and isinstance(eq.expression, exp.Column):
                pairs.append((_column_item(eq.this, ctx), _column_item(eq.expression, ctx)))
    return pairs


def join_classes(pairs: Sequence[tuple[str, str]]) -> dict[str, str]:
    """Each column equated by an ON (of either query) → one name for its class of equal columns."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    for a, b in pairs:
        parent.setdefault(a, a)
        parent.setdefault(b, b)
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[min(ra, rb)] = max(ra, rb)
    return {x: find(x) for x in parent}


def _column_item(col: exp.Column, ctx: _Ctx) -> str:
    """A column as the authors' code names it.

    A qualified column is `table.column` (aliases resolved); an unqualified one is too when its SELECT
    reads one table, and stays apart (`?column`) when it reads several: their code does not look
    columns up in the schema.
    """
    name = "*" if isinstance(col.this, exp.Star) else col.name.lower()
    qualifier = col.table.lower() if col.table else ""
    if qualifier:
        return f"column:{resolve_column_table(col, ctx.scope, ctx.outer, None)}.{name}"
    tables = {t for t in ctx.scope.values() if t is not None}
    if len(tables) == 1:
        return f"column:{next(iter(tables))}.{name}"
    return f"column:?{name}"


def _operator(node: exp.Expression) -> str | None:
    if isinstance(node, exp.Not):
        inner = node.this
        while isinstance(inner, exp.Paren):
            inner = inner.this
        named = _operator(inner)
        return f"not {named}" if named in ("in", "like", "between") else "not"
    if isinstance(node, exp.AggFunc):
        return node.key.lower()
    symbol = _COMPARISON.get(type(node)) or _ARITHMETIC.get(type(node))
    if symbol is not None:
        return symbol
    return next((name for cls, name in _KEYWORD_OPERATORS if isinstance(node, cls)), None)


def _value(node: exp.Expression) -> str:
    sign = ""
    if isinstance(node, exp.Neg):
        sign, node = "-", node.this
    text = str(node.this)
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            number = float(text)
        except ValueError:
            return sign + text
        return sign + (str(int(number)) if number.is_integer() else repr(number))
    return sign + text


def _order_item(order: exp.Expression) -> str:
    keys = order.expressions if isinstance(order, exp.Order) else []
    dirs = ["desc" if k.args.get("desc") else "asc" for k in keys if isinstance(k, exp.Ordered)]
    return "orderby:" + "/".join(dirs)


def _join_name(join: exp.Join) -> str:
    side = (join.args.get("side") or "").lower()
    kind = (join.args.get("kind") or "").lower()
    return " ".join([w for w in (side, kind) if w] + ["join"])


def _set_name(node: exp.SetOperation) -> str:
    return node.key.lower()
