"""Alternative golds accepted in the app, and their log: stored in the workspace, never in the dataset file.

`alternatives` holds the accepted queries of each example (their order, by `created`, gives the labels
`accepted 1`, `accepted 2`, …); `alternative_log` every acceptance and withdrawal, which undo reads.
core/triage/accepted_gold.py decides and re-scores; this module reads and writes the rows.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from sqltriage.core.workspace.annotators import LEGACY
from sqltriage.core.workspace.connected import Connected

TABLE_SQL = (
    "CREATE TABLE IF NOT EXISTS alternatives (idx INTEGER, sql TEXT, created REAL, PRIMARY KEY (idx, sql))"
)
LOG_SQL = (
    "CREATE TABLE IF NOT EXISTS alternative_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
    "action TEXT NOT NULL, idx INTEGER NOT NULL, sql TEXT NOT NULL, model TEXT, "
    "accepted_at REAL, created REAL NOT NULL, annotator TEXT)"
)
ACCEPT, WITHDRAW = "accept", "withdraw"  # the log's actions
_ENTRY = ("seq", "action", "idx", "sql", "model", "accepted_at", "created")
# (seq, action, idx, sql, model, created, annotator): one acceptance or withdrawal (`gold_changes`)
GoldChange = tuple[int, str, int, str, str | None, float, str]


class GoldRecords(Connected):
    """The accepted alternative golds and their log."""

    def ensure_gold_tables(self) -> None:
        """Both tables, made when missing (temporary ones when the workspace is only read)."""
        self.define(TABLE_SQL)
        self.define(LOG_SQL)

    def accepted_golds(self) -> dict[int, tuple[str, ...]]:
        """Alternatives accepted in the app, per example index, in the order they were accepted."""
        self.define(TABLE_SQL)
        out: dict[int, list[str]] = {}
        for idx, sql in self.db.execute("SELECT idx, sql FROM alternatives ORDER BY created, rowid"):
            out.setdefault(int(idx), []).append(sql)
        return {i: tuple(v) for i, v in out.items()}

    def accepted_of(self, idx: int) -> list[tuple[str, float]]:
        """(sql, when accepted) of example `idx`'s accepted alternatives, in the order they count."""
        rows = self.db.execute(
            "SELECT sql, created FROM alternatives WHERE idx = ? ORDER BY created, rowid", [idx]
        )
        return [(str(s), float(c)) for s, c in rows]

    def accepted_from(self, idx: int, sql: str) -> str:
        """The model whose prediction `sql` was, from its newest acceptance ("" when not logged)."""
        row = self.db.execute(
            "SELECT model FROM alternative_log WHERE idx = ? AND sql = ? AND action = ? "
            "ORDER BY seq DESC LIMIT 1",
            [idx, sql, ACCEPT],
        ).fetchone()
        return str(row[0] or "") if row else ""

    def gold_log_entry(self, seq: int) -> dict[str, Any] | None:
        """Entry `seq` of `alternative_log` ({seq, action, idx, sql, model, accepted_at, created}), or None."""
        self.ensure_gold_tables()
        row = self.db.execute(
            f"SELECT {', '.join(_ENTRY)} FROM alternative_log WHERE seq = ?", [seq]
        ).fetchone()
        return dict(zip(_ENTRY, row, strict=True)) if row else None

    def gold_changes(self, annotator: str | None) -> Iterator[GoldChange]:
        """Every acceptance and withdrawal, `annotator`'s alone when given, newest first (read as consumed)."""
        self.ensure_gold_tables()
        yield from self.db.execute(
            "SELECT seq, action, idx, sql, model, created, coalesce(annotator, ?) AS a FROM alternative_log "
            "WHERE ? IS NULL OR a = ? ORDER BY seq DESC",
            [LEGACY, annotator, annotator],
        )

    def record_gold_change(self, action: str, idx: int, sql: str, model: str, accepted_at: float) -> int:
        """Accept (`ACCEPT`) or withdraw (`WITHDRAW`) `sql` as a gold of example `idx` and log it, by this
        workspace's annotator; `accepted_at` is when it was (first) accepted. Returns the log entry's seq.

        Joins the caller's transaction, where the re-scored results are written too.
        """
        with self.write():
            if action == ACCEPT:
                self.db.execute(
                    "INSERT INTO alternatives (idx, sql, created) VALUES (?, ?, ?)", [idx, sql, accepted_at]
                )
            else:
                self.db.execute("DELETE FROM alternatives WHERE idx = ? AND sql = ?", [idx, sql])
            seq = self.db.execute(
                "INSERT INTO alternative_log (action, idx, sql, model, accepted_at, created, annotator) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [action, idx, sql, model, accepted_at, time.time(), self.annotator],
            ).lastrowid
        assert seq is not None
        return seq
