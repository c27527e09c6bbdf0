"""Reviewed EX: the triage tags a person gave change a second set of figures, raw EX left as it is.

Three evaluation tags carry a verdict on the verdict: "EX false negative (equivalent query)" counts the
row as correct, "EX false positive" as wrong, and "gold SQL wrong" takes the row out of the
denominator (its gold cannot judge it). The figures are computed from the tags at read time (report,
summary, export), so tagging, untagging and undo change them at once and nothing is stored twice.
A tag is recognised by its name, whatever category of the taxonomy holds it ("Evaluation: gold SQL
wrong" and "gold SQL wrong" alike).
"""

from __future__ import annotations

import re

import polars as pl

FALSE_NEGATIVE = "EX false negative (equivalent query)"
FALSE_POSITIVE = "EX false positive"
GOLD_WRONG = "gold SQL wrong"
REVIEW_TAGS = (FALSE_NEGATIVE, FALSE_POSITIVE, GOLD_WRONG)


def _has(tag: str) -> pl.Expr:
    """The row's tags (joined by ', ') include `tag`, alone or after a category ('Category: tag')."""
    pattern = rf"(?i)(?:^|, )(?:[^,]*?: )?{re.escape(tag)}(?:,|$)"
    return pl.col("tags").str.contains(pattern).fill_null(False)


def reviewed_columns(frame: pl.DataFrame) -> pl.DataFrame:
    """The frame with `ex_reviewed` (EX after review, None where the gold is wrong) and `reviewed` (0/1).

    Built from the frame's own `ex` (so it follows the EX mode shown) and its current `tags`. A row
    tagged both false negative and false positive keeps its raw EX: the review contradicts itself.
    """
    if "tags" not in frame.columns or "ex" not in frame.columns:
        return frame
    fn, fp, gold_wrong = _has(FALSE_NEGATIVE), _has(FALSE_POSITIVE), _has(GOLD_WRONG)
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
    reviewed = (fn | fp | gold_wrong).cast(pl.Int64)
    return frame.with_columns(reviewed_ex.alias("ex_reviewed"), reviewed.alias("reviewed"))
