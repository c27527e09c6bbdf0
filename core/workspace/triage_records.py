"""Tags, notes and the logs that make them undoable, as the workspace stores them.

Each change is written with its log entry in one transaction (`tag_log`, `note_log`), so undo can read
the history back from the file in any later session; `undo_log` records which change an undo reverted.
core/triage/ decides what a change or an undo is; this module only reads and writes the rows.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator

from sqltriage.core.errors import WorkspaceError
from sqltriage.core.workspace import annotators
from sqltriage.core.workspace.annotators import LEGACY
from sqltriage.core.workspace.connected import Connected, Pair

LOGS = {"tag": "tag_log", "note": "note_log", "adjudication": "adjudication_log"}  # what undo numbers
# (created, last seq, first seq, action, tag, annotator): one call's tag change, as `tag_changes` lists it
TagChange = tuple[float, int, int, str, str, str]
# (seq, idx, model, before, after, created, annotator): one note change (`note_changes`)
NoteChange = tuple[int, int, str, str | None, str | None, float, str]


class TriageRecords(Connected):
    """Tags and notes of the rows, and the logs undo reads."""

    # --- tags ------------------------------------------------------------------------------------------

    def add_tags(self, pairs: Iterable[Pair], tag: str, *, annotator: str | None = None) -> int:
        tag = tag.strip()
        if not tag:
            raise WorkspaceError("a tag cannot be empty")
        return self._change_tags(pairs, tag, "add", annotator or self.annotator)

    def remove_tags(self, pairs: Iterable[Pair], tag: str, *, annotator: str | None = None) -> int:
        return self._change_tags(pairs, tag, "remove", annotator or self.annotator)

    def _change_tags(self, pairs: Iterable[Pair], tag: str, action: str, annotator: str) -> int:
        """One annotator's tag change on many rows in one transaction, logging each row it really changed;
        the rows' final tags (`tags`) follow in the same transaction."""
        now = time.time()
        changed = 0
        pairs = list(pairs)
        with self.write():
            for idx, model in pairs:
                if action == "add":
                    cur = self.db.execute(
                        "INSERT OR IGNORE INTO annotations (idx, model, tag, annotator, created) "
                        "VALUES (?, ?, ?, ?, ?)",
                        [idx, model, tag, annotator, now],
                    )
                else:
                    cur = self.db.execute(
                        "DELETE FROM annotations WHERE idx = ? AND model = ? AND tag = ? AND annotator = ?",
                        [idx, model, tag, annotator],
                    )
                if cur.rowcount:
                    changed += 1
                    self.db.execute(
                        "INSERT INTO tag_log (action, idx, model, tag, created, annotator) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        [action, idx, model, tag, now, annotator],
                    )
            annotators.mark_annotated(self.db, pairs, annotator, now)
            annotators.refresh(self.db, pairs, now)
        return changed

    def tags_of(self, idx: int, model: str) -> list[str]:
        """The row's final tags (sorted): what the export, reviewed EX and the facets read."""
        return [
            r[0]
            for r in self.db.execute(
                "SELECT tag FROM tags WHERE idx = ? AND model = ? ORDER BY tag", [idx, model]
            )
        ]

    def tags_logged_since(self, seq: int, action: str, tag: str) -> tuple[Pair, ...]:
        """The rows whose `tag` was added (`action` "add") or removed ("remove") after log entry `seq`, in
        order: what one tag change really changed."""
        rows = self.db.execute(
            "SELECT idx, model FROM tag_log WHERE seq > ? AND action = ? AND tag = ? ORDER BY seq",
            [seq, action, tag],
        )
        return tuple((int(i), str(m)) for i, m in rows)

    def tag_changes(self, annotator: str | None) -> list[TagChange]:
        """Every tag change (one call's entries: same time, action, tag and annotator), `annotator`'s alone
        when given, newest first."""
        rows = self.db.execute(
            "SELECT created, max(seq), min(seq), action, tag, coalesce(annotator, ?) AS a FROM tag_log "
            "GROUP BY created, action, tag, a HAVING ? IS NULL OR a = ? ORDER BY max(seq) DESC",
            [LEGACY, annotator, annotator],
        )
        return [tuple(r) for r in rows]  # type: ignore[misc]

    def tag_change_rows(
        self, first: int, created: float, action: str, tag: str, annotator: str
    ) -> list[Pair]:
        """The rows of the tag change that starts at log entry `first` (see `tag_changes`), in order."""
        rows = self.db.execute(
            "SELECT idx, model FROM tag_log WHERE seq >= ? AND created = ? AND action = ? AND tag = ? "
            "AND coalesce(annotator, ?) = ? ORDER BY seq",
            [first, created, action, tag, LEGACY, annotator],
        )
        return [(int(i), str(m)) for i, m in rows]

    # --- notes -----------------------------------------------------------------------------------------

    def set_note(self, idx: int, model: str, note: str) -> None:
        with self.write():
            if note.strip():
                self.db.execute(
                    "INSERT OR REPLACE INTO notes (idx, model, note, updated, annotator) VALUES (?, ?, ?, ?, ?)",
                    [idx, model, note, time.time(), self.annotator],
                )
            else:
                self.db.execute("DELETE FROM notes WHERE idx = ? AND model = ?", [idx, model])

    def note_of(self, idx: int, model: str) -> str:
        row = self.db.execute("SELECT note FROM notes WHERE idx = ? AND model = ?", [idx, model]).fetchone()
        return row[0] if row else ""

    def log_note(self, idx: int, model: str, before: str, after: str) -> None:
        """Record a note change (by this workspace's annotator) in `note_log`, so that it can be undone."""
        with self.write():
            self.db.execute(
                "INSERT INTO note_log (idx, model, before, after, created, annotator) VALUES (?, ?, ?, ?, ?, ?)",
                [idx, model, before, after, time.time(), self.annotator],
            )

    def note_changes(self, annotator: str | None) -> Iterator[NoteChange]:
        """Every note change, `annotator`'s alone when given, newest first (read as it is consumed)."""
        yield from self.db.execute(
            "SELECT seq, idx, model, before, after, created, coalesce(annotator, ?) AS a FROM note_log "
            "WHERE ? IS NULL OR a = ? ORDER BY seq DESC",
            [LEGACY, annotator, annotator],
        )

    # --- the logs' positions and the undo log ------------------------------------------------------------

    def last_seq(self, log: str) -> int:
        """The newest entry's number in a log ("tag", "note" or "adjudication"), 0 when it is empty."""
        return self.db.execute(f"SELECT coalesce(max(seq), 0) FROM {LOGS[log]}").fetchone()[0]

    def first_seq_after(self, log: str, seq: int) -> int | None:
        """The first entry written to a log after entry `seq`, None when there is none."""
        return self.db.execute(f"SELECT min(seq) FROM {LOGS[log]} WHERE seq > ?", [seq]).fetchone()[0]

    def settled_changes(self) -> set[str]:
        """Ids of the changes already undone and of the undos themselves: never offered to undo again."""
        out: set[str] = set()
        for undone, by in self.db.execute("SELECT undone, undone_by FROM undo_log"):
            out.update((undone, by))
        return out

    def is_undone(self, change_id: str) -> bool:
        return self.db.execute("SELECT 1 FROM undo_log WHERE undone = ?", [change_id]).fetchone() is not None

    def record_undo(self, undone: str, by: str) -> None:
        """Record that change `undone` was reverted by the change `by` (inside the undo's transaction)."""
        with self.write():
            self.db.execute(
                "INSERT INTO undo_log (undone, undone_by, created) VALUES (?, ?, ?)",
                [undone, by, time.time()],
            )
