"""Opening the app loads only what its first screen draws: no SQL parser, no spaCy before a row is analysed."""

from __future__ import annotations

from tests.conftest import modules_loaded_by

HEAVY_LATER = ("sqlglot", "spacy", "sqltriage.core.suggest")


def test_first_screen_path_loads_no_parser_or_nlp() -> None:
    code = (
        "import sqltriage.tui.app, sqltriage.tui.inputs, sqltriage.core.pipeline.evaluate, sqltriage.core.reporting.report\n"
        "import sqltriage.core.reporting.facets, sqltriage.core.questions.feature_cache\n"
        "from sqltriage.tui.widgets.detail_render import render_triage\n"
        "render_triage('', '', [])  # the triage tab is drawn with the first highlighted row\n"
    )
    assert modules_loaded_by(code, HEAVY_LATER) == []


def test_opening_a_workspace_loads_no_evaluation_pipeline() -> None:
    """`open` builds its options and the app without the pool and the pair metrics (core.pipeline.options)."""
    code = (
        "import argparse\n"
        "from sqltriage.tui.commands.eval_cmd import options_from\n"
        "from sqltriage.tui.app import create_app\n"
        "options_from(argparse.Namespace())\n"
    )
    loaded = modules_loaded_by(code, ("sqltriage.core.pipeline.evaluate", "concurrent.futures.process"))
    assert loaded == []
