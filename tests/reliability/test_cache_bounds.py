"""Bounded caches: `cache prune --max-size` leaves the cache under the limit, and an eval after it rebuilds
what it needs and gives the same export; a size limit in the config is applied after a run."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .conftest import copy_sample_to, pred_args, read_csv, run_cli


def _cache_size(cache: Path, cwd: Path) -> int:
    out = run_cli(["cache", "--json"], cwd)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["root"] == str(cache / "sqltriage")
    return int(doc["size"])


@pytest.mark.slow
def test_prune_to_a_size_then_eval_rebuilds_and_exports_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # the default limit (1 GB)
    dataset = copy_sample_to(tmp_path / "dataset")
    args = ["eval", str(dataset), *pred_args(dataset), "--neighbours", "3", "--timeout", "1", "--json"]

    def export_of(workspace: Path) -> list[dict[str, str]]:
        out = run_cli([*args, "--workspace", str(workspace)], tmp_path)
        assert out.returncode == 0, out.stderr[-2000:]
        csv = tmp_path / f"{workspace.stem}.csv"
        assert run_cli(["export", "--workspace", str(workspace), "--out", str(csv)], tmp_path).returncode == 0
        return read_csv(csv)

    before = export_of(tmp_path / "first.db")
    assert _cache_size(cache, tmp_path) > 100_000  # the neighbour sets of the sample's two databases
    built = _neighbour_files(cache)

    out = run_cli(["cache", "prune", "--max-size", "100KB", "--json"], tmp_path)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["removed"] and doc["size_after"] <= 100 * 1024
    assert _cache_size(cache, tmp_path) <= 100 * 1024

    after = export_of(tmp_path / "second.db")  # a new workspace: every neighbour is needed again
    assert after == before
    assert _neighbour_files(cache) == built  # what it needed was rebuilt, byte for byte


def _neighbour_files(cache: Path) -> dict[str, str]:
    import hashlib

    root = cache / "sqltriage" / "neighbours"
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.glob("*/n*.sqlite"))
    }


@pytest.mark.slow
def test_the_configured_limit_is_applied_after_a_run_that_wrote_to_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache, config = tmp_path / "cache", tmp_path / "config"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    (config / "sqltriage").mkdir(parents=True)
    (config / "sqltriage" / "config.toml").write_text('[cache]\nmax_size = "150KB"\n')
    dataset = copy_sample_to(tmp_path / "dataset")
    stale = cache / "sqltriage" / "neighbours" / "stale-set"
    stale.mkdir(parents=True)
    (stale / "n01.sqlite").write_bytes(b"x" * 100_000)
    os.utime(stale, (1, 1))  # used long ago
    out = run_cli(["neighbours", str(dataset), "-K", "2", "--json"], tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert not stale.exists(), out.stderr  # the least recently used entry went first
    assert "least recently used" in out.stderr
    assert _cache_size(cache, tmp_path) <= 150 * 1024
