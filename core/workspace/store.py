"""The SQLite workspace: examples, models, evaluations, tags and notes, plus the keys that make results reusable.

Every write is its own transaction, so a process killed at any moment loses nothing it reported as saved.
Tags and notes are keyed by (example index, model) and survive re-evaluation. This module opens the file,
runs the transactions and keeps examples, models and results; the tables are schema.py's, and the
methods of tags and notes, of the team and of accepted golds are triage_records.py's, team_records.py's
and gold_records.py's (`Workspace` is made of them).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqltriage.core.errors import WorkspaceError
from sqltriage.core.model import Dataset
from sqltriage.core.workspace import annotators
from sqltriage.core.workspace.connected import Pair
from sqltriage.core.workspace.gold_records import GoldRecords
from sqltriage.core.workspace.judgement_records import JudgementRecords
from sqltriage.core.workspace.reading import (
    define_temporarily,
    reading_connection,
    stand_in_for_missing,
    unwritable_reason,
)
from sqltriage.core.workspace.schema import (
    EXAMPLE_COLUMNS,
    RESULT_COLUMNS,
    SCHEMA,
    SQL_TYPES,
    STAND_IN_COLUMNS,
    TABLES,
)
from sqltriage.core.workspace.team_records import TeamRecords
from sqltriage.core.workspace.triage_records import TriageRecords

SCHEMA_VERSION = 2  # 2: annotators (core/workspace/annotators.py)
APPLICATION_ID = 0x53515454  # "SQTT": marks the file as ours, so a foreign SQLite file is never written to
BUSY_TIMEOUT_MS = 15_000


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


class Workspace(TriageRecords, TeamRecords, GoldRecords, JudgementRecords):
    """One workspace file; safe to share between an eval and the app.

    `Workspace.open(path)` opens it to write (creating and upgrading it); `Workspace.open_for_reading(path)`
    opens it without writing a byte, for every command and screen that only reads. A workspace opened
    for reading with `writes_later=True` (the app) becomes writable at its first write, when the user
    changes something; `read_only_reason` says why a workspace cannot be written at all.

    Every other room reads and writes it through its methods, named for what they mean: the store and
    its results here, tags, notes and undo logs (triage_records.py), annotators and adjudications
    (team_records.py), accepted golds (gold_records.py), the judgement's rows (judgement_records.py). `db` is the store's own connection (tests may
    read through it); `snapshot()` lends a connection of its own that cannot write, for bulk reads.
    """

    def __init__(
        self,
        path: Path,
        db: sqlite3.Connection,
        *,
        reading: bool = False,
        writes_later: bool = False,
        read_only_reason: str | None = None,
    ) -> None:
        self.path = path
        self.db = db  # autocommit connection: every write goes through `write()`, one transaction each
        self._depth = 0
        self._reading = reading  # the connection cannot write (open_for_reading)
        self._writes_later = writes_later
        self.read_only_reason = read_only_reason  # why the file cannot be written, None when it can
        self._retired: list[sqlite3.Connection] = []  # reading connections replaced by a writing one
        self._defined: list[str] = []  # tables `define`d while reading: made for real once writing
        self._switch = threading.Lock()
        self.annotator = annotators.os_user()  # who the changes made through this workspace are by

    # --- opening ---------------------------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path | str, *, create: bool = True) -> Workspace:
        """Open to write: created when missing (unless `create` is False), upgraded when older."""
        path = Path(path)
        exists = path.exists() and path.stat().st_size > 0
        if not exists and not create:
            raise WorkspaceError("workspace does not exist", path=path, hint="run `sqltriage eval` first")
        if exists:
            _refuse_foreign(path)
        return cls(path, _writing_connection(path, exists))

    @classmethod
    def open_for_reading(cls, path: Path | str, *, writes_later: bool = False) -> Workspace:
        """Open an existing workspace without changing it: not a byte of the file, no file beside it.

        Works on a workspace that cannot be written (no permission, a read-only mount). With
        `writes_later`, the first `write()` reopens it for writing (upgrading an older one then);
        without, a write is refused.
        """
        path = Path(path)
        if not (path.exists() and path.stat().st_size > 0):
            raise WorkspaceError("workspace does not exist", path=path, hint="run `sqltriage eval` first")
        _refuse_foreign(path)
        reason = unwritable_reason(path)
        conn = None
        try:
            conn = reading_connection(path, reason, BUSY_TIMEOUT_MS / 1000)
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            _check_version(conn, path)
            annotators.stand_in(conn)
            stand_in_for_missing(conn, TABLES, STAND_IN_COLUMNS)
            conn.execute("PRAGMA query_only = 1")
        except WorkspaceError:
            conn.close()  # type: ignore[union-attr]
            raise
        except sqlite3.Error as exc:
            if conn is not None:
                conn.close()
            raise _open_refused(exc, path) from None
        return cls(path, conn, reading=True, writes_later=writes_later, read_only_reason=reason)

    @property
    def writable(self) -> bool:
        """Whether a change can be written (now, or by reopening at the first write)."""
        return not self._reading or (self._writes_later and self.read_only_reason is None)

    @property
    def reading(self) -> bool:
        """True until this workspace has been opened for writing: nothing has been written through it."""
        return self._reading

    def define(self, create_sql: str) -> None:
        """A table some code keeps beside the schema (`CREATE TABLE IF NOT EXISTS …`): created in the file
        when writing, or as an empty temporary table of this connection when reading a file without it."""
        if self._reading:
            define_temporarily(self.db, create_sql)
            if create_sql not in self._defined:
                self._defined.append(create_sql)
        else:
            self.db.execute(create_sql)

    def _become_writable(self) -> None:
        """The first write of a workspace opened for reading: reopen it for writing, or say why not."""
        with self._switch:
            if not self._reading:
                return
            if self.read_only_reason is not None:
                raise WorkspaceError(
                    f"cannot be changed: {self.read_only_reason}",
                    path=self.path,
                    hint="browsing and export work as it is; to tag, take notes or evaluate, copy it to a "
                    "folder you can write to (or fix its permissions) and open the copy",
                )
            if not self._writes_later:
                raise WorkspaceError(
                    "was opened for reading, and this command does not change it",
                    path=self.path,
                )
            writer = _writing_connection(self.path, exists=True)
            for create_sql in self._defined:
                writer.execute(create_sql)
            self._retired.append(self.db)  # another thread may still be reading through it
            self.db = writer
            self._reading = False

    def close(self) -> None:
        self.db.close()
        for conn in self._retired:
            conn.close()

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """A connection of its own inside one read transaction: several reads see one state of the file.

        Reading a large table in two passes (one per kind of column) must see the same rows in the same
        order, whatever another process or thread commits meanwhile; with WAL the writers go on. The
        connection reads as `open_for_reading` does (nothing written, stand-ins for what an older file
        lacks), and sees what this workspace has committed, not a transaction it has open.
        """
        db = reading_connection(self.path, self.read_only_reason, BUSY_TIMEOUT_MS / 1000)
        try:
            db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            annotators.stand_in(db)
            stand_in_for_missing(db, TABLES, STAND_IN_COLUMNS)
            db.execute("PRAGMA query_only = 1")
            db.execute("BEGIN")
            yield db
            db.execute("COMMIT")
        finally:
            db.close()

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
            elif int(version) < SCHEMA_VERSION:
                self.db.execute(
                    "UPDATE meta SET value = ? WHERE key = 'schema_version'", [str(SCHEMA_VERSION)]
                )
            elif int(version) > SCHEMA_VERSION:
                raise WorkspaceError(
                    f"was written by a newer sqltriage (workspace schema {version}, this version reads "
                    f"{SCHEMA_VERSION})",
                    path=self.path,
                    hint="upgrade sqltriage, or use another --workspace",
                )
            self._add_missing_columns()
            annotators.migrate(self.db)

    def _add_missing_columns(self) -> None:
        """A workspace from an older version lacks the columns added since: add them (empty)."""
        for table, columns in (("examples", EXAMPLE_COLUMNS), ("results", RESULT_COLUMNS)):
            present = {r[1] for r in self.db.execute(f"PRAGMA table_info([{table}])")}
            for name, kind in columns.items():
                if name not in present:
                    self.db.execute(f"ALTER TABLE [{table}] ADD COLUMN [{name}] {SQL_TYPES[kind]}")

    @contextmanager
    def write(self) -> Iterator[None]:
        """One transaction; an error rolls it back whole. A lock held elsewhere is waited for, then reported.

        Nested calls join the outer transaction, so a room groups several of this workspace's writes into
        one (the connection itself is not handed out). BEGIN IMMEDIATE takes the write lock at once, so
        two processes queue up at the start instead of failing halfway.
        """
        if self._reading:
            self._become_writable()
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise _locked_or(exc, self.path) from None
        self._depth = 1
        try:
            yield
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
        """Store a setting; nothing is written when it already has this value."""
        if self.get_meta(key) == value:
            return
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
        row = self.db.execute(
            "SELECT result_key, path, format, sha256, position, added FROM models WHERE name = ?", [name]
        ).fetchone()
        if row is not None and tuple(row[:5]) == (result_key, path, fmt, sha256, position):
            return False  # seen before, unchanged: nothing to write
        stale = row is not None and row[0] != result_key
        only_predictions = stale and row[0].partition(":")[2] == result_key.partition(":")[2]
        added = row[5] if row is not None and row[5] is not None else time.time()  # when it was first added
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
                [name, path, fmt, sha256, result_key, position, added],
            )
        return stale

    def models(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT name FROM models ORDER BY position, name")]

    def done_pairs(self, redo_note: str | None = None) -> set[tuple[str, int]]:
        """The (model, example) pairs stored; those whose `equivalence_note` is `redo_note` (a verdict the
        machine's load cut short) count as not done, so the next run tries them again."""
        if redo_note is None:
            return {(m, i) for m, i in self.db.execute("SELECT model, idx FROM results")}
        sql = "SELECT model, idx FROM results WHERE equivalence_note IS NULL OR equivalence_note != ?"
        return {(m, i) for m, i in self.db.execute(sql, (redo_note,))}

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

    def result_rows(self) -> set[Pair]:
        """The (example index, model) rows the workspace holds results for."""
        return {(int(i), str(m)) for i, m in self.db.execute("SELECT idx, model FROM results")}

    def has_result(self, idx: int, model: str) -> bool:
        row = self.db.execute("SELECT 1 FROM results WHERE idx = ? AND model = ?", [idx, model]).fetchone()
        return row is not None

    def results_of_example(
        self, idx: int, columns: Sequence[str]
    ) -> list[tuple[str, str | None, dict[str, Any]]]:
        """Every model's (model, prediction, {column: value}) on example `idx`, in the order stored."""
        _known(columns)
        selected = "".join(f", [{c}]" for c in columns)
        rows = self.db.execute(
            f"SELECT model, pred_sql{selected} FROM results WHERE idx = ? ORDER BY rowid", [idx]
        ).fetchall()
        return [(str(m), sql, dict(zip(columns, values, strict=True))) for m, sql, *values in rows]

    def update_results(self, idx: int, updates: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
        """Set columns of some models' results on example `idx` ((model, {column: value}) each), in one
        transaction (or the caller's)."""
        with self.write():
            for model, new in updates:
                _known(list(new))
                sets = ", ".join(f"[{k}] = ?" for k in new)
                self.db.execute(
                    f"UPDATE results SET {sets} WHERE model = ? AND idx = ?", [*new.values(), model, idx]
                )

    # --- views -----------------------------------------------------------------------------------------

    def replace_view(self, name: str, create_sql: str) -> bool:
        """Make the view `name` the one `create_sql` (`CREATE VIEW name AS …`) defines; True when written.

        Nothing is written when the file holds that very definition already.
        """
        row = self.db.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'view' AND name = ?", [name]
        ).fetchone()
        if row is not None and row[0] == create_sql:
            return False
        with self.write():
            self.db.execute(f"DROP VIEW IF EXISTS [{name}]")
            self.db.execute(create_sql)
        return True


def _known(columns: Iterable[str]) -> None:
    """Only stored result columns go into the SQL text (their values always go as parameters)."""
    if unknown := [c for c in columns if c not in RESULT_COLUMNS]:
        raise ValueError(f"unknown results columns: {unknown}")


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
        with path.open("rb") as fh:
            head = fh.read(100)
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


def _open_refused(exc: sqlite3.Error, path: Path) -> WorkspaceError:
    """Why opening failed, for reading or for writing alike: busy, or not a workspace at all."""
    if isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc)):
        return _locked_or(exc, path)
    return WorkspaceError(
        f"cannot be opened as a workspace ({exc})",
        path=path,
        hint="give another --workspace path; this file was left untouched",
    )


def _check_version(db: sqlite3.Connection, path: Path) -> None:
    """Refuse a workspace written by a newer sqltriage (read without writing)."""
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.OperationalError:  # no meta table: an early workspace, read with stand-ins
        return
    if row is not None and str(row[0]).isdigit() and int(row[0]) > SCHEMA_VERSION:
        raise WorkspaceError(
            f"was written by a newer sqltriage (workspace schema {row[0]}, this version reads {SCHEMA_VERSION})",
            path=path,
            hint="upgrade sqltriage, or use another --workspace",
        )


def _writing_connection(path: Path, exists: bool) -> sqlite3.Connection:
    """A connection that writes: WAL mode, the schema created or upgraded (a newer one is refused)."""
    conn = None
    try:
        conn = sqlite3.connect(
            str(path), timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False, isolation_level=None
        )
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if not exists:
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        Workspace(path, conn)._migrate()
    except WorkspaceError:
        conn.close()  # type: ignore[union-attr]  # a newer schema: refused, nothing written
        raise
    except sqlite3.Error as exc:
        if conn is not None:
            conn.close()  # else its -wal and -shm files stay beside a file we refused
        raise _open_refused(exc, path) from None
    return conn
