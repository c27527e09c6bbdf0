"""Drive the real app headlessly on a workspace, printing a line each time a change is shown as saved.

Run by test_kill.py as a subprocess, which SIGKILLs it mid-stream: `python -m tests.tui.kill_driver WS`.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from sqltriage.tui.app import create_app
from tests.tui.conftest import OPTIONS, sample_inputs, wait_ready

ACTIONS = 200  # more than the test waits for: the kill lands while changes are still being made


async def drive(workspace: Path) -> None:
    inputs = sample_inputs()
    app = create_app(workspace, inputs.dataset, inputs.predictions, OPTIONS)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await wait_ready(app, pilot)
        for i in range(ACTIONS):
            await pilot.press("j")
            for _ in range(50):  # the detail of the new row is on screen before acting on it
                await pilot.pause()
                if screen.current is not None:
                    break
            before = len(screen.saved_log)
            index, model = screen.current
            if i % 3 == 2:
                text = f"note {i}"
                await pilot.press("n", *text, "ctrl+s")
                record = f"SAVED note {index} {model} {text}"
            else:
                tag = f"kill-{i}"
                await pilot.press("t", *tag, "enter")
                record = f"SAVED tag {index} {model} {tag}"
            while len(screen.saved_log) == before:  # shown as saved: the transaction has committed
                await pilot.pause(0.01)
            os.write(1, (record + "\n").encode())  # past the app's print capture, unbuffered


if __name__ == "__main__":
    asyncio.run(drive(Path(sys.argv[1])))
