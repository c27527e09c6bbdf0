"""Rules for causes the engine found least, each read from what its NL2SQL-Bugs category means.

- Attribute mismatch: the same column read from the other of two tables both queries read (`url` of races
  where gold reads circuits'): the FROM lists agree, so the labelling guide names the column alone.
- Clause missing: gold groups (or filters groups) in more queries than the prediction: a nested query or a
  part of a set operation lost its GROUP BY / HAVING.
- Other: an unqualified column that two joined tables both have is ambiguous; SQLite refuses the query.
- Operator comparison at a boundary (`>` against `>=` on the same value), which databases generated from
  the schema rarely hold: their agreement does not clear it. Nor does it clear a result rounded on one side
  only (Function math): their few whole rows seldom give a value ROUND changes.
- Condition explicit redundant: the prediction counts rows by a condition and also keeps only the rows that
  meet it (`COUNT(CASE WHEN time IS NOT NULL …) / COUNT(*) … WHERE time IS NOT NULL`): its share is always 1.
- Subquery mismatch: the prediction's nested query answers another question than the one its place asks:
  it compares a column with the top of another expression (`x = (SELECT MIN(a + b) …)`), or it looks
  things up in tables gold never reads while gold needs no nested query at all.
- Table join condition: an ON that pairs two columns no foreign key of the schema links, with names that
  do not say they hold the same thing (`sections.section_id = enrolment.course_id`).
"""

from __future__ import annotations

from sqlglot import exp

from sqltriage.core.model import Schema
from sqltriage.core.suggest.facts import QueryFacts, norm_sql
from sqltriage.core.suggest.function_diff import one_sided_rounding
from sqltriage.core.suggest.reason import Reason
from sqltriage.core.suggest.suggestion import Suggestion

BOUNDARY = ({">", ">="}, {"<", "<="})


def weak_category_findings(g: QueryFacts, p: QueryFacts, schema: Schema | None = None) -> list[Suggestion]:
    return [
        *_column_tables(g, p),
        *_nested_clauses(g, p),
        *_ambiguous(g, p),
        *_order_column(g, p),
        *_aggregate_counts(g, p),
        *_gold_cross_join(g, p),
        *_pick_of_another(g, p),
        *_nested_elsewhere(g, p),
        *_unlinked_join(g, p, schema),
        *_filtered_count(p),
    ]


def _pick_of_another(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    """`x = (SELECT MIN(expr) …)` where expr is not x: the nested query computes what x is not."""
    if not any(c.pick for c in p.conjuncts):
        return []
    seen = {norm_sql(c.node) for c in g.conjuncts if c.pick}
    for c in p.conjuncts:
        if not c.pick or c.op != "=" or norm_sql(c.node) in seen:
            continue
        sub = c.node.find(exp.Select)
        item = sub.expressions[0] if sub is not None and sub.expressions else None
        agg = item.this if isinstance(item, exp.Alias) else item
        inner = agg.this if isinstance(agg, (exp.Max, exp.Min)) else None
        if inner is None or not c.column.replace("_", "").isalnum():
            continue  # (a HAVING count compared with a nested count is the aggregate rules' to read)
        derived = sub is not None and isinstance(
            (sub.args.get("from_") or sub.args.get("from") or exp.From()).this, exp.Subquery
        )
        if isinstance(inner, exp.Column) and (inner.name.lower() == c.column or derived):
            continue  # the same column, or a column a derived table names
        why = Reason(
            "the prediction compares {} with the {} of {}: {}", c.column, c.pick, norm_sql(inner), c.node
        )
        return [Suggestion("Subquery: mismatch", why, 0.7)]
    return []


def _nested_elsewhere(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    """Gold needs no nested query; the prediction's read tables gold never reads: they answer another question."""
    if g.nested or not p.nested:
        return []
    other = p.nested_tables - set(g.tables)
    if not other:
        return []  # lookups through gold's own tables: a join written as a nested query
    why = f"the prediction's nested queries read {', '.join(sorted(other))}, which gold never reads"
    return [Suggestion("Subquery: mismatch", why, 0.7)]


def _unlinked_join(g: QueryFacts, p: QueryFacts, schema: Schema | None) -> list[Suggestion]:
    """An ON pair of the prediction that no foreign key links, whose names do not say they hold the same
    thing, and that gold does not use: the tables are joined on the wrong columns."""
    if schema is None or not schema.foreign_keys or not p.joins:
        return []
    gold_pairs = {pair for j in g.joins for pair in j.bare_pairs}
    candidates = []
    for j in p.joins:
        for pair in j.pairs:
            if len(pair) != 2:
                continue
            (ta, ca), (tb, cb) = sorted(tuple(x.split(".", 1)) for x in pair)
            if ta and tb and ta != tb and ca != cb and frozenset((ca, cb)) not in gold_pairs:
                candidates.append((pair, ta, ca, tb, cb))
    if not candidates:
        return []
    linked, with_keys, keys = _links(schema)
    for pair, ta, ca, tb, cb in candidates:
        if pair in linked or ta not in with_keys or tb not in with_keys or _named_link(ta, ca, tb, cb, keys):
            continue
        why = f"the prediction joins {ta}.{ca} = {tb}.{cb}, which no foreign key of the schema links"
        return [Suggestion("Table: join condition", why, 0.6)]
    return []


_LINKS: dict[int, tuple[Schema, tuple[set[frozenset[str]], set[str], set[tuple[str, str]]]]] = {}


def _links(schema: Schema) -> tuple[set[frozenset[str]], set[str], set[tuple[str, str]]]:
    """The schema's foreign-key pairs, the tables they touch and its keys, read once per schema object."""
    hit = _LINKS.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    linked = {frozenset((f"{a[0]}.{a[1]}".lower(), f"{b[0]}.{b[1]}".lower())) for a, b in schema.foreign_keys}
    with_keys = {x.split(".", 1)[0] for pair in linked for x in pair}
    keys = {(t.lower(), c.lower()) for t, c in schema.primary_keys}
    if len(_LINKS) > 64:
        _LINKS.clear()
    _LINKS[id(schema)] = (schema, (linked, with_keys, keys))
    return linked, with_keys, keys


def _named_link(ta: str, ca: str, tb: str, cb: str, keys: set[tuple[str, str]]) -> bool:
    """A key and a column named after its table (`users.id` and `owneruserid`), or two names one of which
    holds the other (`code` and `setcode`): a link the schema did not declare."""
    if ca in cb or cb in ca:
        return True
    for (kt, kc), other in (((ta, ca), cb), ((tb, cb), ca)):
        stem = kt.rstrip("s")
        if (kt, kc) in keys and len(stem) >= 3 and stem in other:
            return True
    return False


def _order_column(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    """Both keep the top rows (ORDER BY … LIMIT) by a plain column, but by different ones that no join
    equates: the rows kept are another attribute's top."""
    if not (g.limit and p.limit and g.order and p.order):
        return []
    gc, pc = _bare(g.order[0][0]), _bare(p.order[0][0])
    if not gc or not pc or gc == pc or {gc, pc} <= _joined_columns(g) | _joined_columns(p):
        return []
    if pc in {x.text for x in p.select} | {x.text for x in g.select}:
        return []  # ordering by a selected item (or its alias) is the select rule's to compare
    return [
        Suggestion("Attribute: mismatch", f"gold keeps the top rows by {gc}, the prediction by {pc}", 0.8)
    ]


def _bare(text: str) -> str | None:
    name = text.rsplit(".", 1)[-1].strip('"`[]').lower()
    return name if name.replace("_", "").isalnum() and not name.isdigit() else None


def _aggregate_counts(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    """The same aggregates, used a different number of times (MIN(x) - MIN(x) for MAX(x) - MIN(x))."""
    if g.aggregates == p.aggregates or set(g.aggregates) != set(p.aggregates):
        return []
    ga, pa = g.aggregates - g.picks, p.aggregates - p.picks
    if set(ga) != set(pa) or ga == pa or len(ga) < 2:
        return []
    more = sorted(a for a in ga | pa if ga[a] != pa[a])
    return [Suggestion("Function: aggregate", f"{' and '.join(more)} used a different number of times", 0.6)]


def _gold_cross_join(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    """Gold joins a table with no condition at all (a cross join) where the prediction links the same
    tables: gold pairs every row with every row, which no question means."""
    crossed = [
        j for j in g.joins if j.tables and not j.pairs and j.kind != "cross" and j.tables <= set(p.tables)
    ]
    linked = {t for j in p.joins if j.pairs for t in j.tables}
    if not crossed or not any(j.tables <= linked for j in crossed):
        return []
    why = f"gold joins {', '.join(sorted(crossed[0].tables))} with no condition (every row with every row)"
    return [Suggestion("Evaluation: gold SQL wrong", why, 0.8)]


def _joined_columns(f: QueryFacts) -> set[str]:
    return {c for j in f.joins for pair in j.bare_pairs for c in pair}


def _owners(f: QueryFacts, column: str) -> set[str]:
    return {t for t, cols in f.table_columns.items() if column in cols}


def _column_tables(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    """A column gold reads from one table and the prediction from another, both tables being read by both
    queries and the column joining neither: the value comes from the wrong table, but no table is missing
    or replaced, so the guide names the column ("Attribute: mismatch"), not the table."""
    if g.table_columns == p.table_columns:
        return []
    both = set(g.tables) & set(p.tables)
    joined = _joined_columns(g) | _joined_columns(p)
    out = []
    for column in sorted(g.columns & p.columns - joined - {"*"}):
        gold_from, pred_from = _owners(g, column), _owners(p, column)
        if gold_from and pred_from and not gold_from & pred_from and gold_from | pred_from <= both:
            why = f"gold reads {column} from {', '.join(sorted(gold_from))}, the prediction from {', '.join(sorted(pred_from))}"
            out.append(Suggestion("Attribute: mismatch", why, 0.75))
    return out[:1]


def _nested_clauses(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    """Both group somewhere, gold in more queries (the clause rule covers a side with none)."""
    lost = [
        name
        for name, gold_n, pred_n in (("GROUP BY", g.group_by, p.group_by), ("HAVING", g.having, p.having))
        if pred_n and gold_n > pred_n
    ]
    picked = p.limit == "1" and any(c.clause == "having" and c.pick for c in g.conjuncts)
    if not lost or picked:  # (`HAVING count(*) = (SELECT max(…) …)` groups again to pick the top group)
        return []
    why = f"gold has {' and '.join(lost)} in more of its queries than the prediction"
    return [Suggestion("Clause: missing", why, 0.7)]


def _ambiguous(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    names = sorted(set(p.ambiguous) - set(g.ambiguous))
    if not names:
        return []
    why = f"the prediction names {names[0]} without its table, and two of the tables it reads have it"
    return [Suggestion("Other: other", f"{why} (SQLite refuses an ambiguous column)", 0.85)]


def boundary_findings(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    """Conditions that differ only at the boundary value (`x > 5` against `x >= 5`): generated rows rarely
    hold that value, so their agreement does not clear the difference."""
    out = []
    for c in g.conjuncts:
        for x in p.conjuncts:
            if c.column == x.column and c.value == x.value and c.kind == x.kind and {c.op, x.op} in BOUNDARY:
                why = Reason(
                    "gold tests {}, the prediction {}: they differ on the boundary value alone",
                    c.node,
                    x.node,
                )
                out.append(Suggestion("Operator: comparison", why, 0.8))
    # nor does their agreement clear a result rounded on one side only: their few whole rows seldom give a
    # value ROUND changes
    rounding = one_sided_rounding(g, p)
    return out[:1] + ([rounding] if rounding is not None else [])


def _filtered_count(p: QueryFacts) -> list[Suggestion]:
    """A share whose numerator counts the rows meeting one condition, over all rows, where WHERE already
    requires that condition."""
    if not p.counts_condition:
        return []
    required = {norm_sql(c.node): c for c in p.conjuncts if c.clause == "where"}
    for item in p.select:
        for div in item.node.find_all(exp.Div):
            counted = [t for agg in div.this.find_all(exp.AggFunc) for t in _counted_tests(agg)]
            over = [t for agg in div.expression.find_all(exp.AggFunc) for t in _counted_tests(agg)]
            c = required.get(norm_sql(counted[0])) if len(counted) == 1 and not over else None
            if c is not None:
                why = Reason(
                    "the prediction's share counts the rows where {} among rows that all meet it", c.node
                )
                return [Suggestion("Condition: explicit redundant", why, 0.8)]
    return []


def _counted_tests(agg: exp.Expression) -> list[exp.Expression]:
    """The conditions a counting aggregate tests: each CASE WHEN branch and IIF (both are If nodes)."""
    return [branch.this for branch in agg.find_all(exp.If)]
