"""Calibrate the solver's budget (core/verdicts/verify/budget.py) against CPU seconds on this machine.

Runs `--verify` over Spider dev × 8 in this process (one worker, so every question is seen here) and reads
what each question cost: z3's resource units against the CPU of the solver call, and the encoder's steps
against the CPU of the encoding. Prints the median rates (with quartiles) and the constants in force. Run
it on a quiet machine: `python -m tests.bench verify-calibrate`.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.bench.harness import SPIDER_DEV, spider_predictions


def measure() -> dict[str, Any]:
    from sqltriage.core.datasets import load_dataset
    from sqltriage.core.datasets.predictions import load_predictions
    from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
    from sqltriage.core.verdicts.verify import budget
    from sqltriage.core.workspace.store import Workspace

    dataset = load_dataset(SPIDER_DEV / "dev.json")
    sets = [load_predictions(f, dataset, name=f.stem) for f in spider_predictions()]
    budget.measured = []
    started = time.process_time()
    with tempfile.TemporaryDirectory() as tmp, Workspace.open(Path(tmp) / "w.db") as ws:
        evaluate(dataset, sets, ws, EvalOptions(jobs=1, features=False, verify=True))
        verdicts = dict(
            ws.db.execute(
                "SELECT coalesce(equivalence, '-') || coalesce(': ' || equivalence_note, ''), count(*) "
                "FROM results WHERE equivalence IS NOT NULL GROUP BY 1 ORDER BY 2 DESC"
            ).fetchall()
        )
    cpu = time.process_time() - started
    seen, budget.measured = budget.measured, None
    # Questions of some weight only: a call of a few units is mostly the cost of setting it up.
    solves = [(u, s) for k, u, s in seen if k == "solve" and s >= 0.005 and u > 0]
    encodes = [(n, s) for k, n, s in seen if k == "encode" and n >= 20]
    unit_rates = sorted(u / s for u, s in solves)
    step_costs = sorted(s / n for n, s in encodes)
    q = statistics.quantiles
    return {
        "verdicts": verdicts,
        "cpu": cpu,
        "solves": len(solves),
        "encodes": len(encodes),
        "units_per_second": statistics.median(unit_rates),
        "units_q1": q(unit_rates, n=4)[0],
        "units_q3": q(unit_rates, n=4)[2],
        "seconds_per_step": statistics.median(step_costs),
        "step_q1": q(step_costs, n=4)[0],
        "step_q3": q(step_costs, n=4)[2],
        "units_total": sum(u for u, _ in solves),
        "solve_cpu_total": sum(s for _, s in solves),
    }


def main(argv: list[str]) -> int:
    from sqltriage.core.verdicts.verify import budget

    argparse.ArgumentParser(prog="python -m tests.bench verify-calibrate", description=__doc__).parse_args(
        argv
    )
    m = measure()
    pooled = m["units_total"] / m["solve_cpu_total"]
    step_units = m["seconds_per_step"] * budget.UNITS_PER_SECOND
    print(f"run CPU {m['cpu']:.1f} s; {m['solves']} solver calls of 5 ms or more, {m['encodes']} encodings")
    print(
        f"z3 units per CPU second: median {m['units_per_second']:,.0f} "
        f"(quartiles {m['units_q1']:,.0f} – {m['units_q3']:,.0f}), pooled {pooled:,.0f}; "
        f"in force {budget.UNITS_PER_SECOND:,}"
    )
    print(
        f"encoder CPU per step: median {m['seconds_per_step'] * 1e6:.1f} µs "
        f"(quartiles {m['step_q1'] * 1e6:.1f} – {m['step_q3'] * 1e6:.1f}), "
        f"that is {step_units:,.0f} units at the rate in force; in force {budget.UNITS_PER_STEP:,}"
    )
    for verdict, rows in m["verdicts"].items():
        print(f"{rows:6d}  {verdict}")
    return 0
