"""How far annotators agree: Cohen's κ for every pair, Fleiss' κ across three or more, raw agreement.

Each decision is binary: "row r has tag t". For a pair of annotators the items are the rows both have
decided (core/workspace/annotators.py: tagged, untagged or imported, even to no tag), and the tags are
the union of those either used on those rows. Cohen's κ (Cohen 1960) is computed per tag over the
shared rows and pooled over every (row, tag) decision; Fleiss' κ (Fleiss 1971) pools the (row, tag)
decisions of the rows three or more annotators decided, with the rater count allowed to vary per row
(each row's agreement is taken over its own raters, the chance term from the overall share of "yes").

κ is undefined when the expected agreement is 1 (every decision of both annotators is the same one,
all "yes" or all "no"): it is then None (`null` in JSON), with the raw agreement still given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from sqltriage.core.workspace.store import Workspace

Row = tuple[int, str]  # (example index, model)
Labels = Mapping[str, Mapping[Row, frozenset[str]]]  # annotator → row → the tags they gave it


@dataclass(frozen=True, slots=True)
class Pair:
    annotators: tuple[str, str]
    items: int  # rows both decided
    kappa_pooled: float | None
    agreement_pooled: float | None
    per_tag: dict[str, float | None] = field(default_factory=dict)
    agreement_per_tag: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Agreement:
    pairs: tuple[Pair, ...]
    fleiss_pooled: float | None
    fleiss_items: int  # rows decided by three or more annotators

    def to_json(self) -> dict[str, Any]:
        """The shape `sqltriage agreement --json` prints (documented in docs/workspace.md)."""
        return {
            "pairs": [
                {
                    "annotators": list(p.annotators),
                    "items": p.items,
                    "kappa_pooled": p.kappa_pooled,
                    "per_tag": dict(p.per_tag),
                    "agreement_pooled": p.agreement_pooled,
                }
                for p in self.pairs
            ],
            "fleiss_pooled": self.fleiss_pooled,
        }


def cohen(a: Sequence[bool], b: Sequence[bool]) -> tuple[float | None, float | None]:
    """(κ, observed agreement) of two raters' binary decisions on the same items; (None, None) for none."""
    n = len(a)
    if n != len(b):
        raise ValueError("both raters must decide the same items")
    if n == 0:
        return None, None
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    yes_a, yes_b = sum(a) / n, sum(b) / n
    expected = yes_a * yes_b + (1 - yes_a) * (1 - yes_b)
    if expected >= 1.0:
        return None, observed
    return (observed - expected) / (1 - expected), observed


def fleiss(items: Sequence[tuple[int, int]]) -> float | None:
    """Fleiss' κ of binary decisions: `items` holds (raters, raters who said yes) per item, raters ≥ 2."""
    items = [(n, k) for n, k in items if n >= 2]
    if not items:
        return None
    per_item = [(k * k + (n - k) * (n - k) - n) / (n * (n - 1)) for n, k in items]
    observed = sum(per_item) / len(per_item)
    yes = sum(k for _, k in items) / sum(n for n, _ in items)
    expected = yes * yes + (1 - yes) * (1 - yes)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1 - expected)


def compute(labels: Labels) -> Agreement:
    """Every pair's figures and the pooled Fleiss' κ from each annotator's decided rows."""
    names = sorted(labels)
    pairs: list[Pair] = []
    for a, b in combinations(names, 2):
        shared = sorted(set(labels[a]) & set(labels[b]))
        tags = sorted({t for r in shared for t in labels[a][r] | labels[b][r]})
        per_tag: dict[str, float | None] = {}
        raw_per_tag: dict[str, float] = {}
        pooled_a: list[bool] = []
        pooled_b: list[bool] = []
        for tag in tags:
            da = [tag in labels[a][r] for r in shared]
            db = [tag in labels[b][r] for r in shared]
            kappa, raw = cohen(da, db)
            per_tag[tag] = kappa
            raw_per_tag[tag] = raw if raw is not None else 0.0
            pooled_a += da
            pooled_b += db
        kappa, raw = cohen(pooled_a, pooled_b)
        pairs.append(Pair((a, b), len(shared), kappa, raw, per_tag, raw_per_tag))
    return Agreement(tuple(pairs), *_fleiss_pooled(labels))


def _fleiss_pooled(labels: Labels) -> tuple[float | None, int]:
    raters: dict[Row, list[frozenset[str]]] = {}
    for decided in labels.values():
        for row, tags in decided.items():
            raters.setdefault(row, []).append(tags)
    rows = {row: sets for row, sets in raters.items() if len(sets) >= 3}
    tags = sorted({t for sets in rows.values() for s in sets for t in s})
    items = [(len(sets), sum(tag in s for s in sets)) for sets in rows.values() for tag in tags]
    return fleiss(items), len(rows)


def read_labels(ws: Workspace) -> dict[str, dict[Row, frozenset[str]]]:
    """Each annotator's decided rows with their tags, as the workspace holds them now."""
    return ws.labels_by_annotator()


def text_report(result: Agreement) -> str:
    """The figures as `sqltriage agreement` prints them."""

    def num(x: float | None) -> str:
        return "undefined" if x is None else f"{x:.3f}"

    if not result.pairs:
        return "fewer than two annotators have tagged this workspace: no agreement to measure"
    lines: list[str] = []
    for p in result.pairs:
        lines.append(
            f"{p.annotators[0]} × {p.annotators[1]}: {p.items} rows both decided · pooled κ "
            f"{num(p.kappa_pooled)} · raw agreement {num(p.agreement_pooled)}"
        )
        for tag, kappa in p.per_tag.items():
            lines.append(f"  {tag}: κ {num(kappa)} · raw {p.agreement_per_tag[tag]:.3f}")
    lines.append(
        f"Fleiss' κ (pooled, {result.fleiss_items} rows with three or more annotators): "
        + ("none" if result.fleiss_items == 0 else num(result.fleiss_pooled))
    )
    return "\n".join(lines)
