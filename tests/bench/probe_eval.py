"""Run `evaluate()` once in a fresh process and print what it took as JSON (used by the eval benchmarks).

`python -m tests.bench.probe_eval WORKSPACE --features 0|1 --pred NAME=FILE ...`: the workspace is used as
found, so a workspace that already holds the question features measures "features cached".
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
from sqltriage.core.workspace.store import Workspace
from sqltriage.tui.inputs import load_inputs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("workspace")
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--features", type=int, default=1)
    parser.add_argument("--pred", action="append", default=[])
    args = parser.parse_args(argv)
    started = time.perf_counter()
    inputs = load_inputs(argparse.Namespace(dataset=args.dataset, pred=args.pred))
    loaded = time.perf_counter()
    with Workspace.open(args.workspace) as ws:
        summary = evaluate(inputs.dataset, inputs.predictions, ws, EvalOptions(features=bool(args.features)))
    json.dump(
        {
            "load": loaded - started,
            "evaluate": summary.elapsed,
            "computed": summary.computed,
            "features": summary.features,
        },
        sys.stdout,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
