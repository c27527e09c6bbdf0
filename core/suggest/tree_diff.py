"""Candidate causes from a clause-aware comparison of the two queries' facts.

Every rule looks at one kind of difference and says what it would mean, with a confidence: a swapped
aggregate in the same SELECT position is almost surely "Function: aggregate"; a table only gold joins,
whose columns are only used in the join, is probably a harmless filter and stays under the gate. Common
rewrites that give the same answer are recognised and say nothing: a subquery for a join, NOT IN for
EXCEPT, `ORDER BY x DESC LIMIT 1` for `= (SELECT max(x) …)`, COUNT(*) for COUNT(id), column aliases.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from sqlglot import exp

from sqltriage.core.model import Schema
from sqltriage.core.suggest.column_tables import column_table_findings
from sqltriage.core.suggest.equivalence import same_filters
from sqltriage.core.suggest.facts import Conjunct, QueryFacts, SelectItem, is_nested, norm_sql
from sqltriage.core.suggest.function_diff import function_findings
from sqltriage.core.suggest.link_columns import other_link_findings
from sqltriage.core.suggest.one_cause import (
    REPLACED,
    between_bounds,
    compound_part,
    condition_tag,
    replaced_parts,
    same_test,
)
from sqltriage.core.suggest.one_cause import subject as _subject
from sqltriage.core.suggest.one_cause import tests as _tests
from sqltriage.core.suggest.reason import Reason
from sqltriage.core.suggest.suggestion import Suggestion
from sqltriage.core.suggest.values import core_text, in_evidence, same_but_form, words_inside
from sqltriage.core.suggest.weak_categories import weak_category_findings


def _names(items: Iterable[str]) -> str:
    return ", ".join(sorted(items))


def tree_findings(
    gold: QueryFacts, pred: QueryFacts, evidence: str | None = None, schema: Schema | None = None
) -> list[Suggestion]:
    """Every candidate cause the two parses show, each with its confidence (not yet gated or ranked)."""
    gold, pred, doubtful = same_filters(gold, pred, evidence or "", schema)  # conditions written otherwise
    out: list[Suggestion] = [*doubtful, *_tables(gold, pred, schema)]
    for rule in (_joins, _select, function_findings, _aggregates, _distinct, _order, _clauses, _subqueries):
        out += rule(gold, pred)
    out += _conditions(gold, pred, evidence or "")
    out += weak_category_findings(gold, pred, schema)
    out += column_table_findings(gold, pred, schema)
    out += other_link_findings(gold, pred)
    return out


# --- tables and joins ------------------------------------------------------------------------------------


def _join_columns(table: str, f: QueryFacts) -> set[str]:
    return {
        c.split(".", 1)[1] for j in f.joins for pair in j.pairs for c in pair if c.startswith(f"{table}.")
    }


def _only_joined(table: str, f: QueryFacts) -> bool:
    """The query uses no column of the table beyond those it joins on (equal to the partner's anyway)."""
    return f.table_columns.get(table, set()) <= _join_columns(table, f)


def _joined_by_its_key(table: str, f: QueryFacts, schema: Schema | None) -> bool:
    """The table is joined through its own key, so each row of the other side meets at most one of its rows:
    the join can drop rows (a filter) but never repeat them."""
    keys = {c.lower() for t, c in (schema.primary_keys if schema else ()) if t.lower() == table}
    if not keys:  # no schema: the usual key names (`id`, `document_id` for documents)
        stems = {table, table.removesuffix("s")}
        keys = {"id"} | {f"{stem}{sep}id" for stem in stems for sep in ("", "_")}
    cols = _join_columns(table, f)
    return bool(cols) and cols <= keys


def _tables(g: QueryFacts, p: QueryFacts, schema: Schema | None = None) -> list[Suggestion]:
    gold_only, pred_only = set(g.tables) - set(p.tables), set(p.tables) - set(g.tables)
    if gold_only and pred_only:
        return [
            Suggestion(
                "Table: mismatch", f"gold reads {_names(gold_only)}, the prediction {_names(pred_only)}", 0.8
            )
        ]
    if gold_only:
        # a table whose columns gold uses only to join it filters rows at most: often a harmless omission
        # unless gold counts rows the join can repeat (the table is not joined through its key)
        only_joined = all(_only_joined(t, g) for t in gold_only)
        filters_only = all(_joined_by_its_key(t, g, schema) for t in gold_only)
        conf = 0.45 if only_joined and (filters_only or not (g.aggregates or g.group_by)) else 0.8
        return [
            Suggestion("Table: missing", f"gold reads {_names(gold_only)}, the prediction does not", conf)
        ]
    if pred_only:
        # a table joined through its own key, used for nothing else, can drop rows without a partner, no more
        only_joined = all(_only_joined(t, p) for t in pred_only)
        filters_only = only_joined and all(_joined_by_its_key(t, p, schema) for t in pred_only)
        why = f"the prediction also reads {_names(pred_only)}, gold does not"
        return [Suggestion("Table: redundant", why, 0.45 if filters_only else 0.7)]
    return []


def _joins(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    out: list[Suggestion] = []
    g_kinds = {j.kind for j in g.joins if j.kind != "cross"}
    p_kinds = {j.kind for j in p.joins if j.kind != "cross"}
    outer = {"left", "right", "full"}
    anti = g.anti_joins or p.anti_joins  # a LEFT JOIN that finds rows without a partner is a NOT IN
    undone = g.left_undone or p.left_undone  # … and one whose side WHERE tests is an inner join
    if g_kinds and p_kinds and not anti and not undone and (set(g_kinds) & outer) != (set(p_kinds) & outer):
        out.append(
            Suggestion(
                "Table: join type",
                f"gold joins {' / '.join(sorted(g_kinds))}, the prediction {' / '.join(sorted(p_kinds))}",
                0.85,
            )
        )
    for pj in p.joins:
        for pair in pj.pairs:  # an ON that compares a column with itself, or two columns of one table
            tables = {c.split(".", 1)[0] for c in pair}
            if (len(pair) == 1 and next(iter(pair)).split(".", 1)[0]) or (
                len(pair) == 2 and len(tables) == 1 and "" not in tables
            ):
                why = f"the prediction joins on {' = '.join(sorted(pair))}, which links no two tables"
                out.append(Suggestion("Table: join condition", why, 0.8))
    gold_pairs = {pair for j in g.joins for pair in j.bare_pairs}
    pred_pairs = {pair for j in p.joins for pair in j.bare_pairs}
    for gj in g.joins:
        for pj in p.joins:
            if len(gj.tables) == 2 and gj.tables == pj.tables and gj.bare_pairs != pj.bare_pairs:
                if pj.bare_pairs <= gold_pairs and gj.bare_pairs <= pred_pairs:
                    continue  # the same pairs, only spread over the joins differently
                out.append(
                    Suggestion(
                        "Table: join condition",
                        f"{' and '.join(sorted(gj.tables))} joined on "
                        f"{_pairs_text(pj.pairs)} instead of {_pairs_text(gj.pairs)}",
                        0.8,
                    )
                )
    return out


def _pairs_text(pairs: frozenset[frozenset[str]]) -> str:
    return ", ".join(" = ".join(sorted(p)) for p in sorted(pairs, key=sorted)) or "nothing"


# --- SELECT list -----------------------------------------------------------------------------------------


def _select(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    gold_left = list(g.select)
    pred_left = list(p.select)
    for item in list(gold_left):
        match = next((x for x in pred_left if x.text == item.text), None)
        if match is not None:
            gold_left.remove(item)
            pred_left.remove(match)
    if not gold_left and not pred_left:
        return []
    if any(x.star for x in pred_left) and not any(x.star for x in g.select):
        return [Suggestion("Attribute: redundant", "the prediction selects every column (*)", 0.75)]
    out: list[Suggestion] = []
    pairs, gold_left, pred_left = _pair_items(gold_left, pred_left)
    for gi, pi in pairs:
        out += _item_pair(gi, pi, g, p)
    if pred_left:
        covered = set().union(*(x.columns for x in g.select)) if g.select else set()
        conf = 0.85 if not pairs or all(x.columns <= covered | x.columns for x in pred_left) else 0.7
        out.append(
            Suggestion(
                "Attribute: redundant", Reason("the prediction also selects {}", _nodes(pred_left)), conf
            )
        )
    elif gold_left:
        rest = gold_left
        shown = set().union(*(x.columns for x in p.select)) if p.select else set()
        # columns the prediction shows inside another item (first_name || ' ' || last_name) are not missing
        conf = 0.45 if all(x.columns and x.columns <= shown for x in rest) else 0.8
        out.append(Suggestion("Attribute: missing", Reason("gold also selects {}", _nodes(rest)), conf))
    return out


def _pair_items(
    gold_left: list[SelectItem], pred_left: list[SelectItem]
) -> tuple[list[tuple[SelectItem, SelectItem]], list[SelectItem], list[SelectItem]]:
    """Gold's unmatched items paired with the prediction's: first those reading the same columns (the same
    attribute, computed otherwise), then the rest in SELECT order; what is left over on either side is a
    column added or missing, not a wrong one."""
    pairs: list[tuple[SelectItem, SelectItem]] = []
    gold_rest, pred_rest = list(gold_left), list(pred_left)
    for gi in list(gold_rest):
        best = max(
            (x for x in pred_rest if gi.columns & x.columns),
            key=lambda x: (len(gi.columns & x.columns), set(gi.aggregates) == set(x.aggregates)),
            default=None,
        )
        if best is not None:
            pairs.append((gi, best))
            gold_rest.remove(gi)
            pred_rest.remove(best)
    n = min(len(gold_rest), len(pred_rest))
    pairs += list(zip(gold_rest[:n], pred_rest[:n], strict=True))
    return pairs, gold_rest[n:], pred_rest[n:]


def _item_pair(gi: SelectItem, pi: SelectItem, g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    what = Reason("gold selects {}, the prediction {}", gi.node, pi.node)
    counted = bool(gi.aggregates and pi.aggregates) and (not gi.columns or not pi.columns)
    if gi.columns == pi.columns or (gi.columns & pi.columns) or counted:
        if set(gi.aggregates) != set(pi.aggregates):
            if _order_equivalent(gi, pi, g, p):
                return []
            if _counting_idiom(gi, pi):
                # two ways to count rows by a condition; a `* 100` (or another operator) on one side only
                # is still a difference of its own
                if sorted(gi.arithmetic) != sorted(pi.arithmetic):
                    return [Suggestion("Function: math", what, 0.7)]
                return [Suggestion("Function: aggregate", what, 0.4)]
            return [
                Suggestion("Function: aggregate", what, 0.85 if gi.aggregates and pi.aggregates else 0.75)
            ]
        if gi.distinct != pi.distinct:  # an extra DISTINCT in a count is often harmless, a missing one not
            return [Suggestion("Other: DISTINCT", what, 0.85 if gi.distinct else 0.45)]
        found = []
        for fam in sorted(gi.families ^ pi.families):
            found.append(Suggestion(f"Function: {fam}", what, 0.75 if fam != "date/time" else 0.6))
        if not found and sorted(gi.arithmetic) != sorted(pi.arithmetic):
            found.append(Suggestion("Function: math", what, 0.7))
        if not found and gi.columns != pi.columns and gi.columns and pi.columns:
            found.append(Suggestion("Attribute: mismatch", what, 0.7))
        return found
    if gi.aggregates and pi.aggregates and set(gi.aggregates) != set(pi.aggregates):
        found = [Suggestion("Function: aggregate", what, 0.85)]
        if gi.columns and pi.columns:
            found.append(Suggestion("Attribute: mismatch", what, 0.6))
        return found
    if gi.aggregates and not pi.aggregates and not pi.columns:
        return [Suggestion("Function: aggregate", what, 0.6)]
    if pi.aggregates and not gi.aggregates and not pi.columns and gi.columns:
        # COUNT(*) where gold lists a column: the rows counted instead of returned (an aggregate added)
        return [Suggestion("Function: aggregate", what, 0.8)]
    return [Suggestion("Attribute: mismatch", what, 0.8)]


_TESTS = re.compile(r"\b(eq|neq|gt|gte|lt|lte|like|is)\(")


def _counting_idiom(gi: SelectItem, pi: SelectItem) -> bool:
    """SUM(cond) / SUM(IIF(cond, 1, 0)) and COUNT(CASE WHEN cond THEN 1 END) count the same rows."""
    return set(gi.aggregates) ^ set(pi.aggregates) <= {"sum", "count"} and (
        "conditional" in gi.families | pi.families or _TESTS.search(gi.text + pi.text) is not None
    )


def _order_equivalent(gi: SelectItem, pi: SelectItem, g: QueryFacts, p: QueryFacts) -> bool:
    """`max(x)` on one side, `x … ORDER BY x DESC LIMIT 1` on the other: the same value."""
    for agg_side, plain_side, other in ((gi, pi, p), (pi, gi, g)):
        if len(agg_side.aggregates) == 1 and not plain_side.aggregates and other.limit == "1" and other.order:
            expr, desc = other.order[0]
            if agg_side.aggregates[0] == ("max" if desc else "min") and plain_side.text in expr:
                return True
    return False


# --- conditions ------------------------------------------------------------------------------------------


def _kept(c: Conjunct, other: QueryFacts) -> bool:
    """Leave out HAVING conditions when the other side has no HAVING (the clause rule says it), and
    `x = (SELECT max(x) …)` when the other side picks the top row with ORDER BY … LIMIT 1."""
    if c.clause == "having" and not other.having:
        return False
    if (
        c.kind == "subquery"
        and c.op in ("not in", "not exists")
        and (other.set_ops["except"] or other.anti_joins)
    ):
        return False  # EXCEPT, or LEFT JOIN … IS NULL, on the other side says the same
    # `= (SELECT max(x) …)` against a top pick (ORDER BY … LIMIT 1, counted as that max) on the other side:
    # the aggregate rule compares the two, the condition says nothing more
    return not (c.pick and c.op == "=" and other.aggregates[c.pick] > 0)


def _unique(conjuncts: list[Conjunct], gold_keys: Counter[tuple[str, str, str]]) -> list[Conjunct]:
    """The prediction repeating one of gold's filters in more nested lookups than gold adds no filter: the
    extra copies are dropped. (Gold's copies all count: one the prediction lacks leaves a scope unfiltered.)"""
    seen: Counter[tuple[str, str, str]] = Counter()
    out = []
    for c in conjuncts:
        key = (c.column, c.op, c.value)
        if key not in gold_keys or seen[key] < gold_keys[key]:
            out.append(c)
        seen[key] += 1
    return out


def _shares_word(a: str, b: str) -> bool:
    words = set(re.findall(r"\w{4,}", a.lower()))
    return bool(words & set(re.findall(r"\w{4,}", b.lower())))


def _conditions(g: QueryFacts, p: QueryFacts, evidence: str) -> list[Suggestion]:
    if not g.conjuncts and not p.conjuncts:
        return _logical(g, p)  # no condition on either side (nor in a nested query)
    gold_left = [c for c in g.conjuncts if _kept(c, p)]
    gold_keys = Counter((c.column, c.op, c.value) for c in gold_left)
    pred_left = _unique([c for c in p.conjuncts if _kept(c, g)], gold_keys)
    for c in list(gold_left):
        key = (_subject(c), c.op, c.value)
        match = next((x for x in pred_left if (_subject(x), x.op, x.value) == key), None)
        if match is not None:
            gold_left.remove(c)
            pred_left.remove(match)
    if not gold_left and not pred_left and not (g.nested and p.nested):
        return _logical(g, p)  # every condition has its twin, and no two nested queries to compare
    out: list[Suggestion] = []
    g_inner = _nested_conditions(g) if g.nested and p.nested else Counter()  # (read only when both nest)
    p_inner = _nested_conditions(p) if g_inner else Counter()
    if g_inner and g_inner != p_inner:
        # NL2SQL-Bugs' partial subquery: both compute through a nested query, and it is right in part (its
        # own conditions differ); which condition is named by the rules below
        only = (g_inner - p_inner) or (p_inner - g_inner)
        why = f"the nested queries filter differently: {' '.join(next(iter(only)))}"
        # the outer conditions agree: what differs is the nested query's own, the subquery is the cause
        outer_agree = _outer_conditions(g, g_inner) == _outer_conditions(p, p_inner)
        out.append(Suggestion("Subquery: partial", why, 0.85 if outer_agree else 0.7))
    joined: set[frozenset[str]] | None = None  # column pairs either side joins on (read when needed)
    for c in list(gold_left):  # the same column on both sides: compare operator and value
        if not any(c is y for y in gold_left):
            continue  # (the other bound of a range, already read with its BETWEEN)
        match = next((x for x in pred_left if _subject(x) == _subject(c) and x.clause == c.clause), None)
        if match is None:
            continue
        gold_left.remove(c)
        pred_left.remove(match)
        ranged = between_bounds(c, match, gold_left, pred_left)
        if ranged is not None:
            out += ranged
            continue
        # the same changed filter repeated in the prediction's nested lookups is one difference
        same = (match.column, match.op, match.value)
        pred_left = [x for x in pred_left if (x.column, x.op, x.value) != same]
        out += _paired_condition(c, match, evidence)
    for c in list(gold_left):  # the same value on another column: the column is wrong
        match = next(
            (x for x in pred_left if x.kind in ("str", "num") and core_text(x.value) == core_text(c.value)),
            None,
        )
        if match is not None and c.kind in ("str", "num"):
            gold_left.remove(c)
            pred_left.remove(match)
            if joined is None:
                joined = {pair for f in (g, p) for j in f.joins for pair in j.bare_pairs}
            if frozenset((c.column, match.column)) in joined:
                continue  # the two columns are joined: testing either is the same test
            # the column alone replaced is the attribute; with the operator or the value's form too, the
            # guide reads one replaced condition (`CountryName = 'france'` / `Country = 'France'`)
            tag = condition_tag(replaced_parts(c, match)) or "Attribute: mismatch"
            out.append(Suggestion(tag, _tests(c, match), 0.8))
    for c, x in zip(list(gold_left), list(pred_left), strict=False):
        if c.kind == "null" or x.kind == "null":
            continue
        gold_left.remove(c)
        pred_left.remove(x)
        if c.kind == x.kind == "subquery" and c.op == x.op and c.column != x.column:
            why = Reason("{}: the nested queries are compared with other columns", _tests(c, x))
            out.append(Suggestion("Subquery: mismatch", why, 0.7))  # NL2SQL-Bugs: the subquery is another
            continue
        if "date/time" in c.functions & x.functions and _base_columns(c) == _base_columns(x):
            why = Reason("{}: the same date read through another function", _tests(c, x))
            out.append(Suggestion("Function: date/time", why, 0.65))
            continue
        part = compound_part(c, x)
        if part is not None:  # one comparison inside a compound condition differs in one part
            out.append(
                Suggestion(part, Reason("{} (one part of one comparison differs)", _tests(c, x)), 0.75)
            )
            continue
        # two nested lookups, or one entity named through another column ('Silverstone Circuit' by name,
        # 'silverstone' by reference), are as often the same filter as not: below the gate
        unsure = "subquery" in (c.kind, x.kind) or _shares_word(c.value, x.value)
        why = _tests(c, x)
        # NL2SQL-Bugs' explicit mismatch: the condition is there but tests another column and value
        out.append(Suggestion("Condition: explicit mismatch", why, 0.45 if unsure else 0.7))
    for c in gold_left:
        if c.op == "is not null":
            # min / max over the column skip NULLs as the filter does
            skipped = c.column in p.columns and bool(p.aggregates.keys() & {"min", "max"})
            why = Reason("gold also requires {}", c.node)
            out.append(Suggestion("Condition: implicit missing", why, 0.45 if skipped else 0.8))
        else:
            conf = 0.85 if in_evidence(c.value, evidence) else 0.75
            out.append(
                Suggestion("Condition: explicit missing", Reason("gold also requires {}", c.node), conf)
            )
    for x in pred_left:
        conf = 0.45 if x.op == "is not null" else 0.7
        out.append(
            Suggestion(
                "Condition: explicit redundant", Reason("the prediction also requires {}", x.node), conf
            )
        )
    out += _logical(g, p)
    return out


def _nodes(items: list[SelectItem]) -> tuple[exp.Expression, ...]:
    return tuple(x.node for x in items)


def _time_formats(c: Conjunct) -> tuple[str, ...]:
    """The format strings of the date functions on the condition's tested side."""
    side = c.node.this if isinstance(c.node, exp.Binary) else c.node
    return tuple(lit.this for lit in side.find_all(exp.Literal) if lit.is_string)


def _base_columns(c: Conjunct) -> frozenset[str]:
    return frozenset(col.name.lower() for col in c.node.find_all(exp.Column))


def _paired_condition(c: Conjunct, x: Conjunct, evidence: str) -> list[Suggestion]:
    if c.functions != x.functions and "date/time" in (c.functions | x.functions):
        # the same dates written another way were taken out before (equivalence.py): what is left reads
        # the date otherwise (a day for a year, a bound the other form does not share)
        return [Suggestion("Function: date/time", _tests(c, x), 0.6)]
    if c.kind == "subquery" and x.kind == "subquery" and c.op == x.op:
        if norm_sql(c.node) == norm_sql(x.node):
            return []
        # NL2SQL-Bugs: a nested query reading the same tables but filtering or computing otherwise is right
        # in part; one reading other tables answers another question. (The difference inside is also
        # named by the other rules.)
        g_tables, p_tables = _nested_tables(c.node), _nested_tables(x.node)
        if g_tables and g_tables == p_tables:
            why = Reason("the nested queries differ inside: {}", _tests(c, x))
            return [Suggestion("Subquery: partial", why, 0.6)]
        why = f"gold's nested query reads {_names(g_tables)}, the prediction's {_names(p_tables)}"
        return [Suggestion("Subquery: mismatch", why, 0.7)]
    out: list[Suggestion] = []
    same_value = c.value == x.value
    if same_test(c, x):
        return []
    if (
        c.op != x.op
        and {c.op, x.op} <= {"=", "in"}
        and (same_value or core_text(c.value) == core_text(x.value))
    ):
        return []
    if same_value and c.op == x.op:
        return []
    what = _tests(c, x)  # (its SQL is written only if a suggestion it backs is kept)
    if c.op != x.op:
        if not (same_value or same_but_form(c, x)):
            # operator and value replaced: one condition replaced, as the guide reads it
            return [Suggestion(REPLACED, Reason("{} (operator and value replaced)", what), 0.75)]
        if not same_value and core_text(c.value) != core_text(x.value):  # '1:27%' against '0:01:27'
            # the value in another form, the operator following it (LIKE for its wildcard): the form first
            why = Reason("{} (the same value in another form)", what)
            # (two parts written otherwise also read as one condition replaced: the guide's rule 2)
            return [
                Suggestion("Value: data format", why, 0.8),
                Suggestion("Operator: comparison", what, 0.76),
                Suggestion(REPLACED, Reason("{} (operator and value written otherwise)", what), 0.76),
            ]
        return [Suggestion("Operator: comparison", what, 0.8)]
    if same_value:
        return out
    if "date/time" in c.functions & x.functions and _time_formats(c) != _time_formats(x):
        # the same column read through a date function with another layout ('%Y' against '%Y-%m')
        return [Suggestion("Function: date/time", Reason("{} (another date format)", what), 0.7)]
    if c.kind == "str" and x.kind == "str" and c.value.lower() == x.value.lower():
        why = Reason("{} (SQLite compares text case-sensitively)", what)
        out.append(Suggestion("Value: data format", why, 0.9))
    elif {c.kind, x.kind} == {"str", "num"} and c.value == x.value:
        out.append(Suggestion("Value: data format", Reason("{} (text vs number)", what), 0.55))
    elif c.kind in ("str", "num") and x.kind in ("str", "num") and same_but_form(c, x):
        if in_evidence(c.value, evidence) and not in_evidence(x.value, evidence):  # the stored form, stated
            out.append(
                Suggestion("Value: data format", Reason("{} (the evidence states gold's form)", what), 0.85)
            )
        else:
            out.append(Suggestion("Value: data format", what, 0.7))
    elif c.kind in ("str", "num") and x.kind in ("str", "num"):
        conf = 0.9 if in_evidence(c.value, evidence) and not in_evidence(x.value, evidence) else 0.75
        reason = Reason("{} (the evidence states gold's value)", what) if conf > 0.8 else what
        out.append(Suggestion("Value: mismatch", reason, conf))
        if c.kind == x.kind == "str" and words_inside(core_text(c.value), core_text(x.value)):
            # 'Los Angeles County' for the stored 'Los Angeles': the same thing named at more length
            why = Reason("{} (one names the other with more words)", what)
            out.append(Suggestion("Value: data format", why, conf - 0.05))
    elif c.kind == x.kind == "other" and _LITERAL.sub("?", c.value) == _LITERAL.sub("?", x.value):
        why = Reason("{} (the same expression with other numbers)", what)
        out.append(Suggestion("Value: mismatch", why, 0.75))
    return out


_LITERAL = re.compile(r"'[^']*'|\b\d+(?:\.\d+)?\b")


def _nested_conditions(f: QueryFacts) -> Counter[tuple[str, str, str]]:
    """The conditions inside nested queries, each as (column, op, value)."""
    return Counter((c.column, c.op, c.value) for c in f.conjuncts if _in_nested_query(c.node))


def _outer_conditions(f: QueryFacts, inner: Counter[tuple[str, str, str]]) -> Counter[tuple[str, str, str]]:
    return Counter((c.column, c.op, c.value) for c in f.conjuncts) - inner


def _in_nested_query(node: exp.Expression) -> bool:
    """The condition belongs to a query nested in a condition or the SELECT list (not a derived table)."""
    select = node.find_ancestor(exp.Select)
    return select is not None and select.parent is not None and is_nested(select)


def _nested_tables(node: exp.Expression) -> set[str]:
    select = node.find(exp.Select)
    return {t.name.lower() for t in select.find_all(exp.Table)} if select is not None else set()


def _logical(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    if g.ors == p.ors:
        if g.set_ops["intersect"] > p.set_ops["intersect"] and _same_column_twice(p) and not p.links:
            return [Suggestion("Operator: logical", "the prediction ANDs what gold intersects", 0.6)]
        return []
    more, fewer = (p, g) if p.ors > g.ors else (g, p)
    if any(c.op == "in" and "," in c.value for c in fewer.conjuncts):
        return []  # a = 'x' OR a = 'y' is a IN ('x', 'y')
    side = "the prediction" if more is p else "gold"
    return [
        Suggestion("Operator: logical", f"{side} combines conditions with OR where the other does not", 0.7)
    ]


def _same_column_twice(f: QueryFacts) -> bool:
    cols = Counter(c.column for c in f.conjuncts if c.clause == "where")
    return any(n > 1 for n in cols.values())


# --- functions, aggregates, DISTINCT, ORDER BY -----------------------------------------------------------


def _one_sided_items(g: QueryFacts, p: QueryFacts) -> tuple[list[SelectItem], list[SelectItem]]:
    gold_left, pred_left = list(g.select), list(p.select)
    for item in list(gold_left):
        match = next((x for x in pred_left if x.text == item.text), None)
        if match is not None:
            gold_left.remove(item)
            pred_left.remove(match)
    return gold_left, pred_left


def _aggregates(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    g_aggs, p_aggs = g.aggregates, p.aggregates
    if g.picks and p.picks:  # both pick a top row: the ORDER BY direction rule compares those
        g_aggs, p_aggs = g_aggs - g.picks, p_aggs - p.picks
    gold_only = set(g_aggs) - set(p_aggs)
    pred_only = set(p_aggs) - set(g_aggs)
    gold_items, pred_items = _one_sided_items(g, p)
    in_gold_items = {a for x in gold_items for a in x.aggregates}
    in_pred_items = {a for x in pred_items for a in x.aggregates}
    if (gold_only or pred_only) and gold_only <= in_gold_items and pred_only <= in_pred_items:
        return []  # all in SELECT items that differ: the SELECT rule names them
    if (gold_only | pred_only) <= {"sum", "count"} and g.counts_condition and p.counts_condition:
        return []  # SUM(cond) / SUM(IIF(cond, 1, 0)) and COUNT(CASE WHEN cond …) count the same rows
    if gold_only and pred_only:
        why = f"gold uses {_names(gold_only)}, the prediction {_names(pred_only)}"
        return [Suggestion("Function: aggregate", why, 0.8)]
    if gold_only:
        return [Suggestion("Function: aggregate", f"only gold uses {_names(gold_only)}", 0.6)]
    if pred_only:
        return [Suggestion("Function: aggregate", f"only the prediction uses {_names(pred_only)}", 0.55)]
    return []


def _distinct(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    if g.count_distinct != p.count_distinct:
        more = g.count_distinct > p.count_distinct
        side = "gold" if more else "the prediction"
        return [Suggestion("Other: DISTINCT", f"only {side} counts DISTINCT values", 0.8 if more else 0.45)]
    if g.select_distinct != p.select_distinct:
        side = "gold" if g.select_distinct else "the prediction"
        return [
            Suggestion(
                "Other: DISTINCT", f"only {side} selects DISTINCT rows", 0.75 if g.select_distinct else 0.6
            )
        ]
    if g.distinct_anywhere != p.distinct_anywhere:
        return [Suggestion("Other: DISTINCT", "DISTINCT differs inside a nested query", 0.4)]
    return []


def _order(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    if g.order and p.order and g.order[0][0] == p.order[0][0] and g.order[0][1] != p.order[0][1]:
        want = "DESC" if g.order[0][1] else "ASC"
        return [
            Suggestion(
                "Other: ASC/DESC", f"gold orders {g.order[0][0]} {want}, the prediction the other way", 0.9
            )
        ]
    return []


# --- clauses and nesting ---------------------------------------------------------------------------------


def _top_pick(f: QueryFacts, other: QueryFacts) -> bool:
    """One side's ORDER BY … LIMIT 1 matched by a min/max on the other (the other rules compare those)."""
    return f.limit == "1" and bool(f.order) and bool(other.aggregates.keys() & {"max", "min"})


def _having_pick(f: QueryFacts, other: QueryFacts) -> bool:
    """`HAVING count(*) = (SELECT max(…) …)` picks what the other side's `ORDER BY count(*) … LIMIT 1` picks."""
    return other.limit == "1" and any(c.clause == "having" and c.pick for c in f.conjuncts)


def _clauses(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    out: list[Suggestion] = []
    missing, extra = [], []
    if g.group_by and not p.group_by:
        missing.append("GROUP BY")
    elif p.group_by and not g.group_by:
        extra.append("GROUP BY")
    if g.group_columns and p.group_columns and not g.group_columns <= p.group_columns:
        # grouping by a name instead of its id, or by the other end of a join, is usually the same grouping
        joined = {c for j in p.joins for pair in j.bare_pairs for c in pair if len(pair) == 2}
        if not (g.group_columns | p.group_columns) <= joined:
            why = f"gold groups by {_names(g.group_columns)}, the prediction by {_names(p.group_columns)}"
            out.append(Suggestion("Attribute: mismatch", why, 0.45))
    if g.having and not p.having and not _having_pick(g, p):
        missing.append("HAVING")
    elif p.having and not g.having and not _having_pick(p, g):
        extra.append("HAVING")
    if g.limit and not p.limit and not _top_pick(g, p):
        missing.append("ORDER BY / LIMIT")
    elif p.limit and not g.limit and not _top_pick(p, g):
        extra.append("LIMIT")
    for op in ("intersect", "union", "except"):
        if g.set_ops[op] > p.set_ops[op]:
            if op == "except" and p.not_in:
                continue  # NOT IN / NOT EXISTS is the usual way to write EXCEPT
            if op == "intersect" and p.links:
                continue  # … and IN (SELECT …) the usual way to write INTERSECT
            missing.append(op.upper())
        elif p.set_ops[op] > g.set_ops[op] and not (op == "except" and g.not_in):
            extra.append(op.upper())
    if missing:
        conf = 0.8 if any(op in missing for op in ("INTERSECT", "UNION", "EXCEPT")) else 0.75
        out.append(Suggestion("Clause: missing", f"only gold has {', '.join(missing)}", conf))
    if extra:
        out.append(Suggestion("Clause: redundant", f"only the prediction has {', '.join(extra)}", 0.65))
    return out


def _subqueries(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    filters = [  # (a top pick against the other side's ORDER BY … LIMIT 1 is the aggregate rules' to read)
        c
        for c in g.conjuncts
        if c.kind == "subquery"
        and not (c.op.startswith("not") and p.anti_joins)
        and not (c.pick and p.aggregates[c.pick])
    ]
    if g.nested and not p.nested and filters and not g.set_ops:
        # a negation (NOT IN / NOT EXISTS) cannot be written as a join: with no EXCEPT either, it is missing
        negated = next((c for c in filters if c.op.startswith("not")), None)
        if negated is not None and not p.set_ops["except"]:
            return [
                Suggestion(
                    "Subquery: missing", Reason("gold excludes with a nested query: {}", negated.node), 0.8
                )
            ]
        why = Reason("gold filters with a nested query: {}", filters[0].node)
        return [Suggestion("Subquery: missing", why, 0.65)]
    if g.nested_tables and p.nested_tables and p.nested_tables - g.nested_tables:
        # NL2SQL-Bugs' subquery mismatch: both answer part of the question with a nested query, and the
        # prediction's reads a table gold's do not (another question; reading fewer, joined by their keys,
        # is the usual shortcut)
        why = f"gold's nested queries read {_names(g.nested_tables)}, the prediction's {_names(p.nested_tables)}"
        return [Suggestion("Subquery: mismatch", why, 0.7)]
    return []
