"""An adjudicator's final answer for a row: the tags that count, whatever the annotators gave.

Setting them writes `adjudications` (one entry per row) and `adjudication_log` (before → after, who,
when) in one transaction, and refreshes the row's final tags (`tags`) from it; clearing them hands the
row back to the annotators' consensus (core/workspace/annotators.py states the rule).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable

from sqltriage.core.errors import WorkspaceError
from sqltriage.core.workspace import annotators
from sqltriage.core.workspace.store import Workspace

Row = tuple[int, str]


def adjudicated(ws: Workspace, row: Row) -> list[str] | None:
    """The row's adjudicated tags, or None when nobody adjudicated it."""
    found = ws.db.execute(
        "SELECT tags FROM adjudications WHERE idx = ? AND model = ?", [row[0], row[1]]
    ).fetchone()
    return sorted(json.loads(found[0])) if found else None


def adjudicate(ws: Workspace, row: Row, tags: Iterable[str] | None, *, annotator: str | None = None) -> None:
    """Set the row's final tags as `annotator` (default: the workspace's); None clears the adjudication."""
    who = annotator or ws.annotator
    after = None if tags is None else sorted({t.strip() for t in tags if t.strip()})
    with ws.write():
        exists = ws.db.execute(
            "SELECT 1 FROM results WHERE idx = ? AND model = ?", [row[0], row[1]]
        ).fetchone()
        if exists is None:
            raise WorkspaceError(f"row #{row[0]} · {row[1]} is not in the workspace", path=ws.path)
        before = adjudicated(ws, row)
        if before == after:
            return
        now = time.time()
        if after is None:
            ws.db.execute("DELETE FROM adjudications WHERE idx = ? AND model = ?", [row[0], row[1]])
        else:
            ws.db.execute(
                "INSERT OR REPLACE INTO adjudications (idx, model, tags, annotator, created) "
                "VALUES (?, ?, ?, ?, ?)",
                [row[0], row[1], json.dumps(after), who, now],
            )
        ws.db.execute(
            "INSERT INTO adjudication_log (idx, model, before, after, annotator, created) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [row[0], row[1], _text(before), _text(after), who, now],
        )
        annotators.refresh(ws.db, [row], now)


def _text(tags: list[str] | None) -> str | None:
    return None if tags is None else json.dumps(tags)
