"""The rule mined for one column of a neighbour database: the record `mine` writes and `values` obeys.

A leaf of its own, so that `values` (which draws within a rule) and `mine` (which reads a column's kind
from `values` to write one) do not import each other.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class ColumnRule:
    domain: list | None = None  # categorical: the only values drawn
    low: float | None = None  # numeric range (inclusive)
    high: float | None = None
    never_null: bool = False
    unique: bool = False

    def admits(self, value: object) -> bool:
        """Whether `value` respects this rule (NULL aside: see never_null)."""
        if value is None:
            return not self.never_null
        if self.domain is not None and value not in self.domain:
            return False
        if self.low is not None and isinstance(value, int | float) and not isinstance(value, bool):
            return self.low <= value <= self.high  # type: ignore[operator]
        return True
