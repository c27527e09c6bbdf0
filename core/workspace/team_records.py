"""The team's records: who decided which row with which tags, and the adjudicators' final answers.

The rule that makes a row's final tags out of them is annotators.py's; this module gives the rooms that
measure agreement, adjudicate, import labels, hide others' tags (blind mode) or patch a loaded frame
what they read, and writes an adjudication with its log entry and the row's final tags in one transaction.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator

from sqltriage.core.workspace import annotators
from sqltriage.core.workspace.connected import Connected, Pair

# (seq, idx, model, before, after, created, annotator): one adjudication (`adjudication_changes`); before
# and after are JSON lists of tags, None where the row was (or is again) not adjudicated
AdjudicationChange = tuple[int, int, str, str | None, str | None, float, str]


class TeamRecords(Connected):
    """Each annotator's tags and decided rows, and adjudications."""

    def annotator_tags(self, idx: int, model: str) -> dict[str, list[str]]:
        """Each annotator's tags on the row ({} when nobody decided it; [] for one who decided "none")."""
        return annotators.annotator_tags(self.db, idx, model)

    def tags_given_by(self, idx: int, model: str, annotator: str) -> set[str]:
        """The tags `annotator` gave the row."""
        return {
            str(t)
            for (t,) in self.db.execute(
                "SELECT tag FROM annotations WHERE idx = ? AND model = ? AND annotator = ?",
                [idx, model, annotator],
            )
        }

    def labels_by_annotator(self) -> dict[str, dict[Pair, frozenset[str]]]:
        """Each annotator's decided rows with the tags they gave each (an empty set: decided, no tag)."""
        out: dict[str, dict[Pair, set[str]]] = {}
        for idx, model, annotator in self.db.execute("SELECT idx, model, annotator FROM annotated"):
            out.setdefault(str(annotator), {})[(int(idx), str(model))] = set()
        for idx, model, tag, annotator in self.db.execute(
            "SELECT idx, model, tag, annotator FROM annotations"
        ):
            out.setdefault(str(annotator), {}).setdefault((int(idx), str(model)), set()).add(str(tag))
        return {a: {r: frozenset(t) for r, t in rows.items()} for a, rows in out.items()}

    def mark_decided(self, pairs: Iterable[Pair], annotator: str) -> None:
        """`annotator` decided these rows (even with no tag): they count among the rows' annotators, and
        the rows' final tags follow, in one transaction."""
        pairs = list(pairs)
        with self.write():
            annotators.mark_annotated(self.db, pairs, annotator, time.time())
            annotators.refresh(self.db, pairs)

    def rows_hidden_from(self, viewer: str) -> list[Pair]:
        """The rows someone else decided and `viewer` has not: what blind mode hides from them."""
        rows = self.db.execute(
            "SELECT DISTINCT idx, model FROM annotated WHERE annotator != ? EXCEPT "
            "SELECT idx, model FROM annotated WHERE annotator = ?",
            [viewer, viewer],
        ).fetchall()
        return [(int(i), str(m)) for i, m in rows]

    # --- adjudication ----------------------------------------------------------------------------------

    def adjudicated_tags(self, idx: int, model: str) -> list[str] | None:
        """The row's adjudicated tags (sorted), None when nobody adjudicated it."""
        found = self.db.execute(
            "SELECT tags FROM adjudications WHERE idx = ? AND model = ?", [idx, model]
        ).fetchone()
        return sorted(json.loads(found[0])) if found else None

    def adjudicator_of(self, idx: int, model: str) -> str | None:
        """Who set the row's final tags, None when nobody adjudicated it."""
        found = self.db.execute(
            "SELECT annotator FROM adjudications WHERE idx = ? AND model = ?", [idx, model]
        ).fetchone()
        return found[0] if found else None

    def record_adjudication(
        self, row: Pair, before: list[str] | None, after: list[str] | None, annotator: str
    ) -> None:
        """Set the row's adjudicated tags to `after` (None: withdrawn) as `annotator`, log `before` → `after`,
        and refresh the row's final tags: one transaction."""
        now = time.time()
        with self.write():
            if after is None:
                self.db.execute("DELETE FROM adjudications WHERE idx = ? AND model = ?", [row[0], row[1]])
            else:
                self.db.execute(
                    "INSERT OR REPLACE INTO adjudications (idx, model, tags, annotator, created) "
                    "VALUES (?, ?, ?, ?, ?)",
                    [row[0], row[1], json.dumps(after), annotator, now],
                )
            self.db.execute(
                "INSERT INTO adjudication_log (idx, model, before, after, annotator, created) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [row[0], row[1], _text(before), _text(after), annotator, now],
            )
            annotators.refresh(self.db, [row], now)

    def adjudication_changes(self, annotator: str | None) -> Iterator[AdjudicationChange]:
        """Every adjudication, `annotator`'s alone when given, newest first (read as it is consumed)."""
        yield from self.db.execute(
            "SELECT seq, idx, model, before, after, created, annotator FROM adjudication_log "
            "WHERE ? IS NULL OR annotator = ? ORDER BY seq DESC",
            [annotator, annotator],
        )


def _text(tags: list[str] | None) -> str | None:
    return None if tags is None else json.dumps(tags)
