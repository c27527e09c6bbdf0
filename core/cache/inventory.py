"""The entries of the user cache folder, kind by kind, with their size and last use.

Each top-level file or folder of a kind's folder is an entry. `<name>.lock` (the lock a builder holds)
and `.<name>.…` (a temporary a builder renames into place when done) belong to the entry `<name>`; an
entry whose temporaries are all there is (a build that was killed, a write in progress) is listed as
unfinished. New kinds of files are entries like any other: nothing here depends on a kind's layout.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from sqltriage.core.cache.use import taken

LOCK_SUFFIX = ".lock"
KIND_LABELS = {  # what each kind folder holds, for people; an unknown folder is listed by its name
    "features": "question features",
    "neighbours": "neighbour databases",
    "witnesses": "witnesses",
    "verification": "verification results",
}


def user_cache_dir() -> Path:
    """sqltriage's folder in the user cache: ``$XDG_CACHE_HOME/sqltriage`` (default ``~/.cache/sqltriage``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "sqltriage"


@dataclass(slots=True)
class Entry:
    """One cached thing: its main file or folder, and the lock and temporaries that go with it."""

    kind: str  # the kind folder's name (features, neighbours, …)
    name: str
    main: Path  # may not exist (an unfinished entry: only temporaries)
    extra: list[Path] = field(default_factory=list)  # its lock file and temporaries
    size: int = 0  # bytes of every file of the entry
    last_used: float = 0.0  # the latest modification (readers touch the entry when they use it)

    @property
    def complete(self) -> bool:
        return self.main.exists()

    @property
    def lock(self) -> Path:
        return self.main.with_name(self.main.name + LOCK_SUFFIX)

    @property
    def paths(self) -> list[Path]:
        return [p for p in (self.main, *self.extra) if p.exists() or p.is_symlink()]

    def in_use(self) -> bool:
        """Read or built by a running process now (its shared or exclusive lock is held)."""
        return taken([self.lock, self.main])

    def as_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "name": self.name,
            "path": str(self.main),
            "size": self.size,
            "last_used": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(self.last_used)),
            "complete": self.complete,
            "in_use": self.in_use(),
        }


def owner_name(name: str) -> str:
    """The entry a file of a kind folder belongs to: `x.lock` and `.x.tmp123` belong to `x`."""
    if name.endswith(LOCK_SUFFIX) and len(name) > len(LOCK_SUFFIX):
        return name[: -len(LOCK_SUFFIX)]
    if name.startswith(".") and len(name) > 1:
        return name[1:].split(".", 1)[0]
    return name


def inventory(root: Path | None = None) -> list[Entry]:
    """Every entry under `root` (default: the user cache folder), kind by kind, oldest use first."""
    root = root or user_cache_dir()
    entries: list[Entry] = []
    try:
        kinds = sorted(p for p in root.iterdir() if p.is_dir())
    except OSError:
        return []
    for kind in kinds:
        grouped: dict[str, Entry] = {}
        try:
            names = sorted(os.listdir(kind))
        except OSError:
            continue
        for name in names:
            key = owner_name(name)
            entry = grouped.setdefault(key, Entry(kind.name, key, kind / key))
            if name != key:
                entry.extra.append(kind / name)
        for entry in grouped.values():
            _measure(entry)
            entries.append(entry)
    return sorted(entries, key=lambda e: e.last_used)


def _measure(entry: Entry) -> None:
    size, latest = 0, 0.0
    for path in entry.paths:
        try:
            st = path.lstat()
        except OSError:
            continue
        if path == entry.main or not entry.complete:
            latest = max(latest, st.st_mtime)
        if path.is_dir() and not path.is_symlink():
            for folder, _, files in os.walk(path):
                for f in files:
                    with contextlib.suppress(OSError):
                        size += os.lstat(os.path.join(folder, f)).st_size
        else:
            size += st.st_size
    entry.size, entry.last_used = size, latest


def total_size(entries: list[Entry]) -> int:
    return sum(e.size for e in entries)
