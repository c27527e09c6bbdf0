"""Membership options in the sidebar: "has J (join)", "needs subtraction", next to the combinations."""

from __future__ import annotations

import polars as pl

from sqltriage.tui.app import create_app
from sqltriage.tui.widgets.facet_panel import FacetPanel

from .conftest import OPTIONS, Evaluated, running, wait_ready
from .test_browse import shown, toggle
from .test_sidebar import sidebar


def has(column: str, part: str) -> pl.Expr:
    return pl.col(column).fill_null("").str.split(" ").list.contains(part)


async def open_section(app, pilot, facet: str) -> FacetPanel:  # type: ignore[no-untyped-def]
    """Open `facet`'s section from the keyboard, as a user does (enter on its header)."""
    await pilot.press("f")
    panel = app.screen.query_one(FacetPanel)
    if not panel.is_open(facet):
        panel.highlighted = panel.get_option_index(f"{facet}\x1f")
        await pilot.press("enter")
        await pilot.pause()
    return panel


def option_count(app, option: str) -> int:  # type: ignore[no-untyped-def]
    """The count the sidebar shows next to `option` (its section open, or the option chosen)."""
    lines = [line for line in sidebar(app) if line[2:].startswith(f"{option} ")]
    assert lines, f"the sidebar lists no {option!r}"
    return int(lines[0].rsplit(" ", 1)[1])


async def test_every_example_with_a_join_in_one_choice(sample_ws: Evaluated) -> None:
    frame = sample_ws.frame
    joins = frame.filter(has("operators", "J"))
    assert joins.get_column("operators").n_unique() > 1  # several combinations hold a join
    app = create_app(sample_ws.workspace, sample_ws.inputs.dataset, sample_ws.inputs.predictions, OPTIONS)
    async with app.run_test(size=(160, 100)) as pilot:  # tall enough for both sections open
        screen = await wait_ready(app, pilot)
        for facet in ("operators", "structural"):
            await open_section(app, pilot, facet)
        assert option_count(app, "has J (join)") == joins.height
        await toggle(app, pilot, "operators", "has J (join)")
        assert shown(screen) == (joins.height, frame.height, joins.height)
        assert all("J" in ops.split() for ops in screen.view.get_column("operators").to_list())
        assert "operators=has J (join)" in screen.status_text
        # the line a user reads, pinned on top of its section with its count
        assert any(
            line.startswith("● has J (join)") and line.endswith(f" {joins.height}") for line in sidebar(app)
        )

        # counts of the other facets' membership options are live: under the join filter
        with_where = joins.filter(has("structural", "W")).height
        assert 0 < with_where < joins.height
        assert option_count(app, "has W (where)") == with_where
        await toggle(app, pilot, "structural", "has W (where)")
        assert shown(screen)[0] == with_where  # facets are AND-ed

        # a combination of the same facet is OR-ed with the membership option
        no_join = frame.filter(~has("operators", "J") & has("structural", "W"))
        combination = no_join.get_column("operators").mode().sort()[0]  # e.g. "C": no join in it
        alone = no_join.filter(pl.col("operators") == combination).height
        await toggle(app, pilot, "operators", combination)
        assert shown(screen)[0] == with_where + alone
        assert f"operators={'|'.join(sorted([combination, 'has J (join)']))}" in screen.status_text


async def test_needs_subtraction_and_options_that_cannot_narrow_are_left_out(sample_ws: Evaluated) -> None:
    frame = sample_ws.frame
    subtraction = frame.filter(has("reasoning", "subtraction"))
    async with running(sample_ws) as (app, pilot, screen):
        panel = screen.query_one(FacetPanel)
        listed = panel.visible_values("reasoning")  # open by default
        assert "needs subtraction" in listed and "subtraction commonsense" in listed  # both views
        assert listed.index("needs subtraction") < listed.index("subtraction commonsense")
        await toggle(app, pilot, "reasoning", "needs subtraction")
        assert shown(screen)[0] == subtraction.height > 0
        # every row has a SELECT and a FROM: those options would hold every row and are not listed
        await open_section(app, pilot, "structural")
        structural = panel.visible_values("structural")
        assert "has W (where)" in structural and "has S (select)" not in structural
