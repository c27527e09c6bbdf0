"""The judgement in the app: the table's first verdict column, sorting by it, its facet, the detail pane."""

from __future__ import annotations

import polars as pl

from sqltriage.core.workspace.store import Workspace
from sqltriage.tui.app import create_app
from sqltriage.tui.widgets.detail_pane import DetailPane
from sqltriage.tui.widgets.examples_table import COLUMNS, ExamplesTable
from sqltriage.tui.widgets.facet_panel import FacetPanel

from .conftest import OPTIONS, Evaluated, running, screen_lines, settle, wait_ready
from .test_browse import shown, toggle

CALL = [name for name, _, _ in COLUMNS].index("judgement")


def test_every_sample_row_is_judged(sample_ws: Evaluated) -> None:
    calls = sample_ws.frame.get_column("judgement")
    assert calls.null_count() == 0
    assert set(calls.unique()) <= {"right", "wrong", "unsure"}
    assert calls.n_unique() >= 2


async def test_call_column_leads_the_verdicts_and_sorts_unsure_first(sample_ws: Evaluated) -> None:
    frame = sample_ws.frame
    async with running(sample_ws) as (app, pilot, screen):
        header = next(line for line in screen_lines(app) if " call " in line)
        assert header.index(" call ") < header.index(" EX ")
        screen.sort_by("judgement")
        await settle(app, pilot)
        table = screen.query_one(ExamplesTable)
        cells = [str(table.get_row_at(r)[CALL]) for r in range(table.row_count)]
        order = {"unsure": 0, "wrong": 1, "right": 2}
        ranks = [order[c.split()[0]] for c in cells]
        assert ranks == sorted(ranks)
        assert cells[0].split()[0] == (
            "unsure" if (frame.get_column("judgement") == "unsure").any() else "wrong"
        )
        flagged = frame.filter(pl.col("gold_flags").fill_null("") != "").height
        assert sum(c.endswith("⚑") for c in cells) == flagged


async def test_judgement_facet_and_detail_first_line(sample_ws: Evaluated) -> None:
    frame = sample_ws.frame
    wrong = frame.filter(pl.col("judgement") == "wrong")
    async with running(sample_ws) as (app, pilot, screen):
        counts = dict(app.screen.query_one(FacetPanel).counts["judgement"])
        assert counts == dict(frame.group_by("judgement").len().iter_rows())
        await toggle(app, pilot, "judgement", "wrong")
        assert shown(screen)[0] == wrong.height
        row = screen._current_row()
        assert row is not None and row["judgement"] == "wrong"
        await settle(app, pilot)
        text = str(app.screen.query_one(DetailPane).shown["sql"].renderables[0])
        assert text.startswith(f"wrong: {row['judgement_why']}")


async def test_the_status_line_names_the_engine_of_a_server_workspace(ws_copy: Evaluated) -> None:
    """A workspace evaluated with `eval --db-url` (its meta says where the queries ran) says so on screen,
    opened alone (`open --workspace`); one evaluated on SQLite files says nothing more."""
    async with running(ws_copy) as (_app, _pilot, screen):
        assert " · on " not in screen.status_text
    with Workspace.open(ws_copy.workspace) as ws:
        ws.set_meta("engine", "postgresql")
        ws.set_meta("dialect", "postgres")
    app = create_app(ws_copy.workspace, ws_copy.inputs.dataset, (), OPTIONS)  # the workspace alone
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await wait_ready(app, pilot)
        assert screen.status_text.endswith("· on postgresql, read as postgres SQL")
