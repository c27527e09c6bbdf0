"""The browse screen driven from the keyboard; every count is checked against the workspace itself."""

from __future__ import annotations

import contextlib

import polars as pl
from textual.widgets.option_list import OptionDoesNotExist

from sqltriage.core.reporting.facets import NEAR_MISS_PM
from sqltriage.core.sql.partial_match import partial_match
from sqltriage.core.verdicts.execution import execute
from sqltriage.core.workspace.store import Workspace
from sqltriage.tui.screens.help import HelpScreen
from sqltriage.tui.widgets.detail_pane import DetailPane
from sqltriage.tui.widgets.examples_table import COLUMNS, ExamplesTable
from sqltriage.tui.widgets.facet_panel import FacetPanel

from .conftest import TAG, Evaluated, running, screen_lines, settle


def shown(screen) -> tuple[int, int, int]:  # type: ignore[no-untyped-def]
    """(n, N) of the "n of N" status line, and the rows the table really holds."""
    n, _, total = screen.status_text.split(" (", 1)[0].partition(" of ")
    return int(n.replace(",", "")), int(total.replace(",", "")), screen.query_one(ExamplesTable).row_count


async def reveal(app, pilot, facet: str, value: str) -> int:  # type: ignore[no-untyped-def]
    """Make `facet`'s `value` visible as a user does: open its section, then "more…" if needed."""
    await pilot.press("f")
    panel = app.screen.query_one(FacetPanel)
    for extra in ("", "\x1emore"):
        with contextlib.suppress(OptionDoesNotExist):
            return panel.get_option_index(f"{facet}\x1f{value}")
        if extra:
            panel.highlighted = panel.get_option_index(f"{facet}\x1f{extra}")
        elif not panel.is_open(facet):
            panel.highlighted = panel.get_option_index(f"{facet}\x1f")
        else:
            continue
        await pilot.press("enter")
        await pilot.pause()
    return panel.get_option_index(f"{facet}\x1f{value}")


async def toggle(app, pilot, facet: str, value: str) -> None:  # type: ignore[no-untyped-def]
    """Walk the sidebar with the keyboard to `facet`'s `value` and press enter on it."""
    target = await reveal(app, pilot, facet, value)
    panel = app.screen.query_one(FacetPanel)
    panel.highlighted = target - 1 if target > 0 else target
    if panel.highlighted != target:
        await pilot.press("down")
    assert panel.highlighted == target
    await pilot.press("enter")
    await settle(app, pilot)


async def first_failing_row_that_runs(app, pilot, screen, frame: pl.DataFrame) -> dict:  # type: ignore[no-untyped-def]
    """Filter on "EX fail" and walk the table down to the first row whose prediction runs; that row."""
    await toggle(app, pilot, "outcome", "EX fail")
    await pilot.press("l")
    for _ in range(50):
        idx, model = screen.current
        row = frame.filter((pl.col("index") == idx) & (pl.col("model") == model)).row(0, named=True)
        if row["va"] == 1:
            break
        await pilot.press("down")
        await settle(app, pilot)
    assert row["va"] == 1 and row["ex"] == 0
    return row


def sidebar_count(app, facet: str, value: str) -> int:  # type: ignore[no-untyped-def]
    return dict(app.screen.query_one(FacetPanel).counts[facet])[value]


async def test_opens_on_every_row(sample_ws: Evaluated) -> None:
    async with running(sample_ws) as (app, _pilot, screen):
        n, total, rows = shown(screen)
        assert n == total == rows == sample_ws.frame.height
        models = sample_ws.frame.get_column("model").unique().to_list()
        assert sorted(v for v, _ in app.screen.query_one(FacetPanel).counts["model"]) == sorted(models)


async def test_first_screen_shows_keys_and_the_highlighted_rows_sql(sample_ws: Evaluated) -> None:
    """The footer and the first row's analysis come after the first paint: both must still appear."""
    async with running(sample_ws) as (app, _pilot, screen):
        footer = screen_lines(app)[-1]
        assert "Tag" in footer and "Note" in footer and "Export" in footer
        row = screen.row_at(screen.query_one(ExamplesTable).cursor_row)
        assert row is not None and screen.current == (row["index"], row["model"])
        assert screen.current in screen.suggestions
        sql = screen.query_one(DetailPane).text("sql")
        assert (row["gold_sql"] or "").split()[0].upper() in sql.upper()


COLUMN_FACETS = ("model", "structural", "operators", "hardness", "db_id", "reasoning")


async def test_column_facets(sample_ws: Evaluated) -> None:
    frame = sample_ws.frame
    async with running(sample_ws) as (app, pilot, screen):
        for column in COLUMN_FACETS:
            # the second most frequent non-empty value, so that the filter really removes rows
            values = frame.filter(pl.col(column).fill_null("") != "").get_column(column)
            value = values.value_counts(sort=True).get_column(column)[1]
            expected = frame.filter(pl.col(column) == value).height
            assert sidebar_count(app, column, value) == expected, column
            await toggle(app, pilot, column, value)
            assert shown(screen) == (expected, frame.height, expected), column
            assert set(screen.view.get_column(column).to_list()) == {value}
            await pilot.press("c")
            await settle(app, pilot)
            assert shown(screen)[0] == frame.height


OUTCOME_CHECKS = {
    "EX fail": pl.col("ex") == 0,
    "EM pass": pl.col("em") == 1,
    "does not execute": pl.col("va") == 0,
    "does not parse": pl.col("parse_ok") == 0,
    "EX pass, EM fail (EM false negative?)": (pl.col("ex") == 1) & (pl.col("em") == 0),
    f"EX fail, PM ≥ {NEAR_MISS_PM} (near miss)": (pl.col("ex") == 0) & (pl.col("pm") >= NEAR_MISS_PM),
}


async def test_outcome_facet(sample_ws: Evaluated) -> None:
    async with running(sample_ws) as (app, pilot, screen):
        for outcome, check in OUTCOME_CHECKS.items():
            expected = sample_ws.frame.filter(check.fill_null(False)).height
            assert sidebar_count(app, "outcome", outcome) == expected, outcome
            await toggle(app, pilot, "outcome", outcome)
            assert shown(screen)[0] == shown(screen)[2] == expected, outcome
            await toggle(app, pilot, "outcome", outcome)  # enter again unselects
            assert shown(screen)[0] == sample_ws.frame.height


async def test_tag_facet_and_counts_under_other_filters(sample_ws: Evaluated) -> None:
    frame = sample_ws.frame
    tagged = frame.filter(pl.col("tags").fill_null("").str.contains(TAG, literal=True))
    assert tagged.height == 2
    async with running(sample_ws) as (app, pilot, screen):
        await toggle(app, pilot, "tag", TAG)
        assert shown(screen)[0] == tagged.height
        # the model facet now counts within the tagged rows only
        by_model = dict(tagged.group_by("model").len().iter_rows())
        for model, n in by_model.items():
            assert sidebar_count(app, "model", model) == n


async def test_or_within_and_across_facets(sample_ws: Evaluated) -> None:
    frame = sample_ws.frame
    hardness = ["easy", "hard"]
    model = frame.get_column("model")[0]
    expected = frame.filter(pl.col("hardness").is_in(hardness) & (pl.col("model") == model)).height
    async with running(sample_ws) as (app, pilot, screen):
        for value in hardness:
            await toggle(app, pilot, "hardness", value)
        await toggle(app, pilot, "model", model)
        assert shown(screen)[0] == expected
        assert f"hardness={'|'.join(sorted(hardness))}" in screen.status_text
        await pilot.press("c")
        await settle(app, pilot)
        assert shown(screen)[0] == frame.height


async def test_search(sample_ws: Evaluated) -> None:
    frame = sample_ws.frame
    text = "Count"
    expected = frame.filter(
        pl.any_horizontal(
            pl.col(c).fill_null("").str.to_lowercase().str.contains(text.lower(), literal=True)
            for c in ("question", "gold_sql", "pred_sql")
        )
    ).height
    assert 0 < expected < frame.height
    async with running(sample_ws) as (app, pilot, screen):
        await pilot.press("slash", *text, "enter")
        await settle(app, pilot)
        assert shown(screen)[0] == shown(screen)[2] == expected
        assert f'"{text}"' in screen.status_text


async def test_sort_by_pm(sample_ws: Evaluated) -> None:
    async with running(sample_ws) as (app, pilot, screen):
        screen.sort_by("pm", descending=False)
        await settle(app, pilot)
        table = screen.query_one(ExamplesTable)
        first = table.get_row_at(0)
        at = [name for name, _, _ in COLUMNS].index("pm")
        assert float(first[at]) == sample_ws.frame.get_column("pm").min()


def failing_row(frame: pl.DataFrame) -> dict:
    """A prediction that runs, returns the wrong rows and differs from gold in its tokens."""
    rows = frame.filter((pl.col("ex") == 0) & (pl.col("va") == 1) & (pl.col("parse_ok") == 1))
    return rows.sort("index").row(0, named=True)


async def goto(app, pilot, screen, row: dict) -> None:  # type: ignore[no-untyped-def]
    await toggle(app, pilot, "model", row["model"])
    await pilot.press("l")
    target = screen.view.get_column("index").to_list().index(row["index"])
    for _ in range(target):
        await pilot.press("j")
    await settle(app, pilot)
    assert screen.current == (row["index"], row["model"])


async def test_detail_of_a_failing_example(sample_ws: Evaluated) -> None:
    row = failing_row(sample_ws.frame)
    dataset = sample_ws.inputs.dataset
    breakdown = partial_match(row["gold_sql"], row["pred_sql"], dataset.schemas.get(row["db_id"]))
    async with running(sample_ws) as (app, pilot, screen):
        await goto(app, pilot, screen, row)
        detail = screen.query_one(DetailPane)
        sql = detail.text("sql")
        assert "only in gold:" in sql and "only in prediction:" in sql
        assert "same tokens" not in sql
        text = detail.text("breakdown", width=200)
        assert f"PM {breakdown.pm:.2f}" in text
        differing = [
            item
            for sub in breakdown.subqueries
            for c in (sub.structural, sub.operator, sub.variable)
            for item in (*c.gold_only, *c.pred_only)
        ]
        assert differing and all(item in text for item in differing)
        question = detail.text("question")
        assert row["question"][:40] in question

        await pilot.press("3")
        await settle(app, pilot)
        results = detail.text("results", width=200)
        db = dataset.db_path(row["db_id"])
        gold = execute(db, row["gold_sql"])
        pred = execute(db, row["pred_sql"])
        assert f"gold  {len(gold.rows)} row(s)" in results
        assert f"prediction  {len(pred.rows)} row(s)" in results
        assert "EX (spider) fail" in results


async def test_breakdown_shows_the_paper_codes_figures_under_ours_when_they_differ(
    sample_ws: Evaluated,
) -> None:
    frame = sample_ws.frame.filter(pl.col("parse_ok") == 1)
    differ = frame.filter((pl.col("pm") - pl.col("pm_authors")).abs() > 0.01).sort("index")
    agree = frame.filter((pl.col("pm") - pl.col("pm_authors")).abs() < 0.001).sort("index")
    assert differ.height and agree.height, "the sample has rows of both kinds"
    async with running(sample_ws) as (app, pilot, screen):
        row = differ.row(0, named=True)
        await goto(app, pilot, screen, row)
        text = screen.query_one(DetailPane).text("breakdown", width=200)
        assert "as the paper's code computes it" in text
        assert f"PM {row['pm_authors']:.2f}" in text and f"PM {row['pm']:.2f}" in text
    async with running(sample_ws) as (app, pilot, screen):
        row = agree.row(0, named=True)
        await goto(app, pilot, screen, row)
        text = screen.query_one(DetailPane).text("breakdown", width=200)
        assert f"PM {row['pm']:.2f}" in text and "paper's code" not in text


async def test_edit_and_rerun_changes_the_verdict(sample_ws: Evaluated) -> None:
    row = failing_row(sample_ws.frame)
    async with running(sample_ws) as (app, pilot, screen):
        await goto(app, pilot, screen, row)
        await pilot.press("3")
        await settle(app, pilot)
        detail = screen.query_one(DetailPane)
        assert screen.last_outcomes["ex_spider"] == 0
        detail.editor.focus()
        detail.editor.text = row["gold_sql"]
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        assert "EX (spider) pass" in detail.text("results", width=200)
        shown = {k: screen.last_outcomes[k] for k in ("va", "ex", "ex_spider", "ex_bird", "ex_archer")}
        assert shown == {"va": 1, "ex": 1, "ex_spider": 1, "ex_bird": 1, "ex_archer": 1}
        assert screen.last_outcomes["ex_official"] == 1 and screen.last_outcomes["gold_match"] == "gold"
    with Workspace.open(sample_ws.workspace) as ws:
        stored = ws.db.execute(
            "SELECT pred_sql FROM results WHERE idx = ? AND model = ?", [row["index"], row["model"]]
        ).fetchone()[0]
    assert stored == row["pred_sql"]  # a what-if never changes the stored prediction


async def test_next_and_previous_model_keep_the_example(sample_ws: Evaluated) -> None:
    async with running(sample_ws) as (app, pilot, screen):
        index, model = screen.current
        await pilot.press("right_square_bracket")
        await settle(app, pilot)
        assert screen.current[0] == index and screen.current[1] != model
        await pilot.press("left_square_bracket")
        await settle(app, pilot)
        assert screen.current == (index, model)


async def test_help_lists_every_binding(sample_ws: Evaluated) -> None:
    async with running(sample_ws) as (app, pilot, screen):
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        ids = {b.id for _, b in app.screen.entries}
        for needed in (
            "app.quit",
            "app.help",
            "browse.search",
            "browse.facets",
            "browse.detail",
            "browse.prev_model",
            "browse.next_model",
            "table.down",
            "table.up",
            "detail.run",
        ):
            assert needed in ids
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen


async def test_keymap_remaps_by_id(sample_ws: Evaluated) -> None:
    async with running(sample_ws, keymap={"browse.facets": "ctrl+o"}) as (app, pilot, screen):
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert app.focused is screen.query_one(FacetPanel)


async def test_command_palette_offers_screen_actions(sample_ws: Evaluated) -> None:
    from sqltriage.tui.app import ScreenActions

    async with running(sample_ws) as (app, pilot, screen):
        provider = ScreenActions(screen)
        names = [name for name, _, _ in provider._commands()]
        assert "Search" in names and "Filter outcome: EX fail" in names
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert app.screen.__class__.__name__ == "CommandPalette"


async def test_footer_shows_undo_note_export_and_summary_at_160_columns(sample_ws: Evaluated) -> None:
    """At 160 columns the footer line ends in view of the triage keys and the summary key."""
    async with running(sample_ws) as (app, _pilot, _screen):
        footer = screen_lines(app)[-1]
        for key in ("t Tag", "u Undo", "n Note", "e Export", "m Summary"):
            assert key in footer, f"{key!r} is not in view: {footer!r}"
