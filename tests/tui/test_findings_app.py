"""The summary screen's findings: EX intervals in the metrics table, the comparison's test, the Slices tab."""

from __future__ import annotations

import polars as pl
from textual.widgets import DataTable

from sqltriage.core.reporting.significance import compare, model_intervals
from sqltriage.core.reporting.slice_features import describe, rows_of
from sqltriage.core.reporting.slices import find_slices
from sqltriage.tui.screens.summary import SummaryScreen

from .conftest import Evaluated, running, settle
from .test_accept_gold import summary_cells
from .test_browse import shown


async def test_metrics_table_shows_each_models_interval(sample_ws: Evaluated) -> None:
    frame = sample_ws.frame
    intervals = model_intervals(frame, "ex")
    async with running(sample_ws) as (app, pilot, _screen):
        await pilot.press("m")
        await settle(app, pilot)
        summary = app.screen
        assert isinstance(summary, SummaryScreen)
        text = summary.metrics_text(width=240)
        header = summary_cells(text, "model")
        assert "EX 95% CI" in header
        for model, (lo, hi) in intervals.items():
            cells = dict(zip(header, summary_cells(text, model), strict=True))
            assert cells["EX 95% CI"] == f"{lo:.3f}–{hi:.3f}"
            assert lo <= float(cells["EX"]) <= hi


async def test_compare_tab_says_whether_the_difference_is_real(sample_ws: Evaluated) -> None:
    frame = sample_ws.frame
    a, b = frame.get_column("model").unique(maintain_order=True).to_list()[:2]
    want = compare(frame, a, b, "ex")
    async with running(sample_ws) as (app, pilot, _screen):
        await pilot.press("m", "2")
        await settle(app, pilot)
        summary = app.screen
        assert isinstance(summary, SummaryScreen)
        assert summary.comparison is not None
        assert summary.comparison["mcnemar_p"] == want["mcnemar_p"]
        text = summary.comparison_text(width=200)
        assert f"p = {want['mcnemar_p']:.3g}" in text
        assert f"{want['accuracy_a']:.1%}" in text and "hardness" in text


async def test_slices_tab_lists_slices_and_enter_browses_one(sample_ws: Evaluated) -> None:
    frame = sample_ws.frame
    model = frame.get_column("model")[0]
    want = find_slices(frame, model=model, metric="ex")
    assert want.slices, "the sample's first model has failing slices"
    top = want.slices[0]
    mine = frame.filter(pl.col("model") == model)
    rows = rows_of(mine, top.predicates)
    async with running(sample_ws) as (app, pilot, screen):
        await pilot.press("m", "4")
        await settle(app, pilot)
        summary = app.screen
        assert isinstance(summary, SummaryScreen)
        table = summary.query_one("#slices-table", DataTable)
        assert table.row_count == len(want.slices)
        assert table.get_row_at(0)[5] == describe(top.predicates)
        table.focus()
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen is screen
        assert shown(screen)[0] == len(rows) == top.size  # that model's rows of the slice, no more
        assert "slice of" in screen.status_text
