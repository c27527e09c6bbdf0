"""ex_ts in the app: the outcome facet, the witnessing neighbour in the Results tab, EX vs TS in the summary."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

import polars as pl
import pytest

from sqltriage.core.pipeline.evaluate import evaluate
from sqltriage.core.reporting.facets import TS_FALSE_POSITIVE
from sqltriage.core.reporting.report import load_frame
from sqltriage.core.verdicts.exec_compare import order_matters, spider_sql
from sqltriage.core.verdicts.execution import execute
from sqltriage.core.verdicts.testsuite.reading import read_difference, witness_tables
from sqltriage.core.workspace.store import Workspace
from sqltriage.tui.app import create_app
from sqltriage.tui.screens.summary import SummaryScreen
from sqltriage.tui.widgets.detail_pane import DetailPane

from .conftest import OPTIONS, Evaluated, sample_inputs, settle, wait_ready

# one worker runs the module: the sample is evaluated with neighbours once, not once per worker
pytestmark = pytest.mark.xdist_group("test_ts_app")


@pytest.fixture(scope="module")
def ts_ws(tmp_path_factory: pytest.TempPathFactory) -> tuple[Evaluated, object]:
    root = tmp_path_factory.mktemp("ts")
    options = replace(OPTIONS, neighbours=3, neighbour_cache=str(root / "neighbours"))
    inputs = sample_inputs()
    with Workspace.open(root / "ts.sqltriage.db") as ws:
        evaluate(inputs.dataset, inputs.predictions, ws, options)
        frame = load_frame(ws)
    return Evaluated(inputs, root / "ts.sqltriage.db", frame), options


@asynccontextmanager
async def running_ts(
    ev: Evaluated, options: object, ex_mode: str = "spider"
) -> AsyncIterator[tuple[object, object, object]]:
    app = create_app(ev.workspace, ev.inputs.dataset, ev.inputs.predictions, options, ex_mode=ex_mode)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await wait_ready(app, pilot)
        yield app, pilot, screen


async def test_refuted_rows_show_their_witness_and_the_gap(ts_ws) -> None:
    ev, options = ts_ws
    refuted = ev.frame.filter((pl.col("ex_spider") == 1) & (pl.col("ex_ts") == 0))
    assert refuted.height > 0, "the sample has EX passes that a neighbour refutes"
    async with running_ts(ev, options) as (app, pilot, screen):
        screen.toggle_facet("outcome", TS_FALSE_POSITIVE)  # as the command palette does
        await settle(app, pilot)
        assert screen.view.height == refuted.height
        row = screen.row_at(0)
        assert row is not None and row["ex_ts"] == 0
        await pilot.press("l", "3")
        await settle(app, pilot)
        detail = screen.query_one(DetailPane)
        text = detail.text("results", width=200)
        witness = Path(row["ts_witness"])
        assert witness.parent.name == "witnesses" and row["ts_witness_rows"] <= 6
        assert f"told them apart: witnesses/{witness.name} ({row['ts_witness_rows']} row" in text
        on_nb = text.split("told them apart", 1)[1]
        # the witness's tables in full: every row of every table that has rows, the empty ones named
        for table in witness_tables(witness):
            if table.count:
                assert f"{table.name} ({table.count} row" in on_nb
                for value in table.rows[0]:
                    assert ("NULL" if value is None else str(value)) in on_nb
            else:
                assert table.name in on_nb.split("empty: ", 1)[1].splitlines()[0]
        gold, pred = execute(witness, row["gold_sql"]), execute(witness, row["pred_sql"])
        reading = read_difference(
            execute(witness, spider_sql(row["gold_sql"])),
            execute(witness, spider_sql(row["pred_sql"])),
            ordered=order_matters(row["gold_sql"]),
        )
        assert reading.startswith(("gold returns", "both return")) and reading in on_nb
        assert f"gold  {len(gold.rows)} row(s)" in on_nb
        assert f"prediction  {len(pred.rows)} row(s)" in on_nb
        assert "EX (spider) fail" in on_nb
        detail.editor.focus()
        detail.editor.text = row["gold_sql"]
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        on_nb = detail.text("results", width=200).split("told them apart", 1)[1]
        assert "EX (spider) pass" in on_nb, "the edited prediction runs on the witness too"
        assert "gold and this prediction agree on the witness" in on_nb
        await pilot.press("escape", "m")
        await settle(app, pilot)
        summary = app.screen
        assert isinstance(summary, SummaryScreen)
        metrics = summary.metrics_text(width=200)
        assert "EX vs semantic EX on neighbour databases (TS)" in metrics
        for m in ev.frame.get_column("model").unique().to_list():
            sub = ev.frame.filter(pl.col("model") == m)
            ex, ts = sub.get_column("ex_spider").mean(), sub.get_column("ex_ts").mean()
            line = next(x for x in metrics.splitlines() if m in x and f"{ts:.3f}" in x)
            assert f"{ex:.3f}" in line and f"{ex - ts:.3f}" in line


async def test_the_summary_compares_ex_and_ts_in_the_chosen_ex_mode(ts_ws) -> None:
    ev, options = ts_ws
    async with running_ts(ev, options, ex_mode="bird") as (app, pilot, _screen):
        await pilot.press("escape", "m")
        await settle(app, pilot)
        metrics = app.screen.metrics_text(width=200)
        assert "EX vs semantic EX on neighbour databases (TS)" in metrics and "TS (bird)" in metrics
        for m in ev.frame.get_column("model").unique().to_list():
            sub = ev.frame.filter(pl.col("model") == m)
            ex, ts = sub.get_column("ex_bird").mean(), sub.get_column("ex_ts_bird").mean()
            line = next(x for x in metrics.splitlines() if m in x and f"{ts:.3f}" in x)
            assert f"{ex:.3f}" in line and f"{ex - ts:.3f}" in line


def test_a_witness_named_by_another_machine_is_found_in_this_cache(tmp_path: Path, monkeypatch) -> None:
    from sqltriage.tui.widgets.witness_render import witness_path

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    here = tmp_path / "sqltriage" / "neighbours" / "abc-k10-s0-gdef-v1d"
    here.mkdir(parents=True)
    (here / "n03.sqlite").write_bytes(b"")
    assert (
        witness_path("/elsewhere/cache/sqltriage/neighbours/abc-k10-s0-gdef-v1d/n03.sqlite")
        == here / "n03.sqlite"
    )
    assert witness_path("/elsewhere/x/n09.sqlite") == Path(
        "/elsewhere/x/n09.sqlite"
    )  # said missing, not guessed
    assert witness_path("original") is None and witness_path(None) is None
    assert witness_path("no neighbours: the database is missing") is None
