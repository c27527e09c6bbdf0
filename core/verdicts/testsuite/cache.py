"""`ensure_neighbours`: build a database's neighbours once, in a shared cache, safely from many processes.

The set lives in `<cache root>/<content digest>-k<K>-s<seed>-g<golds digest>-v<generator version>/`.
It is built in a private temporary folder beside it and renamed into place in one step, so a reader
sees either nothing or the whole set; a file lock makes a second process wait for the first instead of
building the same set twice, and if two builds race anyway (no shared lock), the first rename wins and
the other build is thrown away. The original database is only opened read-only.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
import shutil
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from sqltriage.core.verdicts.execution import file_digest
from sqltriage.core.verdicts.testsuite.coverage import coverage
from sqltriage.core.verdicts.testsuite.distil import distil
from sqltriage.core.verdicts.testsuite.generate import build_database
from sqltriage.core.verdicts.testsuite.literals import gold_literals
from sqltriage.core.verdicts.testsuite.mine import gold_shapes, mine
from sqltriage.core.verdicts.testsuite.plant import GoldPlan
from sqltriage.core.verdicts.testsuite.schema import read_db

GENERATOR_VERSION = 2  # bump when generation changes: cached sets are then rebuilt under a new name
# 2: mined constraints (domains, ranges, never NULL, unique in practice, gold join links) and planted rows
DEFAULT_K = 10
DEFAULT_SEED = 0
POOL_FACTOR = 3  # candidates generated per neighbour kept, when distilling
UNPLANTED_EVERY = 3  # every third candidate is random only (no planted rows): chance finds what plans miss
MANIFEST = "manifest.json"

ForeignKeys = Iterable[tuple[tuple[str, str], tuple[str, str]]]
PrimaryKeys = Iterable[tuple[str, str]]


class NeighbourError(Exception):
    """No neighbours could be built for a database; the message says why."""


def default_cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "sqltriage" / "neighbours"


def gold_digest(
    gold_sqls: Sequence[str], foreign_keys: ForeignKeys = (), primary_keys: PrimaryKeys = ()
) -> str:
    """What the generation reads besides the database: its gold queries (as a set) and extra keys."""
    h = hashlib.sha256()
    for sql in sorted(set(gold_sqls)):
        h.update(sql.encode() + b"\0")
    for fk in sorted(foreign_keys):
        h.update(repr(fk).encode())
    pks = sorted(primary_keys)
    if pks:  # (absent from the digest when there are none, so sets built before keep their name)
        h.update(b"pk" + repr(pks).encode())
    return h.hexdigest()


def neighbour_dir_name(db_digest: str, k: int, seed: int, golds: str, distilled: bool) -> str:
    return f"{db_digest[:16]}-k{k}-s{seed}-g{golds[:10]}-v{GENERATOR_VERSION}{'d' if distilled else 'r'}"


def ensure_neighbours(
    db_path: Path,
    gold_sqls: Sequence[str],
    k: int = DEFAULT_K,
    seed: int = DEFAULT_SEED,
    cache_root: Path | None = None,
    *,
    foreign_keys: ForeignKeys = (),
    primary_keys: PrimaryKeys = (),
    distilled: bool = True,
) -> list[Path]:
    """The K neighbour databases of `db_path` (building them if needed), most telling first.

    Idempotent and process-safe; raises NeighbourError when the database cannot be read at all.
    """
    if k <= 0:
        return []
    db_path = Path(db_path)
    root = Path(cache_root) if cache_root is not None else default_cache_root()
    foreign_keys, primary_keys = list(foreign_keys), list(primary_keys)
    try:
        digest = file_digest(db_path)
    except OSError as exc:
        raise NeighbourError(f"cannot read {db_path}: {exc}") from exc
    name = neighbour_dir_name(digest, k, seed, gold_digest(gold_sqls, foreign_keys, primary_keys), distilled)
    final = root / name
    found = _complete(final, k)
    if found is not None:
        return found
    root.mkdir(parents=True, exist_ok=True)
    with _locked(root / f"{name}.lock"):
        found = _complete(final, k)  # built by another process while this one waited
        if found is not None:
            return found
        tmp = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=root))
        try:
            _build(db_path, gold_sqls, k, seed, digest, (foreign_keys, primary_keys), distilled, tmp)
            try:
                os.rename(tmp, final)
            except OSError:
                if _complete(final, k) is None:  # not a lost race: a real failure
                    raise
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    found = _complete(final, k)
    if found is None:
        raise NeighbourError(f"neighbours of {db_path} were built but cannot be found in {final}")
    return found


def _complete(folder: Path, k: int) -> list[Path] | None:
    """The neighbour files of a finished set (the manifest is written last), else None."""
    manifest = folder / MANIFEST
    if not manifest.is_file():
        return None
    try:
        names = json.loads(manifest.read_text())["neighbours"]
    except (OSError, ValueError, KeyError):
        return None
    paths = [folder / n for n in names]
    if len(paths) != k or not all(p.is_file() for p in paths):
        return None
    return paths


def read_manifest(folder: Path) -> dict:
    return json.loads((folder / MANIFEST).read_text())


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive advisory lock where the platform has one; atomic rename keeps things right without."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on POSIX
        yield
        return
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _build(
    db_path: Path,
    gold_sqls: Sequence[str],
    k: int,
    seed: int,
    digest: str,
    keys: tuple[list, list],
    distilled: bool,
    out: Path,
) -> None:
    started = time.perf_counter()
    try:
        info = read_db(db_path, *keys)
    except Exception as exc:  # any failure to read the original is a reason, not a crash
        raise NeighbourError(f"cannot read the schema of {db_path}: {exc}") from exc
    if not info.tables:
        raise NeighbourError(f"{db_path} has no tables to generate")
    golds = sorted(set(gold_sqls))
    columns = {c.name.lower() for t in info.tables for c in t.columns}
    literals = gold_literals(golds, columns)
    shapes = gold_shapes(info, golds)
    mined = mine(info, literals, [s for found, _ in shapes.values() for s in found])
    plans = [GoldPlan(sql, found, reason) for sql, (found, reason) in shapes.items()]
    n_candidates = k * POOL_FACTOR if distilled and golds else k
    candidates: list[Path] = []
    problems: list[str] = []
    for i in range(n_candidates):
        rng = random.Random(f"{digest}:{seed}:{i}")
        path = out / f"candidate{i:03d}.sqlite"
        planted = plans if i % UNPLANTED_EVERY != UNPLANTED_EVERY - 1 else None
        for p in build_database(info, literals, rng, path, mined, planted):
            if p not in problems:
                problems.append(p)
        candidates.append(path)
    if distilled and golds:
        result = distil(db_path, candidates, golds, k)
        order, chosen, n_mutants, covered = result.order, result.chosen, result.mutants, result.covered
    else:
        order, chosen, n_mutants, covered = list(range(len(candidates))), 0, 0, 0
    kept = [candidates[i] for i in order[:k]]
    cover = coverage(db_path, kept, plans, [candidates[i] for i in order[k:]])
    names = []
    for rank, i in enumerate(order[:k], start=1):
        target = out / f"n{rank:02d}.sqlite"
        os.rename(candidates[i], target)
        os.chmod(target, 0o444)  # a neighbour is evidence: nothing should change it
        names.append(target.name)
    for i in order[k:]:
        candidates[i].unlink(missing_ok=True)
    manifest = {
        "source": str(db_path),
        "digest": digest,
        "k": k,
        "seed": seed,
        "generator_version": GENERATOR_VERSION,
        "distilled": distilled,
        "candidates": n_candidates,
        "chosen_by_cover": chosen,
        "mutants": n_mutants,
        "mutants_covered": covered,
        "neighbours": names,
        "problems": problems,
        "coverage": cover,
        "mined": {
            "links": [[*lk.child, *lk.parent, lk.inclusion] for lk in mined.links],
            "categorical": sorted(f"{t}.{c}" for (t, c), r in mined.rules.items() if r.domain is not None),
            "ranges": {
                f"{t}.{c}": [r.low, r.high] for (t, c), r in sorted(mined.rules.items()) if r.low is not None
            },
            "never_null": sorted(f"{t}.{c}" for (t, c), r in mined.rules.items() if r.never_null),
            "unique": sorted(f"{t}.{c}" for (t, c), r in mined.rules.items() if r.unique),
        },
        "build_seconds": round(time.perf_counter() - started, 3),
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2))
