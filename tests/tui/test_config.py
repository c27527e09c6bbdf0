"""config.toml: keys, the EX mode the screens use, a replacement taxonomy; and help generated from bindings."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from sqltriage.core.errors import UsageError
from sqltriage.tui.config import Config, load_config
from sqltriage.tui.screens.help import HelpScreen

from .conftest import Evaluated, running, settle
from .test_browse import sidebar_count


def test_no_file_means_defaults(tmp_path: Path) -> None:
    assert load_config(tmp_path / "config.toml") == Config()


def test_every_setting(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        'default_ex_mode = "archer"\ntaxonomy = "mine.toml"\ntheme = "textual-light"\n'
        '[keys]\n"browse.tag" = "ctrl+t"\n',
        encoding="utf-8",
    )
    config = load_config(path)
    assert config.default_ex_mode == "archer"
    assert config.taxonomy == tmp_path / "mine.toml"  # relative to the config file
    assert config.theme == "textual-light"
    assert config.keys == {"browse.tag": "ctrl+t"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('default_ex_mode = "strict"', "default_ex_mode is 'strict'"),
        ("keymap = 1", "unknown setting"),
        ("[keys]\nx = 1", r"\[keys\] must map"),
        ("default_ex_mode = ", "cannot read the config"),
    ],
)
def test_bad_settings_are_named(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UsageError, match=message):
        load_config(path)


async def test_bird_mode_drives_status_and_facets(sample_ws: Evaluated) -> None:
    frame = sample_ws.frame
    assert frame.filter(pl.col("ex_bird") != pl.col("ex_spider")).height > 0  # the modes differ here
    async with running(sample_ws, ex_mode="bird") as (app, pilot, screen):
        assert "EX in bird mode" in screen.status_text
        assert sidebar_count(app, "outcome", "EX fail") == frame.filter(pl.col("ex_bird") == 0).height
        await pilot.press("question_mark")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen)
        ids = {b.id for _, b in app.screen.entries}
        for needed in ("browse.tag", "browse.tag_all", "browse.undo", "browse.note", "browse.export"):
            assert needed in ids
        assert {"summary.metric", "picker.cancel", "note.save"} <= ids


def test_the_annotator_comes_from_the_flag_else_the_config_else_the_os_user(tmp_path: Path) -> None:
    from sqltriage.core.workspace.annotators import os_user
    from sqltriage.tui.config import resolve_annotator

    path = tmp_path / "config.toml"
    path.write_text('[triage]\nannotator = "  Ann  Lee "\n', encoding="utf-8")
    config = load_config(path)
    assert config.annotator == "Ann Lee"
    assert resolve_annotator("bob", config) == "bob"
    assert resolve_annotator(None, config) == "Ann Lee"
    assert resolve_annotator(None, Config()) == os_user()
    with pytest.raises(UsageError, match="--annotator needs a non-empty name"):
        resolve_annotator("  ", config)
    path.write_text('[triage]\nannotator = ""\n', encoding="utf-8")
    with pytest.raises(UsageError, match=r"triage\.annotator"):
        load_config(path)
