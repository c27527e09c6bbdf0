"""Shared pieces of the reliability suite: a private copy of the sample, and ways to run `sqltriage`."""

from __future__ import annotations

import csv
import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from sqltriage.samples import SAMPLE_DIR

SQLTRIAGE = [sys.executable, "-m", "sqltriage.tui.cli"]
MODELS = ("atlas-7b", "beacon-gpt4")
# Columns that measure time, not outcome: two runs of the same inputs differ only there.
TIMING_COLUMNS = ("pred_elapsed", "gold_elapsed")


@pytest.fixture
def sample_copy(tmp_path: Path) -> Path:
    """The bundled sample copied to tmp_path/dataset, so a test may change or watch its files."""
    dest = tmp_path / "dataset"
    shutil.copytree(SAMPLE_DIR, dest)
    return dest


def pred_args(dataset: Path, models: tuple[str, ...] = MODELS) -> list[str]:
    return [arg for m in models for arg in ("--pred", f"{m}={dataset / 'predictions' / f'{m}.sql'}")]


def tree_state(folder: Path) -> dict[str, str]:
    """Every file under `folder` with the SHA-256 of its bytes: equal states mean nothing changed or appeared."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_csv(path: Path) -> list[dict[str, str]]:
    csv.field_size_limit(sys.maxsize)  # a hostile prediction can be a megabyte long
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def read_only(path: Path) -> sqlite3.Connection:
    """A connection that cannot write, used to watch a workspace another process is writing."""
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)


def run_cli(
    args: list[str], cwd: Path, timeout: float = 240, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`sqltriage ARGS` in a child process, with this process's environment and `env` over it."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
    return subprocess.run(
        [*SQLTRIAGE, *args], capture_output=True, text=True, cwd=cwd, timeout=timeout, env=env
    )


def copy_sample_to(dest: Path) -> Path:
    shutil.copytree(SAMPLE_DIR, dest)
    return dest
