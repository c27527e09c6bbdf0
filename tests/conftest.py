"""Shared fixtures: where the real public data is, and the bundled sample."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data next to the repository; tests that need it skip with the reason when absent."""
    if not (SHARED_DATA / "spider_dev" / "dev.json").exists():
        pytest.skip(f"real data not found at {SHARED_DATA} (a fresh clone has no ../shared)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def spider_dev(shared_data: Path) -> Path:
    return shared_data / "spider_dev"


@pytest.fixture(scope="session", autouse=True)
def user_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user cache folder of the test run's own: tests never read or fill the real ~/.cache/sqltriage."""
    import os

    path = tmp_path_factory.mktemp("user-cache")
    os.environ["XDG_CACHE_HOME"] = str(path)
    return path


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """A folder that `build` fills once per test run, however many pytest-xdist workers ask for it.

    The workers share their run's temporary folder; the first to take the lock builds and marks the folder
    done, the others wait for it and read what it built. Expensive real evaluations are paid once this way.
    """
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # pytest-N/, above each worker's popen-gwK/
    folder = base / f"built-once-{name}"
    with open(base / f"built-once-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / ".done").exists():
            shutil.rmtree(folder, ignore_errors=True)  # a build that failed in another worker
            folder.mkdir()
            build(folder)
            (folder / ".done").touch()
    return folder


@pytest.fixture(scope="session")
def spider_dev_ts(spider_dev: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Spider dev with its 8 systems evaluated with K = 10 neighbours (seed 0), once per run: (the
    neighbour cache, the workspace). Read-only for the tests that share it: neighbours, witnesses, the
    report in a browser."""

    def build(root: Path) -> None:
        from sqltriage.core.datasets import load_dataset
        from sqltriage.core.datasets.predictions import load_predictions
        from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
        from sqltriage.core.workspace.store import Workspace

        dataset = load_dataset(spider_dev / "dev.json")
        files = sorted((spider_dev / "predictions").glob("*.sql"))
        sets = [load_predictions(f, dataset, name=f.stem) for f in files]
        options = EvalOptions(features=False, neighbours=10, seed=0, neighbour_cache=str(root / "cache"))
        with Workspace.open(root / "w.db") as ws:
            evaluate(dataset, sets, ws, options)

    root = built_once(tmp_path_factory, "spider-dev-ts", build)
    return root / "cache", root / "w.db"


def modules_loaded_by(code: str, watched: tuple[str, ...]) -> list[str]:
    """Which of `watched` a fresh interpreter has in sys.modules after running `code` (import checks)."""
    import subprocess
    import sys

    probe = f"{code}\nimport sys\nprint(','.join(m for m in {watched!r} if m in sys.modules))\n"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return [m for m in out.stdout.strip().split(",") if m]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """The order's seed at the end too: pytest-randomly prints it in the header, which `-q` (as CI runs
    the suite) leaves out, and a failure that depends on the order is only repeated with its seed."""
    seed = getattr(config.option, "randomly_seed", None)
    if isinstance(seed, int) and getattr(config.option, "randomly_reorganize", False):
        terminalreporter.write_line(
            f"Using --randomly-seed={seed} (the same order again with that option; -p no:randomly: files' order)"
        )
