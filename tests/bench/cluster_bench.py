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
    for i in range(runs):  # alternated, so a change in the machine's load hits both sides alike
        for name, extra, wall, inside in (
            ("pool", [], pool_wall, pool_eval),
            ("cluster", ["--cluster", "local:2"], cluster_wall, cluster_eval),
        ):
            workspace = tmp / f"{name}-{i}.db"
            done = run_process([*eval_cmd(workspace, preds), *extra])
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
    return [pool_wall, pool_eval, cluster_wall, cluster_eval, ratio]


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
