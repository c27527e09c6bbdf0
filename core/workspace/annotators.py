"""Who changed what: each annotator's own tags, the rows each has decided, adjudicated final tags.

`annotations` holds every annotator's tags ((row, tag, annotator)); `annotated` marks the rows an
annotator has decided (tagged, untagged or imported, even to no tag at all), which is what agreement
counts and blind mode waits for; `adjudications` holds the final tags an adjudicator set for a row.
The workspace's `tags` table holds each row's *final* tags, refreshed in the same transaction as every
change: the adjudicated tags where a row has them, else the tags every annotator of the row gave, else
(when they share none) the union of theirs. So every reader of `tags` (export, reviewed EX, facets, the
`evaluations` view) follows the team's answer without knowing about annotators.

A workspace of schema 1 had no annotators: its tags, logs and notes are given the annotator
`LEGACY` ("unknown") when it is first written by this version, and read so before that.
"""

from __future__ import annotations

import getpass
import json
import os
import sqlite3
import time
from collections.abc import Iterable

LEGACY = "unknown"  # the annotator of changes made before workspaces recorded one

TABLES: dict[str, str] = {
    "annotations": "idx INTEGER, model TEXT, tag TEXT, annotator TEXT, created REAL, "
    "PRIMARY KEY (idx, model, tag, annotator)",
    "annotated": "idx INTEGER, model TEXT, annotator TEXT, created REAL, PRIMARY KEY (idx, model, annotator)",
    "adjudications": "idx INTEGER, model TEXT, tags TEXT, annotator TEXT, created REAL, PRIMARY KEY (idx, model)",
    "adjudication_log": "seq INTEGER PRIMARY KEY AUTOINCREMENT, idx INTEGER, model TEXT, before TEXT, "
    "after TEXT, annotator TEXT, created REAL",
}
LOGGED = ("tag_log", "note_log", "notes", "alternative_log")  # tables that gained an `annotator` column


def os_user() -> str:
    """The OS user name: the annotator when neither --annotator nor the config names one."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry (a container): the environment may still say
        return os.environ.get("USER") or os.environ.get("USERNAME") or LEGACY


def clean_name(name: str) -> str:
    """An annotator name as stored: trimmed, one line; empty is refused by the callers."""
    return " ".join(name.split())


def migrate(db: sqlite3.Connection) -> None:
    """Bring a schema-1 workspace's tags, logs and notes under annotators (inside the caller's transaction).

    Idempotent: run on every writing open, it only does work where a column or a copy is missing.
    """
    present = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for table in LOGGED:
        if table not in present:
            continue
        columns = {r[1] for r in db.execute(f"PRAGMA table_info([{table}])")}
        if "annotator" not in columns:
            db.execute(f"ALTER TABLE [{table}] ADD COLUMN annotator TEXT")
            db.execute(f"UPDATE [{table}] SET annotator = ? WHERE annotator IS NULL", [LEGACY])
    if db.execute("SELECT 1 FROM meta WHERE key = 'annotations_from_tags'").fetchone() is None:
        db.execute(
            "INSERT OR IGNORE INTO annotations (idx, model, tag, annotator, created) "
            "SELECT idx, model, tag, ?, created FROM tags",
            [LEGACY],
        )
        db.execute(
            "INSERT OR IGNORE INTO annotated (idx, model, annotator, created) "
            "SELECT idx, model, ?, min(created) FROM tags GROUP BY idx, model",
            [LEGACY],
        )
        db.execute("INSERT INTO meta (key, value) VALUES ('annotations_from_tags', '1')")


def stand_in(db: sqlite3.Connection) -> None:
    """On a reading connection to a schema-1 file: its tags read as the legacy annotator's (temp views)."""
    present = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "annotations" in present or "tags" not in present:
        return
    db.execute(
        f"CREATE TEMP VIEW IF NOT EXISTS annotations AS SELECT idx, model, tag, '{LEGACY}' AS annotator, "
        "created FROM main.tags"
    )
    db.execute(
        f"CREATE TEMP VIEW IF NOT EXISTS annotated AS SELECT idx, model, '{LEGACY}' AS annotator, "
        "min(created) AS created FROM main.tags GROUP BY idx, model"
    )


def mark_annotated(
    db: sqlite3.Connection, pairs: Iterable[tuple[int, str]], annotator: str, now: float
) -> None:
    db.executemany(
        "INSERT OR IGNORE INTO annotated (idx, model, annotator, created) VALUES (?, ?, ?, ?)",
        [(idx, model, annotator, now) for idx, model in pairs],
    )


def final_tags(db: sqlite3.Connection, idx: int, model: str) -> list[str]:
    """The row's final tags: adjudicated, else those every annotator gave, else the union (sorted)."""
    row = db.execute("SELECT tags FROM adjudications WHERE idx = ? AND model = ?", [idx, model]).fetchone()
    if row is not None:
        return sorted(json.loads(row[0]))
    by: dict[str, set[str]] = {
        str(a): set()
        for (a,) in db.execute("SELECT annotator FROM annotated WHERE idx = ? AND model = ?", [idx, model])
    }
    for tag, annotator in db.execute(
        "SELECT tag, annotator FROM annotations WHERE idx = ? AND model = ?", [idx, model]
    ):
        by.setdefault(str(annotator), set()).add(str(tag))
    return sorted(consensus(list(by.values())))


def consensus(sets: list[set[str]]) -> set[str]:
    """The tags every annotator gave, else (none shared) the union: the rule docs/workspace.md states."""
    if not sets:
        return set()
    shared = set.intersection(*sets)
    return shared if shared else set.union(*sets)


def refresh(db: sqlite3.Connection, pairs: Iterable[tuple[int, str]], now: float | None = None) -> None:
    """Rewrite the final tags (`tags`) of these rows from the annotations (inside the caller's transaction)."""
    now = time.time() if now is None else now
    for idx, model in set(pairs):
        want = set(final_tags(db, idx, model))
        have = {
            str(t) for (t,) in db.execute("SELECT tag FROM tags WHERE idx = ? AND model = ?", [idx, model])
        }
        for tag in have - want:
            db.execute("DELETE FROM tags WHERE idx = ? AND model = ? AND tag = ?", [idx, model, tag])
        for tag in want - have:
            db.execute(
                "INSERT INTO tags (idx, model, tag, created) VALUES (?, ?, ?, ?)", [idx, model, tag, now]
            )


def annotator_tags(db: sqlite3.Connection, idx: int, model: str) -> dict[str, list[str]]:
    """Each annotator's tags on one row ({} when nobody tagged it); an annotator who decided "none" has []."""
    out: dict[str, list[str]] = {
        str(a): []
        for (a,) in db.execute(
            "SELECT annotator FROM annotated WHERE idx = ? AND model = ? ORDER BY annotator", [idx, model]
        )
    }
    for tag, annotator in db.execute(
        "SELECT tag, annotator FROM annotations WHERE idx = ? AND model = ? ORDER BY annotator, tag",
        [idx, model],
    ):
        out.setdefault(str(annotator), []).append(str(tag))
    return out
