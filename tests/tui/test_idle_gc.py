"""While browsing, full garbage collections wait for a pause in the input, and the interpreter's own
setting comes back when the app closes."""

from __future__ import annotations

import asyncio
import gc
import time

from sqltriage.tui.app import create_app
from sqltriage.tui.idle_gc import NO_AUTOMATIC_FULL_PASS, QUIET_S
from tests.tui.conftest import OPTIONS, Evaluated, wait_ready


async def test_full_collections_run_when_input_pauses(sample_ws: Evaluated) -> None:
    before = gc.get_threshold()
    ev = sample_ws.inputs
    app = create_app(sample_ws.workspace, ev.dataset, ev.predictions, OPTIONS)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_ready(app, pilot)
        collector = app.idle_gc
        assert gc.get_threshold() == (before[0], before[1], NO_AUTOMATIC_FULL_PASS)

        await pilot.press("j")  # input: no full pass while the user is typing
        passes = collector.full_passes
        gc.collect(1)  # young collections happened: there may be old garbage to find
        await asyncio.sleep(0.3)
        assert collector.full_passes == passes

        collector.last_input = time.monotonic() - QUIET_S  # the user has been reading for a while
        for _ in range(40):
            await asyncio.sleep(0.05)
            if collector.full_passes > passes:
                break
        assert collector.full_passes > passes
    assert gc.get_threshold() == before
