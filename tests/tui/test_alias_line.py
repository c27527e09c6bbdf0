"""The SQL tab's alias line speaks of the row's own table aliases, and only when there are some."""

from __future__ import annotations

import polars as pl

from sqltriage.core.sql.diff import sql_diff
from sqltriage.tui.widgets.detail_pane import DetailPane
from sqltriage.tui.widgets.detail_render import render_sql_diff
from sqltriage.tui.widgets.plain import plain_text

from .conftest import Evaluated, running, settle
from .test_browse import goto


def _row(frame: pl.DataFrame, gold_sql: str) -> dict:
    return frame.filter(pl.col("gold_sql") == gold_sql).sort("index", "model").row(0, named=True)


async def test_alias_line_names_the_rows_own_aliases_or_is_absent(sample_ws: Evaluated) -> None:
    frame = sample_ws.frame
    plain = _row(frame, "SELECT count(*) FROM books")
    aliased = _row(
        frame,
        "SELECT T1.title, T2.name FROM books AS T1 JOIN authors AS T2 ON T1.author_id = T2.author_id "
        "WHERE T1.pages > 500",
    )
    assert " AS " not in (plain["pred_sql"] or "").upper()  # neither query of this row has an alias
    async with running(sample_ws) as (app, pilot, screen):
        await goto(app, pilot, screen, plain)
        sql = screen.query_one(DetailPane).text("sql")
        assert "SELECT" in sql
        assert not [line for line in sql.splitlines() if line.strip().startswith("aliases")]
        assert "T1" not in sql and "singer" not in sql

        await pilot.press("c")
        await settle(app, pilot)
        await goto(app, pilot, screen, aliased)
        detail = screen.query_one(DetailPane)
        assert "aliases resolved (T1 → books, T2 → authors); r shows them as written" in detail.text("sql")
        await pilot.press("r")  # the toggle still works, and the line follows it
        await settle(app, pilot)
        written = detail.text("sql")
        assert "aliases as written (T1 → books, T2 → authors); r resolves them" in written
        assert "T1.title" in written
        await pilot.press("r")
        await settle(app, pilot)
        assert "aliases resolved (T1 → books, T2 → authors)" in detail.text("sql")


def _line(gold: str, pred: str, *, resolved: bool = True) -> str:
    text = plain_text(render_sql_diff(sql_diff(gold, pred, resolve=resolved), resolved=resolved), 200)
    return next((line.strip() for line in text.splitlines() if "aliases" in line and "→" in line), "")


def test_alias_line_from_both_queries() -> None:
    gold = "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.singer_id"
    assert _line(gold, "SELECT name FROM singer") == (
        "aliases resolved (T1 → singer, T2 → concert); r shows them as written"
    )
    pred = "SELECT s.name FROM singer AS s JOIN concert AS T2 ON s.id = T2.singer_id"
    assert _line(gold, pred) == (
        "aliases resolved (T1 → singer, T2 → concert, s → singer); r shows them as written"
    )
    # one alias standing for different tables in the two queries: each side says its own
    assert _line(gold, "SELECT T1.name FROM concert AS T1") == (
        "aliases resolved (gold: T1 → singer, T2 → concert; prediction: T1 → concert); r shows them as written"
    )
    assert _line(gold, pred, resolved=False).startswith("aliases as written (T1 → singer")


def test_self_join_aliases_are_said_to_be_kept() -> None:
    gold = "SELECT T1.name FROM employee AS T1 JOIN employee AS T2 ON T1.boss = T2.id"
    assert _line(gold, gold) == "aliases kept (T1 → employee, T2 → employee): a table read twice needs them"


def test_no_alias_line_without_table_aliases() -> None:
    for resolved in (True, False):
        text = plain_text(
            render_sql_diff(
                sql_diff("SELECT COUNT(*) FROM singer", "SELECT count(*) FROM singer"), resolved=resolved
            ),
            200,
        )
        assert "aliases resolved" not in text and "aliases as written" not in text and "T1" not in text
