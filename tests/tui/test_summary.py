"""The summary screen: charts per category, the 2×2 comparison and its jump to browse, the dataset view."""

from __future__ import annotations

import polars as pl

from sqltriage.core.workspace.store import Workspace, dataset_fingerprint
from sqltriage.tui.screens.browse import BrowseScreen
from sqltriage.tui.screens.summary import ANALYSIS_META, SummaryScreen

from .conftest import Evaluated, running, settle
from .test_browse import shown


async def test_summary_charts_show_error_rates(sample_ws: Evaluated) -> None:
    frame = sample_ws.frame
    model = frame.get_column("model")[0]
    easy = frame.filter((pl.col("model") == model) & (pl.col("hardness") == "easy"))
    ex_error = 1 - easy.get_column("ex").drop_nulls().mean()  # type: ignore[operator]
    async with running(sample_ws) as (app, pilot, _screen):
        await pilot.press("m")
        await settle(app, pilot)
        summary = app.screen
        assert isinstance(summary, SummaryScreen)
        text = summary.metrics_text(width=200)
        for title in ("EX error rate by structural category", "EX error rate by hardness", "error sources"):
            assert title in text
        for m in frame.get_column("model").unique().to_list():
            assert m in text
        easy_line = next(line for line in text.splitlines() if line.strip("│ ").startswith("easy "))
        assert f"{ex_error * 100:5.1f}%" in easy_line
        assert "wrong-column" in text  # the tag counts
        await pilot.press("m")
        assert "EM error rate by hardness" in summary.metrics_text(width=200)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, BrowseScreen)


async def test_comparison_cell_opens_as_a_browse_filter(sample_ws: Evaluated) -> None:
    frame = sample_ws.frame
    a, b = frame.get_column("model").unique(maintain_order=True).to_list()[:2]
    wide = frame.pivot(on="model", index="index", values="ex")
    only_a = set(wide.filter((pl.col(a) == 1) & (pl.col(b) == 0)).get_column("index").to_list())
    both = set(wide.filter((pl.col(a) == 1) & (pl.col(b) == 1)).get_column("index").to_list())
    assert only_a
    async with running(sample_ws) as (app, pilot, screen):
        await pilot.press("m", "2")
        await settle(app, pilot)
        summary = app.screen
        assert isinstance(summary, SummaryScreen)
        assert summary.pair == (a, b)
        assert summary.cell_count("only A passes") == len(only_a)
        assert summary.cell_count("both pass") == len(both)
        assert f"only A passes\n{len(only_a)}" in str(summary.query_one("#cell-only-a").label)
        summary.query_one("#cell-only-a").focus()
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen is screen
        assert shown(screen)[0] == 2 * len(only_a)  # both models' rows of each example
        assert set(screen.view.get_column("index").to_list()) == only_a
        assert f"{a} vs {b}: only {a} passes" in screen.status_text


async def test_dataset_view_is_computed_once_and_cached(ws_copy: Evaluated) -> None:
    async with running(ws_copy) as (app, pilot, _screen):
        await pilot.press("m", "3")
        await settle(app, pilot)
        body = str(app.screen.query_one("#dataset-body").render())
        assert "analysis failed" not in body
        n = len(ws_copy.inputs.dataset.examples)
        assert str(n) in body
    with Workspace.open(ws_copy.workspace) as ws:
        assert ws.get_meta(ANALYSIS_META + dataset_fingerprint(ws_copy.inputs.dataset))
