"""`python -m tests.bench cluster`: the cost of the Dask engine on one machine.

Spider dev × 8 systems evaluated cold by the real command line, alternately with the default process
pool, with `--cluster local:2` (a LocalCluster of 2 single-threaded worker processes started by the
command), and with `--cluster tcp://...` pointing at a LocalCluster of 2 workers started once for the
whole benchmark (a standing cluster, as `dask scheduler` and `dask worker` give), on the same machine.
The local:2 / pool ratio of wall times is the engine's overhead: starting the cluster, scattering the
run's inputs, sending chunks and results through the scheduler, stopping the cluster.
"""

from __future__ import annotations

import argparse
import json
import logging
import platform
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.bench.eval_bench import eval_cmd
from tests.bench.harness import SPIDER_DEV, Figure, load_average, run_process, spider_predictions, table

OVERHEAD_TARGET = 1.30  # the cluster run may take at most 30% longer than the local pool


def run(runs: int, tmp: Path) -> list[Figure]:
    preds = spider_predictions()
    pool_wall = Figure("C", "cold eval, 8 systems, default pool (wall)", "s")
    pool_eval = Figure("C", "  of which evaluate()", "s")
    pool_cpu = Figure("C", "  CPU of the whole process tree", "s")
    cluster_wall = Figure("C", "cold eval, 8 systems, --cluster local:2 (wall)", "s")
    cluster_eval = Figure("C", "  of which evaluate()", "s")
    cluster_cpu = Figure("C", "  CPU of the whole process tree", "s")
    running_wall = Figure("C", "cold eval, 8 systems, --cluster tcp:// running (wall)", "s")
    running_eval = Figure("C", "  of which evaluate()", "s")
    with _running_cluster() as address:
        sides = (
            ("pool", [], pool_wall, pool_eval, pool_cpu),
            ("cluster", ["--cluster", "local:2"], cluster_wall, cluster_eval, cluster_cpu),
            ("running", ["--cluster", address], running_wall, running_eval, None),
        )
        for i in range(runs):  # alternated, so a change in the machine's load hits every side alike
            for name, extra, wall, inside, cpu in sides:
                workspace = tmp / f"{name}-{i}.db"
                before = _children_cpu()
                done = run_process([*eval_cmd(workspace, preds), *extra])
                if cpu is not None:  # a running cluster's workers are not children that finished
                    cpu.samples.append(_children_cpu() - before)
                wall.samples.append(done.wall)
                inside.samples.append(float(json.loads(done.stdout)["run"]["elapsed"]))
                workspace.unlink()
    ratio = Figure(
        "C",
        "cluster local:2 / default pool (wall)",
        "x",
        target=OVERHEAD_TARGET,
        target_text=f"<= {OVERHEAD_TARGET:.2f}x",
    )
    ratio.samples = _ratios(cluster_wall, pool_wall)
    ratio.note = f"median of per-pair ratios; evaluate() alone {_median_ratio(cluster_eval, pool_eval):.2f}x"
    cpu_ratio = Figure("C", "cluster local:2 / default pool (CPU)", "x")
    cpu_ratio.samples = _ratios(cluster_cpu, pool_cpu)
    cpu_ratio.note = "the engine's own work, whatever else the machine is doing"
    running_ratio = Figure("C", "running cluster / default pool (wall)", "x")
    running_ratio.samples = _ratios(running_wall, pool_wall)
    running_ratio.note = "a cluster started once (2 workers, as dask worker would), no start-up in the run"
    return [
        pool_wall,
        pool_eval,
        pool_cpu,
        cluster_wall,
        cluster_eval,
        cluster_cpu,
        running_wall,
        running_eval,
        ratio,
        cpu_ratio,
        running_ratio,
    ]


@contextmanager
def _running_cluster() -> Iterator[str]:
    """A LocalCluster of 2 single-threaded worker processes kept running across runs, as a standing cluster."""
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address="127.0.0.1:0",
            silence_logs=logging.ERROR,
        ) as local,
        Client(local),
    ):
        yield local.scheduler_address


def _ratios(a: Figure, b: Figure) -> list[float]:
    return [x / y for x, y in zip(a.samples, b.samples, strict=True)]


def _median_ratio(a: Figure, b: Figure) -> float:
    return statistics.median(_ratios(a, b))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench cluster", description=__doc__)
    parser.add_argument("--runs", type=int, default=3, help="runs of each side (default 3)")
    args = parser.parse_args(argv)
    if not (SPIDER_DEV / "dev.json").exists():
        print(f"Spider dev not found at {SPIDER_DEV}: set SQLTRIAGE_SHARED_DATA", file=sys.stderr)
        return 2
    started, load_before = time.perf_counter(), load_average()
    with tempfile.TemporaryDirectory(prefix="sqltriage-bench-cluster-") as tmp:
        figures = run(args.runs, Path(tmp))
    print(
        f"sqltriage cluster benchmark — {platform.python_version()}, load before {load_before}, "
        f"after {load_average()}; {time.perf_counter() - started:.0f} s in all"
    )
    print(table(figures))
    return 0


def _children_cpu() -> float:
    """User + system seconds of every finished child process and the descendants it waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
