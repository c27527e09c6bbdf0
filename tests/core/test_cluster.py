"""Evaluation on a real Dask cluster (worker processes, not threads): the export equals the local pool's row
for row, a worker killed mid-run loses no finished chunk (the run completes, or stops and resumes), a
cancelled run resumes, neighbour databases are built on the workers, and databases the workers cannot see
are refused before any work."""

from __future__ import annotations

import csv
import hashlib
import json
import logging
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import dask
import pytest
from distributed import Client, LocalCluster

from sqltriage.core.datasets import load_dataset
from sqltriage.core.datasets.predictions import load_predictions
from sqltriage.core.pipeline.cluster import ClusterError
from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
from sqltriage.core.workspace.store import Workspace
from sqltriage.samples import SAMPLE_DIR
from sqltriage.tui.cli import main

# one worker runs the module: its reference run and shared cluster are made once, not per worker
pytestmark = pytest.mark.xdist_group("test_cluster")

MODELS = ("atlas-7b", "beacon-gpt4")
TIMES = 2  # the sample's 67 questions twice: 134 examples in 6 chunks, 268 (example, model) pairs
# The export holds no question features: runs compared by their export leave them out. One second: the
# sample's #37 of atlas-7b runs until the timeout, in every copy and every run (the sample's queries take ms).
QUICK = EvalOptions(timeout=1.0, features=False)
LOOPBACK_ANY_PORT = "127.0.0.1:0"  # the scheduler's HTTP port: two clusters of this module run at once


def two_worker_cluster(**kwargs: Any) -> LocalCluster:
    """A LocalCluster of 2 single-threaded worker processes (as the docs advise), quiet, on a free port."""
    return LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=LOOPBACK_ANY_PORT,
        silence_logs=logging.ERROR,
        **kwargs,
    )


def enlarged_sample(dest: Path, times: int = TIMES) -> Path:
    """The sample with its questions and both models' predictions repeated: enough chunks to interrupt."""
    shutil.copytree(SAMPLE_DIR, dest)
    records = json.loads((dest / "dev.json").read_text())
    (dest / "dev.json").write_text(json.dumps(records * times))
    for model in MODELS:
        pred = dest / "predictions" / f"{model}.sql"
        pred.write_text("\n".join(pred.read_text().splitlines() * times) + "\n")
    return dest


def eval_args(dataset: Path, workspace: Path) -> list[str]:
    preds = [a for m in MODELS for a in ("--pred", f"{m}={dataset / 'predictions' / f'{m}.sql'}")]
    return ["eval", str(dataset), *preds, "--workspace", str(workspace), "--timeout", "1", "--json"]


def export(workspace: Path) -> list[dict[str, str]]:
    out = workspace.with_suffix(".csv")
    assert main(["export", "--workspace", str(workspace), "--out", str(out)]) == 0
    with out.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def query(workspace: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(f"file:{workspace}?mode=ro", uri=True, timeout=5)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def results_count(workspace: Path) -> int:
    try:
        return query(workspace, "SELECT count(*) FROM results")[0][0]
    except sqlite3.Error:
        return 0


def load(dataset: Path) -> tuple:
    ds = load_dataset(dataset)
    return ds, [load_predictions(dataset / "predictions" / f"{m}.sql", ds) for m in MODELS]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return enlarged_sample(tmp_path_factory.mktemp("cluster") / "dataset")


@pytest.fixture(scope="module")
def reference(dataset: Path) -> tuple[Path, list[dict[str, str]]]:
    """The same inputs evaluated by this machine's process pool: what every cluster run must reproduce."""
    workspace = dataset.parent / "local.db"
    ds, preds = load(dataset)
    with Workspace.open(workspace) as ws:
        summary = evaluate(ds, preds, ws, replace(QUICK, jobs=2, pool_min_pairs=0))  # the real pool
    assert summary.computed == 2 * 67 * TIMES
    return workspace, export(workspace)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Client, Path]]:
    """A LocalCluster of 2 single-threaded worker processes, a client to reach them, and the workers' own
    user cache folder (as on worker machines: not the one this process uses)."""
    worker_cache = tmp_path_factory.mktemp("worker-cache")
    with (
        two_worker_cluster(env={"XDG_CACHE_HOME": str(worker_cache)}) as local,
        Client(local) as client,
    ):
        yield local.scheduler_address, client, worker_cache


def test_cluster_export_equals_the_local_export_row_for_row(
    dataset: Path, reference: tuple[Path, list[dict[str, str]]], capsys: pytest.CaptureFixture[str]
) -> None:
    _, local_rows = reference
    workspace = dataset.parent / "cluster.db"
    capsys.readouterr()
    assert main([*eval_args(dataset, workspace), "--cluster", "local:2"]) == 0
    out = capsys.readouterr()
    run = json.loads(out.out)["run"]
    assert run["computed"] == len(local_rows) == 2 * 67 * TIMES and run["reused"] == 0
    assert run["cluster"] == "local:2" and "on the Dask cluster local:2" in out.err
    assert export(workspace) == local_rows


def test_a_worker_killed_mid_run_loses_no_finished_chunk(
    dataset: Path, reference: tuple[Path, list[dict[str, str]]], cluster: tuple[str, Client, Path]
) -> None:
    address, client, _ = cluster
    total = len(reference[1])
    victim = sorted(client.run(os.getpid).values())[0]
    stored_at_kill: list[int] = []
    workspace = dataset.parent / "killed.db"

    def kill_a_worker_midway(stage: str, done: int, total: int) -> None:
        if not stored_at_kill and done >= total // 4:
            stored_at_kill.append(results_count(workspace))
            os.kill(victim, signal.SIGKILL)

    ds, preds = load(dataset)
    with Workspace.open(workspace) as ws:
        summary = evaluate(ds, preds, ws, replace(QUICK, cluster=address), progress=kill_a_worker_midway)
    assert stored_at_kill and 0 < stored_at_kill[0] < total, "the worker was not killed mid-run"
    assert not summary.cancelled and summary.computed == total
    assert victim not in client.run(os.getpid).values()  # it died, and the cluster replaced it
    assert export(workspace) == reference[1]
    assert query(workspace, "PRAGMA integrity_check") == [("ok",)]


def test_a_chunk_that_loses_its_worker_for_good_stops_the_run_which_then_resumes(
    dataset: Path, reference: tuple[Path, list[dict[str, str]]], tmp_path: Path
) -> None:
    """With no retries allowed (Dask's allowed-failures = 0), the chunk on a killed worker is lost: the run
    stops with a message saying so, keeps every chunk it wrote, and the same command then finishes it."""
    total = len(reference[1])
    ds, preds = load(dataset)
    workspace = tmp_path / "stopped.db"
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 0}),
        two_worker_cluster() as local,
        Client(local) as client,
    ):
        victim = sorted(client.run(os.getpid).values())[0]
        options = replace(QUICK, cluster=local.scheduler_address)
        stored_at_kill: list[int] = []

        def kill_a_worker_midway(stage: str, done: int, total: int) -> None:
            if not stored_at_kill and done >= total // 4:
                stored_at_kill.append(done)
                os.kill(victim, signal.SIGKILL)

        with Workspace.open(workspace) as ws:
            with pytest.raises(ClusterError, match="lost with every worker that ran it") as stopped:
                evaluate(ds, preds, ws, options, progress=kill_a_worker_midway)
            assert "every chunk already finished is in the workspace" in str(stopped.value)
            kept = ws.count("results")
            assert stored_at_kill[0] <= kept < total
            resumed = evaluate(ds, preds, ws, options)
            assert resumed.reused == kept and resumed.computed + resumed.reused == total
    assert export(workspace) == reference[1]


def test_a_cancelled_cluster_run_keeps_its_chunks_and_resumes(
    dataset: Path, reference: tuple[Path, list[dict[str, str]]], cluster: tuple[str, Client, Path]
) -> None:
    ds, preds = load(dataset)
    options = replace(QUICK, cluster=cluster[0])
    cancel = threading.Event()

    def cancel_after_first_chunk(stage: str, done: int, total: int) -> None:
        if done > 0:
            cancel.set()

    workspace = dataset.parent / "cancelled.db"
    with Workspace.open(workspace) as ws:
        first = evaluate(ds, preds, ws, options, progress=cancel_after_first_chunk, cancel=cancel)
        assert first.cancelled and 0 < first.computed < len(reference[1])
        kept = ws.count("results")
        assert kept == first.computed  # every chunk that came back was written whole
        second = evaluate(ds, preds, ws, options)
        assert not second.cancelled
        assert second.reused == kept and second.computed + second.reused == len(reference[1])
    assert export(workspace) == reference[1]


def neighbour_files(cache: Path) -> dict[str, tuple[int, str]]:
    """Every file of every neighbour set under `cache`: modification time (a rebuild changes it) and digest.

    The minimal witnesses (`witnesses/`, beside the sets) are not neighbour files: `witness_files` has them.
    """
    return {
        str(f.relative_to(cache)): (f.stat().st_mtime_ns, hashlib.sha256(f.read_bytes()).hexdigest())
        for f in sorted(cache.rglob("*.sqlite"))
        if f.parent.name != "witnesses"
    }


def witness_files(cache: Path) -> dict[str, str]:
    return {
        f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in (cache / "witnesses").glob("*.sqlite")
    }


def test_neighbour_databases_are_built_on_the_workers_once_per_database_and_reused(
    tmp_path: Path, cluster: tuple[str, Client, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    address, _, worker_cache = cluster
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "client-cache"))  # this process's own cache
    sample = tmp_path / "sample"
    shutil.copytree(SAMPLE_DIR, sample)
    ds, preds = load(sample)
    with_ts = replace(QUICK, neighbours=2)
    with Workspace.open(tmp_path / "cluster.db") as ws:
        evaluate(ds, preds, ws, replace(with_ts, cluster=address))
    worker_sets = worker_cache / "sqltriage" / "neighbours"
    built = neighbour_files(worker_sets)
    sets = [p for p in worker_sets.iterdir() if p.is_dir() and p.name != "witnesses"]
    assert len(sets) == len(ds.databases) == 2  # one per database
    assert len(built) == 2 * 2 and not [p for p in worker_sets.iterdir() if p.name.startswith(".")]
    assert not (tmp_path / "client-cache").exists()  # built by the workers, not on this side

    with Workspace.open(
        tmp_path / "again.db"
    ) as ws:  # a second run (one model): the workers reuse their sets
        evaluate(ds, preds[:1], ws, replace(with_ts, cluster=address))
    assert neighbour_files(worker_sets) == built
    with Workspace.open(tmp_path / "local.db") as ws:  # this machine alone builds the same sets for itself
        evaluate(ds, preds, ws, replace(with_ts, jobs=1))
    client_sets = tmp_path / "client-cache" / "sqltriage" / "neighbours"
    assert {name: digest for name, (_, digest) in neighbour_files(client_sets).items()} == {
        name: digest for name, (_, digest) in built.items()
    }
    # the same minimal witnesses, byte for byte, named by their content on either side
    assert witness_files(worker_sets) and witness_files(worker_sets) == witness_files(client_sets)

    cluster_rows = export(tmp_path / "cluster.db")
    assert [r for r in cluster_rows if r["model"] == preds[0].name] == export(tmp_path / "again.db")
    for row in cluster_rows:  # the witness names the neighbour file where the worker built it
        row["ts_witness"] = row["ts_witness"].replace(str(worker_sets), str(client_sets))
    assert cluster_rows == export(tmp_path / "local.db")
    assert {r["ex_ts"] for r in cluster_rows} >= {"0", "1"}
    assert any(r["ts_witness"].startswith(str(client_sets)) for r in cluster_rows)


# --- workers that do not see a database --------------------------------------------------------------


def _can_hide_folders() -> str | None:
    """Why a worker with its own view of the filesystem cannot be started here, or None when it can."""
    if shutil.which("unshare") is None:
        return "`unshare` (util-linux) is not installed"
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"mount namespaces are not permitted here ({probe.stderr.strip()})"
    return None


def _wait_for(path: Path, proc: subprocess.Popen[str], limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while not path.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise AssertionError(f"{proc.args} did not start: {proc.communicate()[1][-2000:]}")
        time.sleep(0.05)


def test_a_database_the_workers_cannot_see_fails_before_any_work(tmp_path: Path) -> None:
    """A scheduler and a worker started with Dask's own commands; the worker's filesystem lacks one
    database folder (an empty tmpfs mounted over it, as when a share is not mounted on that machine)."""
    if reason := _can_hide_folders():
        pytest.skip(reason)
    dataset = tmp_path / "dataset"
    shutil.copytree(SAMPLE_DIR, dataset)
    db_dirs = sorted(p for p in (dataset / "database").iterdir() if p.is_dir())
    assert len(db_dirs) == 2
    hidden = db_dirs[-1]  # the other database is visible: the message must name the missing one
    scheduler_file = tmp_path / "scheduler.json"
    quiet = {**os.environ, "DASK_LOGGING__DISTRIBUTED": "error"}
    scheduler = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "distributed.cli.dask_scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--no-dashboard",
            "--scheduler-file",
            str(scheduler_file),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=quiet,
    )
    worker = None
    try:
        _wait_for(scheduler_file, scheduler)
        address = json.loads(scheduler_file.read_text())["address"]
        worker_cmd = [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1"]
        worker_cmd += ["--host", "127.0.0.1", "--no-dashboard", "--no-nanny"]
        script = f'mount -t tmpfs tmpfs "{hidden}" && exec "$@"'
        worker = subprocess.Popen(
            ["unshare", "-rm", "sh", "-c", script, "sh", *worker_cmd],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=quiet,
        )
        workspace = tmp_path / "w.db"
        preds = [a for m in MODELS for a in ("--pred", f"{m}={dataset / 'predictions' / f'{m}.sql'}")]
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "sqltriage.tui.cli",
                "eval",
                str(dataset),
                *preds,
                "--workspace",
                str(workspace),
                "--cluster",
                address,
            ],
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert proc.returncode == 2, proc.stderr[-2000:]
        missing = hidden / f"{hidden.name}.sqlite"
        assert f"{missing}: database not found" in proc.stderr
        assert "nothing was evaluated" in proc.stderr and "shared filesystem" in proc.stderr
        assert results_count(workspace) == 0
        assert worker.poll() is None, "the worker died instead of answering"
    finally:
        for p in (worker, scheduler):
            if p is not None and p.poll() is None:
                p.terminate()
                p.communicate(timeout=30)


# --- Dask is optional ----------------------------------------------------------------------------------


def _sample_eval(workspace: Path, *extra: str) -> list[str]:
    preds = [a for m in MODELS for a in ("--pred", f"{m}={SAMPLE_DIR / 'predictions' / f'{m}.sql'}")]
    return ["eval", str(SAMPLE_DIR), *preds, "--workspace", str(workspace), *extra]


def test_without_dask_cluster_says_how_to_install_it_and_nothing_else_needs_it(tmp_path: Path) -> None:
    code = (
        "import importlib, pkgutil, sys\n"
        "sys.modules['distributed'] = None  # as if the cluster extra were not installed\n"
        "sys.modules['dask'] = None\n"
        "import sqltriage.core, sqltriage.tui.commands\n"
        "for pkg in (sqltriage.core, sqltriage.tui.commands):\n"
        "    for m in pkgutil.walk_packages(pkg.__path__, prefix=pkg.__name__ + '.'):\n"
        "        importlib.import_module(m.name)\n"
        "from sqltriage.tui.cli import main\n"
        "print('cluster', main(sys.argv[1:]), flush=True)\n"
    )
    args = _sample_eval(tmp_path / "w.db", "--cluster", "local:2")
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120)
    assert "cluster 2" in out.stdout, out.stderr[-2000:]  # every module imported, then a usage error
    assert "--cluster needs Dask's `distributed` package" in out.stderr
    assert 'pip install "sqltriage[cluster]"' in out.stderr
    assert not (tmp_path / "w.db").exists()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--cluster", "scheduler"], "not a Dask scheduler address"),
        (["--cluster", "local:0"], "local:N needs a number of worker processes N ≥ 1"),
        (["--cluster", "local:2", "--jobs", "2"], "--jobs and --cluster do not go together"),
    ],
)
def test_bad_cluster_arguments_are_usage_errors(
    tmp_path: Path, extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_sample_eval(tmp_path / "w.db", *extra)) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "w.db").exists()


def test_the_command_line_starts_local_n_early_and_leaves_no_worker_behind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import multiprocessing

    from sqltriage.core.pipeline import cluster

    others = set(multiprocessing.active_children())  # the workers of this module's other clusters

    def stopped() -> bool:
        for thread in threading.enumerate():
            if thread.name.startswith("sqltriage-cluster-"):
                thread.join(timeout=30)
        return not cluster._prestarted and not set(multiprocessing.active_children()) - others

    workspace = tmp_path / "w.db"
    assert main(_sample_eval(workspace, "--cluster", "local:1", "--timeout", "1", "--json")) == 0
    run = json.loads(capsys.readouterr().out)["run"]
    assert (run["computed"], run["workers"]) == (67 * len(MODELS), "Dask cluster local:1")
    assert stopped()
    # an input error after the cluster was started: a usage error, and the started cluster is stopped
    broken = _sample_eval(tmp_path / "b.db", "--cluster", "local:1")
    broken[broken.index(f"{MODELS[0]}={SAMPLE_DIR / 'predictions' / f'{MODELS[0]}.sql'}")] = "x=missing.sql"
    assert main(broken) == 2
    assert "missing.sql" in capsys.readouterr().err
    assert stopped()
