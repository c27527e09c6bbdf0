"""From the keyboard: accept a prediction as an alternative gold (stored, rows re-scored), then a review
tag that changes reviewed EX on the summary screen, and its undo."""

from __future__ import annotations

import polars as pl
from textual.widgets import Footer

from sqltriage.core.workspace.accepted import accepted
from sqltriage.core.workspace.store import Workspace
from sqltriage.tui.screens.browse import BrowseScreen
from sqltriage.tui.screens.modals import Confirm, TagPicker
from sqltriage.tui.screens.summary import SummaryScreen
from sqltriage.tui.widgets.detail_pane import DetailPane
from sqltriage.tui.widgets.detail_render import render_question
from sqltriage.tui.widgets.plain import plain_text

from .conftest import Evaluated, running, settle
from .test_browse import first_failing_row_that_runs, sidebar_count, toggle


def summary_cells(text: str, model: str) -> list[str]:
    """The model's row of the summary's model table (or its header for "model"), cell by cell."""
    line = next(ln for ln in text.splitlines() if ln.strip("│┃ ").startswith(model + " "))
    return [c.strip() for c in line.strip("│┃ ").replace("┃", "│").split("│")]


async def review_in_summary(app, pilot, model: str) -> tuple[str, str, str]:  # type: ignore[no-untyped-def]
    """(EX, EX reviewed, reviewed) of `model` as the summary screen shows them, then back to browse."""
    await pilot.press("m")
    await settle(app, pilot)
    summary = app.screen
    assert isinstance(summary, SummaryScreen)
    text = summary.metrics_text(width=220)
    header = summary_cells(text, "model")
    cells = dict(zip(header, summary_cells(text, model), strict=True))
    await pilot.press("escape")
    await settle(app, pilot)
    assert isinstance(app.screen, BrowseScreen)
    return cells["EX"], cells["EX reviewed"], cells["reviewed"]


async def test_accept_a_failing_prediction_as_gold_then_review_another(ws_copy: Evaluated) -> None:
    frame = ws_copy.frame
    async with running(ws_copy) as (app, pilot, screen):
        row = await first_failing_row_that_runs(app, pilot, screen, frame)
        idx, model = row["index"], row["model"]
        before = sidebar_count(app, "outcome", "EX pass on an alternative gold")
        await pilot.press("A")
        await settle(app, pilot)
        assert isinstance(app.screen, Confirm)
        await pilot.press("y")
        await settle(app, pilot)
        assert screen.saved_log[-1].startswith(f"saved: alternative gold of #{idx}")
        assert len(screen.query(Footer)) == 1  # the frame read again brings no second key footer
        with Workspace.open(ws_copy.workspace) as ws:
            assert accepted(ws) == {idx: (row["pred_sql"].strip(),)}
            stored = ws.db.execute(
                "SELECT ex, gold_match FROM results WHERE idx = ? AND model = ?", [idx, model]
            ).fetchone()
        assert stored == (1, "accepted 1")
        assert sidebar_count(app, "outcome", "EX pass on an alternative gold") == before + 1
        # the re-scored row left the "EX fail" filter; its Question tab names the gold it passes on
        fresh = screen.frame.filter((pl.col("index") == idx) & (pl.col("model") == model)).row(0, named=True)
        assert "EX passes on: accepted 1" in plain_text(render_question(fresh, None), 200)

        # a second failing row of the same model tagged "EX false negative": reviewed EX rises, undo restores it
        ex, reviewed_ex, reviewed = await review_in_summary(app, pilot, model)
        assert ex == reviewed_ex and reviewed == "0"
        await pilot.press("down")
        await settle(app, pilot)
        assert screen.current[1] == model and screen.current[0] != idx
        await pilot.press("t")
        assert isinstance(app.screen, TagPicker)
        await pilot.press("e", "4", "enter")  # the default taxonomy's "EX false negative (equivalent query)"
        await settle(app, pilot)
        ex_after, reviewed_after, reviewed = await review_in_summary(app, pilot, model)
        assert ex_after == ex and float(reviewed_after) > float(ex) and reviewed == "1"
        await pilot.press("u")
        await settle(app, pilot)
        await pilot.press("y")
        await settle(app, pilot)
        assert await review_in_summary(app, pilot, model) == (ex, ex, "0")


STORED_EXECUTION = (
    "va", "ex", "ex_spider", "ex_bird", "ex_archer", "ex_official", "official_quirk", "gold_match", "tie_sensitive"
)  # fmt: skip


async def test_the_results_tab_says_what_the_stored_row_says_after_an_alternative_gold_is_accepted(
    ws_copy: Evaluated,
) -> None:
    """The live run of a row is the evaluation's own executor: once a prediction is accepted as an
    alternative gold, its Results tab passes it on that gold, as the re-scored row does (it ran against
    the dataset's gold alone and said EX fail)."""
    frame = ws_copy.frame
    async with running(ws_copy) as (app, pilot, screen):
        row = await first_failing_row_that_runs(app, pilot, screen, frame)
        idx, model = row["index"], row["model"]
        await pilot.press("3")  # the Results tab: the row run live
        await settle(app, pilot)
        assert screen.last_outcomes["ex"] == 0 and screen.last_outcomes["gold_match"] is None
        await pilot.press("A")
        await settle(app, pilot)
        await pilot.press("y")
        await settle(app, pilot)
        await toggle(app, pilot, "outcome", "EX fail")  # the re-scored row left that filter: off again
        await pilot.press("l")
        await settle(app, pilot)
        here, there = screen._row_of(screen.current), screen._row_of((idx, model))
        await pilot.press(*(["down"] * (there - here) if there > here else ["up"] * (here - there)))
        await settle(app, pilot)  # back on the row: its Results tab runs it again
        assert screen.current == (idx, model)
        with Workspace.open(ws_copy.workspace) as ws:
            names = ", ".join(STORED_EXECUTION)
            stored = ws.db.execute(
                f"SELECT {names} FROM results WHERE idx = ? AND model = ?", [idx, model]
            ).fetchone()
        assert dict(zip(STORED_EXECUTION, stored, strict=True)) == {
            k: screen.last_outcomes[k] for k in STORED_EXECUTION
        }
        assert stored[1] == 1 and stored[7] == "accepted 1"
        assert "(passes on accepted 1)" in screen.query_one(DetailPane).text("results", width=200)
