"""The facet sidebar at the scale of real studies: sections, top values, "more…", pinned choices, the
filter box, sections remembered in the config; checked on the screen a user sees."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import polars as pl

from sqltriage.core.reporting.facets import FACETS, Filters, facet_counts, membership_part, prepare
from sqltriage.tui.app import create_app
from sqltriage.tui.config import load_config
from sqltriage.tui.widgets.facet_panel import TOP, FacetPanel

from .conftest import OPTIONS, Evaluated, running, screen_lines, settle, wait_ready
from .test_browse import shown, toggle

N_MODELS = 42


def sidebar(app) -> list[str]:  # type: ignore[no-untyped-def]
    """The facet list's lines as shown (without the sidebar's border)."""
    region = app.screen.query_one(FacetPanel).region
    return [line[region.x : region.right].strip() for line in screen_lines(app)[region.y : region.bottom]]


def narrowing_facets(frame: pl.DataFrame) -> list[tuple[str, str]]:
    """The facets (key, label) with two values or more in the frame: the only ones worth a section."""
    counts = facet_counts(prepare(frame), Filters())
    return [(key, label) for key, label in FACETS if key == "outcome" or len(counts[key]) > 1]


def headers(app) -> list[str]:  # type: ignore[no-untyped-def]
    return [line[2:].split("  ")[0] for line in sidebar(app) if line[:1] and line[0] in "▾▸"]


def many_models(ev: Evaluated, path: Path) -> Path:
    """The sample's workspace with 42 models: the two real ones' results copied under new names."""
    shutil.copyfile(ev.workspace, path)
    with sqlite3.connect(path) as db:
        real = [m for (m,) in db.execute("SELECT name FROM models ORDER BY position")]
        for k in range(len(real), N_MODELS):
            name, source = f"system-{k:02d}-with-a-rather-long-name", real[k % len(real)]
            db.execute(
                "INSERT INTO models (name, path, format, sha256, result_key, position, added) "
                "SELECT ?, path, format, sha256, result_key, ?, added FROM models WHERE name = ?",
                [name, k, source],
            )
            cols = [r[1] for r in db.execute("PRAGMA table_info(results)") if r[1] != "model"]
            listed = ", ".join(f"[{c}]" for c in cols)
            db.execute(
                f"INSERT INTO results (model, {listed}) SELECT ?, {listed} FROM results WHERE model = ?",
                [name, source],
            )
    return path


async def test_sample_first_open_shows_hardness_and_reasoning(sample_ws: Evaluated) -> None:
    app = create_app(sample_ws.workspace, sample_ws.inputs.dataset, sample_ws.inputs.predictions, OPTIONS)
    async with app.run_test(size=(160, 52)) as pilot:
        await wait_ready(app, pilot)
        side = sidebar(app)
        headers = [line[2:].split("  ")[0] for line in side if line[:1] and line[0] in "▾▸"]
        listed = narrowing_facets(sample_ws.frame)
        assert len(headers) == len(
            listed
        )  # every facet core defines that can narrow, in order, one line each
        for shown_label, (_, label) in zip(headers, listed, strict=True):
            assert shown_label == label or (shown_label.endswith("…") and label.startswith(shown_label[:-1]))
        for facet in ("hardness", "reasoning"):
            at = next(i for i, line in enumerate(side) if line.startswith(f"▾ {facet}"))
            assert side[at + 1].startswith("○ "), f"{facet} shows no value on first open"
        assert any(line.startswith("○ easy") for line in side)
        # every value line is one line: names are cut with … rather than wrapped
        panel = app.screen.query_one(FacetPanel)
        assert panel.option_count == len([line for line in side if line])


async def test_42_models_collapsed_and_filter_box(sample_ws: Evaluated, tmp_path: Path) -> None:
    ws = many_models(sample_ws, tmp_path / "many.sqltriage.db")
    app = create_app(ws, sample_ws.inputs.dataset, (), OPTIONS)  # the workspace alone: every stored model
    async with app.run_test(size=(180, 50)) as pilot:
        screen = await wait_ready(app, pilot)
        assert shown(screen)[1] == N_MODELS * sample_ws.frame.get_column("index").n_unique()
        side = sidebar(app)
        assert f"▸ model  {N_MODELS}" in side  # many values: closed at first
        headers = [line[2:].split("  ")[0] for line in side if line[:1] and line[0] in "▾▸"]
        assert len(headers) == len(narrowing_facets(sample_ws.frame))  # every header on a 50-line screen
        panel = screen.query_one(FacetPanel)
        assert not panel.visible_values("model")

        # open it: the top values and "more…", then every model
        await pilot.press("f")
        panel.highlighted = panel.get_option_index("model\x1f")
        await pilot.press("enter")
        await pilot.pause()
        assert len(panel.visible_values("model")) == TOP
        assert any(line.startswith(f"more… ({N_MODELS - TOP} more)") for line in sidebar(app))
        panel.highlighted = panel.get_option_index("model\x1f\x1emore")
        await pilot.press("enter")
        await pilot.pause()
        assert len(panel.visible_values("model")) == N_MODELS

        # the filter box finds one model among 42 by typing; enter, then enter again chooses it
        await pilot.press("slash", *"m-17", "down")  # down (or enter) goes from the box to the values
        await pilot.pause()
        assert panel.visible_values("model") == ["system-17-with-a-rather-long-name"]
        assert not panel.visible_values("hardness")
        await pilot.press("enter")
        await settle(app, pilot)
        assert screen.filters.selected == {"model": frozenset({"system-17-with-a-rather-long-name"})}
        n = sample_ws.frame.get_column("index").n_unique()
        assert shown(screen)[0] == n

        # cleared filter: the chosen model is pinned on top of its section, even once it is closed
        await pilot.press("slash", "escape", "escape")
        await pilot.pause()
        assert panel.filter_text == ""
        assert panel.visible_values("model")[0] == "system-17-with-a-rather-long-name"
        panel.focus()
        panel.highlighted = panel.get_option_index("model\x1f")
        await pilot.press("left")
        await pilot.pause()
        assert panel.visible_values("model") == ["system-17-with-a-rather-long-name"]
        assert "▸ model  42  · 1 chosen" in sidebar(app)


async def test_sections_are_remembered_in_the_config(sample_ws: Evaluated, tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('theme = "textual-light"\n\n[keys]\n"browse.tag" = "ctrl+t"\n', encoding="utf-8")
    async with running(sample_ws, config_file=config) as (_app, pilot, screen):
        panel = screen.query_one(FacetPanel)
        assert not panel.is_open("structural")
        await pilot.press("f")
        for facet in ("structural", "hardness"):  # open a closed one, close an open one
            panel.highlighted = panel.get_option_index(f"{facet}\x1f")
            await pilot.press("space")
            await pilot.pause()
        assert panel.is_open("structural") and not panel.is_open("hardness")
    saved = load_config(config)
    assert saved.facets_open == ("structural",) and saved.facets_closed == ("hardness",)
    assert saved.theme == "textual-light" and saved.keys == {"browse.tag": "ctrl+t"}  # the rest kept
    kwargs = {"config_file": config, "facets_open": saved.facets_open, "facets_closed": saved.facets_closed}
    async with running(sample_ws, **kwargs) as (_app, _pilot, screen):
        panel = screen.query_one(FacetPanel)
        assert panel.is_open("structural") and not panel.is_open("hardness")
        combinations = [
            v for v in panel.visible_values("structural") if membership_part("structural", v) is None
        ]
        assert len(combinations) == TOP  # under the membership options, listed in full
        assert not panel.visible_values("hardness")


async def test_a_facet_with_one_value_is_left_out_until_a_value_of_it_is_chosen(sample_ws: Evaluated) -> None:
    """A section whose only value holds every row cannot narrow anything: it is noise in the sidebar."""
    frame = sample_ws.frame
    assert frame.get_column("official_quirk").fill_null("").eq("").all()  # the sample: no such row
    word = "flight"  # only in the airline database's questions and queries
    assert set(frame.filter(pl.col("question").str.to_lowercase().str.contains(word))["db_id"]) == {"airline"}
    async with running(sample_ws) as (app, pilot, screen):
        assert not [h for h in headers(app) if h.startswith("official")]
        assert "database" in headers(app)
        await pilot.press("slash", *word, "enter")  # every row left is airline: choosing it narrows nothing
        await settle(app, pilot)
        assert "database" not in headers(app)
        assert "hardness" in headers(app)

        await pilot.press("slash", *["backspace"] * len(word), "enter")
        await settle(app, pilot)
        await toggle(app, pilot, "db_id", "airline")
        await pilot.press("l", "slash", *word, "enter")  # back to the table: `/` there searches
        await settle(app, pilot)
        assert screen.filters.selected == {"db_id": frozenset({"airline"})} and screen.filters.search == word
        assert "database" in headers(app)  # chosen: it stays, so the choice can be seen and undone
        assert any(line.startswith("● airline") for line in sidebar(app))
