"""What one query says, clause by clause, in a form two queries can be aligned on.

The partial-match breakdown flattens a query into bags of tokens; the suggestion engine needs more: which
clause a column comes from, WHERE conjuncts one by one, the column pairs of each join and its type, the
functions by family, DISTINCT, ORDER BY direction, and literals with their exact case and type (SQLite's
`=` is case-sensitive and `'1980'` is not `1980`). Names are compared lower-case and without table
qualifiers, so `T1.name`, `singer.name` and `name` agree.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import repeat

from sqlglot import exp

from sqltriage.core.model import Schema
from sqltriage.core.sql.parse import (
    ParsedQuery,
    ensure_parsed,
    has_column,
    resolve_column_table,
    scope_sources,
    table_scope,
)

AGGREGATES = {exp.Count: "count", exp.Sum: "sum", exp.Avg: "avg", exp.Min: "min", exp.Max: "max"}
COMPARISON_NAMES = {
    exp.EQ: "=",
    exp.NEQ: "!=",
    exp.GT: ">",
    exp.GTE: ">=",
    exp.LT: "<",
    exp.LTE: "<=",
    exp.Like: "like",
    exp.ILike: "like",
    exp.Glob: "glob",
    exp.In: "in",
    exp.Between: "between",
    exp.Is: "is",
}
# Function families of the taxonomy, by sqlglot node type or by the name of an unknown function.
FAMILY_TYPES: dict[type, str] = {
    exp.If: "conditional",
    exp.Case: "conditional",
    exp.Coalesce: "conditional",
    exp.Nullif: "conditional",
    exp.TimeToStr: "date/time",
    exp.Date: "date/time",
    exp.Year: "date/time",
    exp.Month: "date/time",
    exp.Day: "date/time",
    exp.Substring: "string",
    exp.StrPosition: "string",
    exp.Length: "string",
    exp.Upper: "string",
    exp.Lower: "string",
    exp.Trim: "string",
    exp.Replace: "string",
    exp.DPipe: "string",
    exp.Concat: "string",
    exp.Cast: "conversion",
    exp.TryCast: "conversion",
    exp.Round: "math",
    exp.Abs: "math",
    exp.Window: "window",
}
FAMILY_NAMES = {
    "julianday": "date/time",
    "datetime": "date/time",
    "time": "date/time",
    "unixepoch": "date/time",
    "strftime": "date/time",
    "substr": "string",
    "instr": "string",
    "ltrim": "string",
    "rtrim": "string",
    "printf": "string",
    "format": "string",
    "iif": "conditional",
    "ifnull": "conditional",
    "round": "math",
    "floor": "math",
    "ceil": "math",
    "ceiling": "math",
    "power": "math",
    "sqrt": "math",
}
# Functions a SQLite database runs (core, date, math, aggregate, window), for spotting invented ones.
SQLITE_FUNCTIONS = set(FAMILY_NAMES) | {
    "abs", "avg", "char", "coalesce", "count", "date", "glob", "group_concat", "hex", "ifnull", "iif",
    "length", "like", "likelihood", "lower", "max", "min", "nullif", "quote", "random", "randomblob",
    "replace", "round", "sign", "soundex", "sum", "total", "trim", "typeof", "unicode", "upper", "zeroblob",
    "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead", "first_value",
    "last_value", "nth_value", "concat", "concat_ws", "log", "ln", "exp", "mod", "pi", "trunc", "cast",
}  # fmt: skip
NOT_SQLITE_TYPES = {exp.Year: "YEAR", exp.Month: "MONTH", exp.Day: "DAY", exp.DateDiff: "DATEDIFF"}
SET_OPERATIONS = {exp.Union: "union", exp.Intersect: "intersect", exp.Except: "except"}
ARITHMETIC = {exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/", exp.Mod: "%"}


# The facts and their parts are plain dataclasses, not frozen ones: nothing changes them once read, and a
# frozen dataclass is built several times slower (each query's facts build dozens of parts).
@dataclass(slots=True)
class Conjunct:
    """One condition of a WHERE or HAVING, as `column op value`."""

    column: str  # bare lower-case column name, or the expression text when the left side is no column
    op: str  # "=", "!=", "like", "in", "between", "is null", "not in", …
    value: str  # the literal exactly as written (case kept), "(subquery)", "col:NAME", or the text
    kind: str  # "str", "num", "subquery", "column", "null", "other"
    clause: str  # "where" or "having"
    node: exp.Expression = field(compare=False, repr=False)  # the condition itself (reasons quote it as SQL)
    functions: frozenset[str] = frozenset()  # families wrapped around the column (strftime(…) = '1991')
    pick: str | None = None  # "max" / "min" when the value is `(SELECT max(…) …)`: a top pick


@dataclass(slots=True)
class SelectItem:
    text: str  # a signature without aliases, qualifiers or quoting: equal items have equal text
    columns: frozenset[str]
    aggregates: tuple[str, ...]
    families: frozenset[str]
    arithmetic: tuple[str, ...]
    distinct: bool  # COUNT(DISTINCT …) inside
    star: bool
    node: exp.Expression = field(compare=False, repr=False)  # the item itself (quoted by reasons as SQL)


@dataclass(slots=True)
class Join:
    tables: frozenset[str]
    pairs: frozenset[frozenset[str]]  # {{"a.x", "b.y"}}: qualified column pairs the ON compares
    kind: str  # "inner", "left", "right", "full", "cross"
    # {{"x", "y"}}: the same pairs without their tables, as two queries' joins are compared (read once)
    bare_pairs: frozenset[frozenset[str]]


@dataclass(slots=True)
class QueryFacts:
    ok: bool
    error: str | None = None
    select: list[SelectItem] = field(default_factory=list)  # the outermost SELECT's items
    select_distinct: bool = False  # the outermost SELECT
    tables: Counter[str] = field(default_factory=Counter)  # every scope
    table_columns: dict[str, set[str]] = field(default_factory=dict)  # table → its columns used ("*": all)
    joins: list[Join] = field(default_factory=list)
    conjuncts: list[Conjunct] = field(default_factory=list)  # every scope; semi-join links left out
    links: int = 0  # `x IN (SELECT y …)` / `x = (SELECT y …)` / `a.x = b.y` in WHERE: joins in disguise
    # the columns a lookup links, ("table.x", "table.y") for `x IN / NOT IN / = (SELECT y …)` (table "" when
    # not known): the guide's join condition, which a wrong link column is
    link_pairs: list[tuple[str, str]] = field(default_factory=list)
    ors: int = 0  # OR nodes in WHERE / HAVING
    families: Counter[str] = field(default_factory=Counter)
    aggregates: Counter[str] = field(default_factory=Counter)  # every scope, plus ORDER BY … LIMIT 1
    picks: Counter[str] = field(default_factory=Counter)  # the max / min that ORDER BY … LIMIT 1 stands for
    distinct_anywhere: int = 0  # SELECT DISTINCT in any scope
    count_distinct: int = 0
    counts_condition: bool = False  # SUM(cond), SUM(IIF(…)), COUNT(CASE …): rows counted by a condition
    order: list[tuple[str, bool]] = field(default_factory=list)  # outermost: (expression, descending)
    group_columns: set[str] = field(default_factory=set)  # outermost GROUP BY
    limit: str | None = None
    group_by: int = 0  # scopes with GROUP BY
    having: int = 0
    set_ops: Counter[str] = field(default_factory=Counter)
    nested: int = 0  # subqueries outside FROM
    nested_tables: set[str] = field(default_factory=set)  # tables read by those subqueries
    not_in: int = 0  # NOT IN / NOT EXISTS subqueries (the usual rewrite of EXCEPT)
    anti_joins: int = 0  # LEFT JOIN … WHERE joined.x IS NULL: NOT IN written as a join
    left_undone: int = 0  # WHERE tests on a LEFT JOIN's right side, which make it an inner join
    literals: list[tuple[str, str]] = field(default_factory=list)  # (as written, "str" | "num")
    unknown_functions: list[str] = field(default_factory=list)
    columns: set[str] = field(default_factory=set)  # every column name used anywhere
    ambiguous: list[str] = field(default_factory=list)  # unqualified columns two joined tables both have


def query_facts(query: str | ParsedQuery, schema: Schema | None = None) -> QueryFacts:
    """Facts of one query; an unparsable one comes back with `ok` False and its error."""
    parsed = ensure_parsed(query, schema)
    if not parsed.ok or parsed.tree is None:
        return QueryFacts(ok=False, error=parsed.error)
    facts = QueryFacts(ok=True)
    try:
        _collect(parsed.tree, facts, schema)
    except (RecursionError, ValueError, AttributeError, TypeError) as exc:  # an odd tree: no facts
        return QueryFacts(ok=False, error=f"cannot be analysed ({type(exc).__name__})")
    return facts


def bare(col: exp.Column) -> str:
    return col.name.lower()


def norm_sql(node: exp.Expression) -> str:
    """A signature of an expression: aliases, qualifiers and quoting dropped, names lower-cased, literals
    kept as written. Built by one walk, much cheaper than generating SQL from a copy."""
    if isinstance(node, exp.Column):
        return "*" if isinstance(node.this, exp.Star) else node.name.lower()
    if isinstance(node, exp.Literal):
        return repr(node.this) if node.is_string else str(node.this)
    if isinstance(node, (exp.Alias, exp.Paren)):
        return norm_sql(node.this)
    if isinstance(node, exp.Identifier):
        return node.name.lower()
    if isinstance(node, exp.Star):
        return "*"
    if isinstance(node, exp.Anonymous):
        return f"{str(node.name).lower()}({','.join(norm_sql(a) for a in node.expressions)})"
    parts = []
    for key, value in node.args.items():
        if isinstance(value, exp.Expression):
            parts.append(norm_sql(value))
        elif isinstance(value, list):
            parts.append(",".join(norm_sql(v) for v in value if isinstance(v, exp.Expression)))
        elif value not in (None, False):
            parts.append(f"{key}={value}")
    return f"{node.key}({';'.join(parts)})"


def _family(node: exp.Expression) -> str | None:
    fam = FAMILY_TYPES.get(type(node))
    if fam is None and isinstance(node, exp.Anonymous):
        return FAMILY_NAMES.get(str(node.name).lower())
    return fam


def _outermost_select(tree: exp.Expression) -> exp.Select | None:
    node = tree
    while isinstance(node, exp.SetOperation):
        node = node.this
    if isinstance(node, exp.Subquery):
        node = node.this
    return node if isinstance(node, exp.Select) else None


def _select_item(node: exp.Expression) -> SelectItem:
    inner = node.this if isinstance(node, exp.Alias) else node
    aggs: list[str] = []
    fams: set[str] = set()
    arith: list[str] = []
    cols: set[str] = set()
    distinct = False
    stack = [inner]  # every node of the item (in no particular order: only counts and sets are read)
    while stack:
        n = stack.pop()
        kind = type(n)
        if kind in AGGREGATES:
            aggs.append(AGGREGATES[kind])
        elif kind in ARITHMETIC:
            arith.append(ARITHMETIC[kind])
        elif kind is exp.Column and not isinstance(n.this, exp.Star):
            cols.add(bare(n))
            continue  # (a column's parts are its name and qualifiers)
        elif kind is exp.Distinct:
            distinct = True
        f = FAMILY_TYPES.get(kind)
        if f is None and kind is exp.Anonymous:
            f = FAMILY_NAMES.get(str(n.name).lower())
        if f is not None:
            fams.add(f)
        stack.extend(n.iter_expressions())
    star = isinstance(inner, exp.Star) or (isinstance(inner, exp.Column) and isinstance(inner.this, exp.Star))
    text = norm_sql(inner)
    if isinstance(inner, exp.Count) and not distinct:
        text = "count(*)"  # COUNT(*) and COUNT(id) agree on the rows gold counts
    averaged = average_of(inner)
    if averaged is not None:  # CAST(SUM(x) AS REAL) / COUNT(*) is AVG(x)
        text, aggs, distinct = f"avg({norm_sql(averaged)})", ["avg"], False
        fams.discard("conversion")
    return SelectItem(
        text, frozenset(cols), tuple(aggs), frozenset(fams), tuple(arith), distinct, star, inner
    )


def _collect(tree: exp.Expression, facts: QueryFacts, schema: Schema | None) -> None:
    top = _outermost_select(tree)
    if top is not None:
        facts.select = [_select_item(e) for e in top.expressions]
        facts.select_distinct = bool(top.args.get("distinct"))
        order = top.args.get("order")
        if order is not None:
            facts.order = [(norm_sql(o.this), bool(o.args.get("desc"))) for o in order.expressions]
        limit = top.args.get("limit")
        if limit is not None and limit.expression is not None:
            facts.limit = norm_sql(limit.expression)
        group = top.args.get("group")
        if group is not None:
            facts.group_columns = {bare(c) for e in group.expressions for c in e.find_all(exp.Column)}
    columns_of: dict[int, list[exp.Column]] = {}  # id(select) → the columns it owns
    selects: list[exp.Select] = []  # every SELECT, met in the walk (their order does not matter here)
    averages: list[exp.Div] = []  # CAST(SUM(x) AS REAL) / COUNT(…): counted as the AVG(x) it computes
    stack: list[tuple[exp.Expression, exp.Select | None]] = [(tree, None)]
    while stack:  # one pass over the tree, dispatched on each node's exact type, knowing its SELECT
        node, owner = stack.pop()
        kind = type(node)
        # Names (identifiers, a third of all nodes) say nothing here and hold no node: the commonest nodes
        # made of names are read first, without walking into their names.
        if kind is exp.Column:
            if owner is not None:
                columns_of.setdefault(id(owner), []).append(node)
            if not isinstance(node.this, exp.Star):
                facts.columns.add(bare(node))
                continue  # a column's parts are its name and qualifiers
        elif kind is exp.Table or kind is exp.TableAlias:
            stack.extend(
                (part, owner) for part in node.iter_expressions() if type(part) is not exp.Identifier
            )
            continue
        elif kind in SET_OPERATIONS:
            facts.set_ops[SET_OPERATIONS[kind]] += 1
        elif kind in AGGREGATES:
            facts.aggregates[AGGREGATES[kind]] += 1
            if isinstance(node.this, exp.Distinct):
                facts.count_distinct += 1
            if isinstance(node.this, (exp.Predicate, exp.If, exp.Case)):
                facts.counts_condition = True
        elif kind is exp.Literal:
            facts.literals.append((node.this, "str" if node.is_string else "num"))
        elif kind is exp.Div and average_of(node) is not None:
            averages.append(node)
        elif kind is exp.Select:
            owner = node
            selects.append(node)
            if node is not tree and is_nested(node):
                facts.nested += 1
        elif kind is exp.Anonymous:
            name = str(node.name).lower()
            if name not in SQLITE_FUNCTIONS:
                facts.unknown_functions.append(name.upper())
        if kind in NOT_SQLITE_TYPES:
            facts.unknown_functions.append(NOT_SQLITE_TYPES[kind])
        fam = FAMILY_TYPES.get(kind)  # (inlined _family: this loop visits every node of every query)
        if fam is None and kind is exp.Anonymous:
            fam = FAMILY_NAMES.get(str(node.name).lower())
        if fam is not None:
            facts.families[fam] += 1
        stack.extend(zip(node.iter_expressions(), repeat(owner)))
    # every SELECT in breadth-first order, as find_all gives them (the order conditions are listed in);
    # the walk met them all, so one SELECT needs no second walk
    for select in selects if len(selects) == 1 else tree.find_all(exp.Select):
        _scope(select, facts, schema, columns_of.get(id(select), []))
        if select is not tree and is_nested(select):
            facts.nested_tables |= {t.name.lower() for t in select.find_all(exp.Table)}
    for div in averages:
        count = div.expression.this if isinstance(div.expression, exp.Cast) else div.expression
        facts.aggregates.update({"sum": -1, "count": -1, "avg": 1})
        facts.count_distinct -= isinstance(count.this, exp.Distinct)
        facts.families["conversion"] -= 1
    facts.aggregates, facts.families = +facts.aggregates, +facts.families
    facts.not_in = facts.anti_joins + sum(
        1 for c in facts.conjuncts if c.kind == "subquery" and c.op in ("not in", "not exists")
    )
    _order_as_aggregate(selects, facts)


def _owners(schema: Schema, select: exp.Select, column: str) -> int:
    """How many of the tables this SELECT reads have the column (0 when a join shares columns by USING or
    NATURAL, where an unqualified name is not ambiguous)."""
    if any(j.args.get("using") or j.args.get("method") for j in select.args.get("joins") or []):
        return 0
    return sum(
        1 for t in scope_sources(select) if isinstance(t, exp.Table) and has_column(schema, t.name, column)
    )


def is_nested(select: exp.Select) -> bool:
    """A query inside a condition or a SELECT list, a branch of a set operation there included; derived
    tables and the branches of a top-level or derived set operation are not."""
    parent = select.parent
    while isinstance(parent, (exp.Subquery, exp.Paren, exp.SetOperation)):
        if isinstance(parent.parent, (exp.From, exp.Join)):
            return False
        parent = parent.parent
    return not isinstance(parent, (exp.From, exp.Join)) and parent is not None


def _order_as_aggregate(selects: list[exp.Select], facts: QueryFacts) -> None:
    """`ORDER BY x DESC LIMIT 1` picks what `= (SELECT max(x) …)` picks: count it as that aggregate."""
    for select in selects:
        order, limit = select.args.get("order"), select.args.get("limit")
        if order is None or limit is None or limit.expression is None or norm_sql(limit.expression) != "1":
            continue
        pick = "max" if order.expressions[0].args.get("desc") else "min"
        facts.aggregates[pick] += 1
        facts.picks[pick] += 1


def _scope(select: exp.Select, facts: QueryFacts, schema: Schema | None, columns: list[exp.Column]) -> None:
    scope = table_scope(select)
    if select.args.get("distinct"):
        facts.distinct_anywhere += 1
    if select.args.get("group"):
        facts.group_by += 1
    if select.args.get("having"):
        facts.having += 1
    for source in scope_sources(select):
        if isinstance(source, exp.Table):
            facts.tables[source.name.lower()] += 1
            facts.table_columns.setdefault(source.name.lower(), set())
    for col in columns:
        if isinstance(col.this, exp.Star):
            tables = [scope.get(col.table.lower())] if col.table else list(scope.values())
            for t in tables:
                if t:
                    facts.table_columns.setdefault(t, set()).add("*")
            continue
        table = resolve_column_table(col, scope, [], schema)
        if table:
            facts.table_columns.setdefault(table, set()).add(bare(col))
        elif schema is not None and not col.table and _owners(schema, select, bare(col)) > 1:
            facts.ambiguous.append(bare(col))  # SQLite refuses it (USING / NATURAL joins aside)
    for star in select.expressions:
        if isinstance(star, exp.Star):
            for t in scope.values():
                if t:
                    facts.table_columns.setdefault(t, set()).add("*")
    for join in select.args.get("joins") or []:
        facts.joins.append(_join(join, select, scope))
        on = join.args.get("on")
        if on is not None:  # `JOIN t ON a.x = t.y AND t.kind = 'z'`: the second part filters like WHERE
            for part in on.flatten() if isinstance(on, exp.And) else [on]:
                if not _pairs_columns(part):
                    _conditions(part, "where", scope, facts)
    left_joined = {
        j.this.alias_or_name.lower()
        for j in select.args.get("joins") or []
        if (j.args.get("side") or "").lower() == "left" and j.this is not None
    }
    for clause in ("where", "having"):
        node = select.args.get(clause)
        if node is not None:
            _conditions(node.this, clause, scope, facts, left_joined)


def _table_of(col: exp.Column, scope: dict[str, str | None]) -> str | None:
    q = col.table.lower() if col.table else ""
    if q:
        return scope.get(q) or None
    return None


_CLAUSE_NODES = (
    (exp.Join, "join"),
    (exp.Where, "where"),
    (exp.Having, "having"),
    (exp.Group, "group"),
    (exp.Order, "order"),
)


def _clause_of(node: exp.Expression) -> str:
    parent = node.parent
    while parent is not None and not isinstance(parent, exp.Select):
        clause = next((name for cls, name in _CLAUSE_NODES if isinstance(parent, cls)), None)
        if clause is not None:
            return clause
        parent = parent.parent
    return "select"


def _join(join: exp.Join, select: exp.Select, scope: dict[str, str | None]) -> Join:
    kind = (join.args.get("side") or join.args.get("kind") or "inner").lower()
    if kind not in ("left", "right", "full", "cross"):
        kind = "inner"
    tables = set()
    if isinstance(join.this, exp.Table):
        tables.add(join.this.name.lower())
    pairs = set()
    on = join.args.get("on")
    if on is not None:
        # (`ON a.x = b.y`, the usual case, holds no other equality to look for)
        plain = type(on) is exp.EQ and type(on.this) is exp.Column and type(on.expression) is exp.Column
        for eq in (on,) if plain else on.find_all(exp.EQ):
            if isinstance(eq.this, exp.Column) and isinstance(eq.expression, exp.Column):
                a = f"{_table_of(eq.this, scope) or ''}.{bare(eq.this)}"
                b = f"{_table_of(eq.expression, scope) or ''}.{bare(eq.expression)}"
                pairs.add(frozenset((a, b)))
                tables |= {x.split(".")[0] for x in (a, b) if x.split(".")[0]}
    using = join.args.get("using")
    if using:
        for ident in using:
            pairs.add(frozenset((f".{ident.name.lower()}",)))
    bare_pairs = frozenset(frozenset(c.split(".", 1)[-1] for c in pair) for pair in pairs)
    return Join(frozenset(tables), frozenset(pairs), kind, bare_pairs)


def _conditions(
    node: exp.Expression,
    clause: str,
    scope: dict[str, str | None],
    facts: QueryFacts,
    left_joined: set[str] = frozenset(),  # type: ignore[assignment]
) -> None:
    if isinstance(node, exp.Paren):
        _conditions(node.this, clause, scope, facts, left_joined)
        return
    if isinstance(node, exp.And):
        _conditions(node.this, clause, scope, facts, left_joined)
        _conditions(node.expression, clause, scope, facts, left_joined)
        return
    if isinstance(node, exp.Or):
        facts.ors += 1
        for part in node.flatten():
            _conditions(part, clause, scope, facts, left_joined)
        return
    if isinstance(node, exp.Boolean) and node.this is True:
        return  # `ON TRUE` (or a bare JOIN) filters nothing
    conj = _conjunct(node, clause)
    if conj is None:
        return
    if _anti_join(conj, node, left_joined):
        facts.anti_joins += 1  # rows of the left side with no partner: NOT IN written as a join
        return
    if left_joined and clause == "where" and _tests_left_joined(node, left_joined):
        facts.left_undone += 1  # a WHERE test on the LEFT JOIN's side drops its NULL rows: an inner join
    if conj.op in ("in", "not in") and conj.kind in ("str", "num"):
        # `c IN ('x', 'y')` says what `c = 'x' OR c = 'y'` says: one equality per value
        for value in conj.value.split(", "):
            op = "=" if conj.op == "in" else "!="
            facts.conjuncts.append(
                Conjunct(conj.column, op, value, conj.kind, clause, conj.node, conj.functions)
            )
        facts.ors += conj.value.count(", ") if conj.op == "in" else 0
        return
    if conj.kind == "column" and conj.op == "=":
        facts.links += 1  # a.x = b.y: a join written in WHERE
        return
    if conj.kind == "subquery" and conj.op in ("=", "in", "not in"):
        pair = _link_pair(node, scope)
        if pair is not None:
            facts.link_pairs.append(pair)
    if conj.kind == "subquery" and conj.op in ("=", "in") and _is_link(node):
        facts.links += 1
        return
    facts.conjuncts.append(conj)


def _pairs_columns(node: exp.Expression) -> bool:
    """A join predicate: column = column, or an OR of such (`a.x = b.y OR a.x = b.z`)."""
    if isinstance(node, exp.Paren):
        return _pairs_columns(node.this)
    if isinstance(node, exp.Or):
        return all(_pairs_columns(part) for part in node.flatten())
    return (
        isinstance(node, exp.EQ)
        and isinstance(node.this, exp.Column)
        and isinstance(node.expression, exp.Column)
    )


def _anti_join(conj: Conjunct, node: exp.Expression, left_joined: set[str]) -> bool:
    """`joined.x IS NULL` where `joined` is the right side of a LEFT JOIN."""
    if conj.op != "is null" or not isinstance(node, exp.Is) or not isinstance(node.this, exp.Column):
        return False
    qualifier = node.this.table.lower()
    return qualifier in left_joined if qualifier else bool(left_joined)


def _tests_left_joined(node: exp.Expression, left_joined: set[str]) -> bool:
    """A condition (not IS NULL) on a column of a LEFT JOIN's right side, which no NULL row passes."""
    if isinstance(node, exp.Is) or (isinstance(node, exp.Not) and isinstance(node.this, exp.Is)):
        return False
    return any(c.table.lower() in left_joined for c in node.find_all(exp.Column) if c.table)


def _link_pair(node: exp.Expression, scope: dict[str, str | None]) -> tuple[str, str] | None:
    """("table.x", "table.y") for `x IN / NOT IN / = (SELECT y …)`: the pair the lookup links, as ON would."""
    while isinstance(node, (exp.Not, exp.Paren)):
        node = node.this
    outer, sub = node.this, node.find(exp.Select)
    if not isinstance(outer, exp.Column) or sub is None or len(sub.expressions) != 1:
        return None
    item = sub.expressions[0]
    item = item.this if isinstance(item, exp.Alias) else item
    if not isinstance(item, exp.Column) or isinstance(item.this, exp.Star):
        return None
    a = resolve_column_table(outer, scope, [], None) or ""
    b = resolve_column_table(item, table_scope(sub), [], None) or ""
    return f"{a}.{bare(outer)}", f"{b}.{bare(item)}"


def _is_link(node: exp.Expression) -> bool:
    """`x IN (SELECT y …)` or `x = (SELECT y …)` with a bare column y: a semi-join, not a filter."""
    sub = node.find(exp.Select)
    if sub is None or len(sub.expressions) != 1:
        return False
    item = sub.expressions[0]
    item = item.this if isinstance(item, exp.Alias) else item
    return isinstance(item, exp.Column)


def _conjunct(node: exp.Expression, clause: str) -> Conjunct | None:
    negated = False
    text = node  # the whole condition, NOT included, for reasons
    while isinstance(node, (exp.Not, exp.Paren)):
        negated = negated != isinstance(node, exp.Not)
        node = node.this
    op = COMPARISON_NAMES.get(type(node))
    if op is None:
        if isinstance(node, exp.Exists):
            return Conjunct(
                "(exists)", "not exists" if negated else "exists", "(subquery)", "subquery", clause, text
            )
        return Conjunct(norm_sql(node), "other", "", "other", clause, text)
    left = node.this
    if type(left) is exp.Column and type(left.this) is exp.Identifier:
        fams: frozenset[str] = frozenset()  # a plain column: no function around it
    else:
        fams = frozenset(f for n in left.walk() if (f := _family(n)))
    col = left if isinstance(left, exp.Column) else left.find(exp.Column)
    column = bare(col) if col is not None and not isinstance(col.this, exp.Star) else norm_sql(left)
    if type(left) in AGGREGATES:  # HAVING count(x) > 1: the aggregate is the subject, as a SELECT item is
        column = _select_item(left).text
    if op == "is":
        op = "is not null" if negated or isinstance(node.expression, exp.Not) else "is null"
        return Conjunct(column, op, "null", "null", clause, text, fams)
    if negated:
        op = f"not {op}"
    value, kind = _value(node, op)
    return Conjunct(column, op, value, kind, clause, text, fams, _pick(node) if kind == "subquery" else None)


def _pick(node: exp.Expression) -> str | None:
    sub = node.find(exp.Select)
    if sub is None or len(sub.expressions) != 1:
        return None
    item = sub.expressions[0]
    item = item.this if isinstance(item, exp.Alias) else item
    return AGGREGATES.get(type(item)) if isinstance(item, (exp.Max, exp.Min)) else None


def _value(node: exp.Expression, op: str) -> tuple[str, str]:
    if op.endswith("between"):
        low, high = node.args.get("low"), node.args.get("high")
        return f"{_literal_text(low)}..{_literal_text(high)}", _kind(low)
    if op.endswith("in"):
        if node.args.get("query") is not None or node.find(exp.Select) is not None:
            return "(subquery)", "subquery"
        items = node.expressions
        return ", ".join(sorted(_literal_text(i) for i in items)), _kind(items[0]) if items else "other"
    right = node.expression
    if right is None:
        return "", "other"
    if type(right) is exp.Literal:  # the commonest value, which holds no nested query (read as below)
        return str(right.this), "str" if right.is_string else "num"
    if isinstance(right, exp.Subquery) or right.find(exp.Select) is not None:
        return "(subquery)", "subquery"
    if isinstance(right, exp.Column):
        return f"col:{bare(right)}", "column"
    return _literal_text(right), _kind(right)


def _literal_text(node: exp.Expression | None) -> str:
    if node is None:
        return ""
    if isinstance(node, exp.Literal):
        return str(node.this)
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal):
        return f"-{node.this.this}"
    return norm_sql(node)


def _kind(node: exp.Expression | None) -> str:
    if isinstance(node, exp.Literal):
        return "str" if node.is_string else "num"
    if isinstance(node, exp.Neg):
        return "num"
    return "other"


def condition(node: exp.Expression, clause: str = "where") -> Conjunct | None:
    """One condition read as a conjunct, wherever it stands (inside an aggregate, a CASE, …)."""
    return _conjunct(node, clause)


def family_of(node: exp.Expression) -> str | None:
    """The taxonomy's function family of one node, or None."""
    return _family(node)


_REAL = {"REAL", "FLOAT", "DOUBLE", "DECIMAL", "NUMERIC", "DOUBLE PRECISION"}


def average_of(node: exp.Expression) -> exp.Expression | None:
    """x when `node` is `CAST(SUM(x) AS REAL) / COUNT(…)` (or the cast on the count): the average of x, as
    AVG(x) computes it (without the cast, SQLite divides whole numbers and truncates)."""
    while isinstance(node, (exp.Paren, exp.Alias)):
        node = node.this
    if not isinstance(node, exp.Div):
        return None
    top, bottom = node.this, node.expression
    cast = False
    if isinstance(top, exp.Cast):
        cast, top = top.to.this.name in _REAL, top.this
    if isinstance(bottom, exp.Cast):
        cast, bottom = cast or bottom.to.this.name in _REAL, bottom.this
    if not cast or not isinstance(top, exp.Sum) or not isinstance(bottom, exp.Count):
        return None
    return top.this
