"""Undo from the workspace's logs: any saved change, from any session, newest first, each once."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from sqltriage.core.errors import WorkspaceError
from sqltriage.core.triage import history
from sqltriage.core.triage import tags as triage
from sqltriage.core.workspace.store import Workspace


def _ws(path: Path) -> Workspace:
    return Workspace.open(path)


def test_undo_walks_back_through_sessions(tmp_path: Path) -> None:
    path = tmp_path / "w.sqltriage.db"
    with _ws(path) as ws:  # session 1: a bulk tag, then a note
        triage.add_tag(ws, [(0, "a"), (1, "a"), (2, "b")], "Table: missing")
        triage.set_note(ws, (1, "a"), "looks like a gold error")
    with _ws(path) as ws:  # session 2: a tag removed
        triage.remove_tag(ws, [(2, "b")], "Table: missing")

    with _ws(path) as ws:  # session 3 undoes all three, newest first
        last = history.last_change(ws)
        assert last is not None and (last.kind, last.pairs) == ("untag", ((2, "b"),))
        assert history.describe(last).startswith("removed 'Table: missing' from 1 row (#2 · b) by ")
        history.undo(ws, last)
        assert ws.tags_of(2, "b") == ["Table: missing"]

        note = history.last_change(ws)
        assert note is not None and note.kind == "note"
        history.undo(ws, note)
        assert ws.note_of(1, "a") == ""

        bulk = history.last_change(ws)
        assert bulk is not None and bulk.kind == "tag" and len(bulk.pairs) == 3
        assert history.describe(bulk).startswith("tagged 3 rows 'Table: missing' by ")
        history.undo(ws, bulk)
        assert [ws.tags_of(i, m) for i, m in bulk.pairs] == [[], [], []]
        assert history.last_change(ws) is None  # undos themselves are not offered
        with pytest.raises(WorkspaceError, match="undone already"):
            history.undo(ws, bulk)

    with sqlite3.connect(path) as db:  # every undo went through the tag log, as any reader replays it
        log = db.execute("SELECT action, idx, model FROM tag_log ORDER BY seq").fetchall()
    assert log[-4:] == [("add", 2, "b"), ("remove", 0, "a"), ("remove", 1, "a"), ("remove", 2, "b")]


def test_a_change_made_after_an_undo_comes_first(tmp_path: Path) -> None:
    with _ws(tmp_path / "w.sqltriage.db") as ws:
        triage.add_tag(ws, [(0, "a")], "x")
        history.undo(ws, history.last_change(ws))  # type: ignore[arg-type]
        triage.add_tag(ws, [(0, "a")], "y")
        last = history.last_change(ws)
        assert last is not None and last.tag == "y"
        history.undo(ws, last)
        assert history.last_change(ws) is None
