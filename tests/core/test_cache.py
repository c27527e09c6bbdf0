"""The user cache's inventory and pruning: entries by kind, least recently used first, never one in use."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sqltriage.core.cache import in_use, inventory, parse_size, prune
from sqltriage.core.errors import UsageError


def _entry(root: Path, kind: str, name: str, size: int, age_days: float, *, folder: bool = False) -> Path:
    path = root / kind / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if folder:
        path.mkdir()
        (path / "n01.sqlite").write_bytes(b"x" * size)
    else:
        path.write_bytes(b"x" * size)
    when = time.time() - age_days * 86400
    os.utime(path, (when, when))
    return path


def test_every_top_level_file_or_folder_is_an_entry_with_its_lock_and_temporaries(tmp_path: Path) -> None:
    _entry(tmp_path, "neighbours", "abc-k10", 1000, 1, folder=True)
    (tmp_path / "neighbours" / "abc-k10.lock").write_text("")
    _entry(tmp_path, "neighbours", ".def-k10.x1y2", 500, 2, folder=True)  # a killed build's temporary
    _entry(tmp_path, "features", "key.json", 300, 3)
    _entry(tmp_path, "witnesses", "w1", 200, 4, folder=True)  # a kind this module knows nothing about
    entries = {(e.kind, e.name): e for e in inventory(tmp_path)}
    assert set(entries) == {
        ("neighbours", "abc-k10"),
        ("neighbours", "def-k10"),
        ("features", "key.json"),
        ("witnesses", "w1"),
    }
    assert entries[("neighbours", "abc-k10")].size == 1000
    assert entries[("neighbours", "abc-k10")].complete
    assert not entries[("neighbours", "def-k10")].complete  # only a temporary: unfinished
    assert [e.name for e in inventory(tmp_path)] == ["w1", "key.json", "def-k10", "abc-k10"]  # oldest first


def test_prune_to_a_size_removes_the_least_recently_used_first(tmp_path: Path) -> None:
    for i, age in enumerate((5, 1, 3, 2)):
        _entry(tmp_path, "neighbours", f"set{i}", 1000, age, folder=True)
    result = prune(tmp_path, max_size=2500)
    assert sorted(e.name for e in result.removed) == ["set0", "set2"]  # 5 and 3 days old
    assert result.size_after == 2000 <= 2500
    assert sorted(p.name for p in (tmp_path / "neighbours").iterdir()) == ["set1", "set3"]


def test_prune_by_age_and_leftovers_of_dead_builds(tmp_path: Path) -> None:
    _entry(tmp_path, "features", "old.json", 10, 40)
    _entry(tmp_path, "features", "new.json", 10, 1)
    _entry(tmp_path, "neighbours", ".dead-k3.tmp", 10, 1, folder=True)  # unfinished for a day: dead
    _entry(tmp_path, "neighbours", ".live-k3.tmp", 10, 0, folder=True)  # unfinished now: being built
    result = prune(tmp_path, older_than_days=30)
    assert sorted(e.name for e in result.removed) == ["dead-k3", "old.json"]
    assert sorted(e.name for e in inventory(tmp_path)) == ["live-k3", "new.json"]


HOLD = """
import sys, time
from pathlib import Path
from sqltriage.core.cache import in_use
mark = in_use(Path(sys.argv[1]))
print("held", flush=True)
time.sleep(60)
"""


def test_an_entry_read_by_a_running_process_is_never_pruned(tmp_path: Path) -> None:
    used = _entry(tmp_path, "neighbours", "used", 1000, 10, folder=True)
    _entry(tmp_path, "neighbours", "idle", 1000, 1, folder=True)
    reader = subprocess.Popen([sys.executable, "-c", HOLD, str(used)], stdout=subprocess.PIPE, text=True)
    try:
        assert reader.stdout is not None and reader.stdout.readline().strip() == "held"
        result = prune(tmp_path, max_size=0)
        assert [e.name for e in result.removed] == ["idle"]
        assert [e.name for e in result.in_use] == ["used"]
        assert (used / "n01.sqlite").exists()
    finally:
        reader.kill()
        reader.wait()
    assert [e.name for e in prune(tmp_path, max_size=0).removed] == ["used"]  # free once the reader ended


def test_an_entry_being_built_is_never_pruned(tmp_path: Path) -> None:
    import fcntl

    _entry(tmp_path, "neighbours", "building", 100, 10, folder=True)
    lock = tmp_path / "neighbours" / "building.lock"
    with open(lock, "a") as fh:  # what ensure_neighbours holds while it builds
        fcntl.flock(fh, fcntl.LOCK_EX)
        assert prune(tmp_path, max_size=0).removed == []
    assert [e.name for e in prune(tmp_path, max_size=0).removed] == ["building"]
    assert not lock.exists()


def test_reading_marks_the_last_use(tmp_path: Path) -> None:
    path = _entry(tmp_path, "features", "k.json", 10, 30)
    in_use(path).release()
    assert time.time() - path.stat().st_mtime < 60


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("100KB", 100 * 1024),
        ("500MB", 500 * 1024**2),
        ("2GB", 2 * 1024**3),
        ("1.5g", 1536 * 1024**2),
        ("42", 42),
    ],
)
def test_sizes_read_as_people_write_them(text: str, size: int) -> None:
    assert parse_size(text) == size


def test_a_size_that_cannot_be_read_says_how_to_write_one() -> None:
    with pytest.raises(UsageError, match="as a size") as info:
        parse_size("lots")
    assert "500MB" in (info.value.hint or "")
