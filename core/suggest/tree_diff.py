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

from sqltriage.core.suggest.facts import Conjunct, QueryFacts, SelectItem
from sqltriage.core.suggest.suggestion import Suggestion

DATE_WORDS = {"YEAR", "MONTH", "DAY", "DATEDIFF", "DATE_FORMAT", "NOW", "CURDATE", "DATEPART", "TO_DATE"}
_FLOAT = re.compile(r"^\d+\.\d+$")


def _names(items: Iterable[str]) -> str:
    return ", ".join(sorted(items))


def tree_findings(gold: QueryFacts, pred: QueryFacts, evidence: str | None = None) -> list[Suggestion]:
    """Every candidate cause the two parses show, each with its confidence (not yet gated or ranked)."""
    out: list[Suggestion] = []
    for rule in (_tables, _joins, _select, _functions, _aggregates, _distinct, _order, _clauses, _subqueries):
        out += rule(gold, pred)
    out += _conditions(gold, pred, evidence or "")
    return out


# --- tables and joins ------------------------------------------------------------------------------------


def _tables(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    gold_only, pred_only = set(g.tables) - set(p.tables), set(p.tables) - set(g.tables)
    if gold_only and pred_only:
        return [
            Suggestion(
                "Table: mismatch", f"gold reads {_names(gold_only)}, the prediction {_names(pred_only)}", 0.8
            )
        ]
    if gold_only:
        # a table whose columns gold uses only to join it filters rows at most: often a harmless omission
        only_joined = all(g.table_uses.get(t, set()) <= {"join"} for t in gold_only)
        conf = 0.45 if only_joined else 0.8
        return [
            Suggestion("Table: missing", f"gold reads {_names(gold_only)}, the prediction does not", conf)
        ]
    if pred_only:
        return [
            Suggestion(
                "Table: redundant", f"the prediction also reads {_names(pred_only)}, gold does not", 0.7
            )
        ]
    return []


def _join_key(pairs: frozenset[frozenset[str]]) -> frozenset[frozenset[str]]:
    return frozenset(frozenset(c.split(".", 1)[-1] for c in pair) for pair in pairs)


def _joins(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    out: list[Suggestion] = []
    g_kinds = Counter(j.kind for j in g.joins if j.kind != "cross")
    p_kinds = Counter(j.kind for j in p.joins if j.kind != "cross")
    outer = {"left", "right", "full"}
    if g_kinds and p_kinds and (set(g_kinds) & outer) != (set(p_kinds) & outer):
        out.append(
            Suggestion(
                "Table: join type",
                f"gold joins {' / '.join(sorted(g_kinds))}, the prediction {' / '.join(sorted(p_kinds))}",
                0.85,
            )
        )
    gold_pairs = {pair for j in g.joins for pair in _join_key(j.pairs)}
    pred_pairs = {pair for j in p.joins for pair in _join_key(j.pairs)}
    for gj in g.joins:
        for pj in p.joins:
            if len(gj.tables) == 2 and gj.tables == pj.tables and _join_key(gj.pairs) != _join_key(pj.pairs):
                if _join_key(pj.pairs) <= gold_pairs and _join_key(gj.pairs) <= pred_pairs:
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
    pairs = list(zip(gold_left, pred_left, strict=False))
    for gi, pi in pairs:
        out += _item_pair(gi, pi, g, p)
    if len(pred_left) > len(gold_left):
        extra = [x.text for x in pred_left[len(gold_left) :]]
        covered = set().union(*(x.columns for x in g.select)) if g.select else set()
        conf = 0.85 if not gold_left or all(x.columns <= covered | x.columns for x in pred_left) else 0.7
        out.append(
            Suggestion("Attribute: redundant", f"the prediction also selects {', '.join(extra)}", conf)
        )
    elif len(gold_left) > len(pred_left):
        missing = [x.text for x in gold_left[len(pred_left) :]]
        out.append(Suggestion("Attribute: missing", f"gold also selects {', '.join(missing)}", 0.8))
    return out


def _item_pair(gi: SelectItem, pi: SelectItem, g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    what = f"gold selects {gi.text}, the prediction {pi.text}"
    if gi.columns == pi.columns or (gi.columns & pi.columns):
        if set(gi.aggregates) != set(pi.aggregates):
            if _order_equivalent(gi, pi, g, p):
                return []
            return [
                Suggestion("Function: aggregate", what, 0.85 if gi.aggregates and pi.aggregates else 0.75)
            ]
        if gi.distinct != pi.distinct:
            return [Suggestion("Other: DISTINCT", what, 0.85)]
        found = []
        for fam in sorted(gi.families ^ pi.families):
            found.append(Suggestion(f"Function: {fam}", what, 0.75 if fam != "date/time" else 0.6))
        if not found and sorted(gi.arithmetic) != sorted(pi.arithmetic):
            found.append(Suggestion("Function: math", what, 0.7))
        if not found and gi.columns != pi.columns:
            found.append(Suggestion("Attribute: mismatch", what, 0.7))
        return found
    if gi.aggregates and pi.aggregates and set(gi.aggregates) != set(pi.aggregates):
        found = [Suggestion("Function: aggregate", what, 0.85)]
        if gi.columns and pi.columns:
            found.append(Suggestion("Attribute: mismatch", what, 0.6))
        return found
    if gi.aggregates and not pi.aggregates and not pi.columns:
        return [Suggestion("Function: aggregate", what, 0.6)]
    return [Suggestion("Attribute: mismatch", what, 0.8)]


def _order_equivalent(gi: SelectItem, pi: SelectItem, g: QueryFacts, p: QueryFacts) -> bool:
    """`max(x)` on one side, `x … ORDER BY x DESC LIMIT 1` on the other: the same value."""
    for agg_side, plain_side, other in ((gi, pi, p), (pi, gi, g)):
        if len(agg_side.aggregates) == 1 and not plain_side.aggregates and other.limit == "1" and other.order:
            expr, desc = other.order[0]
            if agg_side.aggregates[0] == ("max" if desc else "min") and plain_side.text in expr:
                return True
    return False


# --- conditions ------------------------------------------------------------------------------------------


def _core(value: str) -> str:
    return value.strip("%").strip().lower()


def _same_but_form(a: Conjunct, b: Conjunct) -> bool:
    """The same value written differently: case, quotes, surrounding %, or a date in another layout."""
    if _core(a.value) == _core(b.value):
        return True
    da, db = re.sub(r"\D", "", a.value), re.sub(r"\D", "", b.value)
    return bool(da) and len(da) >= 4 and sorted(da) == sorted(db)


def _in_evidence(value: str, evidence: str) -> bool:
    """The value appears in the evidence as a word of its own (`SVK`, not `Slovakia` inside `Slovakian`)."""
    if not value or not evidence:
        return False
    return re.search(rf"(?<![\w]){re.escape(value)}(?![\w])", evidence, re.IGNORECASE) is not None


_PICK = re.compile(r"=\s*\(\s*SELECT\s+(MAX|MIN)\s*\(", re.IGNORECASE)


def _kept(c: Conjunct, other: QueryFacts) -> bool:
    """Leave out HAVING conditions when the other side has no HAVING (the clause rule says it), and
    `x = (SELECT max(x) …)` when the other side picks the top row with ORDER BY … LIMIT 1."""
    if c.clause == "having" and not other.having:
        return False
    if c.kind == "subquery" and c.op in ("not in", "not exists") and other.set_ops["except"]:
        return False  # EXCEPT on the other side says the same
    return not (c.kind == "subquery" and _PICK.search(c.text) and other.limit == "1" and other.order)


def _conditions(g: QueryFacts, p: QueryFacts, evidence: str) -> list[Suggestion]:
    gold_left = [c for c in g.conjuncts if _kept(c, p)]
    pred_left = [c for c in p.conjuncts if _kept(c, g)]
    for c in list(gold_left):
        match = next((x for x in pred_left if (x.column, x.op, x.value) == (c.column, c.op, c.value)), None)
        if match is not None:
            gold_left.remove(c)
            pred_left.remove(match)
    out: list[Suggestion] = []
    for c in list(gold_left):  # the same column on both sides: compare operator and value
        match = next((x for x in pred_left if x.column == c.column and x.clause == c.clause), None)
        if match is None:
            continue
        gold_left.remove(c)
        pred_left.remove(match)
        out += _paired_condition(c, match, evidence)
    for c in list(gold_left):  # the same value on another column: the column is wrong
        match = next(
            (x for x in pred_left if x.kind in ("str", "num") and _core(x.value) == _core(c.value)), None
        )
        if match is not None and c.kind in ("str", "num"):
            gold_left.remove(c)
            pred_left.remove(match)
            out.append(
                Suggestion("Attribute: mismatch", f"gold tests {c.text}, the prediction {match.text}", 0.8)
            )
    for c, x in zip(list(gold_left), list(pred_left), strict=False):
        if c.kind == "null" or x.kind == "null":
            continue
        gold_left.remove(c)
        pred_left.remove(x)
        out.append(
            Suggestion("Condition: explicit mismatch", f"gold tests {c.text}, the prediction {x.text}", 0.6)
        )
    for c in gold_left:
        if c.op == "is not null":
            out.append(Suggestion("Condition: implicit missing", f"gold also requires {c.text}", 0.8))
        else:
            conf = 0.85 if _in_evidence(c.value, evidence) else 0.75
            out.append(Suggestion("Condition: explicit missing", f"gold also requires {c.text}", conf))
    for x in pred_left:
        conf = 0.45 if x.op == "is not null" else 0.7
        out.append(
            Suggestion("Condition: explicit redundant", f"the prediction also requires {x.text}", conf)
        )
    out += _logical(g, p)
    return out


def _paired_condition(c: Conjunct, x: Conjunct, evidence: str) -> list[Suggestion]:
    what = f"gold tests {c.text}, the prediction {x.text}"
    if c.functions != x.functions and "date/time" in (c.functions | x.functions):
        return [Suggestion("Function: date/time", what, 0.4)]  # often the same dates written another way
    if c.kind == "subquery" and x.kind == "subquery" and c.op == x.op:
        return []  # the nested queries are compared by the other rules
    out: list[Suggestion] = []
    same_value = c.value == x.value
    if c.op != x.op:
        if {c.op, x.op} <= {"=", "in"} and (same_value or _core(c.value) == _core(x.value)):
            return []
        conf = 0.8 if same_value or _same_but_form(c, x) else 0.6
        out.append(Suggestion("Operator: comparison", what, conf))
        if same_value or _same_but_form(c, x):
            return out
    if same_value:
        return out
    if c.kind == "str" and x.kind == "str" and c.value.lower() == x.value.lower():
        out.append(Suggestion("Value: data format", f"{what} (SQLite compares text case-sensitively)", 0.9))
    elif {c.kind, x.kind} == {"str", "num"} and c.value == x.value:
        out.append(Suggestion("Value: data format", f"{what} (text vs number)", 0.55))
    elif c.kind in ("str", "num") and x.kind in ("str", "num") and _same_but_form(c, x):
        out.append(Suggestion("Value: data format", what, 0.7))
    elif c.kind in ("str", "num") and x.kind in ("str", "num"):
        conf = 0.9 if _in_evidence(c.value, evidence) and not _in_evidence(x.value, evidence) else 0.75
        reason = what + (" (the evidence states gold's value)" if conf > 0.8 else "")
        out.append(Suggestion("Value: mismatch", reason, conf))
    return out


def _logical(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    if g.ors == p.ors:
        if g.set_ops["intersect"] > p.set_ops["intersect"] and _same_column_twice(p):
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


def _functions(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    out: list[Suggestion] = []
    for name in dict.fromkeys(p.unknown_functions):
        if name in DATE_WORDS:
            out.append(Suggestion("Function: date/time", f"SQLite has no {name}() function", 0.9))
        else:
            out.append(Suggestion("Other: other", f"SQLite has no {name}() function", 0.85))
    for fam in sorted(set(g.families) | set(p.families)):
        has_g, has_p = g.families[fam] > 0, p.families[fam] > 0
        if has_g == has_p:
            continue
        side = "gold" if has_g else "the prediction"
        reason = f"only {side} uses a {fam} function"
        conf = {"window": 0.85, "string": 0.6, "math": 0.6, "conditional": 0.55, "date/time": 0.45}.get(
            fam, 0.4
        )
        if fam == "conversion":
            float_literal = any(k == "num" and _FLOAT.match(v) for v, k in p.literals)
            conf = 0.55 if has_g and not float_literal else 0.3
        out.append(Suggestion(f"Function: {fam}", reason, conf))
    return out


def _aggregates(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    gold_only = set(g.aggregates) - set(p.aggregates)
    pred_only = set(p.aggregates) - set(g.aggregates)
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
        side = "gold" if g.count_distinct > p.count_distinct else "the prediction"
        return [Suggestion("Other: DISTINCT", f"only {side} counts DISTINCT values", 0.8)]
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


def _clauses(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    out: list[Suggestion] = []
    missing, extra = [], []
    if g.group_by and not p.group_by:
        missing.append("GROUP BY")
    elif p.group_by and not g.group_by:
        extra.append("GROUP BY")
    if g.having and not p.having:
        missing.append("HAVING")
    elif p.having and not g.having:
        extra.append("HAVING")
    if g.limit and not p.limit and not _top_pick(g, p):
        missing.append("ORDER BY / LIMIT")
    elif p.limit and not g.limit and not _top_pick(p, g):
        extra.append("LIMIT")
    for op in ("intersect", "union", "except"):
        if g.set_ops[op] > p.set_ops[op]:
            if op == "except" and p.not_in:
                continue  # NOT IN / NOT EXISTS is the usual way to write EXCEPT
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
    filters = [c for c in g.conjuncts if c.kind == "subquery"]
    if g.nested and not p.nested and filters and not g.set_ops:
        return [Suggestion("Subquery: missing", f"gold filters with a nested query: {filters[0].text}", 0.65)]
    return []
