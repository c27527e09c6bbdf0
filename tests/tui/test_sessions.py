"""A workspace opened alone, undo across sessions, and the detail pane's size: the app as a user meets it."""

from __future__ import annotations

import argparse
import sqlite3
from pathlib import Path

import pytest

from sqltriage.core.errors import UsageError
from sqltriage.core.workspace.store import Workspace
from sqltriage.tui.app import create_app
from sqltriage.tui.commands.open_cmd import resolve, workspace_inputs
from sqltriage.tui.screens.modals import Confirm
from sqltriage.tui.widgets.detail_pane import DetailPane
from sqltriage.tui.widgets.examples_table import ExamplesTable

from .conftest import OPTIONS, TAG, Evaluated, running, settle, wait_ready
from .test_browse import shown


def messages(app) -> list[str]:  # type: ignore[no-untyped-def]
    return [str(n.message) for n in app._notifications]


async def test_workspace_alone_browses_its_models(ws_copy: Evaluated) -> None:
    inputs, note = workspace_inputs(ws_copy.workspace, argparse.Namespace(db_dir=None))
    assert note == "" and not inputs.predictions
    assert inputs.dataset.name == ws_copy.inputs.dataset.name  # found from the workspace's own record
    app = create_app(ws_copy.workspace, inputs.dataset, (), OPTIONS)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await wait_ready(app, pilot)
        assert shown(screen)[:2] == (ws_copy.frame.height, ws_copy.frame.height)
        said = messages(app)
        assert f"2 models stored in {ws_copy.workspace.name}, {ws_copy.frame.height:,} rows" in said
        assert not any("nothing to browse" in m or "no predictions" in m for m in said)


def test_open_resolves_a_workspace_alone(ws_copy: Evaluated, tmp_path: Path) -> None:
    args = argparse.Namespace(dataset=None, workspace=str(ws_copy.workspace), pred=None, db_dir=None)
    inputs, workspace, note = resolve(args)
    assert workspace == ws_copy.workspace and not inputs.predictions and note == ""
    with pytest.raises(UsageError, match="--pred needs the DATASET"):
        resolve(argparse.Namespace(**{**vars(args), "pred": ["m=x.sql"]}))


async def test_fewer_models_than_stored_is_said(ws_copy: Evaluated) -> None:
    first, second = ws_copy.inputs.predictions
    app = create_app(ws_copy.workspace, ws_copy.inputs.dataset, (first,), OPTIONS)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await wait_ready(app, pilot)
        assert set(screen.view.get_column("model").to_list()) == {first.name}
        assert any(
            m.startswith(f"showing 1 of the 2 models stored in {ws_copy.workspace.name} (not {second.name})")
            for m in messages(app)
        )


async def test_workspace_whose_dataset_is_gone(ws_copy: Evaluated, tmp_path: Path) -> None:
    with Workspace.open(ws_copy.workspace) as ws:
        ws.set_meta("dataset_path", str(tmp_path / "moved-away" / "dev.json"))
    inputs, note = workspace_inputs(ws_copy.workspace, argparse.Namespace(db_dir=None))
    assert "could not be loaded" in note and "live results are off" in note
    app = create_app(ws_copy.workspace, inputs.dataset, (), OPTIONS, open_note=note)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await wait_ready(app, pilot)
        assert shown(screen)[0] == ws_copy.frame.height  # still browsable
        assert note in messages(app)


async def test_empty_workspace_says_how_to_add_a_model(sample_ws: Evaluated, tmp_path: Path) -> None:
    app = create_app(tmp_path / "new.sqltriage.db", sample_ws.inputs.dataset, (), OPTIONS)
    async with app.run_test(size=(160, 45)) as pilot:
        for _ in range(50):
            await pilot.pause(0.05)
            if any("holds no evaluated model" in m for m in messages(app)):
                break
        assert any("add one with --pred NAME=FILE" in m for m in messages(app))


async def test_undo_in_a_later_session(ws_copy: Evaluated) -> None:
    async with running(ws_copy) as (app, pilot, screen):
        key = screen.current
        await pilot.press("t", "t", "2", "enter")  # session 1: tag the first row
        await settle(app, pilot)
    async with running(ws_copy) as (app, pilot, screen):  # session 2
        await pilot.press("u")
        await settle(app, pilot)
        assert isinstance(app.screen, Confirm)
        assert app.screen.question.startswith(
            f"Undo: tagged 1 row 'Table: missing' (#{key[0]} · {key[1]}) by "
        )
        await pilot.press("y")
        await settle(app, pilot)
        assert screen.saved_log[-1] == "undone: removed 'Table: missing' from 1 row"
        with Workspace.open(ws_copy.workspace) as ws:
            assert "Table: missing" not in ws.tags_of(*key)
        # the next undo offers the change before: the two rows tagged when the workspace was made
        await pilot.press("u")
        await settle(app, pilot)
        assert app.screen.question.startswith(f"Undo: tagged 2 rows {TAG!r} by ")
        await pilot.press("n")  # declined: nothing changes
        await settle(app, pilot)
    with sqlite3.connect(ws_copy.workspace) as db:
        assert db.execute("SELECT count(*) FROM tags WHERE tag = ?", [TAG]).fetchone()[0] == 2
        assert db.execute("SELECT action FROM tag_log ORDER BY seq DESC LIMIT 1").fetchone()[0] == "remove"


async def test_detail_maximise_restore_and_resize(sample_ws: Evaluated) -> None:
    async with running(sample_ws) as (app, pilot, screen):
        detail = screen.query_one(DetailPane)
        before = detail.outer_size.height
        await pilot.press("z")
        await pilot.pause()
        assert screen.maximized is detail and detail.outer_size.height > 40
        await pilot.press("z")
        await pilot.pause()
        assert screen.maximized is None and detail.outer_size.height == before
        assert app.focused is screen.query_one(ExamplesTable)

        await pilot.press("plus", "plus")
        await pilot.pause()
        assert detail.outer_size.height == before + 6
        await pilot.press("minus")
        await pilot.pause()
        assert detail.outer_size.height == before + 3

        # dragging the split (the pane's top border) with the mouse
        top = detail.region.y
        await pilot.mouse_down(DetailPane, offset=(10, 0))
        x = detail.region.x + 10
        await pilot.hover(offset=(x, top - 8))  # screen coordinates: the pane moves under the mouse
        await pilot.mouse_up(offset=(x, top - 8))
        await pilot.pause()
        assert detail.region.y == top - 8
