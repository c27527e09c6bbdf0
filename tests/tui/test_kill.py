"""SIGKILL the running app right after it showed changes as saved: reopening finds every one of them."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from sqltriage.core.workspace.store import Workspace

from .conftest import Evaluated

REPO = Path(__file__).resolve().parents[2]
WANTED = 5  # saved changes seen before the kill


def test_killed_app_loses_nothing_shown_as_saved(ws_copy: Evaluated) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.tui.kill_driver", str(ws_copy.workspace)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    saved: list[str] = []
    deadline = time.monotonic() + 120
    try:
        assert proc.stdout is not None
        while len(saved) < WANTED and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout], [], [], 1.0)
            if ready:
                line = proc.stdout.readline()
                if not line:
                    break
                if line.startswith("SAVED "):
                    saved.append(line.rstrip("\n"))
        os.kill(proc.pid, signal.SIGKILL)  # right after a "saved" was shown, mid-way through the next change
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert len(saved) >= WANTED, proc.stderr.read() if proc.stderr else ""

    notes: dict[tuple[int, str], str] = {}
    with Workspace.open(ws_copy.workspace) as ws:
        for line in saved:
            _, kind, index, model, value = line.split(" ", 4)
            if kind == "tag":
                assert value in ws.tags_of(int(index), model), line
            else:
                notes[(int(index), model)] = value
        for (index, model), text in notes.items():
            assert ws.note_of(index, model) == text
