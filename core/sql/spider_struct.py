"""A sqlglot tree turned into the official Spider evaluator's "sql dict".

Spider's exact-set match compares queries through this structure (process_sql.py in taoyds/spider):
  col_unit   (agg_id, col_id, is_distinct)
  val_unit   (unit_op, col_unit1, col_unit2)
  table_unit ('table_unit', '__table__') or ('sql', sql)
  cond_unit  (not_op, op_id, val_unit, val1, val2)
  condition  [cond_unit, 'and' | 'or', cond_unit, ...]
  sql        {'select': (distinct, [(agg_id, val_unit), ...]), 'from': {'table_units', 'conds'},
              'where', 'groupBy', 'having', 'orderBy': (direction, [val_unit, ...]) | [], 'limit',
              'intersect', 'union', 'except'}
Column ids are '__table.column__' (lower case), '*' is '__all__'. We build it from a sqlglot parse
instead of the official tokenizer so that valid SQL it rejects (aliases without AS, parentheses around
conditions, IS NULL, comma joins, ...) still gets a structure. Each sql dict also carries 'join_on', the
JOIN ON conditions in a comparable form; the official comparison strips it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp
from sqlglot.tokens import TokenType

from sqltriage.core.model import Schema
from sqltriage.core.sql.parse import sqlite_dialect

WHERE_OPS = ("not", "between", "=", ">", "<", ">=", "<=", "!=", "in", "like", "is", "exists")
UNIT_OPS = ("none", "-", "+", "*", "/")
AGG_OPS = ("none", "max", "min", "count", "sum", "avg")
ALL = "__all__"
VALUE = "__value__"

_AGGS: dict[type[exp.Expression], int] = {
    exp.Max: 1,
    exp.Min: 2,
    exp.Count: 3,
    exp.Sum: 4,
    exp.Avg: 5,
}
_UNIT: dict[type[exp.Expression], int] = {exp.Sub: 1, exp.Add: 2, exp.Mul: 3, exp.Div: 4}
_CMP: dict[type[exp.Expression], int] = {
    exp.EQ: 2,
    exp.GT: 3,
    exp.LT: 4,
    exp.GTE: 5,
    exp.LTE: 6,
    exp.NEQ: 7,
}

SqlDict = dict[str, Any]


class StructError(ValueError):
    """The query cannot be put into the Spider structure (not SQL, not a SELECT, ...)."""


@dataclass(frozen=True, slots=True)
class SchemaIndex:
    """Lower-cased lookups the structure and the foreign-key map need, built once per schema."""

    columns: dict[str, tuple[str, ...]]  # table -> columns, schema order
    column_sets: dict[str, frozenset[str]]
    kmap: dict[str, str]  # '__t.c__' -> representative of its foreign-key set

    def table_column_ids(self, table: str) -> frozenset[str]:
        return frozenset(f"__{table}.{c}__" for c in self.columns.get(table, ()))


def schema_index(schema: Schema) -> SchemaIndex:
    """Cached by identity (a schema object is reused for every query on its database)."""
    hit = _INDEX_CACHE.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    if len(_INDEX_CACHE) >= 1024:
        _INDEX_CACHE.clear()
    index = _build_index(schema)
    _INDEX_CACHE[id(schema)] = (schema, index)  # keeps the schema alive: its id stays unique
    return index


_INDEX_CACHE: dict[int, tuple[Schema, SchemaIndex]] = {}


def _build_index(schema: Schema) -> SchemaIndex:
    columns = {t.name.lower(): tuple(c.name.lower() for c in t.columns) for t in schema.tables}
    sets = {t: frozenset(cs) for t, cs in columns.items()}
    return SchemaIndex(columns, sets, foreign_key_map(schema))


def foreign_key_map(schema: Schema) -> dict[str, str]:
    """Port of the official build_foreign_key_map: every column of a key set maps to the set's
    lowest-numbered column. Its grouping quirk is kept on purpose (a key pair joins the first set
    holding either end; two existing sets are never merged), as the reference labels used it."""
    ids: dict[tuple[str, str], int] = {}
    names: dict[int, str] = {}
    position = 1  # tables.json numbers columns from 1; 0 is '*'
    for table in schema.tables:
        for column in table.columns:
            key = (table.name.lower(), column.name.lower())
            ids.setdefault(key, position)
            names[position] = f"__{key[0]}.{key[1]}__"
            position += 1
    key_sets: list[set[int]] = []
    for (ta, ca), (tb, cb) in schema.foreign_keys:
        a = ids.get((ta.lower(), ca.lower()))
        b = ids.get((tb.lower(), cb.lower()))
        if a is None or b is None:
            continue
        target = next((s for s in key_sets if a in s or b in s), None)
        if target is None:
            target = set()
            key_sets.append(target)
        target.update((a, b))
    kmap: dict[str, str] = {}
    for key_set in key_sets:
        ordered = sorted(key_set)
        for idx in ordered:
            kmap[names[idx]] = names[ordered[0]]
    return kmap


@dataclass(slots=True)
class _Scope:
    """Tables visible in one SELECT: alias -> table (lower case), FROM order, and the enclosing scope."""

    index: SchemaIndex
    parent: _Scope | None = None
    aliases: dict[str, str] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # tables in FROM order (the official default_tables)
    derived: set[str] = field(default_factory=set)  # aliases of FROM subqueries
    select_aliases: dict[str, exp.Expression] = field(default_factory=dict)

    def resolve_table(self, name: str) -> str | None:
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.aliases:
                return scope.aliases[name]
            scope = scope.parent
        return name if name in self.index.columns else None

    def resolve_bare(self, column: str) -> str | None:
        scope: _Scope | None = self
        while scope is not None:
            for table in scope.order:
                if column in scope.index.column_sets.get(table, ()):
                    return f"__{table}.{column}__"
            scope = scope.parent
        return None


def to_struct(tree: exp.Expression, schema: Schema) -> SqlDict:
    """The Spider sql dict of a parsed query; raises StructError when it is not a query we can map."""
    try:
        return _query(tree, _Scope(schema_index(schema)), independent=True)
    except RecursionError:
        raise StructError("query nested too deeply") from None


# A later clause keyword followed by an earlier one somewhere in the text: worth a token-level look.
_SUSPECT = re.compile(
    r"\b(?:group|having|order|limit)\b.*\bwhere\b|\b(?:order|limit)\b.*\b(?:group|having)\b"
    r"|\blimit\b.*\border\b",
    re.IGNORECASE | re.DOTALL,
)
_CLAUSE_RANK = {
    TokenType.WHERE: 1,
    TokenType.GROUP_BY: 2,
    TokenType.HAVING: 2,  # SQLite accepts HAVING before GROUP BY
    TokenType.ORDER_BY: 3,
    TokenType.LIMIT: 4,
}
_RESET = {TokenType.SELECT, TokenType.UNION, TokenType.INTERSECT, TokenType.EXCEPT}


def clause_order_error(sql: str) -> str | None:
    """sqlglot accepts `GROUP BY a WHERE b = 1`; SQLite (and the official parser) do not."""
    if not _SUSPECT.search(sql):
        return None
    try:
        tokens = sqlite_dialect().tokenize(sql)
    except Exception:  # the parse itself reports unreadable text
        return None
    depth_rank = [0]
    last_name = [""]
    for token in tokens:
        kind = token.token_type
        if kind == TokenType.L_PAREN:
            depth_rank.append(0)
            last_name.append("")
        elif kind == TokenType.R_PAREN and len(depth_rank) > 1:
            depth_rank.pop()
            last_name.pop()
        elif kind in _RESET:
            depth_rank[-1] = 0
        elif kind in _CLAUSE_RANK:
            rank = _CLAUSE_RANK[kind]
            name = token.text.upper()
            if rank < depth_rank[-1]:
                return f"{name} after {last_name[-1]}: clauses out of order (SQLite rejects this query)"
            depth_rank[-1], last_name[-1] = rank, name
    return None


def _unwrap(node: exp.Expression) -> exp.Expression:
    while isinstance(node, exp.Paren | exp.Subquery) and isinstance(node.this, exp.Expression):
        if isinstance(node, exp.Subquery) and not isinstance(node.this, exp.Query | exp.Paren):
            break
        node = node.this
    return node


def _query(node: exp.Expression, scope: _Scope, *, independent: bool) -> SqlDict:
    """A SELECT or a chain of set operations; the official parser nests `a UNION b EXCEPT c` to the
    right (a.union = b, b.except = c) and gives a trailing ORDER BY / LIMIT to the last SELECT."""
    node = _unwrap(node)
    parent = None if independent else scope
    if isinstance(node, exp.SetOperation):
        parts: list[exp.Expression] = []
        ops: list[str] = []
        _flatten_set_op(node.this, parts, ops)
        ops.append(node.key)  # 'union' | 'intersect' | 'except'
        parts.append(node.expression)
        modifiers = {k: node.args.get(k) for k in ("order", "limit")}
        structs = []
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            structs.append(_chain_part(part, scope, parent, modifiers if last else None))
        for i, op in enumerate(ops):
            structs[i][op] = structs[i + 1]
        return structs[0]
    if isinstance(node, exp.Select):
        return _select(node, _Scope(scope.index, parent))
    raise StructError(f"not a SELECT query ({node.key.upper()})")


def _flatten_set_op(node: exp.Expression, parts: list[exp.Expression], ops: list[str]) -> None:
    node = _unwrap(node)
    if isinstance(node, exp.SetOperation) and not node.args.get("order") and not node.args.get("limit"):
        _flatten_set_op(node.this, parts, ops)
        ops.append(node.key)  # 'union' | 'intersect' | 'except'
        parts.append(node.expression)
        return
    if isinstance(node, exp.SetOperation):
        parts.append(node)  # a parenthesised chain with its own ORDER BY / LIMIT: one part
        return
    parts.append(node)


def _chain_part(
    part: exp.Expression, scope: _Scope, parent: _Scope | None, modifiers: dict[str, Any] | None
) -> SqlDict:
    part = _unwrap(part)
    if isinstance(part, exp.Select):
        return _select(part, _Scope(scope.index, parent), modifiers)
    if isinstance(part, exp.SetOperation):
        inner = _query(part, _Scope(scope.index, parent), independent=parent is None)
        if modifiers:
            last = inner
            while any(last.get(k) for k in ("intersect", "union", "except")):
                last = next(last[k] for k in ("intersect", "union", "except") if last.get(k))
            _apply_order_limit(last, modifiers, _Scope(scope.index, parent))
        return inner
    raise StructError(f"not a SELECT query ({part.key.upper()})")


def _empty() -> SqlDict:
    return {
        "select": (False, []),
        "from": {"table_units": [], "conds": []},
        "where": [],
        "groupBy": [],
        "having": [],
        "orderBy": [],
        "limit": None,
        "intersect": None,
        "union": None,
        "except": None,
        "join_on": ((), ()),
    }


def _select(node: exp.Select, scope: _Scope, modifiers: dict[str, Any] | None = None) -> SqlDict:
    if node.args.get("with_") or node.args.get("with"):
        raise StructError("WITH (common table expressions) has no place in the Spider structure")
    sql = _empty()
    _from(node, scope, sql)
    for item in node.expressions:
        if isinstance(item, exp.Alias):
            scope.select_aliases.setdefault(item.alias.lower(), item.this)
    sql["select"] = (bool(node.args.get("distinct")), [_select_item(e, scope) for e in node.expressions])
    where = node.args.get("where")
    sql["where"] = _condition(where.this, scope) if where is not None else []
    group = node.args.get("group")
    if group is not None:
        sql["groupBy"] = [_col_unit(_alias_target(e, scope), scope) for e in group.expressions]
    having = node.args.get("having")
    sql["having"] = _condition(having.this, scope) if having is not None else []
    _apply_order_limit(sql, modifiers or node.args, scope)
    return sql


def _apply_order_limit(sql: SqlDict, args: dict[str, Any], scope: _Scope) -> None:
    order = args.get("order")
    if order is not None and order.expressions:
        direction = "asc"
        units = []
        for ordered in order.expressions:
            target = ordered.this if isinstance(ordered, exp.Ordered) else ordered
            units.append(_val_unit(_order_target(target, scope), scope))
            desc = ordered.args.get("desc") if isinstance(ordered, exp.Ordered) else None
            if desc is not None:  # the official parser keeps the last direction written
                direction = "desc" if desc else "asc"
        sql["orderBy"] = (direction, units)
    limit = args.get("limit")
    if limit is not None:
        value = limit.args.get("expression")
        try:
            sql["limit"] = int(value.name) if value is not None else 1
        except ValueError:
            sql["limit"] = value.sql(dialect="sqlite") if value is not None else 1


def _order_target(node: exp.Expression, scope: _Scope) -> exp.Expression:
    """ORDER BY 2 or ORDER BY an output alias means that select item (SQLite semantics)."""
    if isinstance(node, exp.Literal) and not node.is_string:
        select = node.parent_select
        try:
            position = int(node.name)
        except ValueError:
            return node
        if select is not None and 1 <= position <= len(select.expressions):
            item = select.expressions[position - 1]
            return item.this if isinstance(item, exp.Alias) else item
        return node
    if isinstance(node, exp.Column) and not node.table:
        target = scope.select_aliases.get(node.name.lower())
        if target is not None:
            return target
    return node


def _alias_target(node: exp.Expression, scope: _Scope) -> exp.Expression:
    """GROUP BY / HAVING may name an output alias when no column has that name."""
    if isinstance(node, exp.Column) and not node.table:
        name = node.name.lower()
        if scope.resolve_bare(name) is None and name in scope.select_aliases:
            return scope.select_aliases[name]
    return node


def _from(node: exp.Select, scope: _Scope, sql: SqlDict) -> None:
    from_ = node.args.get("from_") or node.args.get("from")
    sources: list[tuple[exp.Expression, exp.Join | None]] = []
    if from_ is not None:
        sources.append((from_.this, None))
    for join in node.args.get("joins") or []:
        sources.append((join.this, join))
    units: list[tuple[str, Any]] = []
    for source, _join in sources:
        units.append(_table_unit(source, scope))
    conds: list[Any] = []
    equalities: list[tuple[str, str]] = []
    others: list[str] = []
    for source, join in sources:
        if join is None:
            continue
        on = join.args.get("on")
        if isinstance(on, exp.Boolean) and on.this is True:
            on = None  # sqlglot writes ON TRUE for `JOIN a JOIN b ON ...`: no condition was given
        if on is not None:
            this = _condition(on, scope)
            if conds and this:
                conds.append("and")
            conds.extend(this)
            _collect_join_on(on, scope, equalities, others)
        for name in join.args.get("using") or []:
            column = name.name.lower()
            right = _table_of(source)
            right_id = f"__{right}.{column}__"
            for table in scope.order:
                if table != right and column in scope.index.column_sets.get(table, ()):
                    equalities.append((f"__{table}.{column}__", right_id))
                    break
    sql["from"] = {"table_units": units, "conds": conds}
    sql["join_on"] = (_classes(equalities), tuple(sorted(others)))


def _table_of(source: exp.Expression) -> str:
    return source.name.lower() if isinstance(source, exp.Table) else source.alias_or_name.lower()


def _table_unit(source: exp.Expression, scope: _Scope) -> tuple[str, Any]:
    if isinstance(source, exp.Table) and source.this is not None and not isinstance(source.this, exp.Func):
        table = source.name.lower()
        alias = source.alias.lower() if source.alias else ""
        if alias:
            scope.aliases[alias] = table
        scope.aliases.setdefault(table, table)
        scope.order.append(table)
        return ("table_unit", f"__{table}__")
    inner = source.this if isinstance(source, exp.Subquery) else source
    if isinstance(_unwrap(inner), exp.Query):
        alias = source.alias.lower() if source.alias else ""
        if alias:
            scope.derived.add(alias)
        return ("sql", _query(inner, scope, independent=True))
    raise StructError(f"unsupported FROM item: {source.sql(dialect='sqlite')[:60]}")


def _collect_join_on(
    node: exp.Expression, scope: _Scope, equalities: list[tuple[str, str]], others: list[str]
) -> None:
    """JOIN ON as column equalities plus any other condition (values ignored, as everywhere in EM)."""
    node = _unwrap(node)
    if isinstance(node, exp.And):
        _collect_join_on(node.this, scope, equalities, others)
        _collect_join_on(node.expression, scope, equalities, others)
        return
    if isinstance(node, exp.EQ):
        left, right = _unwrap(node.this), _unwrap(node.expression)
        if isinstance(left, exp.Column) and isinstance(right, exp.Column):
            a, b = _column_id(left, scope), _column_id(right, scope)
            if a is not None and b is not None:
                equalities.append((a, b))
                return
    others.append(_on_item(node, scope))


def _on_item(node: exp.Expression, scope: _Scope) -> str:
    """Any other ON conjunct, written so that the order of OR branches does not matter."""
    node = _unwrap_paren(node)
    if isinstance(node, exp.Or):
        branches: list[exp.Expression] = []
        stack = [node]
        while stack:
            item = _unwrap_paren(stack.pop())
            if isinstance(item, exp.Or):
                stack.extend((item.this, item.expression))
            else:
                branches.append(item)
        return "or(" + ", ".join(sorted(_on_item(b, scope) for b in branches)) + ")"
    return repr(_drop_values(_condition(node, scope)))


def _drop_values(cond: list[Any]) -> list[Any]:
    """Literal values dropped (as everywhere in EM); columns and subqueries on the value side kept."""

    def keep(value: Any) -> Any:
        return value if isinstance(value, dict | tuple) else None

    return [(c[0], c[1], c[2], keep(c[3]), keep(c[4])) if isinstance(c, tuple) else c for c in cond]


def _classes(pairs: list[tuple[str, str]]) -> tuple[tuple[str, ...], ...]:
    """Columns made equal by the ON conditions, as sorted equivalence classes (transitive, unordered)."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[str, list[str]] = {}
    for x in parent:
        groups.setdefault(find(x), []).append(x)
    return tuple(sorted(tuple(sorted(g)) for g in groups.values() if len(g) > 1))


def _select_item(node: exp.Expression, scope: _Scope) -> tuple[int, Any]:
    node = _unwrap(node.this if isinstance(node, exp.Alias) else node)
    agg = _AGGS.get(type(node))
    if agg is not None:
        arg = node.this
        if isinstance(arg, exp.Distinct):
            inner = arg.expressions[0] if arg.expressions else exp.Star()
            unit = _col_unit(inner, scope)
            return agg, (0, (unit[0], unit[1], True), None)
        if arg is None or isinstance(arg, exp.Star):
            return agg, (0, (0, ALL, False), None)
        return agg, _val_unit(arg, scope)
    return 0, _val_unit(node, scope)


def _val_unit(node: exp.Expression, scope: _Scope) -> tuple[int, Any, Any]:
    node = _unwrap(node)
    op = _UNIT.get(type(node))
    if op is not None:
        return op, _col_unit(node.this, scope), _col_unit(node.expression, scope)
    return 0, _col_unit(node, scope), None


def _col_unit(node: exp.Expression, scope: _Scope) -> tuple[int, str, bool]:
    node = _unwrap(node)
    agg = _AGGS.get(type(node))
    if agg is not None:
        arg = node.this
        distinct = isinstance(arg, exp.Distinct)
        if distinct:
            arg = arg.expressions[0] if arg.expressions else exp.Star()
        if arg is None or isinstance(arg, exp.Star):
            return agg, ALL, distinct
        arg = _unwrap(arg)
        if isinstance(arg, exp.Column):
            return agg, _column_or_value(arg, scope), distinct
        return agg, _expr_id(arg, scope), distinct
    if isinstance(node, exp.Star):
        return 0, ALL, False
    if isinstance(node, exp.Column):
        if isinstance(node.this, exp.Star):
            return 0, ALL, False
        return 0, _column_or_value(node, scope), False
    if isinstance(node, exp.Literal | exp.Null | exp.Neg | exp.Boolean):
        return 0, VALUE, False
    return 0, _expr_id(node, scope), False


def _column_id(node: exp.Column, scope: _Scope) -> str | None:
    column = node.name.lower()
    qualifier = node.table.lower() if node.table else ""
    if qualifier:
        if qualifier in _derived_aliases(scope):
            return f"__{qualifier}.{column}__"
        table = scope.resolve_table(qualifier)
        return f"__{table or qualifier}.{column}__"
    return scope.resolve_bare(column)


def _derived_aliases(scope: _Scope) -> set[str]:
    found: set[str] = set()
    s: _Scope | None = scope
    while s is not None:
        found |= s.derived
        s = s.parent
    return found


def _column_or_value(node: exp.Column, scope: _Scope) -> str:
    """A column id; a double-quoted word that names no column is a string (SQLite reads it so)."""
    col = _column_id(node, scope)
    if col is not None:
        return col
    if node.this.args.get("quoted") and not node.table:
        return VALUE
    return f"__?.{node.name.lower()}__"


def _expr_id(node: exp.Expression, scope: _Scope) -> str:
    """Anything the Spider grammar lacks (functions, CASE, CAST, ...) as one opaque, comparable id."""
    copy = node.copy()
    for col in copy.find_all(exp.Column):
        if not isinstance(col.this, exp.Identifier):
            continue
        cid = _column_id(col, scope)
        if cid is not None:
            col.replace(exp.column(cid.strip("_").replace(".", "__"), quoted=False))
    for lit in copy.find_all(exp.Literal):
        lit.replace(exp.Literal.string("value"))
    return f"__expr:{copy.sql(dialect='sqlite').lower()}__"


def _condition(node: exp.Expression, scope: _Scope) -> list[Any]:
    """[cond, 'and'|'or', cond, ...] in textual order; parentheses are flattened like the official
    left-to-right reading (it cannot parse them at all)."""
    node = _unwrap_paren(node)
    if isinstance(node, exp.And):
        return [*_condition(node.this, scope), "and", *_condition(node.expression, scope)]
    if isinstance(node, exp.Or):
        return [*_condition(node.this, scope), "or", *_condition(node.expression, scope)]
    return [_cond_unit(node, scope)]


def _unwrap_paren(node: exp.Expression) -> exp.Expression:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _cond_unit(node: exp.Expression, scope: _Scope) -> tuple[Any, ...]:
    not_op = False
    while isinstance(node, exp.Not):
        not_op = not not_op
        node = _unwrap_paren(node.this)
    if isinstance(node, exp.Like) and node.args.get("negate"):
        not_op = not not_op
    op = _CMP.get(type(node))
    if op is not None:
        return not_op, op, _val_unit(node.this, scope), _value(node.expression, scope), None
    if isinstance(node, exp.Between):
        low, high = node.args.get("low"), node.args.get("high")
        return not_op, 1, _val_unit(node.this, scope), _value(low, scope), _value(high, scope)
    if isinstance(node, exp.In):
        query = node.args.get("query")
        val = _value(query, scope) if query is not None else tuple(_value(v, scope) for v in node.expressions)
        return not_op, 8, _val_unit(node.this, scope), val, None
    if isinstance(node, exp.Like):
        return not_op, 9, _val_unit(node.this, scope), _value(node.expression, scope), None
    if isinstance(node, exp.Is):
        return not_op, 10, _val_unit(node.this, scope), _value(node.expression, scope), None
    if isinstance(node, exp.Exists):
        return not_op, 11, None, _value(node.this, scope), None
    if isinstance(node, exp.And | exp.Or):  # NOT (a AND b): keep it whole
        return not_op, "group", None, tuple(_drop_values(_condition(node, scope))), None
    name = type(node).__name__.lower()
    if isinstance(node, exp.Binary):
        return not_op, name, _val_unit(node.this, scope), _value(node.expression, scope), None
    return not_op, name, _val_unit(node, scope), None, None


def _value(node: exp.Expression | None, scope: _Scope) -> Any:
    """A condition's right side: a nested sql dict, a column unit, or the literal (ignored later)."""
    if node is None:
        return None
    if isinstance(node, exp.Subquery | exp.Query) or (
        isinstance(node, exp.Paren) and isinstance(_unwrap(node), exp.Query)
    ):
        return _query(node, scope, independent=False)
    node = _unwrap_paren(node)
    if isinstance(node, exp.Literal):
        if node.is_string:
            return f'"{node.name}"'
        try:
            return float(node.name)
        except ValueError:
            return node.name
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal):
        try:
            return -float(node.this.name)
        except ValueError:
            return node.sql(dialect="sqlite")
    if isinstance(node, exp.Column):
        col = _column_or_value(node, scope)
        if col == VALUE:
            return f'"{node.name}"'
        return 0, col, False
    if isinstance(node, exp.Null):
        return "null"
    if isinstance(node, exp.Tuple):
        return tuple(_value(v, scope) for v in node.expressions)
    if _AGGS.get(type(node)) is not None:
        return _col_unit(node, scope)
    return _expr_id(node, scope)
