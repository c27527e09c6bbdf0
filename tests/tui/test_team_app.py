"""A second annotator in the app, blind: others' tags hidden until they tag, who gave which shown after,
undo of their own change or (asked) another's, adjudication by key and its undo."""

from __future__ import annotations

import sqlite3

from sqltriage.core.triage import tags as triage
from sqltriage.core.workspace.store import Workspace
from sqltriage.tui.screens.modals import Confirm
from sqltriage.tui.widgets.detail_pane import DetailPane

from .conftest import Evaluated, running, settle
from .test_triage import table_tags

ANNS, BOBS = "Value: mismatch", "Table: missing"


async def test_a_blind_second_annotator(ws_copy: Evaluated) -> None:
    first = ws_copy.frame.row(0, named=True)
    key = (first["index"], first["model"])
    with Workspace.open(ws_copy.workspace) as ws:
        triage.add_tag(ws, [key], ANNS, annotator="ann")
    async with running(ws_copy, annotator="bob", blind=True) as (app, pilot, screen):
        assert screen.current == key
        await pilot.press("5")  # the Triage tab
        await settle(app, pilot)
        before = screen.query_one(DetailPane).text("triage")
        assert "others' tags hidden until you tag this row" in before and ANNS not in before
        assert ANNS not in table_tags(screen)

        await pilot.press("t", "t", "2", "enter")  # bob tags the row: now he sees ann's tag and who gave it
        await settle(app, pilot)
        after = screen.query_one(DetailPane).text("triage")
        assert f"ann: {ANNS}" in after and f"bob: {BOBS}" in after and "hidden" not in after
        assert ANNS in table_tags(screen) and BOBS in table_tags(screen)  # nothing shared: the union

        await pilot.press("u")  # bob's own change
        await settle(app, pilot)
        assert isinstance(app.screen, Confirm) and f"'{BOBS}'" in app.screen.question
        assert " by bob, " in app.screen.question
        await pilot.press("y")
        await settle(app, pilot)
        await pilot.press("u")  # bob has nothing left to undo: ann's change is not offered
        await settle(app, pilot)
        assert not isinstance(app.screen, Confirm)
        await pilot.press("U")  # anyone's: ann's
        await settle(app, pilot)
        assert isinstance(app.screen, Confirm) and " by ann, " in app.screen.question
        await pilot.press("n")
        await settle(app, pilot)

        await pilot.press("J", "t", "t", "2", "enter")  # adjudicating: the final tags of the row
        await settle(app, pilot)
        with sqlite3.connect(ws_copy.workspace) as db:
            adjudicated = db.execute(
                "SELECT tags, annotator FROM adjudications WHERE idx = ? AND model = ?", list(key)
            ).fetchone()
            annotators = dict(
                db.execute("SELECT annotator, tag FROM annotations WHERE idx = ? AND model = ?", list(key))
            )
        assert adjudicated == (f'["{BOBS}", "{ANNS}"]', "bob")  # sorted
        assert f"tags: {BOBS}, {ANNS}  (adjudicated by bob)" in screen.query_one(DetailPane).text("triage")
        assert annotators == {"ann": ANNS}  # bob's own undone tag stays undone

        await pilot.press("u")  # bob's newest change now: the adjudication
        await settle(app, pilot)
        assert isinstance(app.screen, Confirm)
        assert app.screen.question.startswith(
            f"Undo: adjudicated #{key[0]} · {key[1]}: {BOBS}, {ANNS} by bob"
        )
        await pilot.press("y")
        await settle(app, pilot)
        with sqlite3.connect(ws_copy.workspace) as db:
            assert db.execute("SELECT count(*) FROM adjudications").fetchone()[0] == 0
        assert "adjudicated by" not in screen.query_one(DetailPane).text("triage")
