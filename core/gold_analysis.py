"""One analysis per distinct gold query of an evaluation: Spider dev asks 1034 questions of 564 gold queries.

Parsing a gold query, cutting it into subqueries, auditing it and reading its categories depend only on
its text and its database (the schema and the file), so examples that share both share one analysis.
The objects are immutable and nothing reads their identity as meaning, so sharing them changes no
result. The memo lives in an evaluation's process state for one run; nothing of it persists.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # not imported at run time: an evaluation with nothing to do never loads sqlglot
    from sqltriage.core.sql.parse import ParsedQuery

Key = tuple[str, str]  # (gold SQL as written, db_id)


@dataclass(slots=True)
class GoldAnalysis:
    """What is known about one gold query on one database; filled in as the evaluation asks for it."""

    parsed: ParsedQuery
    subs: tuple  # categories.subqueries() of the gold
    audit: Any = None  # gold_audit.GoldAudit, once `audited`
    audited: bool = False
    categories: Any = None  # categories.QueryCategories, for the example row


class GoldAnalyses:
    """The analyses of one evaluation, by (gold SQL, db_id)."""

    def __init__(self) -> None:
        self._by_key: dict[Key, GoldAnalysis] = {}

    def __len__(self) -> int:
        return len(self._by_key)

    def get(self, key: Key) -> GoldAnalysis | None:
        return self._by_key.get(key)

    def analysis(self, key: Key, make: Callable[[], GoldAnalysis]) -> GoldAnalysis:
        """The key's analysis, made by `make` the first time it is asked for."""
        found = self._by_key.get(key)
        if found is None:
            found = self._by_key[key] = make()
        return found
