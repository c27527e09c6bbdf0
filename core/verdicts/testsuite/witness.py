"""The minimal witness of a refuted EX pass: a small, read-only, content-addressed SQLite file.

`minimal_witness` copies the neighbour that told gold and prediction apart, shrinks the copy (shrink.py),
checks that it still tells them apart and keeps every constraint (constraints.py), and stores it as
`<cache root>/witnesses/<sha256 of its bytes, 20 hex>.sqlite` (written to a temporary file, then renamed),
so identical witnesses are one file. `VACUUM INTO` writes the stored file: the same rows give the same bytes.
When anything goes wrong the neighbour itself stays the witness: a verdict never depends on shrinking.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import os
import sqlite3
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from sqltriage.core.verdicts.testsuite.constraints import (
    ExtraForeignKeys,
    problems,
    quoted,
    table_names,
)
from sqltriage.core.verdicts.testsuite.shrink import MAX_STEPS, Differ, shrink
from sqltriage.core.verdicts.testsuite.simplify import value_rules

WITNESS_DIR = "witnesses"
INDEX_DIR = "index"  # <witness root>/index/: (inputs of a shrink) -> the witness it gave
DIGEST_CHARS = 20


@dataclass(frozen=True, slots=True)
class Witness:
    path: Path  # the stored witness, or the neighbour itself when it could not be shrunk
    rows: int  # rows in all its tables
    neighbour: Path  # the neighbour it was shrunk from
    shrunk: bool
    steps: int = 0  # differences tested while shrinking
    note: str | None = None  # why the neighbour itself is kept, when it is


def witness_root(neighbour: Path) -> Path:
    """Witnesses live beside the neighbour sets: `<cache root>/witnesses/`."""
    return neighbour.parent.parent / WITNESS_DIR


def _ro(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True)
    conn.text_factory = lambda raw: raw.decode("utf-8", errors="replace")
    return conn


def count_rows(path: Path) -> int:
    conn = _ro(path)
    try:
        return sum(conn.execute(f"SELECT count(*) FROM {quoted(t)}").fetchone()[0] for t in table_names(conn))
    finally:
        conn.close()


def minimal_witness(
    neighbour: Path,
    gold_sql: str,
    pred_sql: str,
    *,
    mode: str = "spider",
    timeout: float,
    max_rows: int,
    extra_foreign_keys: ExtraForeignKeys = (),
    root: Path | None = None,
    pred_ok: bool | None = None,
    max_steps: int = MAX_STEPS,
) -> Witness:
    """The smallest database found, from `neighbour`, on which gold and prediction still differ in `mode`.

    `pred_ok` says whether the prediction ran on the neighbour (the caller usually knows; else it is run):
    a prediction that ran there must still run on every shrunk copy, or the copy would explain nothing.
    """
    root = Path(root) if root is not None else witness_root(neighbour)
    differs = Differ(gold_sql, pred_sql, mode, timeout=timeout, max_rows=max_rows, pred_may_fail=True)
    try:
        if pred_ok is None and not differs(neighbour):
            return _whole(neighbour, "the neighbour does not tell them apart")
        differs.pred_may_fail = not (differs.last_pred_ok if pred_ok is None else pred_ok)
        stored = _indexed(root, neighbour, differs, max_steps)
        if stored is not None:
            return stored
        key = (str(root), str(neighbour), differs.gold_text, mode)
        earlier = _EARLIER.get(key, {})
        same = earlier.get(differs.pred_text)
        if same is not None and same.is_file():
            return Witness(same, count_rows(same), neighbour, True)  # this prediction's, found before
        others = [w for w in reversed(earlier.values()) if w.is_file()][:_EARLIER_TRIED]
        start = next((w for w in others if differs(w)), neighbour)
        found = _minimal(neighbour, start, differs, list(extra_foreign_keys), root, max_steps)
        if found.shrunk:
            _remember(key, differs.pred_text, found.path)
            _index(root, neighbour, differs, max_steps, found)
        return found
    except (OSError, sqlite3.Error) as exc:  # the neighbour stays the witness; the verdict stands
        return _whole(neighbour, f"not shrunk: {type(exc).__name__}: {exc}")


# (witness root, neighbour, gold text, mode) -> {prediction text: its witness}, oldest first. A witness of
# one wrong prediction often tells another one apart too (models make the same mistakes), and shrinking it
# takes a few steps instead of the neighbour's dozens. Models are evaluated in a fixed order, so the same
# inputs still give the same witnesses; a prediction seen before gets the witness it got then.
_EARLIER: OrderedDict[tuple[str, str, str, str], dict[str, Path]] = OrderedDict()
_EARLIER_KEYS = 512
_EARLIER_TRIED = 3  # the most recent witnesses of other predictions tried as a start


SHRINK_VERSION = 4  # 3: long values simplified; 4: budgets in steps only, queries in SQLite steps; bump when shrinking can give other rows: the index then finds nothing it wrote before


def _index_path(root: Path, neighbour: Path, differs: Differ, max_steps: int) -> Path:
    """Where the index keeps the witness of this (neighbour set and file, gold, prediction, comparison):
    the set's folder names its database, K, seed, golds and generator version."""
    key = json.dumps(
        [
            SHRINK_VERSION,
            neighbour.parent.name,
            neighbour.name,
            differs.gold_text,
            differs.pred_text,
            differs.mode,
            differs.pred_may_fail,
            differs.timeout,
            differs.max_rows,
            max_steps,
        ]
    )
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
    return root / INDEX_DIR / digest[:2] / f"{digest[2:32]}.json"


def _indexed(root: Path, neighbour: Path, differs: Differ, max_steps: int) -> Witness | None:
    """The witness an earlier run stored for the same inputs, if its file is still there."""
    try:
        entry = json.loads(_index_path(root, neighbour, differs, max_steps).read_text())
        path = root / str(entry["file"])
        if path.parent != root or not path.is_file():
            return None
        return Witness(path, int(entry["rows"]), neighbour, True, int(entry.get("steps", 0)))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _index(root: Path, neighbour: Path, differs: Differ, max_steps: int, found: Witness) -> None:
    """Record a new witness in the index (written whole, then renamed): a re-run shrinks only what is new."""
    target = _index_path(root, neighbour, differs, max_steps)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(f".{os.getpid()}-{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps({"file": found.path.name, "rows": found.rows, "steps": found.steps}))
        os.replace(tmp, target)
    except OSError:
        pass  # the index only saves work; the witness itself is stored


def _remember(key: tuple[str, str, str, str], pred_text: str, path: Path) -> None:
    _EARLIER.setdefault(key, {})[pred_text] = path
    _EARLIER.move_to_end(key)
    while len(_EARLIER) > _EARLIER_KEYS:
        _EARLIER.popitem(last=False)


def _whole(neighbour: Path, note: str) -> Witness:
    try:
        rows = count_rows(neighbour)
    except sqlite3.Error:
        rows = 0
    return Witness(neighbour, rows, neighbour, False, note=note)


_serial = itertools.count()


def _minimal(
    neighbour: Path,
    start: Path,
    differs: Differ,
    extra: ExtraForeignKeys,
    root: Path,
    max_steps: int,
) -> Witness:
    root.mkdir(parents=True, exist_ok=True)
    out = root / f".{os.getpid()}-{threading.get_ident()}-{next(_serial)}.out"  # private to this thread
    try:
        done = shrink(
            start,
            out,
            differs,
            extra_foreign_keys=extra,
            links=mined_links(neighbour),
            values=value_rules(neighbour),
            max_steps=max_steps,
        )
        conn = _ro(out)
        try:
            broken = problems(conn, done.keys)
        finally:
            conn.close()
        if broken:
            return _whole(neighbour, "the shrunk copy breaks a constraint: " + "; ".join(broken))
        if not differs(out):
            return _whole(neighbour, "the shrunk copy does not tell them apart once written")
        final = root / f"{_digest(out)[:DIGEST_CHARS]}.sqlite"
        if not final.is_file():
            out.chmod(0o444)  # a witness is evidence: nothing should change it
            os.replace(out, final)  # atomic; a concurrent writer of the same name writes the same bytes
        return Witness(final, done.rows, neighbour, True, done.steps)
    finally:
        out.unlink(missing_ok=True)


@functools.lru_cache(maxsize=64)
def _links_of(manifest: Path) -> tuple:
    try:
        links = json.loads(manifest.read_text()).get("mined", {}).get("links", [])
    except (OSError, ValueError, AttributeError):
        return ()
    return tuple(((lk[0], lk[1]), (lk[2], lk[3])) for lk in links if len(lk) == 5 and lk[4])


def mined_links(neighbour: Path) -> tuple:
    """The join links the neighbour's generator kept as inclusions (its set's manifest names them): a witness
    keeps them like foreign keys, so that it stays data the original could hold."""
    return _links_of(neighbour.parent / "manifest.json")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
