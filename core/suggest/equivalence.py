"""Conditions written another way that keep the same rows, taken out before the two queries are compared.

A prediction is often right in a form gold does not use, and each such form used to read as a condition
missing on one side and added on the other:

- one date condition in another form: `SUBSTR(d, 1, 7) = '2009-04'`, `strftime('%Y', d) = '2009' AND
  strftime('%m', d) = '04'`, `d LIKE '2009-04%'`, `date(d) = …` and `d = '2009-04-01 00:00:00'` (a date
  column at midnight) all keep the rows whose value starts with the same date text;
- a filter that one side applies in WHERE and the other counts with (`SUM(c = 'EUR')`, `COUNT(CASE WHEN c
  = 'EUR' …)`) where both compute a share or a count of the same rows;
- one filter written twice: in each branch of an OR (`(a AND x) OR (a AND y)` is `a AND (x OR y)`), or
  again in a nested query the other side does without (gold repeating the season inside the `= (SELECT
  MAX(…) …)` that the prediction replaces with ORDER BY … LIMIT 1);
- `x BETWEEN a AND b` and `x >= a AND x <= b`; `x IS NOT NULL` beside another test of x (NULL passes no
  comparison, so it adds nothing);
- GROUP BY over exactly the selected columns, with no aggregate: it only removes duplicate rows, as
  DISTINCT does (whether that counts is the dataset's EX semantics' to say);
- the same filter through a lookup table and through its key: gold joins `alignment` and tests its name,
  the prediction tests `alignment_id = 1` on the joined-from table. Without the data the engine cannot tell
  whether id 1 is that name; when the evidence says so it is the same filter, otherwise the difference is
  left doubtful (under the gate), as an unknown mapping is as often right as wrong.

Each is read from what a condition means on the stored values, not from any one dataset's rows.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from datetime import date, timedelta

from sqlglot import exp

from sqltriage.core.model import Schema
from sqltriage.core.suggest.facts import (
    AGGREGATES,
    Conjunct,
    QueryFacts,
    condition,
    family_of,
    is_nested,
)
from sqltriage.core.suggest.reason import Reason
from sqltriage.core.suggest.suggestion import Suggestion

_FORMATS = {"%Y": 4, "%Y-%m": 7, "%Y-%m-%d": 10}  # strftime layouts that are a prefix of an ISO date
_MIDNIGHT = re.compile(r"(\d{4}-\d{2}-\d{2})[ T]00:00(?::00(?:\.0+)?)?")
_CODE = re.compile(r"[A-Z0-9][A-Z0-9_\-]{0,11}")  # a key written as text is a code ('SVK', 'TR001'), no word
_DATE_TEXT = re.compile(r"\d{4}(?:-\d{2}(?:-\d{2})?)?")


def same_filters(
    g: QueryFacts, p: QueryFacts, evidence: str = "", schema: Schema | None = None
) -> tuple[QueryFacts, QueryFacts, list[Suggestion]]:
    """The two facts with the conditions both write (each its own way) left out, and what is left doubtful."""
    if g.tables.keys() == p.tables.keys() and _keys(g) == _keys(p):
        # the same conditions and tables on both sides (the usual case): only the grouping can differ
        g2, p2 = _grouping_as_distinct(g, p), _grouping_as_distinct(p, g)
        return (g, p, []) if g2 is g and p2 is p else (g2, _grouping_as_distinct(p, g2), [])
    drop_g, drop_p = _same_dates(g, p)
    drop_g |= _repeated(g, p) | _implied(g, p)
    drop_p |= _repeated(p, g) | _implied(p, g)
    between_g, between_p = _between(g, p), _between(p, g)
    drop_g |= between_g[0] | between_p[1]
    drop_p |= between_p[0] | between_g[1]
    counted_g, counted_p = _counted_filters(g, p, drop_g, drop_p)
    drop_g |= counted_g
    drop_p |= counted_p
    named_g, named_p = _named_by_reference(g, p)
    drop_g |= named_g
    drop_p |= named_p
    g2, p2, doubtful = _lookups(g, p, evidence, schema, drop_g, drop_p)
    g2, p2 = _grouping_as_distinct(g2, p2), _grouping_as_distinct(p2, g2)
    if not drop_g and not drop_p and g2 is g and p2 is p:
        return g, p, []
    return _without(g2, drop_g), _without(p2, drop_p), doubtful


_COMPARISONS = {"=", "!=", ">", ">=", "<", "<=", "like", "between"}
# a column whose name says it holds a short reference spelled from a name (`driverRef`, `circuitRef`, `slug`)
_REFERENCE = re.compile(r"(ref|slug|handle|abbr|abbreviation)$", re.I)


def _named_by_reference(g: QueryFacts, p: QueryFacts) -> tuple[set[int], set[int]]:
    """`driverRef = 'hamilton'` where gold tests `forename = 'Lewis' AND surname = 'Hamilton'`: a reference
    spelled from the name gold tests names the same row. Gold's tests of that row (those on the same table
    alias as the name) and the prediction's reference are left out on both sides."""
    for j, x in enumerate(p.conjuncts):
        if x.kind != "str" or x.op != "=" or not _REFERENCE.search(x.column):
            continue
        words = set(re.split(r"[\W_]+", x.value.lower())) - {""}
        named = [
            i
            for i, c in enumerate(g.conjuncts)
            if c.kind == "str"
            and c.op in ("=", "like")
            and c.column != x.column
            and c.value.strip("%").lower() in words
        ]
        if not named or len(min(words, key=len)) < 3:
            continue
        alias = _qualifier(g.conjuncts[named[0]])
        same_row = {
            i
            for i, c in enumerate(g.conjuncts)
            if alias and c.kind == "str" and c.op in ("=", "like") and _qualifier(c) == alias
        }
        return same_row | set(named), {j}
    return set(), set()


def _qualifier(c: Conjunct) -> str:
    col = c.node.find(exp.Column)
    return col.table.lower() if col is not None else ""


def _implied(f: QueryFacts, other: QueryFacts) -> set[int]:
    """`x IS NOT NULL` where x is compared anyway (on this side or the other): NULL passes no comparison."""
    nulls = [i for i, c in enumerate(f.conjuncts) if c.op == "is not null"]
    if not nulls:
        return set()
    tested = {c.column for q in (f, other) for c in q.conjuncts if c.op in _COMPARISONS and c.kind != "null"}
    mine = Counter(c.column for c in f.conjuncts if c.op == "is not null")
    theirs = Counter(c.column for c in other.conjuncts if c.op == "is not null")
    # a test both sides write is left to cancel as it is
    return {
        i
        for i in nulls
        if f.conjuncts[i].column in tested and mine[f.conjuncts[i].column] > theirs[f.conjuncts[i].column]
    }


def _digits(f: QueryFacts) -> bool:
    return any(c.value[:1].isdigit() for c in f.conjuncts)


def _between(f: QueryFacts, other: QueryFacts) -> tuple[set[int], set[int]]:
    """`x BETWEEN a AND b` on this side, `x >= a AND x <= b` on the other: (indexes here, indexes there)."""
    if not any(c.op == "between" for c in f.conjuncts):
        return set(), set()
    mine: set[int] = set()
    theirs: set[int] = set()
    for i, c in enumerate(f.conjuncts):
        if c.op != "between" or ".." not in c.value:
            continue
        low, high = c.value.split("..", 1)
        lo = next(
            (j for j, x in enumerate(other.conjuncts) if (x.column, x.op, x.value) == (c.column, ">=", low)),
            None,
        )
        hi = next(
            (j for j, x in enumerate(other.conjuncts) if (x.column, x.op, x.value) == (c.column, "<=", high)),
            None,
        )
        if lo is not None and hi is not None:
            mine.add(i)
            theirs |= {lo, hi}
    return mine, theirs


def _grouping_as_distinct(f: QueryFacts, other: QueryFacts) -> QueryFacts:
    """GROUP BY the selected plain columns, no aggregate, no HAVING, where the other side does not group:
    read as SELECT DISTINCT."""
    if f.group_by != 1 or other.group_by or f.having or not f.group_columns or f.aggregates - f.picks:
        return f
    if any(x.aggregates or len(x.columns) != 1 or x.text not in x.columns for x in f.select):
        return f
    if f.group_columns != {c for x in f.select for c in x.columns}:
        return f
    return replace(f, group_by=0, group_columns=set(), select_distinct=True)


def _keys(f: QueryFacts) -> list[tuple[str, ...]]:
    """The conditions as sortable keys, kept for the latest facts (gold's serve every model)."""
    hit = _KEYS.get(id(f))
    if hit is not None and hit[0] is f:
        return hit[1]
    keys = sorted((c.column, c.op, c.value, *sorted(c.functions)) for c in f.conjuncts)
    if len(_KEYS) >= 256:
        _KEYS.pop(next(iter(_KEYS)))
    _KEYS[id(f)] = (f, keys)
    return keys


_KEYS: dict[int, tuple[QueryFacts, list[tuple[str, ...]]]] = {}


def _without(f: QueryFacts, drop: set[int]) -> QueryFacts:
    """The facts without the conditions at those indexes, and without the function uses they held."""
    if not drop:
        return f
    families = Counter(f.families)
    for i in drop:
        for node in f.conjuncts[i].node.walk():
            if (fam := family_of(node)) is not None:
                families[fam] -= 1
    families = +families  # counts at zero or under dropped
    kept = [c for i, c in enumerate(f.conjuncts) if i not in drop]
    return replace(f, conjuncts=kept, families=families)


def _repeated(f: QueryFacts, other: QueryFacts) -> set[int]:
    """Copies of one filter in one query, and copies in nested queries when the other side nests less
    (as many copies as the other side has are kept, top-level ones first)."""
    if len({(c.column, c.op, c.value) for c in f.conjuncts}) == len(f.conjuncts):
        return set()
    keys = Counter((c.column, c.op, c.value) for c in f.conjuncts)
    theirs = Counter((c.column, c.op, c.value) for c in other.conjuncts)
    nested = {i: _inside_nested(c.node) for i, c in enumerate(f.conjuncts)}
    seen: set[tuple[str, str, str, int]] = set()
    kept: Counter[tuple[str, str, str]] = Counter()
    out = set()
    for i in sorted(nested, key=lambda i: nested[i]):
        c = f.conjuncts[i]
        key = (c.column, c.op, c.value)
        if keys[key] < 2:
            continue
        scoped = (*key, id(c.node.find_ancestor(exp.Select)))
        if scoped in seen:
            out.add(i)  # the same scope tests it already
        elif nested[i] and theirs[key] and kept[key] >= theirs[key] and other.nested < f.nested:
            out.add(i)  # a nested copy of a filter the other side applies without that nested query
        else:
            seen.add(scoped)
            kept[key] += 1
    return out


def _inside_nested(node: exp.Expression) -> bool:
    select = node.find_ancestor(exp.Select)
    while select is not None:
        if is_nested(select):
            return True
        select = select.find_ancestor(exp.Select)
    return False


# --- one date condition in another form --------------------------------------------------------------------


def _date_parts(c: Conjunct) -> list[tuple[str, str, str]]:
    """(column, "ge" | "lt" | "month", text): the condition keeps the rows whose date text is at least /
    under `text` (or whose month is `text`). Nothing when the condition is no date test it can read."""
    node = c.node
    while isinstance(node, exp.Paren):
        node = node.this
    op = _OPS.get(type(node))
    if op is None:
        return []
    literals = [node.args.get("low"), node.args.get("high")] if op == "between" else [node.expression]
    if not all(isinstance(x, exp.Literal) for x in literals):
        return []
    values = [str(x.this) for x in literals]
    column, width = _date_reader(node.this)
    if column is None or (width == 0 and not all(x.is_string for x in literals)):
        return []  # (a whole column compared with a number is no date: `year < 2001`)
    if width == -1:  # strftime('%m', d): only the month
        return [(column, "month", values[0])] if op == "=" and re.fullmatch(r"\d{2}", values[0]) else []
    if width:  # a prefix of the date text: SUBSTR(d, 1, 4), strftime('%Y', d), date(d)
        if any(len(v) != width or not _DATE_TEXT.fullmatch(v) for v in values):
            return []
        bounds = _prefix_bounds(op, values)
    else:
        bounds = _raw_bounds(op, values)
    return [(column, kind, text) for kind, text in bounds]


_OPS = {
    exp.EQ: "=",
    exp.GT: ">",
    exp.GTE: ">=",
    exp.LT: "<",
    exp.LTE: "<=",
    exp.Like: "like",
    exp.Between: "between",
}


def _date_reader(left: exp.Expression) -> tuple[str | None, int]:
    """(column, width): the date column a test reads and the length of the date prefix it compares (0: the
    whole text, -1: the month alone)."""
    if isinstance(left, exp.Cast):  # CAST(strftime('%Y', d) AS INT) > 1995
        left = left.this
    if isinstance(left, exp.Column):
        return left.name.lower(), 0
    if isinstance(left, exp.Substring):
        col, start, length = left.this, left.args.get("start"), left.args.get("length")
        if isinstance(col, exp.Column) and _number(start) == 1 and _number(length) in (4, 7, 10):
            return col.name.lower(), _number(length) or 0
    if isinstance(left, exp.Date) and isinstance(left.this, exp.Column):
        return left.this.name.lower(), 10
    if isinstance(left, exp.TimeToStr):
        col, fmt = left.this, left.args.get("format")
        if isinstance(col, exp.TsOrDsToTimestamp):
            col = col.this
        if isinstance(col, exp.Column) and isinstance(fmt, exp.Literal):
            width = _FORMATS.get(str(fmt.this), -1 if str(fmt.this) == "%m" else None)
            if width is not None:
                return col.name.lower(), width
    return None, 0


def _prefix_bounds(op: str, values: list[str]) -> list[tuple[str, str]]:
    v = values[0]
    if op == "=":
        return [("ge", _norm(v)), ("lt", _next(v))]
    if op == "between":
        return [("ge", _norm(v)), ("lt", _next(values[1]))]
    return {
        ">": [("ge", _next(v))],
        ">=": [("ge", _norm(v))],
        "<": [("lt", _norm(v))],
        "<=": [("lt", _next(v))],
    }.get(op, [])


def _raw_bounds(op: str, values: list[str]) -> list[tuple[str, str]]:
    """Bounds of a test on the whole date text; a day compared without its time is left alone (whether
    `d <= '2015-12-31'` keeps that day's later hours depends on what the column stores)."""
    v = values[0]
    if op == "like":
        text = v[:-1] if v.endswith("%") else ""
        return [("ge", _norm(text)), ("lt", _next(text))] if _DATE_TEXT.fullmatch(text) else []
    m = _MIDNIGHT.fullmatch(v)
    if op == "=":
        return [("ge", m.group(1)), ("lt", _next(m.group(1)))] if m else []
    if op == "between":
        return [*_raw_bounds(">=", values[:1]), *_raw_bounds("<=", values[1:])]
    day_end = _DAY_END.fullmatch(v)
    if op in (">=", "<") and (m or _DATE_TEXT.fullmatch(v)):
        return [("ge" if op == ">=" else "lt", _norm(m.group(1) if m else v))]
    if op in (">", "<=") and day_end:
        return [("ge" if op == ">" else "lt", _next(day_end.group(1)))]
    if op in (">", "<=") and _DATE_TEXT.fullmatch(v) and len(v) < 10:  # '1995' is before every 1995 date
        return [("ge" if op == ">" else "lt", _norm(v))]
    return []


_DAY_END = re.compile(r"(\d{4}-\d{2}-\d{2})[ T]23:59:59(?:\.9*)?")


def _norm(text: str) -> str:
    """A bound in its shortest form: '1996-01-01' and '1996' bound ISO dates alike."""
    while text.endswith("-01") and len(text) > 4:
        text = text[:-3]
    return text


def _next(text: str) -> str:
    """The first date text after every date that starts with `text`."""
    if len(text) == 4:
        return str(int(text) + 1)
    if len(text) == 7:
        y, m = int(text[:4]), int(text[5:7])
        return _norm(f"{y + m // 12:04d}-{m % 12 + 1:02d}")
    try:
        return _norm((date.fromisoformat(text) + timedelta(days=1)).isoformat())
    except ValueError:
        return text + "~"  # no date: a bound nothing else shares


def _number(node: exp.Expression | None) -> int | None:
    if isinstance(node, exp.Literal) and not node.is_string and str(node.this).isdigit():
        return int(node.this)
    return None


def _date_keys(f: QueryFacts) -> dict[str, tuple[tuple[str, str], list[int]]]:
    """Per column, the date range its date tests keep together ([lower, upper)), and which tests those are."""
    parts: dict[str, list[tuple[int, str, str]]] = {}
    for i, c in enumerate(f.conjuncts):
        if c.clause != "where" or c.kind not in ("str", "num") or not (c.functions or c.value[:1].isdigit()):
            continue  # (a date test reads the column through a function or compares it with digits)
        for column, kind, text in _date_parts(c):
            parts.setdefault(column, []).append((i, kind, text))
    out = {}
    for column, found in parts.items():
        lows = [text for _, kind, text in found if kind == "ge"]
        highs = [text for _, kind, text in found if kind == "lt"]
        months = {text for _, kind, text in found if kind == "month"}
        low, high = max(lows, default=""), min(highs, default="~")
        if len(months) > 1 or (not lows and not highs):
            continue
        if months:  # the month of one year: a range of its own
            if len(low) != 4 or high != _next(low):
                continue
            low = f"{low}-{next(iter(months))}"
            high = _next(low)
            low = _norm(low)
        out[column] = ((low, high), sorted({i for i, _, _ in found}))
    return out


def _same_dates(g: QueryFacts, p: QueryFacts) -> tuple[set[int], set[int]]:
    if not g.conjuncts or not p.conjuncts or not (g.families or p.families or _digits(g) or _digits(p)):
        return set(), set()
    gk, pk = _date_keys(g), _date_keys(p)
    drop_g: set[int] = set()
    drop_p: set[int] = set()
    for column, (bounds, where) in gk.items():
        other = pk.get(column)
        if other is not None and other[0] == bounds:
            drop_g.update(where)
            drop_p.update(other[1])
    return drop_g, drop_p


# --- a filter one side applies and the other counts with ---------------------------------------------------


def _counted(f: QueryFacts) -> set[tuple[str, str, str]]:
    """The conditions inside the SELECT list's aggregates (`SUM(c = 'x')`, `COUNT(CASE WHEN c = 'x' …)`)."""
    out = set()
    for item in f.select:
        if not item.aggregates:
            continue
        for agg in item.node.find_all(*AGGREGATES):
            for node in agg.find_all(exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Like, exp.In):
                c = condition(node)
                if c is not None and c.kind in ("str", "num"):
                    out.add((c.column, c.op, c.value))
    return out


def _counted_filters(
    g: QueryFacts, p: QueryFacts, drop_g: set[int], drop_p: set[int]
) -> tuple[set[int], set[int]]:
    """Conditions one side filters with and the other counts with, both computing over the same rows."""
    if not (g.counts_condition or p.counts_condition):
        return set(), set()
    out: tuple[set[int], set[int]] = (set(), set())
    for side, (mine, theirs, dropped) in enumerate(((g, p, drop_g), (p, g, drop_p))):
        if not theirs.counts_condition or mine.counts_condition:
            continue
        counted = _counted(theirs)
        filtered = Counter((c.column, c.op, c.value) for c in theirs.conjuncts)
        for i, c in enumerate(mine.conjuncts):
            key = (c.column, c.op, c.value)
            if i not in dropped and key in counted and not filtered[key]:
                out[side].add(i)
    return out


# --- the same filter through a lookup table and through its key ---------------------------------------------


def _lookups(
    g: QueryFacts,
    p: QueryFacts,
    evidence: str,
    schema: Schema | None,
    drop_g: set[int],
    drop_p: set[int],
) -> tuple[QueryFacts, QueryFacts, list[Suggestion]]:
    only_g, only_p = set(g.tables) - set(p.tables), set(p.tables) - set(g.tables)
    if bool(only_g) == bool(only_p):  # none, or a table on each side: another table, not a lookup
        return g, p, []
    named, keyed, dropped_named, dropped_keyed = (g, p, drop_g, drop_p) if only_g else (p, g, drop_p, drop_g)
    joined = {c.rsplit(".", 1)[-1] for j in named.joins for pair in j.pairs for c in pair}
    if not any(c.op == "=" and c.column in joined for c in keyed.conjuncts):
        return g, p, []  # the other side tests no joining column: no lookup written through its key
    doubtful: list[Suggestion] = []
    for table in sorted(only_g or only_p):
        found = _lookup(table, named, keyed, schema, dropped_named, dropped_keyed)
        if found is None:
            return g, p, []
        name_idx, key_idx, key_column = found
        dropped_named.update(name_idx)
        dropped_keyed.update(key_idx)
        values = [keyed.conjuncts[i] for i in key_idx]
        if not all(_stated(key_column, table, c.value, evidence) for c in values):
            why = Reason(
                "{} through {}, against {} on its key: the same filter if the key names it",
                tuple(named.conjuncts[i].node for i in name_idx),
                table,
                tuple(c.node for c in values),
            )
            doubtful.append(Suggestion("Condition: explicit mismatch", why, 0.45))
        named = _no_table(named, table)
    return (named, keyed, doubtful) if only_g else (keyed, named, doubtful)


def _no_table(f: QueryFacts, table: str) -> QueryFacts:
    tables = Counter(f.tables)
    del tables[table]
    return replace(f, tables=tables, table_columns={t: c for t, c in f.table_columns.items() if t != table})


def _lookup(
    table: str,
    named: QueryFacts,
    keyed: QueryFacts,
    schema: Schema | None,
    dropped_named: set[int],
    dropped_keyed: set[int],
) -> tuple[list[int], list[int], str] | None:
    """`named` joins `table` through its key only to test its other columns with literals; `keyed` tests
    the joining column with literals instead. (indexes in `named`, in `keyed`, the key column)"""
    keys = {c.lower() for t, c in (schema.primary_keys if schema else ()) if t.lower() == table} or {"id"}
    links = [
        pair
        for j in named.joins
        for pair in j.pairs
        if len(pair) == 2 and any(x == f"{table}.{k}" for x in pair for k in keys)
    ]
    if len(links) != 1:
        return None
    fk = next(x for x in links[0] if not x.startswith(f"{table}.")).split(".", 1)[1]
    key = next(x for x in links[0] if x.startswith(f"{table}.")).split(".", 1)[1]
    used = named.table_columns.get(table, set()) - {key}
    if not used or "*" in used or any(used & x.columns for x in named.select):
        return None  # the lookup table's columns are shown, not only tested
    name_idx = [
        i
        for i, c in enumerate(named.conjuncts)
        if i not in dropped_named and c.column in used and c.kind in ("str", "num") and c.op == "="
    ]
    names = {named.conjuncts[i].value.lower() for i in name_idx}
    key_idx = [  # (a key compared with the name itself is a wrong column, not this rewrite)
        i
        for i, c in enumerate(keyed.conjuncts)
        if i not in dropped_keyed
        and c.column in (fk, key)
        and c.kind in ("num", "str")
        and c.op == "="
        and c.value.lower() not in names
        and (c.kind == "num" or _CODE.fullmatch(c.value) is not None)
    ]
    if not name_idx or len(key_idx) != len({named.conjuncts[i].value for i in name_idx}):
        return None
    return name_idx, key_idx, fk


def _stated(column: str, table: str, value: str, evidence: str) -> bool:
    """The evidence equates the key with the value (`alignment.id = 1`, `gender_id = 2`)."""
    if not evidence:
        return False
    names = {re.escape(column), rf"{re.escape(table)}\s*\.\s*\w*id", r"\bid"}
    pattern = rf"(?:{'|'.join(names)})\s*=\s*'?{re.escape(value)}'?(?!\w)"
    return re.search(pattern, evidence, re.IGNORECASE) is not None
