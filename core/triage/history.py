"""Undo across sessions: the workspace's own logs are the history, so any change ever saved can be undone.

A change is one group of `tag_log` entries written by one call (same time, action and tag: a bulk
tag is one change), one `note_log` entry, or one `alternative_log` entry (an alternative gold
accepted or withdrawn). Undoing applies the inverse through the ordinary functions (core.triage,
core.accepted_gold), so the tables and their logs stay the single truth every reader (reviewed EX,
EX and `gold_match`, the exports) relies on; `undo_log` records which change an undo reverted, so an undone change and an undo
itself are never offered again. Undo is linear: each undo takes the newest change still in force.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime

from sqltriage.core.errors import WorkspaceError
from sqltriage.core.model import Dataset
from sqltriage.core.triage import accepted_gold, tags
from sqltriage.core.triage.adjudication import adjudicate
from sqltriage.core.triage.tags import GOLD_KINDS, Change, Pair
from sqltriage.core.verdicts.execution import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT
from sqltriage.core.workspace.store import Workspace

_INVERSE = {"add": "tag", "remove": "untag"}
_GOLD_KIND = {accepted_gold.ACCEPT: "accept_gold", accepted_gold.WITHDRAW: "withdraw_gold"}


def _tag_groups(ws: Workspace, who: str | None) -> list[tuple[float, int, str, str, str, str]]:
    """(created, last seq, id, action, tag, annotator) of every tag change (of `who` alone when given),
    newest first."""
    return [(c, last, f"tag:{first}", a, t, by) for c, last, first, a, t, by in ws.tag_changes(who)]


def _gold_change(ws: Workspace, settled: set[str], who: str | None) -> Change | None:
    """The newest acceptance or withdrawal of an alternative gold not undone yet, nor an undo."""
    for seq, action, idx, sql, model, created, by in ws.gold_changes(who):
        if f"gold:{seq}" not in settled:
            pair: Pair = (int(idx), str(model or ""))
            return Change(
                _GOLD_KIND[action], (pair,), id=f"gold:{seq}", created=created, sql=sql, annotator=by
            )
    return None


def last_change(ws: Workspace, annotator: str | None = None) -> Change | None:
    """The newest change not undone yet (tags, notes or accepted golds): `annotator`'s own when given,
    anyone's when None."""
    settled = ws.settled_changes()
    candidates = [
        c
        for c in (
            _tag_change(ws, settled, annotator),
            _note_change(ws, settled, annotator),
            _gold_change(ws, settled, annotator),
            _adjudication_change(ws, settled, annotator),
        )
        if c
    ]
    return max(candidates, key=lambda c: c.created) if candidates else None  # the first wins a tie


def _adjudication_change(ws: Workspace, settled: set[str], who: str | None) -> Change | None:
    """The newest adjudication not undone yet, nor an undo: undoing it puts the row's final tags back."""
    for seq, idx, model, before, after, created, by in ws.adjudication_changes(who):
        if f"adj:{seq}" not in settled:
            pair: Pair = (int(idx), str(model))
            return Change(
                "adjudicate",
                (pair,),
                id=f"adj:{seq}",
                created=created,
                annotator=str(by),
                tags_before=None if before is None else tuple(json.loads(before)),
                tags_after=None if after is None else tuple(json.loads(after)),
            )
    return None


def _tag_change(ws: Workspace, settled: set[str], who: str | None) -> Change | None:
    tag = next(((c, i, a, t, b) for c, _, i, a, t, b in _tag_groups(ws, who) if i not in settled), None)
    if tag is None:
        return None
    created, change_id, action, name, by = tag
    first = int(change_id.partition(":")[2])
    pairs = ws.tag_change_rows(first, created, action, name, by)
    kind = _INVERSE.get(action, action)
    return Change(kind, tuple(pairs), name, id=change_id, created=created, annotator=by)


def _note_change(ws: Workspace, settled: set[str], who: str | None) -> Change | None:
    for seq, idx, model, before, after, created, by in ws.note_changes(who):
        if f"note:{seq}" not in settled:
            pair: Pair = (int(idx), str(model))
            return Change(
                "note",
                (pair,),
                notes_before={pair: before or ""},
                notes_after={pair: after or ""},
                id=f"note:{seq}",
                created=created,
                annotator=by,
            )
    return None


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
    elif len(change.pairs) == 1 and change.kind not in (*GOLD_KINDS, "adjudicate"):
        what += f" (#{change.pairs[0][0]} · {change.pairs[0][1]})"
    by = f" by {change.annotator}" if change.annotator else ""
    return f"{what}{by}, {when}"


def undo(
    ws: Workspace,
    change: Change,
    *,
    dataset: Dataset | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_rows: int = DEFAULT_MAX_ROWS,
) -> Change:
    """Revert `change` (from `last_change`) in one transaction and record it; returns what was done.

    Undoing an accepted or withdrawn alternative gold re-scores its example's rows, so it needs the
    dataset (and the run limits of the evaluation).
    """
    if not change.id:
        raise WorkspaceError("this change is not from the workspace's log and cannot be undone")
    if change.kind in GOLD_KINDS:
        return _undo_gold(ws, change, dataset, timeout, max_rows)
    with ws.write():
        _check_not_undone(ws, change)
        if change.kind == "adjudicate":  # the row's final tags as they were, adjudicated or not
            before = ws.last_seq("adjudication")
            pair = change.pairs[0]
            adjudicate(ws, pair, change.tags_before, annotator=change.annotator or None)
            first = ws.first_seq_after("adjudication", before)
            by = f"adj:{first}" if first is not None else f"none:{change.id}"
            done = Change(
                "adjudicate",
                change.pairs,
                annotator=change.annotator,
                tags_before=change.tags_after,
                tags_after=change.tags_before,
            )
        elif change.kind in ("tag", "untag"):
            before = ws.last_seq("tag")
            done = tags.undo(ws, change)
            first = ws.first_seq_after("tag", before)
            by = f"tag:{first}" if first is not None else f"none:{change.id}"
        else:
            before = ws.last_seq("note")
            done = tags.undo(ws, change)
            first = ws.first_seq_after("note", before)
            by = f"note:{first}" if first is not None else f"none:{change.id}"
        ws.record_undo(change.id, by)
    return replace(done, id=by)


def _check_not_undone(ws: Workspace, change: Change) -> None:
    if ws.is_undone(change.id):
        raise WorkspaceError("this change was undone already (maybe in another window)", path=ws.path)


def _undo_gold(
    ws: Workspace, change: Change, dataset: Dataset | None, timeout: float, max_rows: int
) -> Change:
    """Withdraw an accepted alternative gold, or accept a withdrawn one again, and record the undo."""
    if dataset is None:
        raise WorkspaceError("undoing an alternative gold re-scores its example: the dataset must be loaded")
    _check_not_undone(ws, change)  # before the queries run; checked again inside the transaction

    def record(seq: int) -> None:
        _check_not_undone(ws, change)
        ws.record_undo(change.id, f"gold:{seq}")

    seq = int(change.id.partition(":")[2])
    done = accepted_gold.undo_entry(ws, dataset, seq, timeout=timeout, max_rows=max_rows, within=record)
    return Change(_GOLD_KIND[done.action], ((done.index, done.model),), id=f"gold:{done.seq}", sql=done.sql)
