"""Launch the app headlessly on a cached workspace and report when the browse screen became usable.

`python -m tests.bench.probe_launch WORKSPACE --dataset DIR --pred NAME=FILE ...` prints JSON with
`ready`: seconds from the moment the parent spawned this process (SQLTRIAGE_BENCH_T0, wall clock) to the
browse screen showing every row, its facet counts and a highlighted row. Imports and loading count.
"""

from __future__ import annotations

import os
import time

T0 = float(os.environ.get("SQLTRIAGE_BENCH_T0", time.time()))

import argparse  # noqa: E402  (the clock starts before any import)
import asyncio  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402


async def _launch(args: argparse.Namespace) -> dict[str, float]:
    from sqltriage.core.pipeline.evaluate import EvalOptions
    from sqltriage.tui.app import create_app
    from sqltriage.tui.inputs import load_inputs
    from sqltriage.tui.screens.browse import BrowseScreen
    from sqltriage.tui.widgets.examples_table import ExamplesTable
    from sqltriage.tui.widgets.facet_panel import FacetPanel

    inputs = load_inputs(argparse.Namespace(dataset=args.dataset, pred=args.pred))
    loaded = time.time()
    app = create_app(args.workspace, inputs.dataset, inputs.predictions, EvalOptions())
    async with app.run_test(size=(160, 50)):
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            screen = app.screen
            if (
                isinstance(screen, BrowseScreen)
                and screen.current is not None
                and screen.frame.height > 0
                and screen.query_one(ExamplesTable).row_count == screen.frame.height
                and screen.query_one(FacetPanel).counts
            ):
                break
            await asyncio.sleep(0.002)
        else:
            raise SystemExit("the browse screen never became usable")
        ready = time.time()
        cpu = time.process_time()  # CPU of every thread until then: what a quiet machine would take
        rows = screen.frame.height
    return {"ready": ready - T0, "loaded": loaded - T0, "rows": rows, "cpu": cpu}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("workspace")
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--pred", action="append", default=[])
    args = parser.parse_args(argv)
    json.dump(asyncio.run(_launch(args)), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
