"""CSV export of any filtered frame, and the `--where` filter language shared by the CLI."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import polars as pl

from sqltriage.core.errors import UsageError
from sqltriage.core.reporting.facets import parts_expr
from sqltriage.core.reporting.report import (
    AUTHORS_METRICS,
    EXEC_METRICS,
    MATCH_METRICS,
    export_frame,
    load_frame,
)
from sqltriage.core.workspace.store import Workspace

_FILTER = re.compile(r"^\s*([A-Za-z_]+)\s*(!=|>=|<=|=|~|>|<)\s*(.*?)\s*$")
_HAS = re.compile(r"^\s*([A-Za-z_]+)\s+has\s+(.+?)\s*$")
# Columns holding a combination of parts, and the facet whose parts they are made of.
PART_COLUMNS = {
    "structural": "structural",
    "operators": "operators",
    "reasoning": "reasoning",
    "pred_structural": "structural",
    "pred_operators": "operators",
}
NUMERIC = {
    "index",
    *EXEC_METRICS,
    *MATCH_METRICS,
    *AUTHORS_METRICS,
    "ex_reviewed",
    "reviewed",
    "tie_sensitive",
}


def parse_filter(text: str, columns: Sequence[str]) -> pl.Expr:
    """`ex=0`, `model=NAME`, `structural has W`, `pm>=0.9`, `tag=NAME`, … as a polars expression.

    `COLUMN has PART` is the app's membership option ("has W (where)", "needs subtraction"): the
    combination contains PART as a whole part, where `structural~O` is a text search that `S F SO`
    passes too.
    """
    has = _HAS.match(text)
    if has:
        name, part = has.groups()
        if name not in PART_COLUMNS:
            raise UsageError(
                f"`has` works on {', '.join(PART_COLUMNS)}, not {name!r}",
                where=text,
                hint="use ~ to search text",
            )
        if name not in columns:
            raise UsageError(
                f"unknown column {name!r} in filter {text!r}", hint=f"columns: {', '.join(columns)}"
            )
        parts = parts_expr(PART_COLUMNS[name], pl.col(name).cast(pl.Utf8).fill_null(""))
        return parts.list.contains(part)
    m = _FILTER.match(text)
    if not m:
        raise UsageError(
            f"cannot read the filter {text!r}",
            hint="write COLUMN=VALUE, COLUMN!=VALUE, COLUMN~TEXT, COLUMN has PART or COLUMN>=NUMBER "
            "(see `sqltriage export --help`)",
        )
    name, op, value = m.groups()
    if name == "tag":
        tags = pl.col("tags").fill_null("").str.split(", ")
        has = tags.list.contains(value)
        if op == "=":
            return has
        if op == "!=":
            return ~has
        if op == "~":
            return pl.col("tags").fill_null("").str.contains(value, literal=True)
        raise UsageError(f"tag filters use =, != or ~, not {op!r}", where=text)
    if name not in columns:
        raise UsageError(f"unknown column {name!r} in filter {text!r}", hint=f"columns: {', '.join(columns)}")
    col = pl.col(name)
    if op == "~":
        return col.cast(pl.Utf8).fill_null("").str.contains(value, literal=True)
    if name in NUMERIC:
        if value.lower() in ("", "null", "none"):
            return col.is_null() if op == "=" else col.is_not_null()
        try:
            number = float(value)
        except ValueError:
            raise UsageError(f"{name} compares with a number, not {value!r}", where=text) from None
        ops = {
            "=": col == number,
            "!=": col != number,
            ">=": col >= number,
            "<=": col <= number,
            ">": col > number,
            "<": col < number,
        }
        return ops[op].fill_null(False)
    text_col = col.cast(pl.Utf8).fill_null("")
    if op == "=":
        return text_col == value
    if op == "!=":
        return text_col != value
    raise UsageError(f"{name} is text: use =, != or ~", where=text)


def apply_filters(
    frame: pl.DataFrame, filters: Sequence[str], models: Sequence[str] | None = None
) -> pl.DataFrame:
    if models:
        unknown = sorted(set(models) - set(frame.get_column("model").unique().to_list()))
        if unknown:
            raise UsageError(f"no model named {', '.join(unknown)} in this workspace")
        frame = frame.filter(pl.col("model").is_in(list(models)))
    for f in filters:
        frame = frame.filter(parse_filter(f, frame.columns))
    return frame


def exported(
    workspace: Path, filters: Sequence[str] = (), models: Sequence[str] | None = None
) -> pl.DataFrame:
    """The rows `sqltriage export` writes from an existing workspace, filtered (before the columns are picked)."""
    with Workspace.open_for_reading(workspace) as ws:
        frame = load_frame(ws)
    return apply_filters(frame, filters, models)


def write_csv(frame: pl.DataFrame, out: Path) -> int:
    """Write the export columns to `out` (via a temporary file, so a failed write leaves no half file)."""
    data = export_frame(frame)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".partial")
    data.write_csv(tmp)
    tmp.replace(out)
    return data.height
