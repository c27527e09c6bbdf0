"""Parse SQL the way SQLite reads it, tolerant of what real model predictions contain.

Predicted SQL is untrusted text: parsing never raises, a failure is a `ParsedQuery` with `error` set.
SQLite treats a double-quoted token as an identifier when it names something and as a string otherwise
(Spider's gold SQL relies on this: `WHERE country = "France"`); `parse_sql` applies the same rule, exactly
with a schema and by position (the value side of a comparison) without one.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from functools import cache
from typing import Any, TypeVar

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

from sqltriage.core.model import Schema

DIALECT = "sqlite"
T = TypeVar("T")
_READ = [DIALECT]  # the dialect queries are read in: SQLite's, or the engine's of `eval --db-url`


@cache
def _dialect(name: str) -> Dialect:
    return Dialect.get_or_raise(name)


def sqlite_dialect() -> Dialect:
    """One dialect instance for every parse (a lookup by name builds a new one each time)."""
    return _dialect(DIALECT)


def use_dialect(name: str) -> None:
    """Read every query of this process in `name` (sqlglot's: "sqlite", "postgres", "mysql"): an
    evaluation on a server sets it once, in itself and in each worker, before any parse."""
    _READ[0] = name


def read_dialect() -> Dialect:
    """The dialect queries are read (and shown) in: SQLite's unless `use_dialect` said otherwise."""
    return _dialect(_READ[0])


# Predicates whose right-hand side is a value in the queries people write.
_VALUE_SIDE = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Like, exp.ILike, exp.Glob)


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    """One query's text and its sqlglot tree, or the reason it has none."""

    sql: str
    tree: exp.Expression | None
    error: str | None
    # What analyses read off this parse, kept with it: an evaluation passes one gold parse for every
    # model and shares the parses of repeated queries, and the values die with the parse.
    _derived: dict[Hashable, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        return self.tree is not None and self.error is None

    def derived(self, key: Hashable, make: Callable[[], T]) -> T:
        """`make()`, computed once per parse and `key` (which names the analysis and its other inputs)."""
        try:
            return self._derived[key]
        except KeyError:
            value = self._derived[key] = make()
            return value


def parse_sql(sql: str, schema: Schema | None = None) -> ParsedQuery:
    """Parse one statement; never raises (an unparseable query comes back with `error`)."""
    body = statement_body(sql)
    if not body:
        return ParsedQuery(sql, None, "empty query")
    try:
        trees = [t for t in read_dialect().parse(body) if t is not None]
    except RecursionError:
        return ParsedQuery(sql, None, "query too deeply nested to parse")
    except Exception as exc:  # sqlglot raises ParseError, TokenError and, on odd input, others
        return ParsedQuery(sql, None, _first_line(exc))
    if not trees:
        return ParsedQuery(sql, None, "empty query")
    if len(trees) > 1:
        return ParsedQuery(sql, None, f"{len(trees)} statements; expected one")
    tree = trees[0]
    if isinstance(tree, (exp.Condition, exp.Alias, exp.Identifier)) and not isinstance(tree, exp.Query):
        # sqlglot reads `SELEC name` as an aliased column; no SQL engine runs a bare expression
        return ParsedQuery(sql, None, f"not a SQL statement: {body.split()[0][:40]!r} starts no statement")
    if _READ[0] == DIALECT:  # only SQLite reads a double-quoted name that names nothing as a string
        _double_quoted_strings(tree, body, schema)
    return ParsedQuery(sql, tree, None)


def statement_body(sql: str | None) -> str:
    """The text `parse_sql` reads: surrounding whitespace and trailing semicolons removed."""
    return (sql or "").strip().rstrip(";").strip()


def ensure_parsed(query: str | ParsedQuery, schema: Schema | None = None) -> ParsedQuery:
    """Accept either text or an earlier parse, so a gold query is parsed once for every model."""
    return query if isinstance(query, ParsedQuery) else parse_sql(query, schema)


def pretty(sql: str) -> str:
    """The one canonical multi-line form used for display; the input unchanged if it does not parse."""
    parsed = parse_sql(sql)
    if not parsed.ok or parsed.tree is None:
        return sql
    return pretty_tree(parsed.tree, fallback=sql)


def pretty_tree(tree: exp.Expression, fallback: str = "") -> str:
    try:
        return tree.sql(dialect=read_dialect(), pretty=True)
    except Exception:  # generation of an odd tree must not break a display
        return fallback


def resolve_aliases(tree: exp.Expression, schema: Schema | None = None) -> exp.Expression:
    """A copy of `tree` where `T1.name` reads `singer.name`, scope by scope.

    Unqualified columns get their table when the scope has a single table, or when the schema says
    which of the scope's tables has the column. Table aliases are dropped unless a table appears twice
    in the same scope (a self-join needs them to stay correct).
    """
    out = tree.copy()
    for select in reversed(list(out.find_all(exp.Select))):
        scope = table_scope(select)
        outer = [table_scope(s) for s in _enclosing_selects(select)]
        counts = _table_counts(select)
        for col in select_columns(select):
            table = resolve_column_table(col, scope, outer, schema)
            if table is not None and counts.get(table, 0) <= 1:
                col.set("table", exp.to_identifier(table))
        for tbl in _scope_tables(select):
            if counts[tbl.name.lower()] == 1 and tbl.args.get("alias") is not None:
                tbl.set("alias", None)
    return out


@dataclass(frozen=True, slots=True)
class TableAlias:
    """A table alias as written (`singer AS T1`): `kept` when `resolve_aliases` leaves it in place."""

    alias: str
    table: str
    kept: bool  # the table appears twice in the alias's scope: a self-join needs its aliases


def table_aliases(tree: exp.Expression | None) -> tuple[TableAlias, ...]:
    """The query's table aliases in order of writing, each once: what `resolve_aliases` resolves or keeps.

    An alias equal to its table's name, and the alias of a derived table, are not listed: resolving
    changes nothing for the first, and leaves the second alone.
    """
    if tree is None:
        return ()
    found: dict[TableAlias, None] = {}
    for select in sorted(tree.find_all(exp.Select), key=_text_order(tree)):
        counts = _table_counts(select)
        for tbl in _scope_tables(select):
            if tbl.alias and tbl.alias.lower() != tbl.name.lower():
                found[TableAlias(tbl.alias, tbl.name, counts[tbl.name.lower()] > 1)] = None
    return tuple(found)


def _text_order(tree: exp.Expression) -> Callable[[exp.Expression], int]:
    """A sort key putting nodes of `tree` in the order they are written (depth first, left to right)."""
    order = {id(node): n for n, node in enumerate(tree.walk(bfs=False))}
    return lambda node: order.get(id(node), 0)


def _table_counts(select: exp.Select) -> dict[str, int]:
    """How often each table (lower-case name) is read in this SELECT's own FROM and JOINs."""
    counts: dict[str, int] = {}
    for tbl in _scope_tables(select):
        counts[tbl.name.lower()] = counts.get(tbl.name.lower(), 0) + 1
    return counts


# ----- scopes: which names a SELECT's columns can refer to -----


def table_scope(select: exp.Select) -> dict[str, str | None]:
    """{alias or table name (lower-case) → real table name, or None for a derived table}."""
    scope: dict[str, str | None] = {}
    for source in scope_sources(select):
        alias = source.alias_or_name.lower() if source.alias_or_name else ""
        if isinstance(source, exp.Table):
            real = source.name.lower()
            scope[real] = real
            if alias:
                scope[alias] = real
        elif alias:
            scope[alias] = None
    return scope


def scope_sources(select: exp.Select) -> list[exp.Expression]:
    """What this SELECT reads from: its FROM source and each JOIN's, in order (tables or subqueries)."""
    sources: list[exp.Expression] = []
    from_ = select.args.get("from_") or select.args.get("from")
    if from_ is not None and from_.this is not None:
        sources.append(from_.this)
    for join in select.args.get("joins") or []:
        if join.this is not None:
            sources.append(join.this)
    return sources


def _scope_tables(select: exp.Select) -> list[exp.Table]:
    return [s for s in scope_sources(select) if isinstance(s, exp.Table)]


def _enclosing_selects(node: exp.Expression) -> list[exp.Select]:
    out = []
    parent = node.parent
    while parent is not None:
        if isinstance(parent, exp.Select):
            out.append(parent)
        parent = parent.parent
    return out


def unwrap(node: exp.Expression) -> exp.Expression:
    """The query or expression inside any parentheses and subquery wrappers around it."""
    while isinstance(node, (exp.Subquery, exp.Paren)) and isinstance(node.this, exp.Expression):
        node = node.this
    return node


def select_columns(select: exp.Select) -> list[exp.Column]:
    """Columns that belong to this SELECT itself, not to a query nested inside it."""
    out = []
    for col in select.find_all(exp.Column):
        if owning_select(col) is select:
            out.append(col)
    return out


def owning_select(node: exp.Expression) -> exp.Select | None:
    """The nearest SELECT above the node: the query whose scope its names resolve in."""
    parent = node.parent
    while parent is not None and not isinstance(parent, exp.Select):
        parent = parent.parent
    return parent


def resolve_column_table(
    col: exp.Column,
    scope: dict[str, str | None],
    outer: list[dict[str, str | None]],
    schema: Schema | None,
) -> str | None:
    """The real (lower-case) table a column belongs to, or its qualifier if that is all we know."""
    qualifier = col.table.lower() if col.table else ""
    if qualifier:
        for names in (scope, *outer):
            if qualifier in names:
                return names[qualifier] or qualifier
        return qualifier
    if isinstance(col.this, exp.Star):
        return None
    real_tables = [t for t in dict.fromkeys(scope.values()) if t is not None]
    if len(scope) and len(set(scope.values())) == 1 and real_tables:
        return real_tables[0]
    if schema is not None:
        name = col.name.lower()
        owners = [t for t in real_tables if has_column(schema, t, name)]
        if len(owners) == 1:
            return owners[0]
    return None


def has_column(schema: Schema, table: str, column: str) -> bool:
    """The schema's table (any case) has the column (lower-case)."""
    t = schema.table(table)
    return t is not None and any(c.name.lower() == column for c in t.columns)


# ----- SQLite's double-quote rule -----


def _double_quoted_strings(tree: exp.Expression, text: str, schema: Schema | None) -> None:
    if '"' not in text:
        return  # only a name written in double quotes can be a string (checked at its start below)
    known: set[str] | None = None
    if schema is not None:
        known = {c.name.lower() for t in schema.tables for c in t.columns}
        known |= {t.name.lower() for t in schema.tables}
        known |= {a.alias.lower() for a in tree.find_all(exp.Alias) if a.alias}
    for col in list(tree.find_all(exp.Column)):
        ident = col.this
        if col.table or not isinstance(ident, exp.Identifier) or not ident.quoted:
            continue
        start = ident.meta.get("start") if ident.meta else None
        if start is None or start >= len(text) or text[start] != '"':
            continue
        is_value = ident.name.lower() not in known if known is not None else _in_value_position(col)
        if is_value:
            col.replace(exp.Literal.string(ident.name))


def _in_value_position(col: exp.Column) -> bool:
    parent = col.parent
    if isinstance(parent, _VALUE_SIDE):
        return parent.args.get("expression") is col
    if isinstance(parent, exp.In):
        return col in (parent.args.get("expressions") or [])
    if isinstance(parent, exp.Between):
        return parent.args.get("low") is col or parent.args.get("high") is col
    return False


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0][:300]
