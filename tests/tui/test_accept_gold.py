"""Accepting a prediction as an alternative gold from the keyboard: stored in the workspace, rows re-scored."""

from __future__ import annotations

import polars as pl

from sqltriage.core.alternatives import accepted
from sqltriage.core.workspace import Workspace
from sqltriage.tui.screens.modals import Confirm

from .conftest import Evaluated, running, settle
from .test_browse import sidebar_count, toggle


async def test_accept_a_failing_prediction_as_gold_then_it_passes(ws_copy: Evaluated) -> None:
    frame = ws_copy.frame
    async with running(ws_copy) as (app, pilot, screen):
        await toggle(app, pilot, "outcome", "EX fail")
        await pilot.press("l")
        for _ in range(50):  # to the first failing row whose prediction runs
            idx, model = screen.current
            row = frame.filter((pl.col("index") == idx) & (pl.col("model") == model)).row(0, named=True)
            if row["va"] == 1:
                break
            await pilot.press("down")
            await settle(app, pilot)
        assert row["va"] == 1 and row["ex"] == 0
        before = sidebar_count(app, "outcome", "EX pass on an alternative gold")
        await pilot.press("A")
        await settle(app, pilot)
        assert isinstance(app.screen, Confirm)
        await pilot.press("y")
        await settle(app, pilot)
        assert screen.saved_log[-1].startswith(f"saved: alternative gold of #{idx}")
        with Workspace.open(ws_copy.workspace) as ws:
            assert accepted(ws) == {idx: (row["pred_sql"].strip(),)}
            stored = ws.db.execute(
                "SELECT ex, gold_match FROM results WHERE idx = ? AND model = ?", [idx, model]
            ).fetchone()
        assert stored == (1, "accepted 1")
        assert sidebar_count(app, "outcome", "EX pass on an alternative gold") == before + 1
