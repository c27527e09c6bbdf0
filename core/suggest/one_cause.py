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
the two have the same shape and one comparison inside differs in one part, that part names it.
"""

from __future__ import annotations

from sqlglot import exp

from sqltriage.core.suggest.facts import COMPARISON_NAMES, Conjunct, condition

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
