"""`python -m tests.bench findings`: slices, compare and report on the 42-system workspace (43k rows).

The 42 systems are Spider dev's 8 public systems' evaluated rows copied under new names (`name#k`)
inside the workspace file, so that building it costs one evaluation of the 8, not 42. Each figure is
the wall time of the real command in a fresh interpreter (imports included), median of --runs.
Options: `--runs N` (default 3), `--workspace FILE` (an evaluated Spider dev × 8 workspace to start from).
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import sys
import tempfile
from pathlib import Path

from tests.bench.harness import (
    PYTHON,
    SPIDER_DEV,
    Figure,
    load_average,
    run_process,
    spider_predictions,
    table,
)

SYSTEMS = 42


def replicate(source: Path, target: Path, systems: int = SYSTEMS) -> int:
    """A copy of an evaluated workspace with its models' rows repeated under new names up to `systems`."""
    shutil.copyfile(source, target)
    db = sqlite3.connect(target)
    try:
        models = [r[0] for r in db.execute("SELECT name FROM models ORDER BY position")]
        result_cols = [r[1] for r in db.execute("PRAGMA table_info(results)")]
        model_cols = [r[1] for r in db.execute("PRAGMA table_info(models)")]
        with db:
            for k in range(len(models), systems):
                base, new = models[k % len(models)], f"{models[k % len(models)]}#{k // len(models)}"
                picks = ", ".join("?" if c in ("name", "position") else f"[{c}]" for c in model_cols)
                params = [new if c == "name" else k for c in model_cols if c in ("name", "position")]
                db.execute(f"INSERT INTO models SELECT {picks} FROM models WHERE name = ?", [*params, base])
                picks = ", ".join("?" if c == "model" else f"[{c}]" for c in result_cols)
                db.execute(f"INSERT INTO results SELECT {picks} FROM results WHERE model = ?", [new, base])
        return int(db.execute("SELECT count(*) FROM results").fetchone()[0])
    finally:
        db.close()


def _cli(*args: str) -> list[str]:
    return [PYTHON, "-m", "sqltriage.tui.cli", *args]


def run(runs: int, folder: Path, source: Path | None) -> list[Figure]:
    if source is None:
        from tests.bench.eval_bench import eval_cmd

        source = folder / "spider8.sqltriage.db"
        print("evaluating Spider dev × 8…", file=sys.stderr)
        run_process(eval_cmd(source, spider_predictions()))
    ws = folder / "spider42.sqltriage.db"
    rows = replicate(source, ws)
    models = [p.stem for p in spider_predictions()]
    w = str(ws)
    slices_all = Figure("F1", f"slices, every model ({rows:,} rows)", "s", target=2.0, target_text="< 2 s")
    slices_one = Figure("F2", "slices --model (one of 42)", "s", target=2.0, target_text="< 2 s")
    comp = Figure("F3", "compare A B (42-system workspace)", "s", target=2.0, target_text="< 2 s")
    rep42 = Figure("F4", f"report, {SYSTEMS} systems", "s", target=20.0, target_text="< 20 s")
    rep8 = Figure("F5", "report, Spider dev × 8", "s", target=20.0, target_text="< 20 s")
    size8 = Figure("F6", "report size, Spider dev × 8", "MB", target=5.0, target_text="< 5 MB")
    size42 = Figure("F7", f"report size, {SYSTEMS} systems", "MB")
    cpu: dict[str, list[float]] = {}

    def timed(figure: Figure, args: list[str]) -> None:
        done = run_process(args)
        figure.samples.append(done.wall)
        cpu.setdefault(figure.number, []).append(done.cpu)

    for _ in range(runs):
        timed(slices_all, _cli("slices", "--workspace", w, "--json"))
        timed(slices_one, _cli("slices", "--workspace", w, "--model", models[0], "--json"))
        timed(comp, _cli("compare", models[0], models[2], "--workspace", w, "--json"))
    for _ in range(runs):
        out = folder / "report42.html"
        timed(rep42, _cli("report", "--workspace", w, "--out", str(out)))
        size42.samples.append(out.stat().st_size / 1e6)
        out = folder / "report8.html"
        timed(rep8, _cli("report", "--workspace", str(source), "--out", str(out)))
        size8.samples.append(out.stat().st_size / 1e6)
    figures = [slices_all, slices_one, comp, rep42, rep8, size8, size42]
    for f in figures:
        if f.number in cpu:
            f.note = f"CPU {statistics.median(cpu[f.number]):.2f} s (user + system)"
    return figures


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench findings", description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workspace", help="an evaluated Spider dev × 8 workspace (else one is built)")
    args = parser.parse_args(argv)
    if args.workspace is None and not (SPIDER_DEV / "dev.json").exists():
        print(f"Spider dev not found at {SPIDER_DEV}: set SQLTRIAGE_SHARED_DATA", file=sys.stderr)
        return 2
    before = load_average()
    with tempfile.TemporaryDirectory(prefix="sqltriage-findings-") as tmp:
        figures = run(args.runs, Path(tmp), Path(args.workspace) if args.workspace else None)
    print(f"findings benchmarks — load before {before}, after {load_average()}")
    print(table(figures))
    return 0
