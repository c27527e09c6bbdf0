"""The SQLite workspace: examples, models, evaluations, tags and notes, plus the keys that make results reusable.

Every write is its own transaction, so a process killed at any moment loses nothing it reported as saved.
Tags and notes are keyed by (example index, model) and survive re-evaluation.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqltriage.core.errors import WorkspaceError
from sqltriage.core.model import Dataset

SCHEMA_VERSION = 1
APPLICATION_ID = 0x53515454  # "SQTT": marks the file as ours, so a foreign SQLite file is never written to
BUSY_TIMEOUT_MS = 15_000

EXAMPLE_COLUMNS: dict[str, type] = {
    "idx": int,
    "example_id": str,
    "db_id": str,
    "question": str,
    "gold_sql": str,
    "evidence": str,
    "difficulty": str,
    "reasoning": str,
    "reasoning_inferred": int,
    "external_knowledge": int,
    "commonsense": str,
    "db_missing": int,
    "gold_done": int,
    "structural": str,
    "operators": str,
    "hardness": str,
    "n_operators": int,
    "n_tables": int,
    "n_columns": int,
    "n_values": int,
    "nesting_depth": int,
    "sql_length": int,
    "gold_error": str,
    "gold_error_kind": str,
    "gold_elapsed": float,
    "gold_rows": int,
    "gold_suspect": str,  # why the gold is doubtful (gold_audit.REASONS labels, "; "-joined), else NULL
    "gold_suspect_detail": str,  # the same in sentences, with the tie at its LIMIT when there is one
    "q_words": int,
    "q_tree_depth": int,
    "q_lexical_density": float,
    "q_rarity": float,
    "q_flesch": float,
    "q_schema_linkage": float,
}

RESULT_COLUMNS: dict[str, type] = {
    "model": str,
    "idx": int,
    "pred_sql": str,
    "va": int,
    "ex": int,
    "ex_spider": int,
    "ex_bird": int,
    "ex_archer": int,
    "ex_official": int,  # the official Spider evaluator's verdict, quirk for quirk
    "official_quirk": str,  # what makes ex_official differ from ex_spider on this row
    "tie_sensitive": int,  # 1: differs from gold only by which rows tied at gold's LIMIT it kept
    "gold_match": str,  # which gold `ex` matched: "gold", "alternative N" (dataset) or "accepted N" (app)
    "em": int,
    "em_spider": int,
    "sm": float,
    "om": float,
    "vm": float,
    "pm": float,
    "sm_authors": float,  # partial match as the paper's published code computes it (None where it raises)
    "om_authors": float,
    "vm_authors": float,
    "pm_authors": float,
    "authors_note": str,  # why the *_authors columns are empty ("their code would raise: …")
    "pred_structural": str,
    "pred_operators": str,
    "parse_ok": int,
    "error": str,
    "error_kind": str,
    "pred_elapsed": float,
    "truncated": int,
    "ex_ts": int,
    "ts_databases": int,
    "ts_witness": str,
    "suggested": str,  # suggested causes in rank order, "; "-separated
    "suggested_why": str,  # the same as JSON: [{tag, confidence, reason}]
}

_SQL_TYPES = {int: "INTEGER", float: "REAL", str: "TEXT"}


def _columns_sql(columns: Mapping[str, type]) -> str:
    return ", ".join(f"[{name}] {_SQL_TYPES[t]}" for name, t in columns.items())


SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS examples ({_columns_sql(EXAMPLE_COLUMNS)}, PRIMARY KEY (idx));
CREATE TABLE IF NOT EXISTS models (
    name TEXT PRIMARY KEY, path TEXT, format TEXT, sha256 TEXT, result_key TEXT, position INTEGER, added REAL
);
CREATE TABLE IF NOT EXISTS results ({_columns_sql(RESULT_COLUMNS)}, PRIMARY KEY (model, idx));
CREATE TABLE IF NOT EXISTS tags (
    idx INTEGER, model TEXT, tag TEXT, created REAL, PRIMARY KEY (idx, model, tag)
);
CREATE TABLE IF NOT EXISTS notes (idx INTEGER, model TEXT, note TEXT, updated REAL, PRIMARY KEY (idx, model));
CREATE TABLE IF NOT EXISTS tag_log (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, action TEXT, idx INTEGER, model TEXT, tag TEXT, created REAL
);
CREATE TABLE IF NOT EXISTS note_log (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, idx INTEGER, model TEXT, before TEXT, after TEXT, created REAL
);
CREATE TABLE IF NOT EXISTS undo_log (undone TEXT PRIMARY KEY, undone_by TEXT, created REAL);
CREATE INDEX IF NOT EXISTS results_idx ON results (idx);
CREATE INDEX IF NOT EXISTS tags_tag ON tags (tag);
"""


def default_workspace(dataset: Dataset) -> Path:
    """Where a workspace goes when none is named: `<dataset name>.sqltriage.db` in the current folder."""
    return Path.cwd() / f"{dataset.name}.sqltriage.db"


_FINGERPRINTS: list[tuple[tuple, str]] = []  # the last few (examples, fingerprint): one load asks 3 times


def dataset_fingerprint(dataset: Dataset) -> str:
    """Changes whenever anything that scoring reads from the dataset changes."""
    for examples, known in _FINGERPRINTS:
        if examples is dataset.examples:  # the same (immutable) tuple of frozen examples
            return known
    h = hashlib.sha256()
    for e in dataset.examples:
        record = [e.index, e.example_id, e.db_id, e.question, e.gold_sql, e.evidence, e.reasoning]
        if e.alternatives:  # appended only when present: fingerprints of datasets without any stay the same
            record.append(list(e.alternatives))
        h.update(json.dumps(record, ensure_ascii=False).encode())
    if isinstance(dataset.examples, tuple):  # a list could change under the same identity
        _FINGERPRINTS[:] = [(dataset.examples, h.hexdigest()), *_FINGERPRINTS[:3]]
    return h.hexdigest()


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class Workspace:
    """One workspace file. Open with `Workspace.open(path)`; safe to share between an eval and the app."""

    def __init__(self, path: Path, db: sqlite3.Connection) -> None:
        self.path = path
        self.db = db  # autocommit connection: every write goes through `write()`, one transaction each
        self._depth = 0

    # --- opening ---------------------------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path | str, *, create: bool = True) -> Workspace:
        path = Path(path)
        exists = path.exists() and path.stat().st_size > 0
        if not exists and not create:
            raise WorkspaceError("workspace does not exist", path=path, hint="run `sqltriage eval` first")
        if exists:
            _refuse_foreign(path)
        conn = None
        try:
            conn = sqlite3.connect(
                str(path), timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False, isolation_level=None
            )
            db = conn
            db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if not exists:
                db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
            ws = cls(path, db)
            ws._migrate()
        except WorkspaceError:
            conn.close()  # type: ignore[union-attr]  # a newer schema: refused, nothing written
            raise
        except sqlite3.Error as exc:
            if conn is not None:
                conn.close()  # else its -wal and -shm files stay beside a file we refused
            if isinstance(exc, sqlite3.OperationalError):
                raise _locked_or(exc, path) from None
            raise WorkspaceError(
                f"cannot be opened as a workspace ({exc})",
                path=path,
                hint="give another --workspace path; this file was left untouched",
            ) from None
        return ws

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _migrate(self) -> None:
        self.db.executescript("BEGIN;" + SCHEMA + "COMMIT;")
        with self.write():
            version = self.get_meta("schema_version")
            if version is None:
                self.db.execute(
                    "INSERT INTO meta (key, value) VALUES ('schema_version', ?)", [str(SCHEMA_VERSION)]
                )
            elif int(version) > SCHEMA_VERSION:
                raise WorkspaceError(
                    f"was written by a newer sqltriage (workspace schema {version}, this version reads "
                    f"{SCHEMA_VERSION})",
                    path=self.path,
                    hint="upgrade sqltriage, or use another --workspace",
                )
            self._add_missing_columns()

    def _add_missing_columns(self) -> None:
        """A workspace from an older version lacks the columns added since: add them (empty)."""
        for table, columns in (("examples", EXAMPLE_COLUMNS), ("results", RESULT_COLUMNS)):
            present = {r[1] for r in self.db.execute(f"PRAGMA table_info([{table}])")}
            for name, kind in columns.items():
                if name not in present:
                    self.db.execute(f"ALTER TABLE [{table}] ADD COLUMN [{name}] {_SQL_TYPES[kind]}")

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One transaction; an error rolls it back whole. A lock held elsewhere is waited for, then reported.

        Nested calls join the outer transaction. BEGIN IMMEDIATE takes the write lock at once, so two
        processes queue up at the start instead of failing halfway.
        """
        if self._depth:
            self._depth += 1
            try:
                yield self.db
            finally:
                self._depth -= 1
            return
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise _locked_or(exc, self.path) from None
        self._depth = 1
        try:
            yield self.db
        except BaseException as exc:
            self._depth = 0
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.OperationalError):
                raise _locked_or(exc, self.path) from None
            raise
        else:
            self._depth = 0
            try:
                self.db.execute("COMMIT")
            except sqlite3.OperationalError as exc:
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
                raise _locked_or(exc, self.path) from None

    # --- meta ------------------------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self.write():
            self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [key, value])

    # --- examples --------------------------------------------------------------------------------------

    def sync_examples(
        self, dataset: Dataset, make_rows: Callable[[Dataset], Sequence[Mapping[str, Any]]]
    ) -> bool:
        """Store the dataset's examples when its fingerprint changed; True when they were (re)written."""
        fingerprint = dataset_fingerprint(dataset)
        if self.get_meta("dataset_fingerprint") == fingerprint and self.count("examples") == len(
            dataset.examples
        ):
            return False
        rows = make_rows(dataset)
        with self.write():
            self.db.execute("DELETE FROM examples")
            _insert(self.db, "examples", EXAMPLE_COLUMNS, rows, replace=False)
            self.db.execute("DELETE FROM results")  # results of another dataset version mean nothing here
            self.db.execute("UPDATE models SET result_key = NULL")
            for key, value in (
                ("dataset_fingerprint", fingerprint),
                ("dataset_name", dataset.name),
                ("dataset_path", str(dataset.path)),
                ("dataset_format", dataset.format),
            ):
                self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [key, value])
        return True

    def pending_gold(self) -> set[int]:
        return {r[0] for r in self.db.execute("SELECT idx FROM examples WHERE gold_done IS NOT 1")}

    def register_model(
        self,
        name: str,
        path: str,
        fmt: str,
        sha256: str,
        result_key: str,
        position: int,
        texts: Sequence[str] | None = None,
    ) -> bool:
        """Record a model; when its result key changed, drop its stale results. True when some were.

        `result_key` is "<predictions digest>:<run key>". When only the predictions changed (a model
        re-run on a few examples) and `texts` gives the new prediction per example, only the results whose
        stored prediction differs are dropped: the others were computed from the very same inputs.
        """
        row = self.db.execute("SELECT result_key FROM models WHERE name = ?", [name]).fetchone()
        stale = row is not None and row[0] != result_key
        only_predictions = stale and row[0].partition(":")[2] == result_key.partition(":")[2]
        with self.write():
            if only_predictions and texts is not None:
                stored = self.db.execute("SELECT idx, pred_sql FROM results WHERE model = ?", [name])
                changed = [
                    (name, idx)
                    for idx, sql in stored.fetchall()
                    if not 0 <= idx < len(texts) or texts[idx] != sql
                ]
                self.db.executemany("DELETE FROM results WHERE model = ? AND idx = ?", changed)
            elif stale or row is None:
                self.db.execute("DELETE FROM results WHERE model = ?", [name])
            self.db.execute(
                "INSERT OR REPLACE INTO models (name, path, format, sha256, result_key, position, added) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [name, path, fmt, sha256, result_key, position, time.time()],
            )
        return stale

    def models(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT name FROM models ORDER BY position, name")]

    def done_pairs(self) -> set[tuple[str, int]]:
        return {(m, i) for m, i in self.db.execute("SELECT model, idx FROM results")}

    def write_chunk(
        self, example_rows: Sequence[Mapping[str, Any]], result_rows: Sequence[Mapping[str, Any]]
    ) -> None:
        """A finished chunk in one transaction: an interrupted run keeps every chunk it wrote."""
        with self.write():
            for row in example_rows:
                cols = [c for c in row if c != "idx"]
                sets = ", ".join(f"[{c}] = ?" for c in cols)
                self.db.execute(
                    f"UPDATE examples SET {sets} WHERE idx = ?", [*(row[c] for c in cols), row["idx"]]
                )
            if result_rows:
                _insert(self.db, "results", RESULT_COLUMNS, result_rows, replace=True)

    def count(self, table: str) -> int:
        return self.db.execute(f"SELECT count(*) FROM [{table}]").fetchone()[0]

    # --- tags and notes --------------------------------------------------------------------------------

    def add_tags(self, pairs: Iterable[tuple[int, str]], tag: str) -> int:
        tag = tag.strip()
        if not tag:
            raise WorkspaceError("a tag cannot be empty")
        return self._change_tags(pairs, tag, "add")

    def remove_tags(self, pairs: Iterable[tuple[int, str]], tag: str) -> int:
        return self._change_tags(pairs, tag, "remove")

    def _change_tags(self, pairs: Iterable[tuple[int, str]], tag: str, action: str) -> int:
        """Apply one tag change to many rows in one transaction, logging each row it really changed."""
        now = time.time()
        changed = 0
        with self.write():
            for idx, model in pairs:
                if action == "add":
                    cur = self.db.execute(
                        "INSERT OR IGNORE INTO tags (idx, model, tag, created) VALUES (?, ?, ?, ?)",
                        [idx, model, tag, now],
                    )
                else:
                    cur = self.db.execute(
                        "DELETE FROM tags WHERE idx = ? AND model = ? AND tag = ?", [idx, model, tag]
                    )
                if cur.rowcount:
                    changed += 1
                    self.db.execute(
                        "INSERT INTO tag_log (action, idx, model, tag, created) VALUES (?, ?, ?, ?, ?)",
                        [action, idx, model, tag, now],
                    )
        return changed

    def tags_of(self, idx: int, model: str) -> list[str]:
        return [
            r[0]
            for r in self.db.execute(
                "SELECT tag FROM tags WHERE idx = ? AND model = ? ORDER BY tag", [idx, model]
            )
        ]

    def set_note(self, idx: int, model: str, note: str) -> None:
        with self.write():
            if note.strip():
                self.db.execute(
                    "INSERT OR REPLACE INTO notes (idx, model, note, updated) VALUES (?, ?, ?, ?)",
                    [idx, model, note, time.time()],
                )
            else:
                self.db.execute("DELETE FROM notes WHERE idx = ? AND model = ?", [idx, model])

    def note_of(self, idx: int, model: str) -> str:
        row = self.db.execute("SELECT note FROM notes WHERE idx = ? AND model = ?", [idx, model]).fetchone()
        return row[0] if row else ""


def _insert(
    db: sqlite3.Connection,
    table: str,
    columns: Mapping[str, type],
    rows: Sequence[Mapping[str, Any]],
    *,
    replace: bool,
) -> None:
    """Rows as dicts into `table`; a key a row lacks is stored as NULL, an unknown key is a bug."""
    names = list(columns)
    for row in rows:
        if unknown := set(row) - set(columns):
            raise ValueError(f"unknown {table} columns: {sorted(unknown)}")
    verb = "INSERT OR REPLACE" if replace else "INSERT"
    sql = (
        f"{verb} INTO [{table}] ({', '.join(f'[{n}]' for n in names)}) VALUES ({', '.join('?' * len(names))})"
    )
    db.executemany(sql, ([row.get(n) for n in names] for row in rows))


def _refuse_foreign(path: Path) -> None:
    """Never write into a file that is not one of our workspaces."""
    try:
        head = path.read_bytes()[:100]
    except OSError as exc:
        raise WorkspaceError(f"cannot be read ({exc.strerror})", path=path) from None
    if not head.startswith(b"SQLite format 3\x00"):
        raise WorkspaceError(
            "is not a workspace (not a SQLite file)",
            path=path,
            hint="give another --workspace path; this file was left untouched",
        )
    app_id = int.from_bytes(head[68:72], "big")
    if app_id != APPLICATION_ID:
        raise WorkspaceError(
            "is a SQLite file but not a sqltriage workspace",
            path=path,
            hint="give another --workspace path; this file was left untouched",
        )


def _locked_or(exc: sqlite3.OperationalError, path: Path) -> WorkspaceError:
    if "locked" in str(exc) or "busy" in str(exc):
        return WorkspaceError(
            f"is busy: another sqltriage process is writing to it and did not finish within "
            f"{BUSY_TIMEOUT_MS // 1000} s",
            path=path,
            hint="wait for the other process (an eval or the app) to finish, then try again",
        )
    return WorkspaceError(f"cannot be used ({exc})", path=path)
