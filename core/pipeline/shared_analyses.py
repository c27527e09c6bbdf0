"""Analyses shared by the examples of one evaluation that ask the same query of the same database.

Spider dev lists paraphrased questions side by side: 470 of its 1034 examples repeat the gold query of
the example before, and a system's predictions repeat with them (223 of 1034 for DAIL-SQL). Parsing a
query and cutting it into subqueries depend only on the text and the database's schema, so such
examples share one parse, and with it what the metrics read off it (`ParsedQuery.derived`: categories,
the gold audit, the authors' units, the suggestion facts). The objects are immutable and nothing reads
their identity as meaning, so sharing them changes no result. Only the latest analyses are kept, per
chunk: repeats are neighbours, and memory stays flat however large the dataset.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # not imported at run time: an evaluation with nothing to do never loads sqlglot
    from sqltriage.core.sql.parse import ParsedQuery

Key = tuple[str, str]  # (SQL as written, db_id)
# Analyses kept: Spider dev's repeats are all next to each other (one model's predictions of a neighbour
# are a few entries back). Few, so that a parse tree (cyclic) dies young, before the collector's old
# generation has to find it.
KEPT = 16


@dataclass(slots=True)
class QueryAnalysis:
    """One query's parse on one database, and its subqueries (categories.subqueries())."""

    parsed: ParsedQuery
    subs: tuple


class RecentAnalyses:
    """The latest analyses of one chunk, by (SQL, db_id); the oldest leaves first (one thread uses it)."""

    def __init__(self, kept: int = KEPT) -> None:
        self._kept = kept
        self._by_key: dict[Key, QueryAnalysis] = {}

    def __len__(self) -> int:
        return len(self._by_key)

    def analysis(self, key: Key, make: Callable[[], QueryAnalysis]) -> QueryAnalysis:
        """The key's analysis, made by `make` when it is not kept (an exception of `make` keeps nothing)."""
        found = self._by_key.get(key)
        if found is None:
            found = make()
            if len(self._by_key) >= self._kept:
                del self._by_key[next(iter(self._by_key))]
            self._by_key[key] = found
        return found
