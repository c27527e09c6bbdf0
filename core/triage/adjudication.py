"""An adjudicator's final answer for a row: the tags that count, whatever the annotators gave.

Setting them writes `adjudications` (one entry per row) and `adjudication_log` (before → after, who,
when) in one transaction, and refreshes the row's final tags (`tags`) from it; clearing them hands the
row back to the annotators' consensus (core/workspace/annotators.py states the rule).
"""

from __future__ import annotations

from collections.abc import Iterable

from sqltriage.core.errors import WorkspaceError
from sqltriage.core.workspace.store import Workspace

Row = tuple[int, str]


def adjudicated(ws: Workspace, row: Row) -> list[str] | None:
    """The row's adjudicated tags, or None when nobody adjudicated it."""
    return ws.adjudicated_tags(*row)


def adjudicate(ws: Workspace, row: Row, tags: Iterable[str] | None, *, annotator: str | None = None) -> None:
    """Set the row's final tags as `annotator` (default: the workspace's); None clears the adjudication."""
    who = annotator or ws.annotator
    after = None if tags is None else sorted({t.strip() for t in tags if t.strip()})
    with ws.write():  # the row, what it had and the change: read and written in one transaction
        if not ws.has_result(*row):
            raise WorkspaceError(f"row #{row[0]} · {row[1]} is not in the workspace", path=ws.path)
        before = adjudicated(ws, row)
        if before == after:
            return
        ws.record_adjudication(row, before, after, who)
