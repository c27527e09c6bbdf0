"""The facets' names and the user's filter choices, without polars: what the app's first screen and its
config need before the frame is loaded (`facets` holds the expressions and counts over the frame).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

# Facets in sidebar order: (key, label). `tag` and `outcome` are computed, the rest are columns.
FACETS: tuple[tuple[str, str], ...] = (
    ("model", "model"),
    ("judgement", "judgement"),
    ("outcome", "outcome"),
    ("structural", "structural"),
    ("operators", "operators"),
    ("hardness", "hardness"),
    ("reasoning", "reasoning"),
    ("db_id", "database"),
    ("official_quirk", "official evaluator scores differently"),
    ("equivalence", "equivalence (--verify)"),
    ("refutation_assumption", "refutation assumes"),
    ("gold_flags", "gold flags"),
    ("soft_f1", "soft F1 (Mini-Dev)"),
    ("r_ves", "R-VES (Mini-Dev)"),
    ("extraction", "SQL found in the response"),
    ("tokens", "tokens"),
    ("latency", "latency"),
    ("cost", "cost"),
    ("confidence", "confidence"),
    ("tag", "tag"),
    ("annotators", "annotators"),
)
FACET_KEYS = tuple(k for k, _ in FACETS)
NONE_VALUE = "(none)"  # the facet value of a row whose column is empty
NEAR_MISS_PM = 0.9  # EX fails although the query is this close to gold
LOW_PM = 0.5  # EX passes although the query is this far from gold: maybe right by accident
SEARCH_COLUMNS = ("question", "gold_sql", "pred_sql")
TS_FALSE_POSITIVE = "EX pass, fails on a neighbour (EX false positive)"  # needs `eval --neighbours K`
SELECTION_MISSED = "selection missed a right candidate"  # k candidates: the scored one fails, another passes

# --- membership options: a part of a combination, named readably --------------------------------------

MEMBERSHIP_FACETS = (
    "structural",
    "operators",
    "reasoning",
    "annotators",
    "gold_flags",
)  # annotators: "has ann"
# The codes of core/sql/categories.py (STRUCTURAL_LETTERS, OPERATOR_TYPES) with the README's names for them.
PART_NAMES: dict[str, dict[str, str]] = {
    "structural": {
        "S": "select",
        "F": "from",
        "W": "where",
        "G": "group by",
        "H": "having",
        "O": "order by",
        "L": "limit",
        "SO": "set operator",
        "N": "nesting",
    },
    "operators": {
        "J": "join",
        "Ag": "aggregate",
        "C": "comparison",
        "Lo": "logical",
        "Li": "like",
        "Ar": "arithmetic",
        "Me": "membership",
        "Nu": "null",
    },
}
# The reasoning facet's inferred form, as core/questions/reasoning.reasoning_label writes it:
# "arithmetic:division,subtraction (inferred)"; an annotated value is names joined by spaces.
_INFERRED_PREFIX, _INFERRED_SUFFIX = "arithmetic:", " (inferred)"
_MEMBERSHIP_KEY = ":membership"


def membership_key(facet: str) -> str:
    """Where `facet_counts` lists the facet's membership options, apart from its combinations."""
    return f"{facet}{_MEMBERSHIP_KEY}"


def membership_label(facet: str, part: str) -> str:
    """The option standing for every `facet` value containing `part`: "has J (join)", "needs subtraction"."""
    if facet == "reasoning":
        return f"needs {part}"
    name = PART_NAMES.get(facet, {}).get(part)
    return f"has {part} ({name})" if name else f"has {part}"


def membership_part(facet: str, value: str) -> str | None:
    """The part a membership option stands for; None for a combination (or any other value)."""
    if facet not in MEMBERSHIP_FACETS:
        return None
    prefix = "needs " if facet == "reasoning" else "has "
    if not value.startswith(prefix):
        return None
    rest = value[len(prefix) :]
    part = rest if facet == "reasoning" else rest.split(" ", 1)[0]
    return part if part and membership_label(facet, part) == value else None


@dataclass(frozen=True, slots=True)
class Filters:
    """What the user chose: values per facet (OR within, AND across) and a search text."""

    selected: Mapping[str, frozenset[str]] = field(default_factory=dict)
    search: str = ""
    examples: frozenset[int] | None = None  # a fixed set of example indexes (a comparison cell), or none
    examples_label: str = ""  # how the status line names that set

    def toggled(self, facet: str, value: str) -> Filters:
        current = set(self.selected.get(facet, frozenset()))
        current ^= {value}
        selected = {k: v for k, v in self.selected.items() if k != facet}
        if current:
            selected[facet] = frozenset(current)
        return replace(self, selected=selected)

    def with_search(self, text: str) -> Filters:
        return replace(self, search=text)

    def with_examples(self, examples: frozenset[int] | None, label: str = "") -> Filters:
        return replace(self, examples=examples, examples_label=label if examples is not None else "")

    def cleared(self, facet: str | None = None) -> Filters:
        if facet is None:
            return Filters({}, "")
        return replace(self, selected={k: v for k, v in self.selected.items() if k != facet})

    @property
    def active(self) -> bool:
        return bool(self.search.strip()) or any(self.selected.values()) or self.examples is not None

    def describe(self) -> str:
        """One line for the status bar: `model=a|b · outcome=EX fail · "text"`."""
        parts = [
            f"{facet}={'|'.join(sorted(values))}"
            for facet, values in sorted(self.selected.items(), key=lambda kv: FACET_KEYS.index(kv[0]))
            if values
        ]
        if self.examples is not None:
            parts.append(self.examples_label or f"{len(self.examples)} chosen examples")
        if self.search.strip():
            parts.append(f'"{self.search.strip()}"')
        return " · ".join(parts) if parts else "no filter"
