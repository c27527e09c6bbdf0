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

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlglot import exp

from sqltriage.core.model import Schema
from sqltriage.core.sql.parse import ParsedQuery, ensure_parsed, resolve_column_table, table_scope

_COMPARISON = {exp.EQ: "=", exp.NEQ: "!=", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<="}
_ARITHMETIC = {exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/", exp.Mod: "%"}
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
        return AuthorsMatch(None, None, None, None, "their parser would reject the prediction")
    try:
        gold_units = authors_units(gold, schema)
        pred_units = authors_units(pred, schema)
    except AuthorsCodeWouldRaise as exc:
        return AuthorsMatch(None, None, None, None, str(exc))
    except (RecursionError, ValueError) as exc:
        return AuthorsMatch(None, None, None, None, f"cannot be analysed ({type(exc).__name__})")
    return compare_units(gold_units, pred_units)


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
            gu = g[k] if k < len(g) else None
            pu = p[k] if k < len(p) else None
            for name, attr in (("sm", "structural"), ("om", "operators"), ("vm", "variables")):
                if gu is None or pu is None:
                    scores[name].append(0.0)
                else:
                    scores[name].append(jaccard_list(getattr(gu, attr), getattr(pu, attr)))
        for name in per_depth:
            per_depth[name].append(sum(scores[name]) / n)
    sm, om, vm = (sum(per_depth[k]) / len(depths) for k in ("sm", "om", "vm"))
    return AuthorsMatch(sm, om, vm, (sm + om + vm) / 3)


def jaccard_list(a: Sequence[str], b: Sequence[str]) -> float:
    """Jaccard similarity where a repeated item counts once per occurrence (multiset); 1.0 when both empty."""
    ca, cb = Counter(a), Counter(b)
    union = sum((ca | cb).values())
    return sum((ca & cb).values()) / union if union else 1.0


# ----- the units -----


def authors_units(query: str | ParsedQuery, schema: Schema | None = None) -> tuple[AuthorsUnit, ...]:
    """The units of one query, outermost first; raises AuthorsCodeWouldRaise where their code would."""
    parsed = ensure_parsed(query, schema)
    if not parsed.ok or parsed.tree is None:
        raise ValueError(parsed.error or "does not parse")
    walker = _Walker(schema)
    walker.unit(parsed.tree, depth=0, outer=[])
    merged: dict[int, _Items] = {}
    for depth, items in walker.emitted:
        into = merged.setdefault(depth, _Items())
        into.structural += items.structural
        into.operators += items.operators
        into.variables += items.variables
    return tuple(
        AuthorsUnit(d, tuple(dict.fromkeys(m.structural)), tuple(m.operators), tuple(m.variables))
        for d, m in sorted(merged.items())
    )


@dataclass
class _Items:
    structural: list[str] = field(default_factory=list)
    operators: list[str] = field(default_factory=list)
    variables: list[str] = field(default_factory=list)
    nested: list[tuple[str, exp.Expression]] = field(default_factory=list)
    suffix: str = ""

    def s(self, item: str) -> None:
        self.structural.append(item + self.suffix)

    def o(self, item: str) -> None:
        self.operators.append(item + self.suffix)

    def v(self, item: str) -> None:
        self.variables.append(item + self.suffix)


class _Walker:
    def __init__(self, schema: Schema | None) -> None:
        self.schema = schema
        self.emitted: list[tuple[int, _Items]] = []
        self.per_depth: Counter[int] = Counter()

    def unit(
        self,
        node: exp.Expression,
        depth: int,
        outer: list[dict[str, str | None]],
        parent: _Items | None = None,
        clause: str = "",
    ) -> None:
        node = _unwrap(node)
        if isinstance(node, exp.SetOperation):
            operands, ops = _flatten_set(node)
            holder = parent
            if holder is None:  # the root: its own unit holds the operator, the branches sit beside it
                holder = _Items()
                self._emit(holder, depth)
            for op in ops:
                holder.s(op if parent is None else f"{clause}:{op}")
            for operand in operands:
                self.unit(operand, depth, outer, parent=None if parent is None else holder, clause=clause)
            return
        items = _Items(suffix=self._suffix(depth))
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
        ctx = (self.schema, scope, outer)
        for arg, clause in _CLAUSES:
            value = node.args.get(arg)
            if value is None or value == []:
                continue
            items.s(_order_item(value) if arg == "order" else clause)
            if arg == "expressions":
                for e in value:
                    _walk(e, clause, items, ctx)
            elif arg == "from_":
                self._from(node, value, items, ctx)
            elif arg == "limit":
                continue
            else:
                _walk(value, clause, items, ctx)
        return scope

    def _from(self, node: exp.Select, from_: exp.From, items: _Items, ctx: tuple) -> None:
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
                _walk(on, "from", items, ctx)


def _source(source: exp.Expression | None, items: _Items, ctx: tuple) -> None:
    if isinstance(source, exp.Table):
        items.v(f"table:{source.name.lower()}")
    elif source is not None:
        _walk(source, "from", items, ctx)


def _walk(node: exp.Expression, clause: str, items: _Items, ctx: tuple) -> None:
    if isinstance(node, (exp.Select, exp.SetOperation, exp.Subquery)):
        if not (clause == "from" and isinstance(_unwrap(node), exp.SetOperation)):
            items.s(f"nesting:{clause}")
        items.nested.append((clause, node))
        return
    if isinstance(node, exp.Column):
        if isinstance(node.this, exp.Star):
            return
        schema, scope, outer = ctx
        table = resolve_column_table(node, scope, outer, schema)
        items.v(f"column:{table}.{node.name.lower()}" if table else f"column:{node.name.lower()}")
        return
    if isinstance(node, exp.Star):
        return
    if isinstance(node, exp.Literal) or (isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal)):
        items.v(f"value:{_value(node)}")
        return
    if isinstance(node, exp.Is):
        raise AuthorsCodeWouldRaise("their code would raise: IS NULL / IS")
    if isinstance(node, exp.DPipe):
        raise AuthorsCodeWouldRaise("their code would raise: || concatenation")
    children = list(node.iter_expressions())
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


def _operator(node: exp.Expression) -> str | None:
    if isinstance(node, exp.Not):
        inner = node.this
        while isinstance(inner, exp.Paren):
            inner = inner.this
        named = _operator(inner)
        return f"not {named}" if named in ("in", "like", "between") else "not"
    if isinstance(node, exp.AggFunc):
        return node.key.lower()
    for cls, name in _COMPARISON.items():
        if type(node) is cls:
            return name
    for cls, name in _ARITHMETIC.items():
        if type(node) is cls:
            return name
    if isinstance(node, exp.Between):
        return "between"
    if isinstance(node, exp.And):
        return "and"
    if isinstance(node, exp.Or):
        return "or"
    if isinstance(node, exp.Like):
        return "like"
    if isinstance(node, exp.In):
        return "in"
    if isinstance(node, exp.Exists):
        return "exists"
    return None


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


def _flatten_set(node: exp.SetOperation) -> tuple[list[exp.Expression], list[str]]:
    operands: list[exp.Expression] = []
    ops: list[str] = []

    def visit(n: exp.Expression) -> None:
        if isinstance(n, exp.Subquery) and n.args.get("alias") is None:
            n = n.this
        if isinstance(n, exp.SetOperation):
            visit(n.this)
            ops.append(n.key.lower())
            visit(n.expression)
        else:
            operands.append(n)

    visit(node)
    return operands, ops


def _unwrap(node: exp.Expression) -> exp.Expression:
    while isinstance(node, (exp.Subquery, exp.Paren)) and isinstance(node.this, exp.Expression):
        node = node.this
    return node
