"""`python -m tests.bench cluster`: the cost of the Dask engine on one machine.

Spider dev × 8 systems evaluated cold by the real command line, alternately with the default process
pool and with `--cluster local:2` (a LocalCluster of 2 single-threaded worker processes started by the
command), on the same machine. The ratio of the wall times is the engine's overhead: starting the
cluster, scattering the run's inputs, sending chunks and results through the scheduler.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tests.bench.eval_bench import eval_cmd
from tests.bench.harness import SPIDER_DEV, Figure, load_average, run_process, spider_predictions, table

OVERHEAD_TARGET = 1.30  # the cluster run may take at most 30% longer than the local pool


def run(runs: int, tmp: Path) -> list[Figure]:
    preds = spider_predictions()
    pool_wall = Figure("C", "cold eval, 8 systems, default pool (wall)", "s")
    pool_eval = Figure("C", "  of which evaluate()", "s")
    cluster_wall = Figure("C", "cold eval, 8 systems, --cluster local:2 (wall)", "s")
    cluster_eval = Figure("C", "  of which evaluate()", "s")
    pool_cpu = Figure("C", "  CPU of the whole process tree", "s")
    cluster_cpu = Figure("C", "  CPU of the whole process tree", "s")
    for i in range(runs):  # alternated, so a change in the machine's load hits both sides alike
        for name, extra, wall, inside, cpu in (
            ("pool", [], pool_wall, pool_eval, pool_cpu),
            ("cluster", ["--cluster", "local:2"], cluster_wall, cluster_eval, cluster_cpu),
        ):
            workspace = tmp / f"{name}-{i}.db"
            before = _children_cpu()
            done = run_process([*eval_cmd(workspace, preds), *extra])
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
    ratio.samples = [c / p for c, p in zip(cluster_wall.samples, pool_wall.samples, strict=True)]
    ratio.note = f"median of per-pair ratios; evaluate() alone {_median_ratio(cluster_eval, pool_eval):.2f}x"
    cpu_ratio = Figure("C", "cluster local:2 / default pool (CPU)", "x")
    cpu_ratio.samples = [c / p for c, p in zip(cluster_cpu.samples, pool_cpu.samples, strict=True)]
    cpu_ratio.note = "the engine's own work, whatever else the machine is doing"
    return [pool_wall, pool_eval, pool_cpu, cluster_wall, cluster_eval, cluster_cpu, ratio, cpu_ratio]


def _children_cpu() -> float:
    """User + system seconds of every finished child process and the descendants it waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _median_ratio(a: Figure, b: Figure) -> float:
    return statistics.median(x / y for x, y in zip(a.samples, b.samples, strict=True))


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
