"""The workspace file: creation, refusal of foreign files, tags and notes."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from sqltriage.core.errors import WorkspaceError
from sqltriage.core.workspace.store import SCHEMA_VERSION, Workspace


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_new_workspace_is_wal_and_versioned(tmp_path: Path) -> None:
    path = tmp_path / "w.sqltriage.db"
    with Workspace.open(path) as ws:
        assert ws.get_meta("schema_version") == str(SCHEMA_VERSION)
        assert ws.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with Workspace.open(path, create=False) as ws:  # reopens
        assert ws.count("results") == 0


def test_missing_workspace_without_create(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError, match="does not exist"):
        Workspace.open(tmp_path / "nope.db", create=False)


def test_foreign_sqlite_file_is_refused_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE mine (x)")
    conn.commit()
    conn.close()
    before = digest(path)
    with pytest.raises(WorkspaceError, match="not a sqltriage workspace"):
        Workspace.open(path)
    assert digest(path) == before


def test_non_sqlite_file_is_refused_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("my precious notes\n" * 20)
    before = digest(path)
    with pytest.raises(WorkspaceError, match="not a SQLite file"):
        Workspace.open(path)
    assert digest(path) == before


def test_workspace_from_newer_version_says_so(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    with Workspace.open(path) as ws:
        ws.set_meta("schema_version", str(SCHEMA_VERSION + 1))
    with pytest.raises(WorkspaceError, match="newer sqltriage"):
        Workspace.open(path)


def test_tags_and_notes_are_saved_at_once(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    with Workspace.open(path) as ws:
        assert ws.add_tags([(3, "m"), (4, "m")], "Table: missing") == 2
        assert ws.add_tags([(3, "m")], "Table: missing") == 0  # already there
        ws.set_note(3, "m", "joins the wrong key")
    # a second connection (another process would see the same) reads them back
    with Workspace.open(path) as other:
        assert other.tags_of(3, "m") == ["Table: missing"]
        assert other.note_of(3, "m") == "joins the wrong key"
        assert other.remove_tags([(4, "m")], "Table: missing") == 1
        other.set_note(3, "m", "  ")
        assert other.note_of(3, "m") == ""
        log = other.db.execute("SELECT action, idx FROM tag_log ORDER BY seq").fetchall()
        assert log == [("add", 3), ("add", 4), ("remove", 4)]
    with pytest.raises(WorkspaceError, match="empty"):
        Workspace.open(path).add_tags([(1, "m")], " ")
