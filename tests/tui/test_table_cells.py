"""The examples table's own cell rendering shows exactly what the table widget's general path would."""

from __future__ import annotations

import numpy as np
import polars as pl
from rich.segment import Segment
from textual_fastdatatable import DataTable

from sqltriage.tui.widgets.examples_table import COLUMNS, ExamplesTable, display_arrow

from .conftest import Evaluated, running, screen_lines

# Text a cell can hold that rich treats specially: markup, escapes, tabs, wide and combining characters,
# a word longer than the cell, trailing spaces, and exact fits.
AWKWARD = [
    "",
    "[bold]not markup[/bold] and [link=x]no link[/link]",
    "ends with a backslash \\",
    "a\ttab\tseparated\tquestion with more words than fit in the column",
    "日本語の質問はどのくらい長いですか、そして幅はいくつですか、全角文字で",
    "Which café’s naïve résumé — with “quotes” — fits?",
    "x" * 80,
    "word " * 30,
    "exactly forty-four characters long, see it!!",
    "exactly forty-four characters long, see it!! then more",
    ":smile: :thumbs_up: emoji codes stay text",
    "trailing spaces      ",
]


def styled_cells(lines: list[list[Segment]]) -> list[tuple[str, object]]:
    """One (character, style) pair per character: the same picture whatever the segments' split."""
    return [(ch, seg.style) for line in lines for seg in line for ch in seg.text]


async def test_cells_match_the_general_path(sample_ws: Evaluated) -> None:
    async with running(sample_ws) as (_app, pilot, screen):
        table = screen.query_one(ExamplesTable)
        frame = screen.frame.with_columns(
            pl.Series("question", [AWKWARD[i % len(AWKWARD)] for i in range(screen.frame.height)])
        )
        table.show(display_arrow(frame), np.arange(frame.height))
        await pilot.pause()
        base = table.rich_style
        compared = 0
        for row in range(min(frame.height, 2 * len(AWKWARD))):
            for column, (_, _, width) in enumerate(COLUMNS):
                for cursor, hover in ((False, False), (True, False), (False, True)):
                    ours = table._render_cell(row, column, base, width + 2, cursor, hover)
                    table._cell_render_cache.clear()
                    general = DataTable._render_cell(table, row, column, base, width + 2, cursor, hover)
                    table._cell_render_cache.clear()
                    if column == 2 and frame["question"][row].endswith("\\"):
                        # The general path escapes a trailing backslash for markup and then shows both
                        # backslashes; ours shows the text as it is. Everything else is the same.
                        text = " " + frame["question"][row]
                        assert "".join(ch for ch, _ in styled_cells(ours)).rstrip() == text.rstrip()
                        assert "".join(ch for ch, _ in styled_cells(general)).rstrip() == text.rstrip() + "\\"
                        continue
                    assert styled_cells(ours) == styled_cells(general), (row, column, cursor, hover)
                    assert sum(len(s.text) for s in ours[0]) > 0
                    compared += 1
        assert compared == 2 * (len(AWKWARD) * len(COLUMNS) - 1) * 3


async def test_screen_shows_the_question_cut_at_a_word(sample_ws: Evaluated) -> None:
    async with running(sample_ws) as (app, _pilot, screen):
        first = screen.frame.row(0, named=True)
        lines = screen_lines(app)
        row_line = next(line for line in lines if first["question"][:20] in line)
        shown = row_line.split(first["question"][:20], 1)[1]
        assert len(first["question"]) > 44  # the sample's first question does not fit its column
        words_shown = (first["question"][:20] + shown).split("  ")[0].strip()
        assert first["question"].startswith(words_shown)
        assert first["question"][len(words_shown)] == " "  # cut between words, as rich wraps
