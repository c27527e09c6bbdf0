"""Marking a cache entry as in use while a process reads it, and asking whether one is.

A reader takes a shared lock on the entry itself (its folder or file) for as long as it reads it, and
touches it, which is the entry's last use. A builder holds the kind's own exclusive lock on
`<entry>.lock` (see core/verdicts/testsuite/cache.py). Pruning takes both exclusively without waiting,
so it passes over whatever is being read or built; the locks are advisory file locks, released by the
system when a process ends, however it ends.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not on POSIX: nothing is locked, pruning may remove anything
    fcntl = None  # type: ignore[assignment]


class InUse:
    """A shared lock on one cache entry, held until `release()` (or until the process ends)."""

    def __init__(self, fd: int | None) -> None:
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            with suppress(OSError):
                os.close(self._fd)  # closing the descriptor releases its lock
            self._fd = None

    def __del__(self) -> None:
        self.release()


def mark_used(path: Path) -> None:
    """Record a use of the entry at `path` (its modification time) for least-recently-used pruning."""
    with suppress(OSError):
        os.utime(path)


def in_use(path: Path) -> InUse:
    """Mark the entry at `path` as read by this process (and touch it, its last use); never blocks.

    When it cannot be locked (someone is removing it right now, or locks are not supported) the
    returned mark holds nothing: the reader carries on, and rebuilds the entry if it has gone.
    """
    mark_used(path)
    if fcntl is None:
        return InUse(None)
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return InUse(None)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return InUse(None)
    return InUse(fd)


@contextmanager
def exclusively(paths: list[Path]) -> Iterator[bool]:
    """Hold exclusive locks on every existing path, without waiting: yields False when one is taken."""
    fds: list[int] = []
    try:
        for path in paths:
            if fcntl is None or not path.exists():
                continue
            try:
                fd = os.open(path, os.O_RDONLY)
            except OSError:
                continue
            fds.append(fd)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                yield False
                return
        yield True
    finally:
        for fd in fds:
            with suppress(OSError):
                os.close(fd)


def taken(paths: list[Path]) -> bool:
    """Whether a process reads or builds one of `paths` now (a look: nothing stays locked)."""
    with exclusively(paths) as free:
        return not free
