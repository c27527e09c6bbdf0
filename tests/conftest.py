"""Shared fixtures: where the real public data is, and the bundled sample."""

from __future__ import annotations

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


def modules_loaded_by(code: str, watched: tuple[str, ...]) -> list[str]:
    """Which of `watched` a fresh interpreter has in sys.modules after running `code` (import checks)."""
    import subprocess
    import sys

    probe = f"{code}\nimport sys\nprint(','.join(m for m in {watched!r} if m in sys.modules))\n"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return [m for m in out.stdout.strip().split(",") if m]
