"""The real app, driven headlessly in its own process, so a test can SIGKILL it while it has children.

`python -m tests.reliability.orphan_driver eval WORKSPACE DATASET NAME=FILE...` opens the app on the
dataset and models (their evaluation starts the app's spawned pool); `... features WORKSPACE` opens the
app on a workspace alone and shows the Question tab, whose features are computed in a child process.
Either way it then waits to be killed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path


async def drive(kind: str, workspace: Path, rest: list[str]) -> None:
    # imported here, not at the top: a spawned child imports this module as its main module first,
    # as it imports the light `sqltriage` entry point when the app is started from the command line
    from sqltriage.core.pipeline.evaluate import EvalOptions
    from sqltriage.tui.app import create_app
    from sqltriage.tui.inputs import load_inputs

    if kind == "eval":
        inputs = load_inputs(argparse.Namespace(dataset=rest[0], pred=rest[1:]))
        options = EvalOptions(timeout=2.0, jobs=2, features=False, pool_min_pairs=1)
    else:
        from sqltriage.tui.commands.open_cmd import workspace_inputs

        inputs, _ = workspace_inputs(workspace, argparse.Namespace(db_dir=None))
        options = EvalOptions(timeout=2.0, jobs=1)
    app = create_app(workspace, inputs.dataset, inputs.predictions, options)
    async with app.run_test(size=(160, 50)) as pilot:
        if kind == "features":
            from sqltriage.tui.screens.browse import BrowseScreen

            while not (isinstance(app.screen, BrowseScreen) and app.screen.current is not None):
                await pilot.pause(0.05)
            await pilot.press("4")  # the Question tab: features are computed in a child process
        while True:
            await pilot.pause(0.1)


if __name__ == "__main__":
    asyncio.run(drive(sys.argv[1], Path(sys.argv[2]), sys.argv[3:]))
