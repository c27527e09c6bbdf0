"""`sqltriage merge A.db B.db --out C.db`: two copies of one study, tagged on different machines, as one.

Both must hold the same dataset (fingerprint) and the same models (name and predictions digest), and
the same accepted alternative golds (they re-score rows, which a merge does not do): anything else is
refused with the reason, and nothing is written. C starts as a copy of A; every annotator's tags,
decided rows, logs, notes and adjudications of B are added (a log entry both already hold, same time
and annotator, is kept once; the newer of two notes or adjudications of a row wins), the undo records
of B are carried over with their entries' new numbers, and the final tags of every row are refreshed.
C is written beside its target and renamed into place, so a failed merge leaves no half file.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqltriage.core.errors import WorkspaceError
from sqltriage.core.workspace import annotators
from sqltriage.core.workspace.accepted import TABLE_SQL as ALTERNATIVES_SQL
from sqltriage.core.workspace.store import Workspace


def _identity(ws: Workspace) -> tuple[str | None, dict[str, str], list[tuple[int, str]]]:
    ws.define(ALTERNATIVES_SQL)
    models = {str(n): str(s) for n, s in ws.db.execute("SELECT name, sha256 FROM models")}
    golds = sorted((int(i), str(s)) for i, s in ws.db.execute("SELECT idx, sql FROM alternatives"))
    return ws.get_meta("dataset_fingerprint"), models, golds


def check_compatible(a: Path, b: Path) -> None:
    """Refuse two workspaces that are not of the same study, saying how they differ."""
    with Workspace.open_for_reading(a) as wa, Workspace.open_for_reading(b) as wb:
        (fa, ma, ga), (fb, mb, gb) = _identity(wa), _identity(wb)
        names = (wa.get_meta("dataset_name"), wb.get_meta("dataset_name"))
    if fa != fb:
        raise WorkspaceError(
            f"holds another dataset than {b} ({names[0]!r} vs {names[1]!r}, or another version of it)",
            path=a,
            hint="merge only copies of one study: the same dataset evaluated with the same models",
        )
    if ma != mb:
        only_a, only_b = sorted(set(ma) - set(mb)), sorted(set(mb) - set(ma))
        changed = sorted(n for n in set(ma) & set(mb) if ma[n] != mb[n])
        parts = [
            *([f"only in {a.name}: {', '.join(only_a)}"] if only_a else []),
            *([f"only in {b.name}: {', '.join(only_b)}"] if only_b else []),
            *([f"other predictions for {', '.join(changed)}"] if changed else []),
        ]
        raise WorkspaceError(
            f"has other models than {b} ({'; '.join(parts)})",
            path=a,
            hint="evaluate the same models into both, then merge",
        )
    if ga != gb:
        raise WorkspaceError(
            f"has other accepted alternative golds than {b}: they re-score rows, which a merge does not do",
            path=a,
            hint="accept or withdraw the same golds in both (then their rows are scored alike) and merge again",
        )


def merge(a: Path | str, b: Path | str, out: Path | str) -> dict[str, int]:
    """Write the merge of `a` and `b` to `out` (which must not exist); returns what B added."""
    a, b, out = Path(a), Path(b), Path(out)
    if out.exists():
        raise WorkspaceError(
            "exists already", path=out, hint="give a new --out file (a merge never overwrites)"
        )
    check_compatible(a, b)
    tmp = out.with_name(out.name + ".partial")
    other = out.with_name(out.name + ".other.partial")  # B upgraded in a copy: the inputs stay as they are
    try:
        for source, target in ((a, tmp), (b, other)):
            target.unlink(missing_ok=True)
            _copy(source, target)
            Workspace.open(target, create=False).close()  # upgraded to this version's tables
        with Workspace.open(tmp, create=False) as ws:
            added = _add(ws, other)
    except BaseException:
        _remove(tmp)
        raise
    finally:
        _remove(other)
    for suffix in ("-wal", "-shm"):
        Path(f"{tmp}{suffix}").unlink(missing_ok=True)
    tmp.replace(out)
    return added


def _copy(source: Path, target: Path) -> None:
    """A consistent copy of a workspace (SQLite's backup: sees what its WAL holds too)."""
    src = sqlite3.connect(f"file:{source.absolute()}?mode=ro", uri=True)
    dst = sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def _add(ws: Workspace, b: Path) -> dict[str, int]:
    db = ws.db
    db.execute("ATTACH DATABASE ? AS other", [str(b.absolute())])
    added: dict[str, int] = {}
    try:
        with ws.write():
            renumber: dict[str, str] = {}
            for table, kind, columns in (
                ("tag_log", "tag", "action, idx, model, tag, created, annotator"),
                ("note_log", "note", "idx, model, before, after, created, annotator"),
                ("adjudication_log", "adj", "idx, model, before, after, annotator, created"),
            ):
                n = 0
                names = [c.strip() for c in columns.split(",")]
                same = " AND ".join(f"t.{c} IS o.{c}" for c in names)
                for seq, *values in db.execute(
                    f"SELECT seq, {columns} FROM other.{table} o WHERE NOT EXISTS "
                    f"(SELECT 1 FROM main.{table} t WHERE {same}) ORDER BY seq"
                ).fetchall():
                    new = db.execute(
                        f"INSERT INTO main.{table} ({columns}) VALUES ({', '.join('?' * len(values))})",
                        values,
                    ).lastrowid
                    if kind:
                        renumber[f"{kind}:{seq}"] = f"{kind}:{new}"
                    n += 1
                added[table] = n
            for undone, by, created in db.execute(
                "SELECT undone, undone_by, created FROM other.undo_log"
            ).fetchall():
                if undone in renumber or by in renumber:
                    db.execute(
                        "INSERT OR IGNORE INTO main.undo_log (undone, undone_by, created) VALUES (?, ?, ?)",
                        [renumber.get(undone, undone), renumber.get(by, by), created],
                    )
            added["annotations"] = db.execute(
                "INSERT OR IGNORE INTO main.annotations SELECT idx, model, tag, annotator, created "
                "FROM other.annotations"
            ).rowcount
            db.execute(
                "INSERT OR IGNORE INTO main.annotated SELECT idx, model, annotator, created FROM other.annotated"
            )
            for table, stamp in (("notes", "updated"), ("adjudications", "created")):
                db.execute(
                    f"INSERT OR REPLACE INTO main.{table} SELECT o.* FROM other.{table} o LEFT JOIN main.{table} t "
                    f"ON t.idx = o.idx AND t.model = o.model WHERE t.idx IS NULL OR o.{stamp} > t.{stamp}"
                )
            rows = db.execute(
                "SELECT idx, model FROM other.annotated UNION SELECT idx, model FROM other.adjudications"
            ).fetchall()
            annotators.refresh(db, [(int(i), str(m)) for i, m in rows])
    finally:
        db.execute("DETACH DATABASE other")
    return added
