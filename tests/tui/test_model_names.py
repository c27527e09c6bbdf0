"""Model names cut to a width stay distinct: in the helper, the examples table, the sidebar and the summary."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from sqltriage.tui.app import create_app
from sqltriage.tui.screens.summary import SummaryScreen
from sqltriage.tui.widgets.examples_table import COLUMNS, ExamplesTable
from sqltriage.tui.widgets.facet_panel import FacetPanel

from .conftest import OPTIONS, Evaluated, screen_lines, settle, wait_ready
from .test_sidebar import sidebar

# Fifteen systems of one study, as its prediction files name them: four share their first 16 characters.
STUDY = [
    "nl2sql360_SFT_CodeLlama-7B",
    "nl2sql360_SFT_CodeLlama-13B",
    "nl2sql360_SFT_CodeLlama-34B",
    "nl2sql360_SFT_Coder-1.3B",
    "nl2sql360_SFT_Coder-6.7B",
    "nl2sql360_SFT_Coder-33B",
    "nl2sql360_SFT_Qwen2.5-Coder-7B",
    "nl2sql360_SFT_Qwen2.5-Coder-14B",
    "nl2sql360_ICL_gpt-4o",
    "nl2sql360_ICL_gpt-3.5-turbo",
    "dinsql_gpt4",
    "c3sql_gpt35",
    "resdsql_3b_natsql",
    "resdsql_large",
    "dailsql_gpt4_sc",
]


def study_workspace(ev: Evaluated, path: Path) -> Path:
    """The sample's workspace with the study's fifteen names: the two real models' results copied."""
    shutil.copyfile(ev.workspace, path)
    with sqlite3.connect(path) as db:
        real = [m for (m,) in db.execute("SELECT name FROM models ORDER BY position")]
        cols = [r[1] for r in db.execute("PRAGMA table_info(results)") if r[1] != "model"]
        listed = ", ".join(f"[{c}]" for c in cols)
        for k, name in enumerate(STUDY):
            source = real[k % len(real)]
            db.execute(
                "INSERT INTO models (name, path, format, sha256, result_key, position, added) "
                "SELECT ?, path, format, sha256, result_key, ?, added FROM models WHERE name = ?",
                [name, len(real) + k, source],
            )
            db.execute(
                f"INSERT INTO results (model, {listed}) SELECT ?, {listed} FROM results WHERE model = ?",
                [name, source],
            )
        for name in real:  # only the study's names are left
            db.execute("DELETE FROM results WHERE model = ?", [name])
            db.execute("DELETE FROM models WHERE name = ?", [name])
    return path


async def test_the_app_tells_the_models_apart(sample_ws: Evaluated, tmp_path: Path) -> None:
    ws = study_workspace(sample_ws, tmp_path / "study.sqltriage.db")
    app = create_app(ws, sample_ws.inputs.dataset, (), OPTIONS)
    async with app.run_test(size=(180, 60)) as pilot:
        screen = await wait_ready(app, pilot)
        # the table: one row per model for the first example, each model cell distinct and uncut
        table = screen.query_one(ExamplesTable)
        first = screen.view.get_column("index")[0]
        await pilot.press("f")
        panel = screen.query_one(FacetPanel)
        assert sorted(v for v, _ in panel.counts["model"]) == sorted(STUDY)
        screen.show_examples(STUDY, frozenset({first}), "the first example")
        await settle(app, pilot)
        assert table.row_count == len(STUDY)
        at = [c for c, _, _ in COLUMNS].index("model")
        cells = [table.get_row_at(r)[at] for r in range(table.row_count)]
        assert len(set(cells)) == len(STUDY), cells
        drawn = "\n".join(screen_lines(app))
        for cell in cells:
            assert cell in drawn  # as the terminal shows it, not cut further
        assert "nl2sql360_SFT_Co " not in drawn

        # the sidebar, narrowed to 24 columns: the fifteen chosen models, pinned on top, on distinct lines
        screen.query_one("#sidebar").styles.width = 24
        await settle(app, pilot)
        lines = [line for line in sidebar(app) if line.startswith("● ")]
        assert len(lines) == len(STUDY)
        models = [line[2:].rsplit(" ", 1)[0].strip() for line in lines]
        assert len(set(models)) == len(STUDY), models

        # the summary: the charts' per-model columns name every model distinctly
        await pilot.press("m")
        await settle(app, pilot)
        summary = app.screen
        assert isinstance(summary, SummaryScreen)
        text = summary.metrics_text(width=400)
        header = next(line for line in text.splitlines() if line.strip("┃ ").startswith("hardness "))
        columns = [cell.strip() for cell in header.strip("┃").split("┃")[2:]]  # after the value and n
        assert len(columns) == len(STUDY) == len(set(columns)), columns
        for name, label in zip(summary.models, columns, strict=True):
            head, _, tail = label.partition("…")
            assert name.startswith(head) and name.endswith(tail), (name, label)
