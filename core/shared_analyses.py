"""Analyses shared by the examples of one evaluation that ask the same query of the same database.

Spider dev lists paraphrased questions side by side: 470 of its 1034 examples repeat the gold query of
the example before, and a system's predictions repeat with them (223 of 1034 for DAIL-SQL). Parsing a
query, cutting it into subqueries, reading its categories and auditing a gold query depend only on the
text and the database (the schema and the file), so such examples share one analysis. The objects are
immutable and nothing reads their identity as meaning, so sharing them changes no result. Only the
latest analyses are kept: repeats are neighbours, and memory stays flat however large the dataset.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # not imported at run time: an evaluation with nothing to do never loads sqlglot
    from sqltriage.core.sql.parse import ParsedQuery

Key = tuple[str, str]  # (SQL as written, db_id)
# Analyses kept: Spider dev's repeats are all next to each other (one model's predictions of a neighbour
# are a few entries back). Few, so that a parse tree (cyclic) dies young, before the collector's old
# generation has to find it.
KEPT = 16


@dataclass(slots=True)
class QueryAnalysis:
    """What is known about one query on one database; filled in as the evaluation asks for it."""

    parsed: ParsedQuery
    subs: tuple  # categories.subqueries() of the query
    categories: Any = None  # categories.QueryCategories
    audit: Any = None  # gold_audit.GoldAudit of a gold query, once `audited`
    audited: bool = False


class RecentAnalyses:
    """The latest analyses of one evaluation, by (SQL, db_id); the oldest leaves first.

    Thread-safe (a cluster worker may run chunks in threads): an analysis is made outside the lock, and
    two threads making the same one at once both get a correct one.
    """

    def __init__(self, kept: int = KEPT) -> None:
        self._kept = kept
        self._by_key: dict[Key, QueryAnalysis] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._by_key)

    def get(self, key: Key) -> QueryAnalysis | None:
        return self._by_key.get(key)

    def analysis(self, key: Key, make: Callable[[], QueryAnalysis]) -> QueryAnalysis:
        """The key's analysis, made by `make` when it is not kept (an exception of `make` keeps nothing)."""
        found = self._by_key.get(key)
        if found is None:
            found = make()
            with self._lock:
                if len(self._by_key) >= self._kept:
                    del self._by_key[next(iter(self._by_key))]
                self._by_key[key] = found
        return found
