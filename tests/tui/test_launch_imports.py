"""Opening the app loads only what its first screen draws: no SQL parser, no spaCy before a row is analysed."""

from __future__ import annotations

import subprocess
import sys

HEAVY_LATER = ("sqlglot", "spacy", "sqltriage.core.suggest")


def test_first_screen_path_loads_no_parser_or_nlp() -> None:
    code = (
        "import sys\n"
        "import sqltriage.tui.app, sqltriage.tui.inputs, sqltriage.core.evaluate, sqltriage.core.report\n"
        "import sqltriage.core.facets, sqltriage.core.feature_cache\n"
        "from sqltriage.tui.widgets.detail_render import render_triage\n"
        "render_triage('', '', [])  # the triage tab is drawn with the first highlighted row\n"
        f"print(','.join(m for m in {HEAVY_LATER!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
