"""What a query is made of: structural and operator categories, Spider hardness, counts.

The query is cut into subqueries (one per SELECT). Each subquery lists its components with their place,
as the error-analysis paper does: structural items (`select`, `where`, `nesting:where#1`, `union`),
operator items (`where:>`, `select:count`, `where:and#2`) and variables (`table:singer`,
`column:singer.name`, `value:france`). The categories of the whole query are the union of its
subqueries' letters and operator types; partial match compares the items subquery by subquery.

Conventions (they decide what counts as "the same", so they are part of the results):
- Subqueries are numbered by level and, within a level, by their order in the text. A nested query is
  one level below the query it sits in. In `A UNION B` the set operator is an item of `A` and `B` sits
  one level below `A`, as in Spider's own representation; an ORDER BY / LIMIT after a set operation
  belongs to its last operand (Spider's reading as well).
- A JOIN is one operator (`from:join`, `from:left join`; a comma join reads as `cross join`). The
  comparisons of its ON condition are comparison operators (`from:=`, type `C`): the paper lists `=`
  among the comparison operators without exempting joins, and its authors' code counts them so (all
  1034 Spider dev gold queries then get the authors' operator categories). The AND / OR joining them
  are part of the join, not logical operators (again as the authors' code counts them).
- Names are lower-cased and aliases resolved (`T1.name` → `singer.name`): SQLite reads names without
  regard to case. Values lose their quotes but keep their case: SQLite's `=` compares text
  case-sensitively, so `'France'` and `'france'` are different values (`"France"` and `'France'` are
  the same, the double quotes being SQLite's string quotes there). Numbers are compared by value, as
  SQLite compares them: `20`, `20.0` and `'20'` are the same. `*` is not a variable: the paper's
  variables are tables, columns and values, and `*` names none of them. Nor are the LIMIT and OFFSET
  counts: the paper leaves them open, and its authors' code does not count them (the LIMIT clause
  itself is a structural item, so a missing LIMIT still shows).
- `length` is the number of characters of the query with whitespace runs collapsed to one space.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlglot import exp

from sqltriage.core.model import Schema
from sqltriage.core.sql.hardness import spider_hardness
from sqltriage.core.sql.parse import (
    ParsedQuery,
    ensure_parsed,
    resolve_column_table,
    table_scope,
    unwrap,
)

STRUCTURAL_LETTERS = ("S", "F", "W", "G", "H", "O", "L", "SO", "N")
OPERATOR_TYPES = ("J", "Ag", "C", "Lo", "Li", "Ar", "Me", "Nu")

_CLAUSES = (  # (arg name, clause name, letter), in the order a SELECT is written
    ("expressions", "select", "S"),
    ("from_", "from", "F"),
    ("where", "where", "W"),
    ("group", "group by", "G"),
    ("having", "having", "H"),
    ("order", "order by", "O"),
    ("limit", "limit", "L"),
)
_COMPARISON = {exp.EQ: "=", exp.NEQ: "!=", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<="}
_ARITHMETIC = {exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/", exp.Mod: "%", exp.IntDiv: "/"}
_QUERY = (exp.Select, exp.SetOperation, exp.Subquery)


@dataclass(frozen=True, slots=True)
class QueryCategories:
    """The categories and counts of one query; `error` set (and categories empty) when it cannot be read."""

    structural: str  # letters present, canonical order, space separated: "S F W O"
    operators: str  # operator types present, canonical order: "J Ag C"; "" when none
    hardness: str  # easy | medium | hard | extra; "" when the query cannot be read
    n_operators: int = 0  # operator occurrences (a join once, and each comparison of its ON condition)
    n_tables: int = 0  # distinct tables
    n_columns: int = 0  # distinct columns (alias-resolved; `*` not counted)
    n_values: int = 0  # literal values in conditions and expressions (LIMIT / OFFSET counts excluded)
    nesting_depth: int = 0  # 0 for a flat query, 1 with a subquery, 2 with a subquery in a subquery...
    length: int = 0  # characters, whitespace runs collapsed
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Subquery:
    """One SELECT of a query with its components, ready to be compared with another query's."""

    level: int  # alignment level: 0 outermost; a nested query or a set operation's right side is +1
    position: int  # order within its level, left to right in the text
    depth: int  # real nesting depth (set operands do not add to it)
    structural: tuple[str, ...]
    operators: tuple[str, ...]
    variables: tuple[str, ...]
    letters: frozenset[str]
    operator_types: frozenset[str]
    n_operators: int
    n_values: int
    # The subquery's text, or its node until the text is first asked for: the metrics never read it and
    # generating SQL copies the subtree, so a batch evaluation would pay for text only a display shows.
    source: exp.Expression | str = field(default="", repr=False, compare=False)

    @property
    def sql(self) -> str:
        """The subquery as SQL text (generated from its node on first use, then kept)."""
        if isinstance(self.source, str):
            return self.source
        text = _shallow_sql(self.source)
        object.__setattr__(self, "source", text)  # a cache of what the frozen fields already define
        return text


def categorize(
    sql: str | ParsedQuery, schema: Schema | None = None, *, subs: Sequence[Subquery] | None = None
) -> QueryCategories:
    """Categories and counts of one query; never raises (an unreadable query has `error` set).

    `subs`, the query's `subqueries()` when already computed, saves walking the tree twice.
    """
    parsed = ensure_parsed(sql, schema)
    length = len(" ".join(parsed.sql.split()))
    if not parsed.ok or parsed.tree is None:
        return QueryCategories("", "", "", length=length, error=parsed.error)
    if not isinstance(parsed.tree, exp.Query):
        kind = parsed.tree.key.upper()
        return QueryCategories("", "", "", length=length, error=f"not a query ({kind} statement)")
    if subs is None:
        subs = subqueries(parsed, schema)
    letters = frozenset().union(*(s.letters for s in subs))
    types = frozenset().union(*(s.operator_types for s in subs))
    variables = [v for s in subs for v in s.variables]
    return QueryCategories(
        structural=" ".join(x for x in STRUCTURAL_LETTERS if x in letters),
        operators=" ".join(x for x in OPERATOR_TYPES if x in types),
        hardness=spider_hardness(parsed.tree),
        n_operators=sum(s.n_operators for s in subs),
        n_tables=len({v for v in variables if v.startswith("table:")}),
        n_columns=len({v for v in variables if v.startswith("column:")}),
        n_values=sum(s.n_values for s in subs),
        nesting_depth=max((s.depth for s in subs), default=0),
        length=length,
    )


def hardness(sql: str | ParsedQuery, schema: Schema | None = None) -> str:
    """Spider's hardness of one query ("" when it cannot be read)."""
    parsed = ensure_parsed(sql, schema)
    return spider_hardness(parsed.tree) if parsed.ok and parsed.tree is not None else ""


def subqueries(query: str | ParsedQuery, schema: Schema | None = None) -> tuple[Subquery, ...]:
    """The query's subqueries with their components, ordered by level then position."""
    parsed = ensure_parsed(query, schema)
    if not parsed.ok or parsed.tree is None:
        return ()
    walker = _Walker(schema, root_sql=parsed.sql.strip().rstrip(";").strip())
    walker.query(parsed.tree, level=0, depth=0, outer=[])
    return tuple(sorted(walker.units, key=lambda s: (s.level, s.position)))


# ----- the walk -----


@dataclass
class _Unit:
    """Components of one SELECT while they are collected."""

    structural: list[str] = field(default_factory=list)
    operators: list[str] = field(default_factory=list)
    variables: list[str] = field(default_factory=list)
    letters: set[str] = field(default_factory=set)
    types: set[str] = field(default_factory=set)
    n_values: int = 0
    nested: list[tuple[str, exp.Expression]] = field(default_factory=list)
    _seen: Counter[str] = field(default_factory=Counter)

    def operator(self, clause: str, kind: str, name: str) -> None:
        item = f"{clause}:{name}"
        self._seen[item] += 1
        n = self._seen[item]
        self.operators.append(item if n == 1 else f"{item}#{n}")
        self.types.add(kind)

    def nest(self, clause: str, node: exp.Expression) -> None:
        self.nested.append((clause, node))
        k = sum(1 for c, _ in self.nested if c == clause)
        self.structural.append(f"nesting:{clause}#{k}")
        self.letters.add("N")


class _Walker:
    def __init__(self, schema: Schema | None, root_sql: str) -> None:
        self.schema = schema
        self.root_sql = root_sql  # the text of a plain SELECT at the root: no need to generate it
        self.units: list[Subquery] = []
        self.per_level: Counter[int] = Counter()

    def query(self, node: exp.Expression, level: int, depth: int, outer: list[dict[str, str | None]]) -> None:
        node = unwrap(node)
        if isinstance(node, exp.SetOperation):
            operands, ops = _flatten_set(node)
            tail = {k: node.args.get(k) for k in ("order", "limit", "offset")}
            for i, operand in enumerate(operands):
                self.select(
                    unwrap(operand),
                    level + i,
                    depth,
                    outer,
                    set_op=ops[i] if i < len(ops) else None,
                    tail=tail if i == len(operands) - 1 else None,
                )
        else:
            self.select(node, level, depth, outer, set_op=None, tail=None)

    def select(
        self,
        node: exp.Expression,
        level: int,
        depth: int,
        outer: list[dict[str, str | None]],
        set_op: str | None,
        tail: dict[str, exp.Expression | None] | None,
    ) -> None:
        position = self.per_level[level]
        self.per_level[level] += 1
        unit = _Unit()
        if not isinstance(node, exp.Select):  # VALUES and the like: keep the slot, no components
            self._finish(unit, node, level, position, depth)
            return
        scope = table_scope(node)
        context = _Context(self.schema, scope, outer)
        with_ = node.args.get("with_") or node.args.get("with")
        if with_ is not None:
            for cte in with_.expressions:
                unit.nest("with", cte.this)
        for arg, clause, letter in _CLAUSES:
            value = node.args.get(arg)
            if (value is None or value == []) and tail and arg in tail:
                value = tail[arg]
            if value is None or value == []:
                continue
            unit.structural.append(_order_item(value) if arg == "order" else clause)
            unit.letters.add(letter)
            if arg == "expressions":
                for item in value:
                    _walk(item, clause, unit, context)
            elif arg == "from_":
                self._from(node, value, unit, context)
            elif arg == "limit":
                pass  # the count is no variable (see the module docstring)
            else:
                _walk(value, clause, unit, context)
        if set_op is not None:
            unit.structural.append(set_op)
            unit.letters.add("SO")
        self._finish(unit, node, level, position, depth)
        for _clause, child in unit.nested:
            self.query(child, level + 1, depth + 1, [scope, *outer])

    def _from(self, node: exp.Select, from_: exp.From, unit: _Unit, context: _Context) -> None:
        self._source(from_.this, unit, context)
        for join in node.args.get("joins") or []:
            unit.operator("from", "J", _join_name(join))
            self._source(join.this, unit, context)
            on = join.args.get("on")
            if on is not None:
                _walk(on, "from", unit, context, comparisons_only=True)
            for col in join.args.get("using") or []:
                _walk(col, "from", unit, context, operators=False)

    def _source(self, source: exp.Expression | None, unit: _Unit, context: _Context) -> None:
        if isinstance(source, exp.Table):
            unit.variables.append(f"table:{source.name.lower()}")
        elif source is not None:
            _walk(source, "from", unit, context)

    def _finish(self, unit: _Unit, node: exp.Expression, level: int, position: int, depth: int) -> None:
        self.units.append(
            Subquery(
                level=level,
                position=position,
                depth=depth,
                structural=tuple(unit.structural),
                operators=tuple(unit.operators),
                variables=tuple(dict.fromkeys(unit.variables)),
                letters=frozenset(unit.letters),
                operator_types=frozenset(unit.types),
                n_operators=len(unit.operators),
                n_values=unit.n_values,
                source=self.root_sql if node.parent is None else node,
            )
        )


@dataclass(frozen=True, slots=True)
class _Context:
    schema: Schema | None
    scope: dict[str, str | None]
    outer: list[dict[str, str | None]]


def _walk(
    node: exp.Expression,
    clause: str,
    unit: _Unit,
    ctx: _Context,
    operators: bool = True,
    comparisons_only: bool = False,
) -> None:
    """Collect the operators and variables of one clause, stopping at nested queries.

    `comparisons_only` (a JOIN's ON condition): its comparisons are operators, its AND / OR are not.
    """
    if isinstance(node, _QUERY):
        unit.nest(clause, node)
        return
    if isinstance(node, exp.Column):
        if not isinstance(node.this, exp.Star):  # `T1.*`: not a variable, as `*`
            unit.variables.append(_column_item(node, ctx))
        return
    if isinstance(node, exp.Star):
        return
    if isinstance(node, exp.Literal) or (isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal)):
        unit.variables.append(f"value:{normalise_value(node)}")
        unit.n_values += 1
        return
    children: list[exp.Expression] = list(node.iter_expressions())
    if operators:
        found = _operator(node)
        if found is not None and not (comparisons_only and found[0] != "C"):
            kind, name, inner = found
            unit.operator(clause, kind, name)
            if inner is not None:  # NOT x: the negated predicate is one operator, walk its operands
                children = list(inner.iter_expressions())
    for child in children:
        _walk(child, clause, unit, ctx, operators, comparisons_only)


def _operator(node: exp.Expression) -> tuple[str, str, exp.Expression | None] | None:
    """(type, name, negated node whose operands to walk instead) when `node` is an operator."""
    if isinstance(node, exp.Not):
        inner = node.this
        while isinstance(inner, exp.Paren):
            inner = inner.this
        named = _operator(inner)
        if (named is not None and named[0] in ("Me", "Li", "Nu")) or isinstance(inner, exp.Between):
            kind, name, _ = named if named is not None else ("C", "between", None)
            return kind, _negate(name), inner
        return "Lo", "not", None
    negate = bool(node.args.get("negate"))
    if isinstance(node, exp.AggFunc):
        return "Ag", node.key.lower(), None
    name = _COMPARISON.get(type(node))  # exact types, as `type(node) is cls` compared them one by one
    if name is not None:
        return "C", name, None
    if isinstance(node, exp.Between):
        return "C", "not between" if negate else "between", None
    if isinstance(node, exp.And):
        return "Lo", "and", None
    if isinstance(node, exp.Or):
        return "Lo", "or", None
    if isinstance(node, (exp.Like, exp.ILike, exp.Glob)):
        name = "glob" if isinstance(node, exp.Glob) else "like"
        return "Li", _negate(name) if negate else name, None
    name = _ARITHMETIC.get(type(node))
    if name is not None:
        return "Ar", name, None
    if isinstance(node, exp.In):
        return "Me", "not in" if negate else "in", None
    if isinstance(node, exp.Exists):
        return "Me", "exists", None
    if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
        return "Nu", "is null", None
    return None


def _negate(name: str) -> str:
    return name.replace("is ", "is not ", 1) if name.startswith("is ") else f"not {name}"


def _column_item(col: exp.Column, ctx: _Context) -> str:
    table = resolve_column_table(col, ctx.scope, ctx.outer, ctx.schema)
    name = col.name.lower()
    return f"column:{table}.{name}" if table else f"column:{name}"


def normalise_value(node: exp.Expression) -> str:
    """A literal as compared in the variable match: no quotes, case as written, numbers by value."""
    sign = ""
    if isinstance(node, exp.Neg):
        sign, node = "-", node.this
    text = str(node.this) if isinstance(node, exp.Literal) else node.sql()
    try:
        number = float(text)
    except ValueError:
        return sign + text
    if number.is_integer() and abs(number) < 1e15:
        return sign + str(int(number))
    return sign + repr(number)


def _order_item(order: exp.Expression) -> str:
    """`order by desc`: the direction of each key is part of the structure (asc when unwritten)."""
    keys = order.expressions if isinstance(order, exp.Order) else []
    dirs = ["desc" if isinstance(k, exp.Ordered) and k.args.get("desc") else "asc" for k in keys]
    return "order by " + "/".join(dirs) if dirs else "order by"


def _join_name(join: exp.Join) -> str:
    side = (join.args.get("side") or "").lower()
    kind = (join.args.get("kind") or "").lower()
    words = [w for w in (side, kind) if w and w != "inner"]
    return " ".join([*words, "join"])


def _flatten_set(node: exp.SetOperation) -> tuple[list[exp.Expression], list[str]]:
    """`A UNION B INTERSECT C` → ([A, B, C], ["union", "intersect"]), whichever way it nests."""
    operands: list[exp.Expression] = []
    ops: list[str] = []

    def visit(n: exp.Expression) -> None:
        if isinstance(n, exp.Subquery) and n.args.get("alias") is None:
            n = n.this  # sqlglot brackets the left side of a compound; SQLite reads it left to right
        if isinstance(n, exp.SetOperation):
            visit(n.this)
            ops.append(_set_name(n))
            visit(n.expression)
        else:
            operands.append(n)

    visit(node.this)
    ops.append(_set_name(node))
    visit(node.expression)
    return operands, ops


def _set_name(node: exp.SetOperation) -> str:
    name = node.key.lower()
    return f"{name} all" if isinstance(node, exp.Union) and not node.args.get("distinct", True) else name


def _shallow_sql(node: exp.Expression) -> str:
    try:
        return node.sql(dialect="sqlite")
    except Exception:
        return ""
