"""One cause per difference: the labelling guide's reading of a condition replaced by another.

A condition is `column operator value`. The guide (docs/suggestions.md, "General rules" 1 to 3) names the
narrowest part that is wrong: only the column replaced is "Attribute: mismatch", only the operator
"Operator: comparison", only the value "Value: mismatch" (or "data format" when it is the same value in
another form); two or three parts replaced make one "Condition: explicit mismatch", never a missing and a
redundant condition, nor one tag per part.

    gold `country = 'France'`, prediction `city = 'Paris'`      → Condition: explicit mismatch
    gold `CountryName = 'france'`, prediction `Country = 'France'` → Condition: explicit mismatch
    gold `name = 'Ann'`, prediction `title = 'Ann'`              → Attribute: mismatch

A compound condition (`NOT (first_name = 'Dameon' AND last_name = 'Sanford')`) is read the same way: when
the two have the same shape and one comparison inside differs in one part, that part names it. Two tests
that are one (`n >= 2` / `n > 1`, `1000.00` / `1000`) are no difference, and `BETWEEN a AND b` against
`> a AND < b` is one doubtful operator difference, not a value and a redundant bound.
"""

from __future__ import annotations

from sqlglot import exp

from sqltriage.core.suggest.facts import COMPARISON_NAMES, Conjunct, condition
from sqltriage.core.suggest.reason import Reason
from sqltriage.core.suggest.suggestion import Suggestion

ONE_PART = {"column": "Attribute: mismatch", "operator": "Operator: comparison", "value": "Value: mismatch"}
REPLACED = "Condition: explicit mismatch"


def replaced_parts(c: Conjunct, x: Conjunct) -> frozenset[str]:
    """Which of column, operator and value differ between gold's condition `c` and the prediction's `x`
    (a value in another form counts: it is written otherwise)."""
    parts = set()
    if c.column != x.column:
        parts.add("column")
    if c.op != x.op:
        parts.add("operator")
    if c.value != x.value:
        parts.add("value")
    return frozenset(parts)


def condition_tag(parts: frozenset[str]) -> str | None:
    """The one tag the guide gives a condition with these parts replaced (None: nothing differs)."""
    if not parts:
        return None
    if len(parts) == 1:
        return ONE_PART[next(iter(parts))]
    return REPLACED


_CONNECTIVES = (exp.And, exp.Or, exp.Not)


def compound_part(c: Conjunct, x: Conjunct) -> str | None:
    """The one-part tag for two compound conditions of the same shape (the same connectives, as many
    comparisons) whose comparisons all agree but one, which differs in one part; else None."""
    if c.kind != "other" or x.kind != "other":
        return None
    shape = [sum(1 for _ in q.node.find_all(*_CONNECTIVES)) for q in (c, x)]
    gold, pred = _comparisons(c.node), _comparisons(x.node)
    if shape[0] != shape[1] or not gold or len(gold) != len(pred):
        return None
    differ = [
        (a, b)
        for a, b in zip(gold, pred, strict=True)
        if (a.column, a.op, a.value) != (b.column, b.op, b.value)
    ]
    if len(differ) != 1:
        return None
    parts = replaced_parts(*differ[0])
    return ONE_PART[next(iter(parts))] if len(parts) == 1 else None


def _comparisons(node: exp.Expression) -> list[Conjunct]:
    """The comparisons inside a compound condition, in the order of the tree, each read as a conjunct."""
    out = []
    for n in node.find_all(*COMPARISON_NAMES):
        read = condition(n)
        if read is not None:
            out.append(read)
    return out


def subject(c: Conjunct) -> str:
    """What a condition tests, with COUNT(x) / COUNT(DISTINCT x) read as COUNT(*) (DISTINCT has its rule)."""
    return "count(*)" if c.column.startswith("count(") else c.column


def tests(c: Conjunct, x: Conjunct) -> Reason:
    return Reason("gold tests {}, the prediction {}", c.node, x.node)


def same_test(c: Conjunct, x: Conjunct) -> bool:
    """`n >= 2` is `n > 1` on whole numbers; `1000.00` is `1000` (SQLite compares numbers as numbers);
    `LIKE 'korea'` (no wildcard) is `= 'Korea'` up to case."""
    if c.kind == x.kind == "num" and c.op == x.op and _number(c.value) == _number(x.value) is not None:
        return True
    if c.kind == x.kind == "num" and c.value.lstrip("-").isdigit() and x.value.lstrip("-").isdigit():
        a, b = int(c.value), int(x.value)
        ops = {c.op: a, x.op: b}
        for strict, loose, step in ((">", ">=", 1), ("<", "<=", -1)):
            if set(ops) == {strict, loose} and ops[loose] == ops[strict] + step:
                return True
    like = {c.op, x.op} == {"like", "="} and not any(ch in c.value + x.value for ch in "%_")
    return like and c.value.lower() == x.value.lower()


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


_BOUNDS = (">", ">=", "<", "<=")


def between_bounds(
    c: Conjunct, x: Conjunct, gold_left: list[Conjunct], pred_left: list[Conjunct]
) -> list[Suggestion] | None:
    """`v BETWEEN a AND b` on one side, `v > a AND v < b` (a strict bound among them) on the other: one
    condition whose operator differs (BETWEEN keeps its bounds), not a value and a redundant bound. The
    other bound is taken out of what is left to compare. Doubtful (under the gate): the two differ only on
    rows holding a bound itself, which the labelled rows never weighed as the error."""
    if c.op == "between" and x.op in _BOUNDS:
        between, bound, rest = c, x, pred_left
    elif x.op == "between" and c.op in _BOUNDS:
        between, bound, rest = x, c, gold_left
    else:
        return None
    if ".." not in between.value:
        return None
    ends = set(between.value.split("..", 1))
    other = next((y for y in rest if subject(y) == subject(between) and y.op in _BOUNDS), None)
    if other is None or {bound.value, other.value} != ends:
        return None
    rest.remove(other)
    return [Suggestion("Operator: comparison", Reason("{} (BETWEEN keeps its bounds)", tests(c, x)), 0.45)]
