"""The core stays free of UI code, and the command line starts without heavy imports."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import sqltriage.core
from tests.conftest import modules_loaded_by


def core_modules() -> list[str]:
    return [
        m.name
        for m in pkgutil.walk_packages(sqltriage.core.__path__, prefix="sqltriage.core.")
        if not m.name.endswith("__main__")
    ]


def test_importing_every_core_module_loads_no_ui() -> None:
    modules = core_modules()
    assert "sqltriage.core.pipeline.evaluate" in modules and "sqltriage.core.sql.exact_match" in modules
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich') or m.startswith('sqltriage.tui'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"core pulls in UI modules: {out.stdout.strip()}"


def test_help_imports_neither_spacy_nor_polars_nor_textual() -> None:
    code = "from sqltriage.tui.cli import build_parser\nbuild_parser().format_help()"
    assert modules_loaded_by(code, ("spacy", "polars", "textual", "sqlglot")) == []
