"""Static semantic lints: likely mistakes a query's text shows whatever the data (docs/lints.md).

`lint_query` runs every lint of `LINTS` on one parsed query; a lint that cannot decide on odd SQL stays
silent, so linting never fails an evaluation. Each module holds the lints of one concern.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlglot import exp

import sqltriage.core.sql.lints.arithmetic as arithmetic
import sqltriage.core.sql.lints.comparisons as comparisons
import sqltriage.core.sql.lints.counting as counting
import sqltriage.core.sql.lints.grouping as grouping
import sqltriage.core.sql.lints.joins as joins
import sqltriage.core.sql.lints.nulls as nulls
import sqltriage.core.sql.lints.ordering as ordering
from sqltriage.core.model import Schema
from sqltriage.core.sql.lints.base import Check, Lint, LintHit, Query

__all__ = ["DOUBTING", "LINTS", "Lint", "LintHit", "format_lints", "lint_query"]

_CHECKS: tuple[tuple[Lint, Check], ...] = (
    *counting.CHECKS,
    *comparisons.CHECKS,
    *arithmetic.CHECKS,
    *ordering.CHECKS,
    *grouping.CHECKS,
    *joins.CHECKS,
    *nulls.CHECKS,
)
LINTS: tuple[Lint, ...] = tuple(lint for lint, _ in _CHECKS)
DOUBTING: frozenset[str] = frozenset(lint.id for lint in LINTS if lint.doubts)  # ids that doubt a query
SEPARATOR = "; "


def lint_query(parsed: exp.Expression, schema: Schema | None, question: str | None = None) -> list[LintHit]:
    """Every lint's hits on one query, each place once; never raises (a lint that fails finds nothing)."""
    try:
        query = Query(parsed, schema, question)
    except Exception:  # a tree too odd to walk: nothing can be decided
        return []
    hits: list[LintHit] = []
    for lint, check in _CHECKS:
        try:
            found = list(dict.fromkeys(check(query)))
        except Exception:  # advisory only: a lint that cannot read this query stays silent
            continue
        hits.extend(LintHit(lint.id, detail) for detail in found)
    return hits


def format_lints(hits: Iterable[LintHit]) -> str:
    """The workspace's column text: the distinct ids, sorted, joined by '; ' (empty when none)."""
    return SEPARATOR.join(sorted({h.id for h in hits}))
