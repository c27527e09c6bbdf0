"""Reviewed EX: the triage tags a person gave change a second set of figures, raw EX left as it is.

Three evaluation tags carry a verdict on the verdict: "EX false negative (equivalent query)" counts the
row as correct, "EX false positive" as wrong, and "gold SQL wrong" takes the row out of the
denominator (its gold cannot judge it). The figures are computed from the tags at read time (report,
summary, export, the workspace's `evaluations` view), so tagging, untagging and undo change them at once
and nothing is stored twice.

A tag is recognised by its name, tag by tag, whatever category of the taxonomy holds it ("Evaluation:
gold SQL wrong" and "gold SQL wrong" alike; case aside): `tag_mark_sql` is the one definition, in SQL, and
everything evaluates it in SQLite — the `evaluations` view, the frame as it is read (`marks_sql`, into
the frame's `_review` column) and the rows a change touched (`review_marks`). A row's tags are never
matched as one joined text: a tag whose name holds ", " is one tag, not two.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from contextlib import closing

import polars as pl

FALSE_NEGATIVE = "EX false negative (equivalent query)"
FALSE_POSITIVE = "EX false positive"
GOLD_WRONG = "gold SQL wrong"
REVIEW_TAGS = (FALSE_NEGATIVE, FALSE_POSITIVE, GOLD_WRONG)
# each review tag's bit in a row's marks: a row's marks are the OR of its tags' (0: not reviewed)
BITS = {FALSE_NEGATIVE: 1, FALSE_POSITIVE: 2, GOLD_WRONG: 4}
REVIEW_COLUMN = "_review"  # the frame's column of each row's marks (report.load_frame, patches)


def tag_mark_sql(tag: str) -> str:
    """SQL: the review bit of one tag, `tag` an SQL expression of its name (0 for any other tag).

    The tag is the review tag's name alone or after a category ("Category: name"), ignoring case.
    """
    lowered = f"lower({tag})"
    cases = []
    for name, bit in BITS.items():
        text = name.lower().replace("'", "''")
        cases.append(
            f"WHEN {lowered} = '{text}' OR substr({lowered}, -{len(name) + 2}) = ': {text}' THEN {bit}"
        )
    return f"(CASE {' '.join(cases)} ELSE 0 END)"


def marks_sql(tag: str) -> str:
    """SQL aggregate: the marks of a group of tags (the bits of its review tags, OR-ed; 0 for none)."""
    return f"coalesce(sum(DISTINCT {tag_mark_sql(tag)}), 0)"


def review_marks(tag_lists: Sequence[Sequence[str]]) -> list[int]:
    """The marks of each list of tags: `tag_mark_sql` evaluated by SQLite, as the view and the frame are."""
    if not tag_lists:
        return []
    with closing(sqlite3.connect(":memory:")) as db:
        rows = db.execute(
            f"SELECT r.key, {marks_sql('t.value')} FROM json_each(?) r LEFT JOIN json_each(r.value) t "
            "GROUP BY r.key ORDER BY r.key",
            [json.dumps([list(tags) for tags in tag_lists])],
        ).fetchall()
    return [int(marks) for _, marks in rows]


def reviewed_sql(marks: str, ex: str) -> dict[str, str]:
    """SQL of `ex_reviewed` and `reviewed` from a row's marks and its EX (as `reviewed_columns` computes
    them on a frame): what the workspace's `evaluations` view shows."""
    fn, fp, gold = (f"(({marks}) & {BITS[t]}) != 0" for t in REVIEW_TAGS)
    return {
        "ex_reviewed": (
            f"CASE WHEN {gold} THEN NULL WHEN {ex} IS NOT NULL AND {fn} AND NOT {fp} THEN 1 "
            f"WHEN {ex} IS NOT NULL AND {fp} AND NOT {fn} THEN 0 ELSE {ex} END"
        ),
        "reviewed": f"CASE WHEN ({marks}) != 0 THEN 1 ELSE 0 END",
    }


def reviewed_columns(frame: pl.DataFrame) -> pl.DataFrame:
    """The frame with `ex_reviewed` (EX after review, None where the gold is wrong) and `reviewed` (0/1).

    Built from the frame's own `ex` (so it follows the EX mode shown) and its rows' marks as they are now
    (`_review`, read and patched with the tags). A row tagged both false negative and false positive
    keeps its raw EX: the review contradicts itself.
    """
    if REVIEW_COLUMN not in frame.columns or "ex" not in frame.columns:
        return frame
    marks = pl.col(REVIEW_COLUMN).fill_null(0).cast(pl.Int64)
    fn, fp, gold_wrong = ((marks & BITS[t]) != 0 for t in REVIEW_TAGS)
    raw = pl.col("ex").cast(pl.Int64)
    reviewed_ex = (
        pl.when(gold_wrong)
        .then(pl.lit(None, dtype=pl.Int64))
        .when(fn & ~fp & raw.is_not_null())
        .then(pl.lit(1, dtype=pl.Int64))
        .when(fp & ~fn & raw.is_not_null())
        .then(pl.lit(0, dtype=pl.Int64))
        .otherwise(raw)
    )
    reviewed = (marks != 0).cast(pl.Int64)
    return frame.with_columns(reviewed_ex.alias("ex_reviewed"), reviewed.alias("reviewed"))
