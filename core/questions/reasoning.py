"""Reasoning types: the dataset's annotation where it has one, else arithmetic inferred from the gold SQL.

An inferred value is always marked as such, so that no view passes a guess off as an annotation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqltriage.core.model import Example

if TYPE_CHECKING:
    from sqltriage.core.sql.parse import ParsedQuery

REASONING_NAMES = {
    "+": "addition",
    "-": "subtraction",
    "*": "multiplication",
    "/": "division",
    "C": "commonsense",
    "H": "hypothetical",
}
ARITHMETIC_NAMES = ("addition", "subtraction", "multiplication", "division")
# Display order of names, so that "* /" and "/ *" give one facet value.
_ORDER = {name: i for i, name in enumerate(REASONING_NAMES.values())}


@dataclass(frozen=True, slots=True)
class Reasoning:
    """What reasoning an example needs: names in canonical order, and where they come from."""

    types: tuple[str, ...]
    inferred: bool  # True: read off the gold SQL, not annotated
    external_knowledge: bool  # BIRD: the example carries evidence
    commonsense: str | None  # Archer's commonsense_knowledge, kept for display


def _canonical(names: list[str]) -> tuple[str, ...]:
    unique = dict.fromkeys(names)
    return tuple(sorted(unique, key=lambda n: (_ORDER.get(n, len(_ORDER)), n)))


def annotated_types(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """Annotation tokens to names; an unknown token is kept as written rather than dropped."""
    return _canonical([REASONING_NAMES.get(t, t) for t in tokens if t.strip()])


def arithmetic_in_sql(sql: str | ParsedQuery) -> tuple[str, ...]:
    """Names of the binary arithmetic operations in the SQL (unary minus is a sign, not a subtraction).

    Untrusted or broken SQL gives ``()``: a row's bad SQL is a value, never an exception.
    """
    from sqlglot import exp

    from sqltriage.core.sql.parse import ensure_parsed

    parsed = ensure_parsed(sql)
    if not parsed.ok or parsed.tree is None:
        return ()
    kinds = {exp.Add: "addition", exp.Sub: "subtraction", exp.Mul: "multiplication", exp.Div: "division"}
    present: set[str] = set()
    for node in parsed.tree.walk():  # one walk for the four kinds (each `find_all` walked the whole tree)
        for node_type, name in kinds.items():
            if isinstance(node, node_type):
                present.add(name)
    return _canonical([name for name in kinds.values() if name in present])


def reasoning_for(example: Example, parsed: ParsedQuery | None = None) -> Reasoning:
    """The annotation when the dataset has one (even an empty one), else arithmetic inferred from SQL.

    ``parsed`` is an earlier parse of the gold SQL, to avoid parsing it again.
    """
    external = bool(example.evidence and example.evidence.strip())
    commonsense = example.commonsense.strip() if example.commonsense and example.commonsense.strip() else None
    if example.reasoning is not None:
        return Reasoning(annotated_types(example.reasoning), False, external, commonsense)
    sql = parsed if parsed is not None else example.gold_sql
    return Reasoning(arithmetic_in_sql(sql), True, external, commonsense)


def reasoning_label(r: Reasoning) -> str:
    """A facet value: ``"addition commonsense"``, ``"arithmetic:division (inferred)"``, ``""`` for none."""
    if not r.types:
        return ""
    if r.inferred:
        return "arithmetic:" + ",".join(r.types) + " (inferred)"
    return " ".join(r.types)
