"""One suggested cause: a taxonomy tag, why the engine thinks so, and how sure it is."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqltriage.core.suggest.reason import Reason

STRUCTURE = "structure"  # the parses alone
EXECUTION = "execution"  # the results on the dataset's own database
SCHEMA_EXECUTION = "execution on generated databases"  # the results on databases built from the schema
BASES = (STRUCTURE, EXECUTION, SCHEMA_EXECUTION)
GATE = 0.5  # below this confidence a candidate is not shown: a row with nothing confidently wrong gets none
MAX_SHOWN = 3  # more than three causes per row are rarely all right and drown the good one
MARGIN = 0.15  # a cause much less sure than the first is more often wrong than right: not shown


@dataclass(frozen=True, slots=True)
class Suggestion:
    tag: str  # "Category: name", as the default taxonomy writes it
    # what in the two queries (or their results) suggests it, shown next to it: text in what
    # suggest_causes returns; a Reason (written when read) among the candidates it ranks
    reason: str | Reason
    confidence: float = 0.5  # 0..1, used to rank and to gate
    basis: str = STRUCTURE  # what it rests on: the two parses alone, or also their results somewhere

    def as_dict(self) -> dict[str, object]:
        return {
            "tag": self.tag,
            "confidence": round(self.confidence, 2),
            "reason": str(self.reason),
            "basis": self.basis,
        }


def merge(found: Iterable[Suggestion]) -> dict[str, Suggestion]:
    """Each tag once, with its highest confidence and that candidate's reason."""
    best: dict[str, Suggestion] = {}
    for s in found:
        have = best.get(s.tag)
        if have is None or s.confidence > have.confidence:
            best[s.tag] = s
    return best


def ranked(found: Iterable[Suggestion], gate: float = GATE, limit: int = MAX_SHOWN) -> list[Suggestion]:
    """Most confident first, those under the gate or more than MARGIN under the first dropped, at most
    `limit`."""
    kept = [s for s in merge(found).values() if s.confidence >= gate]
    kept.sort(key=lambda s: -s.confidence)
    if kept:
        floor = kept[0].confidence - MARGIN - 1e-9
        kept = [s for s in kept if s.confidence >= floor]
    return kept[:limit]


def format_suggested(found: Iterable[Suggestion]) -> str:
    """The export form: tags in rank order, `; `-separated, empty when there is none."""
    return "; ".join(s.tag for s in found)
