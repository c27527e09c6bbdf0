"""From the keyboard on the bundled sample: an accepted alternative gold undone with `u` in a new app session,
and withdrawn with `W` or from the command palette; each time the example's rows are scored as before."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import polars as pl

from sqltriage.core.reporting.export_formats import write_export
from sqltriage.core.reporting.report import load_frame
from sqltriage.core.workspace.store import Workspace
from sqltriage.tui.screens.browse import BrowseScreen
from sqltriage.tui.screens.modals import Confirm, TagPicker
from sqltriage.tui.widgets.detail_render import render_question
from sqltriage.tui.widgets.plain import plain_text

from .conftest import Evaluated, running, settle
from .test_browse import first_failing_row_that_runs

LOGS = ("tag_log", "note_log", "undo_log", "alternative_log", "sqlite_sequence")


def snapshot(workspace: Path, out: Path) -> tuple[bytes, list[str]]:
    """The export's bytes and the workspace's SQL dump without its log tables.

    Opening the app registers the models again, which stamps `models.added`: that time is left out.
    """
    with Workspace.open(workspace) as ws:
        write_export(load_frame(ws), out)
    with sqlite3.connect(workspace) as db:
        dump = [ln for ln in db.iterdump() if not any(f'"{t}"' in ln or f" {t} " in ln for t in LOGS)]
    return out.read_bytes(), [
        re.sub(r",[-+.e0-9]+\);$", ");", ln) if ln.startswith('INSERT INTO "models"') else ln for ln in dump
    ]


def stored(workspace: Path, idx: int) -> dict[str, tuple]:
    with sqlite3.connect(workspace) as db:
        rows = db.execute("SELECT model, ex, gold_match FROM results WHERE idx = ? ORDER BY model", [idx])
        return {m: (ex, match) for m, ex, match in rows}


async def accept_first_failing(app, pilot, screen: BrowseScreen, frame: pl.DataFrame) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    """`A` then `y` on the first failing row whose prediction runs; returns its (example, model)."""
    row = await first_failing_row_that_runs(app, pilot, screen, frame)
    idx, model = row["index"], row["model"]
    await pilot.press("c")  # filters cleared: the row stays highlighted once it passes
    await settle(app, pilot)
    assert screen.current == (idx, model)
    await pilot.press("A")
    await settle(app, pilot)
    assert isinstance(app.screen, Confirm)
    await pilot.press("y")
    await settle(app, pilot)
    assert screen.saved_log[-1].startswith(f"saved: alternative gold of #{idx} accepted from model {model}")
    return idx, model


def question_text(screen: BrowseScreen, idx: int, model: str) -> str:
    row = screen.frame.filter((pl.col("index") == idx) & (pl.col("model") == model)).row(0, named=True)
    return plain_text(render_question(row, None, accepted=screen.accepted_labelled(idx)), 300)


async def test_undo_in_a_new_session_restores_the_scores_byte_for_byte(
    ws_copy: Evaluated, tmp_path: Path
) -> None:
    before = snapshot(ws_copy.workspace, tmp_path / "before.csv")
    async with running(ws_copy) as (app, pilot, screen):
        idx, model = await accept_first_failing(app, pilot, screen, ws_copy.frame)
    accepted_scores = stored(ws_copy.workspace, idx)
    assert accepted_scores[model] == (1, "accepted 1")

    async with running(ws_copy) as (app, pilot, screen):  # the next session: `u` offers the acceptance
        await pilot.press("u")
        await settle(app, pilot)
        assert isinstance(app.screen, Confirm)
        assert f"accepted alternative gold for #{idx} from model {model}" in app.screen.question
        await pilot.press("y")
        await settle(app, pilot)
        assert screen.saved_log[-1] == f"undone: withdrew alternative gold for #{idx} from model {model}"
        on_screen = screen.frame.filter((pl.col("index") == idx) & (pl.col("model") == model)).row(
            0, named=True
        )
        assert (on_screen["ex"], on_screen["gold_match"]) == (0, None)
        assert screen.accepted_labelled(idx) == []
    assert stored(ws_copy.workspace, idx)[model] == (0, None)
    assert snapshot(ws_copy.workspace, tmp_path / "after.csv") == before


async def test_withdraw_with_w_and_from_the_palette(ws_copy: Evaluated) -> None:
    async with running(ws_copy) as (app, pilot, screen):
        idx, model = await accept_first_failing(app, pilot, screen, ws_copy.frame)
        sql = screen.accepted_golds[idx][0]
        assert f"alternative gold accepted 1 (in the workspace; W withdraws): {sql}" in question_text(
            screen, idx, model
        )
        await pilot.press("W")  # lists the example's accepted alternatives
        await settle(app, pilot)
        assert isinstance(app.screen, TagPicker) and app.screen.only == [f"accepted 1: {sql}"]
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, Confirm) and sql in app.screen.question
        await pilot.press("y")
        await settle(app, pilot)
        assert screen.saved_log[-1].startswith(
            f"saved: withdrew alternative gold for #{idx} from model {model}"
        )
        assert stored(ws_copy.workspace, idx)[model] == (0, None)
        assert "W withdraws" not in question_text(screen, idx, model)

        # accepted again, then withdrawn from the command palette, which lists it under the example
        await pilot.press("A", "y")
        await settle(app, pilot)
        assert stored(ws_copy.workspace, idx)[model] == (1, "accepted 1")
        await pilot.press("ctrl+p")
        await settle(app, pilot)
        await pilot.press(*f"withdraw alternative gold of #{idx}")
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, Confirm) and sql in app.screen.question
        await pilot.press("y")
        await settle(app, pilot)
        assert stored(ws_copy.workspace, idx)[model] == (0, None)
        with sqlite3.connect(ws_copy.workspace) as db:
            log = db.execute("SELECT action, idx, model FROM alternative_log ORDER BY seq").fetchall()
        assert log == [("accept", idx, model), ("withdraw", idx, model)] * 2
