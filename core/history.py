"""Undo across sessions: the workspace's own logs are the history, so any change ever saved can be undone.

A change is one group of `tag_log` entries written by one call (same time, action and tag: a bulk
tag is one change) or one `note_log` entry. Undoing applies the inverse through the ordinary triage
functions, so the tags table and the tag log stay the single truth every reader (reviewed EX, the
exports) relies on; `undo_log` records which change an undo reverted, so an undone change and an undo
itself are never offered again. Undo is linear: each undo takes the newest change still in force.
"""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import datetime

from sqltriage.core import triage
from sqltriage.core.errors import WorkspaceError
from sqltriage.core.triage import Change, Pair
from sqltriage.core.workspace import Workspace

_INVERSE = {"add": "tag", "remove": "untag"}


def _settled(ws: Workspace) -> set[str]:
    """Ids of changes already undone and of the undos themselves."""
    out: set[str] = set()
    for undone, by in ws.db.execute("SELECT undone, undone_by FROM undo_log"):
        out.update((undone, by))
    return out


def _tag_groups(ws: Workspace) -> list[tuple[float, int, str, str, str]]:
    """(created, last seq, id, action, tag) of every tag change, newest first."""
    rows = ws.db.execute(
        "SELECT created, max(seq), min(seq), action, tag FROM tag_log "
        "GROUP BY created, action, tag ORDER BY max(seq) DESC"
    )
    return [(c, last, f"tag:{first}", a, t) for c, last, first, a, t in rows]


def last_change(ws: Workspace) -> Change | None:
    """The newest change not undone yet (tags or notes, whoever wrote it), with what it touched."""
    settled = _settled(ws)
    tag = next(((c, i, a, t) for c, _, i, a, t in _tag_groups(ws) if i not in settled), None)
    note = None
    for seq, created in ws.db.execute("SELECT seq, created FROM note_log ORDER BY seq DESC"):
        if f"note:{seq}" not in settled:
            note = (created, seq)
            break
    if tag is None and note is None:
        return None
    if tag is not None and (note is None or tag[0] >= note[0]):
        created, change_id, action, name = tag
        first = int(change_id.partition(":")[2])
        pairs = ws.db.execute(
            "SELECT idx, model FROM tag_log WHERE seq >= ? AND created = ? AND action = ? AND tag = ? "
            "ORDER BY seq",
            [first, created, action, name],
        )
        kind = _INVERSE.get(action, action)
        return Change(kind, tuple((int(i), str(m)) for i, m in pairs), name, id=change_id, created=created)
    assert note is not None
    idx, model, before, after, created = ws.db.execute(
        "SELECT idx, model, before, after, created FROM note_log WHERE seq = ?", [note[1]]
    ).fetchone()
    pair: Pair = (int(idx), str(model))
    return Change(
        "note",
        (pair,),
        notes_before={pair: before or ""},
        notes_after={pair: after or ""},
        id=f"note:{note[1]}",
        created=created,
    )


def describe(change: Change) -> str:
    """What undoing `change` reverts, with when it was made: shown before the undo happens."""
    when = datetime.fromtimestamp(change.created).strftime("%Y-%m-%d %H:%M") if change.created else "?"
    what = change.describe()
    if change.kind == "note":
        pair = change.pairs[0]
        before = change.notes_before.get(pair, "")
        what += (
            f" on #{pair[0]} · {pair[1]} (back to {before[:40]!r})"
            if before
            else f" on #{pair[0]} · {pair[1]}"
        )
    elif len(change.pairs) == 1:
        what += f" (#{change.pairs[0][0]} · {change.pairs[0][1]})"
    return f"{what}, {when}"


def undo(ws: Workspace, change: Change) -> Change:
    """Revert `change` (from `last_change`) in one transaction and record it; returns what was done."""
    if not change.id:
        raise WorkspaceError("this change is not from the workspace's log and cannot be undone")
    with ws.write():
        if ws.db.execute("SELECT 1 FROM undo_log WHERE undone = ?", [change.id]).fetchone():
            raise WorkspaceError("this change was undone already (maybe in another window)", path=ws.path)
        if change.kind in ("tag", "untag"):
            before = ws.db.execute("SELECT coalesce(max(seq), 0) FROM tag_log").fetchone()[0]
            done = triage.undo(ws, change)
            first = ws.db.execute("SELECT min(seq) FROM tag_log WHERE seq > ?", [before]).fetchone()[0]
            by = f"tag:{first}" if first is not None else f"none:{change.id}"
        else:
            before = ws.db.execute("SELECT coalesce(max(seq), 0) FROM note_log").fetchone()[0]
            done = triage.undo(ws, change)
            first = ws.db.execute("SELECT min(seq) FROM note_log WHERE seq > ?", [before]).fetchone()[0]
            by = f"note:{first}" if first is not None else f"none:{change.id}"
        ws.db.execute(
            "INSERT INTO undo_log (undone, undone_by, created) VALUES (?, ?, ?)", [change.id, by, time.time()]
        )
    return replace(done, id=by)
