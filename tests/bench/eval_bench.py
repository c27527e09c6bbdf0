"""Benchmarks (1), (2), (3) and the eval half of (7): the `sqltriage eval` command on Spider dev.

Every eval figure is a fresh process running the real command line, so imports, loading, the process
pool, the workspace writes and the report are all in the time a user waits.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
from pathlib import Path

from tests.bench import floor
from tests.bench.harness import PYTHON, SPIDER_DEV, Figure, pred_args, run_process, spider_predictions


def eval_cmd(workspace: Path, preds: list[Path]) -> list[str]:
    return [
        PYTHON,
        "-m",
        "sqltriage.tui.cli",
        "eval",
        str(SPIDER_DEV),
        *pred_args(preds),
        "--workspace",
        str(workspace),
        "--json",
    ]


def _eval(workspace: Path, preds: list[Path]) -> tuple[float, float, float]:
    """(wall seconds, seconds inside evaluate(), peak MB of the process tree)."""
    run = run_process(eval_cmd(workspace, preds))
    return run.wall, float(json.loads(run.stdout)["run"]["elapsed"]), run.peak_mb


def edited_copy(src: Path, dest_dir: Path) -> Path:
    """The same predictions with the first line replaced, as after a model was re-run on one example."""
    lines = src.read_text(encoding="utf-8").splitlines()
    lines[0] = "SELECT count(*) FROM singer"
    out = dest_dir / src.name
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def run(runs: int, tmp: Path) -> tuple[list[Figure], Path]:
    """The eval figures, and a workspace holding every 8-system result (for the app benchmarks)."""
    preds = spider_predictions()
    one, eight = preds[:1], preds
    cores = os.cpu_count() or 1

    f1_wall = Figure("1", "cold eval, 1 system (wall)", "s", target=6.0, target_text="<= 6 s")
    f1_eval = Figure("1", "  of which evaluate()", "s")
    f8_wall = Figure("1", "cold eval, 8 systems (wall)", "s", target=20.0, target_text="<= 20 s")
    f8_eval = Figure("1", "  of which evaluate()", "s")
    f8_nofeat = Figure("1", "cold eval, 8 systems: evaluate() alone", "s")
    mem_eval = Figure(
        "7", "peak RSS, cold eval 8 systems", "MB", target=600, target_text="<= 600 MB", stat="max"
    )
    mem_eval1 = Figure(
        "7", "peak RSS, cold eval 1 system", "MB", target=600, target_text="<= 600 MB", stat="max"
    )
    warm_wall = Figure("3", "warm eval, 8 systems (wall)", "s", target=1.0, target_text="<= 1 s")
    warm_eval = Figure("3", "  of which evaluate()", "s")
    changed_wall = Figure("3", "eval after 1 model changed (wall)", "s")
    changed_eval = Figure("3", "  of which evaluate()", "s")

    cached = tmp / "spider8.sqltriage.db"
    for i in range(runs):
        ws1 = tmp / f"cold1-{i}.db"
        wall, ev, mb = _eval(ws1, one)
        f1_wall.samples.append(wall)
        f1_eval.samples.append(ev)
        mem_eval1.samples.append(mb)
        ws1.unlink()

        ws8 = tmp / f"cold8-{i}.db"
        wall, ev, mb = _eval(ws8, eight)
        f8_wall.samples.append(wall)
        f8_eval.samples.append(ev)
        mem_eval.samples.append(mb)
        shutil.move(ws8, cached)

        # Results cold, evaluate() alone in a fresh process: what the floor is compared with.
        nofeat = tmp / f"nofeat-{i}.db"
        probe = run_process(
            [
                PYTHON,
                "-m",
                "tests.bench.probe_eval",
                str(nofeat),
                "--dataset",
                str(SPIDER_DEV),
                "--features",
                "0",
                *pred_args(eight),
            ]
        )
        f8_nofeat.samples.append(float(json.loads(probe.stdout)["evaluate"]))
        nofeat.unlink()

        wall, ev, _ = _eval(cached, eight)
        warm_wall.samples.append(wall)
        warm_eval.samples.append(ev)

        changed_ws = tmp / f"changed-{i}.db"
        shutil.copy(cached, changed_ws)
        edit_dir = tmp / f"edited-{i}"
        edit_dir.mkdir()
        edited = edited_copy(eight[0], edit_dir)
        wall, ev, _ = _eval(changed_ws, [edited, *eight[1:]])
        changed_wall.samples.append(wall)
        changed_eval.samples.append(ev)
        changed_ws.unlink()

    limit = statistics.median(f8_wall.samples) / 6
    changed_wall.target = limit
    changed_wall.target_text = f"<= {limit:.2f} s (1/6 cold)"

    fl_sqlite = Figure("2", "floor: SQLite, distinct queries once (1 core)", "s")
    fl_parse = Figure("2", "floor: sqlglot parse, distinct texts once (1 core)", "s")
    fl_total = Figure("2", f"floor: both, spread over {cores} cores", "s")
    counts = ""
    for _ in range(runs):
        fl = floor.measure(SPIDER_DEV, eight)
        fl_sqlite.samples.append(fl.sqlite_s)
        fl_parse.samples.append(fl.parse_s)
        fl_total.samples.append((fl.sqlite_s + fl.parse_s) / cores)
        counts = f"{fl.queries} queries, {fl.texts} texts"
    fl_sqlite.note = counts
    ratio = Figure("1/2", "cold eval (evaluate() alone) / floor", "x", target=2.0, target_text="<= 2x")
    ratio.samples = [statistics.median(f8_nofeat.samples) / statistics.median(fl_total.samples)]
    ratio.note = "evaluate() vs the floor spread over the cores"

    figures = [
        f1_wall,
        f1_eval,
        f8_wall,
        f8_eval,
        f8_nofeat,
        fl_sqlite,
        fl_parse,
        fl_total,
        ratio,
        warm_wall,
        warm_eval,
        changed_wall,
        changed_eval,
        mem_eval1,
        mem_eval,
    ]
    return figures, cached
