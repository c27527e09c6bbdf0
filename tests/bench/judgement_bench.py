"""`python -m tests.bench judgement`: what the judgement, the lints and the assumptions cost.

Spider dev × 8 systems evaluated in-process (jobs=1, question features off) with `--neighbours 10 --verify`
and a fresh cache folder; the CPU spent in the judgement's parts (a row's assumption, realistic witnesses,
differences and digests; the lints of gold and prediction; the judgement of whole examples) is counted
apart, as a share of the whole evaluation. Target: at most 15 %. The rows of the one database without its
file, run on databases generated from the schema, are counted apart and printed on their own. Options:
`--runs N` (default 1).
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.bench.harness import SPIDER_DEV, load_average, spider_predictions

COST_TARGET = 0.15
APART = "schema_columns"
by_part: dict[str, float] = {}  # CPU seconds per part, over every run
# (module, function) of every part of the judgement's work an evaluation calls; a part that is not there
# (an older tree) is left out of the count
PARTS = (
    ("sqltriage.core.pipeline.pair", "_judgement_inputs"),
    ("sqltriage.core.pipeline.pair", "_lints"),
    ("sqltriage.core.pipeline.judging", "judge_examples"),
    # counted apart: the rows of the one database without its file run on databases generated from the
    # schema, the counterpart of ex_ts's neighbours for them, not the judgement's reading of the verdicts
    ("sqltriage.core.verdicts.judgement.schema_only", "schema_columns"),
)


def _cost() -> tuple[float, float, int]:
    """(evaluate() CPU seconds, of which in the judgement's parts, pairs)."""
    from sqltriage.core.datasets import load_dataset
    from sqltriage.core.datasets.predictions import load_predictions
    from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
    from sqltriage.core.workspace.store import Workspace

    spent = [0.0]
    depth = [0]

    def timed(fn: Callable[..., Any], part: str) -> Callable[..., Any]:  # CPU accounting; the call unchanged
        def run(*args: Any, **kwargs: Any) -> Any:
            depth[0] += 1
            started = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                depth[0] -= 1
                if depth[0] == 0:  # a part calling another is counted once
                    took = time.process_time() - started
                    spent[0] += took if part != APART else 0.0
                    by_part[part] = by_part.get(part, 0.0) + took

        return run

    patched: list[tuple[Any, str, Any]] = []
    for module_name, name in PARTS:
        module = importlib.import_module(module_name)
        if hasattr(module, name):
            patched.append((module, name, getattr(module, name)))
            setattr(module, name, timed(getattr(module, name), name))
    ds = load_dataset(SPIDER_DEV)
    preds = [load_predictions(p, ds) for p in spider_predictions()]
    try:
        with tempfile.TemporaryDirectory() as tmp, Workspace.open(Path(tmp) / "w.db") as ws:
            options = EvalOptions(
                jobs=1, features=False, neighbours=10, verify=True, neighbour_cache=str(Path(tmp) / "cache")
            )
            started = time.process_time()
            evaluate(ds, preds, ws, options)
            total = time.process_time() - started
    finally:
        for module, name, original in patched:
            setattr(module, name, original)
    return total, spent[0], len(ds.examples) * len(preds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench judgement")
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args(argv)
    shares, totals, spents = [], [], []
    pairs = 0
    for _ in range(args.runs):
        total, spent, pairs = _cost()
        totals.append(total)
        spents.append(spent)
        shares.append(spent / total if total else 0.0)
    share = statistics.median(shares)
    verdict = "PASS" if share <= COST_TARGET else "FAIL"
    print(
        f"judgement cost on Spider dev × 8 ({pairs} pairs, --neighbours 10 --verify, jobs=1, cold cache), "
        f"median of {args.runs} run(s): evaluate() CPU {statistics.median(totals):.1f} s, of which the judgement "
        f"(assumptions, realistic witnesses, lints, calls) {statistics.median(spents):.2f} s = {share:.1%}; "
        f"target ≤ {COST_TARGET:.0%}: {verdict} (load after {load_average()})"
    )
    print(
        "per part, CPU seconds over all runs: "
        + ", ".join(f"{k} {v:.2f}" for k, v in sorted(by_part.items()))
    )
    print(
        f"apart: the rows without a database file on generated databases (schema_columns) "
        f"{by_part.get(APART, 0.0) / args.runs:.2f} s a run"
    )
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
