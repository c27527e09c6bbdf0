"""Triage from the keyboard: tag, bulk tag, suggestions, undo, note, export; each checked in the workspace."""

from __future__ import annotations

from pathlib import Path

import polars as pl
from textual import events

from sqltriage.core.reporting.report import EXPORT_COLUMNS
from sqltriage.core.suggest import stored_suggestions
from sqltriage.core.workspace.store import Workspace
from sqltriage.tui.screens.modals import Confirm, TagPicker
from sqltriage.tui.widgets.detail_pane import DetailPane
from sqltriage.tui.widgets.examples_table import COLUMNS, ExamplesTable
from sqltriage.tui.widgets.facet_panel import FacetPanel

from .conftest import Evaluated, running, settle
from .test_browse import shown, toggle

TAGS_COLUMN = [c for c, _, _ in COLUMNS].index("tags")


def stored_tags(path: Path) -> dict[tuple[int, str], set[str]]:
    out: dict[tuple[int, str], set[str]] = {}
    with Workspace.open(path) as ws:
        for idx, model, tag in ws.db.execute("SELECT idx, model, tag FROM tags"):
            out.setdefault((idx, model), set()).add(tag)
    return out


def table_tags(screen) -> str:  # type: ignore[no-untyped-def]
    table = screen.query_one(ExamplesTable)
    return str(table.get_row_at(table.cursor_row)[TAGS_COLUMN])


async def test_tag_with_a_quick_key_then_undo(ws_copy: Evaluated) -> None:
    async with running(ws_copy) as (app, pilot, screen):
        key = screen.current
        await pilot.press("t")
        assert isinstance(app.screen, TagPicker)
        await pilot.press("t", "2", "enter")  # the default taxonomy's quick key for "Table: missing"
        await settle(app, pilot)
        assert screen.saved_log[-1] == "saved: tagged 1 row 'Table: missing'"
        assert "Table: missing" in stored_tags(ws_copy.workspace)[key]
        assert "Table: missing" in table_tags(screen)
        assert "tags: Table: missing" in screen.query_one(DetailPane).text("triage")
        assert dict(screen.query_one(FacetPanel).counts["tag"])["Table: missing"] == 1

        await pilot.press("u")
        await settle(app, pilot)
        assert isinstance(app.screen, Confirm)  # what it undoes is said before it does
        assert app.screen.question.startswith(f"Undo: tagged 1 row 'Table: missing' (#{key[0]} · {key[1]})")
        await pilot.press("y")
        await settle(app, pilot)
        assert screen.saved_log[-1].startswith("undone: removed 'Table: missing'")
        assert "Table: missing" not in stored_tags(ws_copy.workspace).get(key, set())
        assert "Table: missing" not in table_tags(screen)
        assert "Table: missing" not in dict(screen.query_one(FacetPanel).counts["tag"])


async def test_free_tag_and_remove_it(ws_copy: Evaluated) -> None:
    async with running(ws_copy) as (app, pilot, screen):
        key = screen.current
        await pilot.press("t", *"gold uses a view", "enter")
        await settle(app, pilot)
        assert "gold uses a view" in stored_tags(ws_copy.workspace)[key]
        await pilot.press("d")
        assert isinstance(app.screen, TagPicker)
        await pilot.press(*"view", "enter")
        await settle(app, pilot)
        assert "gold uses a view" not in stored_tags(ws_copy.workspace).get(key, set())
        assert screen.saved_log[-1] == "saved: removed 'gold uses a view' from 1 row"


async def test_bulk_tag_asks_first_and_undoes_as_one(ws_copy: Evaluated) -> None:
    frame = ws_copy.frame
    failing = {(r["index"], r["model"]) for r in frame.filter(pl.col("ex") == 0).iter_rows(named=True)}
    assert len(failing) > 2
    async with running(ws_copy) as (app, pilot, screen):
        await toggle(app, pilot, "outcome", "EX fail")
        await pilot.press("l", "T", *"batch-1", "enter")
        assert isinstance(app.screen, Confirm)
        assert f"Tag all {len(failing):,} rows of the current filter with 'batch-1'?" in app.screen.question
        await pilot.press("n")  # declined: nothing written
        await settle(app, pilot)
        assert not any("batch-1" in t for t in stored_tags(ws_copy.workspace).values())

        await pilot.press("T", *"batch-1", "enter", "y")
        await settle(app, pilot)
        tagged = {k for k, tags in stored_tags(ws_copy.workspace).items() if "batch-1" in tags}
        assert tagged == failing
        assert dict(screen.query_one(FacetPanel).counts["tag"])["batch-1"] == len(failing)
        assert screen.saved_log[-1] == f"saved: tagged {len(failing)} rows 'batch-1'"

        await pilot.press("u")
        await settle(app, pilot)
        assert app.screen.question.startswith(f"Undo: tagged {len(failing)} rows 'batch-1'")
        await pilot.press("y")
        await settle(app, pilot)
        assert not any("batch-1" in t for t in stored_tags(ws_copy.workspace).values())
        assert "batch-1" not in dict(screen.query_one(FacetPanel).counts["tag"])


async def test_accept_suggestion_with_one_key(ws_copy: Evaluated) -> None:
    """The evaluation stored ranked suggestions; the triage tab shows the first and `a` applies it."""
    frame = ws_copy.frame
    rows = frame.filter((pl.col("ex") == 0) & (pl.col("suggested").fill_null("") != "")).sort("index")
    row = rows.row(0, named=True)
    expected = stored_suggestions(row["suggested_why"])
    assert expected and [s.tag for s in expected] == row["suggested"].split("; ")
    async with running(ws_copy) as (app, pilot, screen):
        from .test_browse import goto

        await goto(app, pilot, screen, row)
        await pilot.press("5")
        await settle(app, pilot)
        triage = screen.query_one(DetailPane).text("triage", width=200)
        assert f"a →  {expected[0].tag}  {expected[0].confidence:.0%}" in triage
        await pilot.press("t")  # the picker lists the suggestions first, ranked, with confidence and reason
        await settle(app, pilot)
        assert isinstance(app.screen, TagPicker)
        options = app.screen.options
        shown = [str(options.get_option_at_index(i).prompt) for i in range(len(expected))]
        for rank, (text, s) in enumerate(zip(shown, expected, strict=True), 1):
            assert text.startswith(f"★ {rank}. suggested  {s.tag}  {s.confidence:.0%}") and s.reason in text
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("a")
        await settle(app, pilot)
        assert expected[0].tag in stored_tags(ws_copy.workspace)[(row["index"], row["model"])]


async def test_note_is_saved_and_exported(ws_copy: Evaluated, tmp_path: Path) -> None:
    model = ws_copy.frame.get_column("model")[0]
    expected_rows = ws_copy.frame.filter(pl.col("model") == model).height
    out = tmp_path / "out" / "triage.csv"
    async with running(ws_copy) as (app, pilot, screen):
        await toggle(app, pilot, "model", model)
        await pilot.press("l")
        await settle(app, pilot)
        key = screen.current
        await pilot.press("n", *"alias clash", "ctrl+s")
        await settle(app, pilot)
        with Workspace.open(ws_copy.workspace) as ws:
            assert ws.note_of(*key) == "alias clash"
        assert "note: alias clash" in screen.query_one(DetailPane).text("triage")
        await pilot.press("t", "v", "1", "enter")
        await settle(app, pilot)

        await pilot.press("e")
        dialog = app.screen
        assert dialog.query_one("#export-path").value.endswith(".csv")
        dialog.query_one("#export-path").value = str(out)
        await pilot.press("enter")
        await settle(app, pilot)
        assert shown(screen)[0] == expected_rows
    csv = pl.read_csv(out, infer_schema_length=0)
    assert csv.height == expected_rows
    assert list(csv.columns[: len(EXPORT_COLUMNS)]) == list(EXPORT_COLUMNS)
    assert set(csv.get_column("model").to_list()) == {model}
    mine = csv.filter((pl.col("index") == str(key[0])) & (pl.col("model") == key[1])).row(0, named=True)
    assert mine["note"] == "alias clash"
    assert "Value: mismatch" in mine["tags"]
    assert csv.filter(pl.col("note").is_not_null()).height == 1


async def test_tag_typed_right_after_cursor_moves_targets_the_row_under_the_cursor(
    ws_copy: Evaluated,
) -> None:
    """`down down t` typed faster than the screen handles highlight messages still tags the third row."""
    async with running(ws_copy) as (app, pilot, screen):
        await pilot.press("l")
        for key in ("down", "down", "t"):  # queued at once, as keys typed fast reach the app
            app.post_message(events.Key(key, None))
        await settle(app, pilot)
        assert isinstance(app.screen, TagPicker)
        target = screen.row_at(2)
        assert app.screen.title_text == f"tag #{target['index']} · {target['model']}"
        await pilot.press(*"moved-then-tagged", "enter")
        await settle(app, pilot)
        assert "moved-then-tagged" in stored_tags(ws_copy.workspace)[(target["index"], target["model"])]
