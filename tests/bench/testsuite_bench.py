"""Neighbour databases and `ex_ts` on Spider dev: build cost, eval cost with K neighbours, the EX − TS gap,
and the coverage of the golds (share with a non-empty, non-trivial result on some neighbour).

The cost is measured in CPU seconds (user + system of each eval process and the workers it waited for), not
wall time: on a shared 2-core machine wall time follows other people's load. The target figure is the cold
run (the witness store emptied first, so every refutation is shrunk); the warm run (the witness index of the
run before) is printed beside it and must give the same rows.

The gap is compared with the published EX and test-suite accuracies (official distilled suites, 1034 rows)
of the systems that have them; ours counts over the same 1034 rows ((EX passes − TS passes) / 1034).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

from tests.bench.eval_bench import eval_cmd
from tests.bench.harness import PYTHON, SPIDER_DEV, Figure, run_process, spider_predictions

K = 10
SEED = 0
# published (EX, TS) on Spider dev, in points
PUBLISHED = {
    "dinsql_gpt4": (82.8, 74.2),
    "dailsql_gpt4": (83.1, 76.6),
    "c3sql_gpt35": (81.8, 71.4),
    "chatgpt_zeroshot_liu2023": (70.1, 60.1),
    "graphix_t5_daildir": (81.0, 75.0),
}
GAP_TOLERANCE = 1.5  # points, mean absolute difference from the published gaps
GAP_FLOOR = 1.0  # points: our gap may fall short of a published one by at most this much
COVERAGE_GOAL = 0.95


def _eval(workspace: Path, preds: list[Path], k: int, seed: int) -> tuple[float, float]:
    """(seconds inside evaluate(), CPU seconds of the whole eval process tree: user + system, workers included)."""
    run = run_process([*eval_cmd(workspace, preds), "--neighbours", str(k), "--seed", str(seed)])
    return float(json.loads(run.stdout)["run"]["elapsed"]), run.cpu


def _forget_witnesses(cache: Path) -> None:
    """Empty the witness store (files and index): the next eval shrinks every refutation, as a first run does."""
    shutil.rmtree(cache / "sqltriage" / "neighbours" / "witnesses", ignore_errors=True)


def gaps(workspace: Path, n_rows: int) -> dict[str, tuple[float, int]]:
    """Per model: (EX − TS in points over all rows, rows where ex_ts > ex_spider — must be 0)."""
    conn = sqlite3.connect(f"file:{workspace}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT model, sum(ex_spider = 1), sum(ex_ts = 1), sum(coalesce(ex_ts, 0) > coalesce(ex_spider, 0)) "
            "FROM results GROUP BY model ORDER BY model"
        ).fetchall()
    finally:
        conn.close()
    return {m: ((ex - ts) * 100 / n_rows, bad) for m, ex, ts, bad in rows}


def run(tmp: Path, runs: int = 1, k: int = K, seed: int = SEED) -> list[Figure]:
    cache = tmp / "cache"
    os.environ["XDG_CACHE_HOME"] = str(cache)  # a cold neighbour cache of this run's own
    preds = spider_predictions()
    n_rows = len(json.loads((SPIDER_DEV / "dev.json").read_text()))
    build = Figure(
        "TS",
        f"build neighbours, 19 Spider dev dbs, K={k} (cold, wall)",
        "s",
        target=120,
        target_text="<= 120 s",
    )
    built = run_process(
        [
            PYTHON,
            "-m",
            "sqltriage.tui.cli",
            "neighbours",
            str(SPIDER_DEV),
            "-K",
            str(k),
            "--seed",
            str(seed),
            "--json",
        ]
    )
    build.samples.append(built.wall)
    summary = json.loads(built.stdout)["coverage"]
    cover = Figure(
        "TS",
        "golds covered (non-trivial result on some neighbour) / golds that can return rows",
        "share",
        target=COVERAGE_GOAL,
        target_text=f">= {COVERAGE_GOAL}",
        higher_is_better=True,
    )
    cover.samples.append(summary["share"])
    cover.note = (
        f"{summary['covered']} of {summary['can_return_rows']} distinct golds ({summary['golds']} in all)"
    )
    plain = Figure("TS", "cold eval 8 systems, no neighbours: CPU of the eval process tree", "s")
    with_ts = Figure("TS", f"eval 8 systems, K={k}, witness store empty (cold): CPU", "s")
    warm = Figure("TS", f"eval 8 systems, K={k}, witnesses stored by the run before (warm): CPU", "s")
    plain_wall = Figure("TS", "  plain eval: evaluate() wall", "s")
    ts_wall = Figure("TS", f"  K={k} cold: evaluate() wall", "s")
    ratio = Figure(
        "TS",
        f"CPU, eval with K={k} (cold witness store) / plain eval (same round; minimal witnesses included)",
        "x",
        target=2.5,
        target_text="<= 2.5x",
    )
    warm_ratio = Figure("TS", f"CPU, eval with K={k} (warm witness store) / plain eval (same round)", "x")
    for i in range(runs):  # alternated, so that a change of load hits both about equally
        wall, cpu = _eval(tmp / f"plain{i}.db", preds, 0, seed)
        plain.samples.append(cpu)
        plain_wall.samples.append(wall)
        _forget_witnesses(cache)
        wall, cpu = _eval(tmp / f"ts{i}.db", preds, k, seed)
        with_ts.samples.append(cpu)
        ts_wall.samples.append(wall)
        ratio.samples.append(cpu / plain.samples[-1])
        _, cpu = _eval(tmp / f"warm{i}.db", preds, k, seed)
        warm.samples.append(cpu)
        warm_ratio.samples.append(cpu / plain.samples[-1])
    figures = [build, cover, plain, with_ts, warm, plain_wall, ts_wall, ratio, warm_ratio]
    diffs = []
    short = 0
    violations = 0
    for model, (gap, bad) in gaps(tmp / "ts0.db", n_rows).items():
        violations += bad
        f = Figure("TS", f"EX − TS gap, {model}", "pt")
        f.samples.append(gap)
        if model in PUBLISHED:
            ex, ts = PUBLISHED[model]
            f.note = f"published {ex - ts:.1f} (EX {ex} / TS {ts}); difference {gap - (ex - ts):+.2f}"
            diffs.append(abs(gap - (ex - ts)))
            short += gap < ex - ts - GAP_FLOOR
        figures.append(f)
    mean = Figure(
        "TS", "mean |gap − published gap|", "pt", target=GAP_TOLERANCE, target_text=f"<= {GAP_TOLERANCE}"
    )
    mean.samples.append(sum(diffs) / len(diffs))
    rows = Figure("TS", "rows with ex_ts > ex_spider", "rows", target=0, target_text="0")
    rows.samples.append(violations)
    floor = Figure(
        "TS", f"published systems whose gap falls short of the published one by > {GAP_FLOOR} pt", "systems"
    )
    floor.target, floor.target_text = 0, "0"
    floor.samples.append(short)
    figures += [mean, floor, rows, *witness_figures(tmp / "ts0.db")]
    if runs > 1:
        same = Figure(
            "TS", "rows whose ex_ts or witness differ between two runs", "rows", target=0, target_text="0"
        )
        same.samples.append(_differences(tmp / "ts0.db", tmp / "ts1.db"))
        figures.append(same)
    stored = Figure(
        "TS", "rows whose ex_ts or witness differ between the cold run and the warm one", "rows", target=0
    )
    stored.target_text = "0"
    stored.samples.append(_differences(tmp / "ts0.db", tmp / "warm0.db"))
    figures.append(stored)
    return figures


def witness_figures(workspace: Path) -> list[Figure]:
    """Rows in all the tables of each refuted pass's minimal witness: median, 95th percentile, largest."""
    conn = sqlite3.connect(f"file:{workspace}?mode=ro", uri=True)
    try:
        sizes = [
            float(n)
            for (n,) in conn.execute("SELECT ts_witness_rows FROM results WHERE ex_spider = 1 AND ex_ts = 0")
        ]
    finally:
        conn.close()
    out = []
    for stat, target in (("median", 6.0), ("p95", 20.0), ("max", None)):
        f = Figure(
            "TS",
            f"witness rows, {stat} over the {len(sizes)} refuted passes",
            "rows",
            samples=list(sizes),
            target=target,
            target_text=f"<= {target:g}" if target is not None else "",
            stat=stat,
        )
        out.append(f)
    return out


def _differences(a: Path, b: Path) -> int:
    """Rows (model, example) whose ex_ts (any mode), ts_databases or witness differ between two workspaces."""
    conn = sqlite3.connect(f"file:{a}?mode=ro", uri=True)
    try:
        conn.execute(f"ATTACH DATABASE 'file:{b}?mode=ro' AS other")
        return conn.execute(
            "SELECT count(*) FROM results r JOIN other.results o USING (model, idx) "
            "WHERE r.ex_ts IS NOT o.ex_ts OR r.ts_databases IS NOT o.ts_databases "
            "OR r.ts_witness IS NOT o.ts_witness OR r.ts_witness_rows IS NOT o.ts_witness_rows "
            "OR r.ex_ts_bird IS NOT o.ex_ts_bird OR r.ex_ts_archer IS NOT o.ex_ts_archer"
        ).fetchone()[0]
    finally:
        conn.close()
