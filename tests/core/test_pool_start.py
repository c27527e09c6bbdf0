"""How the evaluation's workers start: forked from the single-threaded CLI, spawned wherever threads run."""

from __future__ import annotations

import io
import json
import multiprocessing
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from sqltriage.core.datasets import load_dataset
from sqltriage.core.datasets.predictions import load_predictions
from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
from sqltriage.core.pipeline.pool_start import fork_is_safe, os_thread_count, pool_context
from sqltriage.core.reporting.report import load_frame
from sqltriage.core.workspace.store import Workspace
from sqltriage.samples import SAMPLE_DIR

from .test_eval_cli import sample_args

SQLTRIAGE = [sys.executable, "-m", "sqltriage.tui.cli"]
TIMINGS = ("gold_elapsed", "pred_elapsed")


def _frame(ws: Path):
    with Workspace.open(ws) as opened:
        return load_frame(opened).drop(*TIMINGS).sort("model", "index")


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork on this platform")
def test_cli_forks_its_workers_with_the_same_results_as_one_process(tmp_path: Path) -> None:
    # 134 pairs: a forked pool's start-up is cheap enough for them, a spawned one's is not (pool_start)
    forked = tmp_path / "forked.db"
    env = {k: v for k, v in os.environ.items() if k != "SQLTRIAGE_START_METHOD"}
    args = [*SQLTRIAGE, "eval", *sample_args(), "--workspace", str(forked), "--jobs", "2", "--json"]
    run = subprocess.run([*args, "--timeout", "1"], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["run"]["workers"] == "2 forked processes"

    dataset = load_dataset(SAMPLE_DIR)
    preds = [load_predictions(p, dataset) for p in sorted((SAMPLE_DIR / "predictions").glob("*.sql"))]
    with Workspace.open(tmp_path / "serial.db") as ws:
        summary = evaluate(dataset, preds, ws, EvalOptions(timeout=1.0, jobs=1))
    assert summary.workers == "this process"
    expected = _frame(tmp_path / "serial.db")
    assert expected.height == len(dataset.examples) * len(preds) > 100
    assert _frame(forked).equals(expected)


def test_a_running_thread_means_spawn() -> None:
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not fork_is_safe()
        assert pool_context().get_start_method() == "spawn"
        assert pool_context("fork").get_start_method() == "spawn"  # asked for, but not safe here
    finally:
        stop.set()
        other.join()


def test_a_captured_stderr_means_spawn(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # as inside the terminal app: no descriptor
    assert not fork_is_safe()
    assert pool_context().get_start_method() == "spawn"


def test_an_unknown_start_method_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SQLTRIAGE_START_METHOD", "forkserver")
    with pytest.raises(ValueError, match="unknown start method 'forkserver'"):
        pool_context()


@pytest.mark.skipif(os_thread_count() is None, reason="the system does not list a process's threads")
def test_threads_started_by_native_code_mean_spawn() -> None:
    probe = (
        "import threading, sys\n"
        "if sys.argv[1] == 'polars': import polars\n"
        "from sqltriage.core.pipeline.pool_start import fork_is_safe, os_thread_count\n"
        "print(threading.active_count(), os_thread_count() > 1, fork_is_safe())\n"
    )
    plain = subprocess.run([sys.executable, "-c", probe, "none"], capture_output=True, text=True, check=True)
    assert plain.stdout.split() == ["1", "False", "True"]
    # polars starts native threads on import: no Python thread to see, still no fork
    native = subprocess.run(
        [sys.executable, "-c", probe, "polars"], capture_output=True, text=True, check=True
    )
    assert native.stdout.split() == ["1", "True", "False"]
