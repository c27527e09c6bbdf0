"""sqlite-utils, textual-serve and its web stack, and z3, load only where they are used, never on the eval or app path."""

from __future__ import annotations

from tests.conftest import modules_loaded_by

OPTIONAL = ("sqlite_utils", "textual_serve", "aiohttp", "z3")


def test_eval_and_app_paths_load_no_optional_stack() -> None:
    code = (
        "import sqltriage.core.pipeline.evaluate, sqltriage.core.reporting.report, sqltriage.core.reporting.export, sqltriage.core.reporting.views\n"
        "import sqltriage.core.reporting.export_formats, sqltriage.tui.app, sqltriage.tui.commands.serve_cmd\n"
    )
    assert modules_loaded_by(code, OPTIONAL) == []
