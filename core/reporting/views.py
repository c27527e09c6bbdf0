"""Stable SQL views of a workspace, so it can be queried with the `sqlite3` or `sqlite-utils` command line.

`evaluations` has one row per (example, model) with the export's columns, in the export's order and
row order: `SELECT * FROM evaluations` is the unfiltered CSV export. The view is (re)made from the
column lists by what evaluates into a workspace (`ensure_views`: `eval`, the app and `serve` when they
evaluate, `api.evaluate`) whenever its definition differs, so a column added to the stored tables and to
the export appears in it without a migration. Reading a workspace (the frame, an export) never makes it:
reading writes nothing. Documented in docs/workspace.md.
"""

from __future__ import annotations

import sqlite3
from contextlib import suppress

from sqltriage.core.errors import WorkspaceError
from sqltriage.core.reporting.columns import EXPORT_COLUMNS, EXTRA_COLUMNS
from sqltriage.core.verdicts.review import marks_sql, reviewed_sql
from sqltriage.core.workspace.store import EXAMPLE_COLUMNS, RESULT_COLUMNS, Workspace

_TAGS = (
    "(SELECT group_concat(tag, ', ') FROM "
    "(SELECT tag FROM tags t WHERE t.idx = r.idx AND t.model = r.model ORDER BY tag))"
)

_TAGS_BY = (
    "(SELECT group_concat(annotator || ': ' || tag, '; ') FROM (SELECT annotator, tag FROM annotations a "
    "WHERE a.idx = r.idx AND a.model = r.model ORDER BY annotator, tag))"
)

# each tagged row's review marks, by core/verdicts/review.py's one definition of a review tag
_MARKS = f"(SELECT idx, model, {marks_sql('tag')} AS marks FROM tags GROUP BY idx, model)"


def _expression(column: str) -> str | None:
    """The SQL giving one export column from the stored tables, or None for a column computed elsewhere."""
    if column in ("ex_reviewed", "reviewed"):
        return reviewed_sql("coalesce(v.marks, 0)", "r.ex")[column]
    if column == "index":
        return "r.idx"
    if column == "tags":
        return _TAGS
    if column == "tags_by":
        return _TAGS_BY
    if column == "adjudicated_by":
        return "(SELECT annotator FROM adjudications a WHERE a.idx = r.idx AND a.model = r.model)"
    if column == "note":
        return "n.note"
    if column in RESULT_COLUMNS:
        return f"r.[{column}]"
    if column in EXAMPLE_COLUMNS:
        return f"e.[{column}]"
    return None


def view_columns() -> list[str]:
    """The export columns the `evaluations` view has (every one the workspace stores)."""
    return [c for c in (*EXPORT_COLUMNS, *EXTRA_COLUMNS) if _expression(c) is not None]


def evaluations_sql() -> str:
    select = ",\n    ".join(f"{_expression(c)} AS [{c}]" for c in view_columns())
    return (
        f"CREATE VIEW evaluations AS SELECT\n    {select}\n"
        "FROM results r\n"
        "JOIN examples e ON e.idx = r.idx\n"
        "JOIN models m ON m.name = r.model\n"
        "LEFT JOIN notes n ON n.idx = r.idx AND n.model = r.model\n"
        f"LEFT JOIN {_MARKS} v ON v.idx = r.idx AND v.model = r.model\n"
        "ORDER BY m.position, r.idx"
    )


def ensure_views(ws: Workspace) -> None:
    """Make the views current, after an evaluation; a workspace that cannot be written now keeps its old
    view (a convenience).

    A workspace opened for reading keeps it too: reading changes nothing, and the view is made current
    the next time something evaluates into the workspace.
    """
    if ws.reading:
        return
    with suppress(sqlite3.Error, WorkspaceError):
        ws.replace_view("evaluations", evaluations_sql())
