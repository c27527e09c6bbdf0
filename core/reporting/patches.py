"""A loaded frame patched in place of a re-read: the rows a tag or note change touched get the values the
workspace now holds, and the facets and the outcome that read them follow at once."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import polars as pl

from sqltriage.core.reporting.facet_text import facet_text
from sqltriage.core.reporting.facets import NONE_VALUE, outcome_column, outcome_exprs, tag_list
from sqltriage.core.verdicts.review import REVIEW_COLUMN, review_marks

if TYPE_CHECKING:
    from sqltriage.core.workspace.store import Workspace


def _pairs_frame(
    pairs: Mapping[tuple[int, str], str | int | None], column: str, dtype: pl.DataType
) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "index": [i for i, _ in pairs],
            "model": [m for _, m in pairs],
            column: list(pairs.values()),
            "_hit": [True] * len(pairs),
        },
        schema={"index": pl.Int64, "model": pl.Utf8, column: dtype, "_hit": pl.Boolean},
    )


def _patched(
    frame: pl.DataFrame, pairs: Mapping[tuple[int, str], str | int | None], column: str
) -> pl.DataFrame:
    if not pairs:
        return frame
    dtype = frame.schema[column] if column in frame.columns else pl.Utf8
    upd = _pairs_frame(pairs, "_new", dtype if dtype != pl.Null else pl.Utf8)
    joined = frame.join(upd, on=["index", "model"], how="left", maintain_order="left")
    value = pl.when(pl.col("_hit").fill_null(False)).then(pl.col("_new")).otherwise(pl.col(column))
    return joined.with_columns(value.alias(column)).drop("_new", "_hit")


def with_row_tags(
    frame: pl.DataFrame, rows: Mapping[tuple[int, str], tuple[str | int | None, ...]]
) -> pl.DataFrame:
    """The prepared frame with these rows' (tags, tags_by, adjudicated_by, annotators, disagree, review
    marks) as the workspace holds them after a change, and the facets and the outcome that read them: only
    the touched rows change, so the counts follow at once (and reviewed EX, computed from the marks)."""
    out = frame
    for at, column in enumerate(TEAM_COLUMNS):
        if rows and (column == "tags" or column in out.columns):
            if not any(at < len(v) for v in rows.values()):
                continue  # not given: kept as it was
            out = _patched(out, {k: v[at] if at < len(v) else None for k, v in rows.items()}, column)
    if "_f_tag" not in out.columns:
        return out
    refreshed = [tag_list(pl.col("tags")).alias("_f_tag")]
    if "_f_annotators" in out.columns:
        who = facet_text(out, "annotators").cast(pl.Utf8).fill_null("").replace("", NONE_VALUE)
        name = "annotators disagree"
        refreshed += [who.alias("_f_annotators"), outcome_exprs()[name].alias(outcome_column(name))]
    return out.with_columns(refreshed)


def rows_as_stored(
    ws: Workspace, pairs: Iterable[tuple[int, str]]
) -> dict[tuple[int, str], tuple[str | int | None, ...]]:
    """Each row's (tags, tags_by, adjudicated_by, annotators, disagree, review marks) as the workspace holds
    them now: what `with_row_tags` takes after a change."""
    from sqltriage.core.reporting.report import row_team

    pairs = list(pairs)
    finals = [ws.tags_of(*pair) for pair in pairs]
    out: dict[tuple[int, str], tuple[str | int | None, ...]] = {}
    for pair, final, marks in zip(pairs, finals, review_marks(finals), strict=True):
        by = ws.annotator_tags(*pair)
        tags_by = "; ".join(f"{who}: {tag}" for who, tags in by.items() for tag in tags)
        row = (", ".join(final) or None, tags_by or None, ws.adjudicator_of(*pair), *row_team(by), marks)
        out[pair] = row
    return out


# what a tag change may change on a row, in the order `with_row_tags` takes them
TEAM_COLUMNS = ("tags", "tags_by", "adjudicated_by", "annotators", "disagree", REVIEW_COLUMN)


def with_note(frame: pl.DataFrame, notes: Mapping[tuple[int, str], str]) -> pl.DataFrame:
    """The frame with these notes set ("" clears one)."""
    return _patched(frame, {k: (v if v.strip() else None) for k, v in notes.items()}, "note")
