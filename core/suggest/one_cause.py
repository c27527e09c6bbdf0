"""One cause per difference: the labelling guide's reading of a condition replaced by another.

A condition is `column operator value`. The guide (docs/suggestions.md, "General rules" 1 to 3) names the
narrowest part that is wrong: only the column replaced is "Attribute: mismatch", only the operator
"Operator: comparison", only the value "Value: mismatch" (or "data format" when it is the same value in
another form); two or three parts replaced make one "Condition: explicit mismatch", never a missing and a
redundant condition, nor one tag per part.

    gold `country = 'France'`, prediction `city = 'Paris'`      → Condition: explicit mismatch
    gold `CountryName = 'france'`, prediction `Country = 'France'` → Condition: explicit mismatch
    gold `name = 'Ann'`, prediction `title = 'Ann'`              → Attribute: mismatch
"""

from __future__ import annotations

from sqltriage.core.suggest.facts import Conjunct

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
