"""Pruning the user cache: least recently used entries first, never one that is being read or built."""

from __future__ import annotations

import contextlib
import os
import shutil
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from sqltriage.core.cache.inventory import Entry, inventory, total_size
from sqltriage.core.cache.use import exclusively

UNFINISHED_AGE = 3600.0  # seconds after which a temporary with no finished entry is a dead process's


@dataclass(slots=True)
class PruneResult:
    removed: list[Entry] = field(default_factory=list)
    in_use: list[Entry] = field(default_factory=list)  # would have been removed, but a process uses them
    size_before: int = 0
    size_after: int = 0

    @property
    def freed(self) -> int:
        return self.size_before - self.size_after


def prune(
    root: Path | None = None,
    *,
    max_size: int | None = None,
    older_than_days: float | None = None,
    now: float | None = None,
) -> PruneResult:
    """Remove entries unused for more than `older_than_days`, then the least recently used until the
    cache holds at most `max_size` bytes. Unfinished leftovers older than an hour go too. An entry in
    use is passed over (and listed), so the cache may stay above `max_size` while a run uses it."""
    now = time.time() if now is None else now
    entries = inventory(root)
    result = PruneResult(size_before=total_size(entries))
    total = result.size_before
    for entry in entries:  # least recently used first
        age = now - entry.last_used
        too_old = older_than_days is not None and age > older_than_days * 86400
        too_big = max_size is not None and total > max_size
        if not entry.complete and age < UNFINISHED_AGE:
            continue  # a build or a write in progress
        if not (too_old or too_big or not entry.complete):
            continue
        if remove(entry):
            result.removed.append(entry)
            total -= entry.size
        else:
            result.in_use.append(entry)
    result.size_after = total_size(inventory(root))
    return result


def remove(entry: Entry) -> bool:
    """Remove every file of the entry while holding its locks; False (nothing removed) when it is in use."""
    with exclusively([entry.lock, entry.main]) as free:
        if not free:
            return False
        for path in sorted(entry.paths, key=lambda p: p == entry.lock):  # the lock last
            _delete(path)
    return True


def _delete(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        # renamed first, so a reader finds it gone (and rebuilds it) rather than half there
        doomed = path.with_name(f".{path.name}.removing-{uuid.uuid4().hex[:8]}")
        try:
            os.rename(path, doomed)
        except OSError:
            doomed = path
        shutil.rmtree(doomed, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
