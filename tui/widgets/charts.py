"""Terminal charts of the summary screen, built as rich renderables from `core.report` rows.

Bars are drawn with block characters in the terminal's default colour, so they read the same on
light and dark backgrounds; numbers are always printed next to them. A chart's column per model is
headed by the model's name cut in the middle (`names.short_labels`); the tables with a row per model
(metrics, TS, error sources) show names whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from sqltriage.tui.widgets.names import short_labels

_EIGHTHS = " ▏▎▍▌▋▊▉"
METRICS = {"ex": "EX", "em": "EM", "pm": "PM"}
FACET_TITLES = {
    "structural": "structural category",
    "operators": "operator category",
    "hardness": "hardness",
    "reasoning": "reasoning type",
}


def bar(share: float | None, width: int = 10) -> str:
    """`share` of `width` cells in eighths; a non-zero share stays visible."""
    if share is None or share <= 0:
        return ""
    eighths = max(1, round(min(share, 1.0) * width * 8))
    full, part = divmod(eighths, 8)
    return "█" * full + (_EIGHTHS[part] if part else "")


def _cell(share: float | None, width: int) -> Text:
    if share is None:
        return Text("—", style="dim")
    out = Text(f"{bar(share, width):<{width}}")
    out.append(f" {share * 100:5.1f}%")
    return out


def error_rate(row: dict[str, Any], metric: str) -> float | None:
    """1 − the mean of `metric` (for PM: the mean shortfall from a perfect partial match)."""
    value = row.get(metric)
    return None if value is None else 1.0 - float(value)


_COUNTS = ("official_differs", "reviewed")


def model_table(
    models: Sequence[dict[str, Any]], ex_mode: str, intervals: dict[str, Any] | None = None
) -> Table:
    """Metrics per model; `EX official` joins when the official evaluator scores some row differently.

    `intervals` (model → 95 % bootstrap interval of EX) adds a column beside EX.
    """
    keys = ["va", "ex", "em", "pm", "sm", "om", "vm"]
    labels = {"va": "VA", "ex": "EX", "em": "EM", "pm": "PM", "sm": "SM", "om": "OM", "vm": "VM"}
    keys[2:2] = ["ex_reviewed", "reviewed"]  # raw and reviewed EX side by side, with the rows reviewed
    labels |= {"ex_reviewed": "EX reviewed", "reviewed": "reviewed"}
    if any(m.get("official_differs") for m in models):
        keys[2:2] = ["ex_official", "official_differs"]
        labels |= {"ex_official": "EX official", "official_differs": "≠ official"}
    t = Table(title=f"models (EX in {ex_mode} mode)", title_justify="left", expand=False)
    t.add_column("model", justify="left")
    t.add_column("n", justify="right")
    if intervals is not None:
        keys.insert(keys.index("ex") + 1, "ex_ci")
        labels["ex_ci"] = "EX 95% CI"
    for k in keys:
        t.add_column(labels[k], justify="right")
    for m in models:
        cells = ["—" if m.get(k) is None else (f"{m[k]:,}" if k in _COUNTS else f"{m[k]:.3f}") for k in keys]
        if intervals is not None:
            ci = intervals.get(m["model"])
            cells[keys.index("ex_ci")] = "—" if ci is None else f"{ci[0]:.3f}–{ci[1]:.3f}"
        t.add_row(m["model"], f"{m['n']:,}", *cells)
    return t


TS_COLUMNS = {"spider": "ex_ts", "bird": "ex_ts_bird", "archer": "ex_ts_archer"}


def ts_table(models: Sequence[dict[str, Any]], ex_mode: str = "spider") -> Table:
    """EX next to EX on the neighbour databases (in the same EX mode), and the gap: how much EX owes to
    coincidence."""
    ts_key = TS_COLUMNS.get(ex_mode, "ex_ts")
    t = Table(
        title="EX vs semantic EX on neighbour databases (TS)",
        title_justify="left",
        expand=False,
    )
    for col in ("model", f"EX ({ex_mode})", f"TS ({ex_mode})", "EX − TS", "rows"):
        t.add_column(col, justify="left" if col == "model" else "right")
    for m in models:
        ex, ts = m.get(f"ex_{ex_mode}"), m.get(ts_key)
        gap = None if ex is None or ts is None else ex - ts
        t.add_row(
            m["model"],
            "—" if ex is None else f"{ex:.3f}",
            "—" if ts is None else f"{ts:.3f}",
            "—" if gap is None else f"{gap:.3f}",
            f"{m.get(f'{ts_key}_n') or 0:,}",
        )
    return t


def facet_chart(
    rows: Sequence[dict[str, Any]], models: Sequence[str], facet: str, metric: str, width: int = 8
) -> Table:
    """Error rate of `metric` per value of `facet` (rows), one column per model (side by side)."""
    label = METRICS[metric]
    t = Table(
        title=f"{label} error rate by {FACET_TITLES.get(facet, facet)}",
        title_justify="left",
        expand=False,
        pad_edge=False,
    )
    t.add_column(facet, no_wrap=True, max_width=22)
    t.add_column("n", justify="right")
    labels = short_labels(models, width + 7)  # a column per model: its name cut in the middle to fit
    for m in models:
        t.add_column(labels[m], no_wrap=True, min_width=width + 7, max_width=width + 7)
    by_value: dict[str, dict[str, dict[str, Any]]] = {}
    for r in rows:
        by_value.setdefault(r["value"], {})[r["model"]] = r
    for value, per_model in by_value.items():
        n = next(iter(per_model.values()))["n"]
        cells = [
            _cell(error_rate(per_model[m], metric), width) if m in per_model else Text("") for m in models
        ]
        t.add_row(value, f"{n:,}", *cells)
    return t


def error_sources_chart(rows: Sequence[dict[str, Any]], width: int = 12) -> Table:
    t = Table(
        title="error sources",
        title_justify="left",
        caption="among errors (EX fail, else EM fail): the share with each kind of mismatch",
        caption_justify="left",
        expand=False,
    )
    t.add_column("model")
    t.add_column("errors", justify="right")
    for kind in ("structural", "operator", "variable"):
        t.add_column(kind, no_wrap=True)
    for r in rows:
        t.add_row(
            r["model"],
            f"{r['errors']:,}",
            *(_cell(r[k], width) for k in ("structural", "operator", "variable")),
        )
    return t


def tag_chart(frame: pl.DataFrame, models: Sequence[str], width: int = 8) -> RenderableType:
    """Rows tagged with each tag, per model, most used first."""
    tags = frame.select("model", pl.col("tags").fill_null("").str.split(", ").alias("tag")).explode("tag")
    tags = tags.filter(pl.col("tag") != "")
    if tags.is_empty():
        return Text("tags: none yet (t on the browse screen tags a row)", style="dim")
    counts = tags.group_by("tag", "model").len()
    totals = (
        counts.group_by("tag")
        .agg(pl.col("len").sum().alias("total"))
        .sort(["total", "tag"], descending=[True, False])
    )
    top = max(int(counts.get_column("len").max() or 1), 1)  # type: ignore[arg-type]
    t = Table(title="tags: rows per model", title_justify="left", expand=False)
    t.add_column("tag", no_wrap=True, max_width=40)
    t.add_column("total", justify="right")
    labels = short_labels(models, width + 7)  # as the facet charts label their model columns
    for m in models:
        t.add_column(labels[m], no_wrap=True, max_width=width + 7)
    lookup = {(tag, m): n for tag, m, n in counts.iter_rows()}
    for tag, total in totals.iter_rows():
        cells = []
        for m in models:
            n = lookup.get((tag, m), 0)
            cells.append(Text(f"{bar(n / top, width):<{width}} {n:>4}") if n else Text(""))
        t.add_row(tag, f"{total:,}", *cells)
    return t


def verified_table(models: Sequence[dict[str, Any]]) -> Table:
    """Per model EX, TS and EX verified: how much of EX a solver proves equivalent to the gold (up to the
    bound), and how many EX passes it refuted (`eval --verify`)."""
    t = Table(title="EX, TS and EX verified (--verify)", title_justify="left", expand=False)
    for col in ("model", "EX", "TS", "EX verified", "checked", "refuted"):
        t.add_column(col, justify="left" if col == "model" else "right")
    for m in models:
        ex, ts, ver = m.get("ex"), m.get("ex_ts"), m.get("ex_verified")
        t.add_row(
            m["model"],
            "—" if ex is None else f"{ex:.3f}",
            "—" if ts is None else f"{ts:.3f}",
            "—" if ver is None else f"{ver:.3f}",
            f"{m.get('equivalence_n') or 0:,}",
            f"{m.get('refuted') or 0:,}",
        )
    return t


def judgement_table(models: list[dict[str, Any]]) -> Table:
    """Per model, EX beside the judgement: rows judged right, wrong and unsure (docs/judgement.md)."""
    t = Table(title="EX and the judgement (right / wrong / unsure)", title_justify="left", expand=False)
    for col in ("model", "EX", "right", "wrong", "unsure", "judged"):
        t.add_column(col, justify="left" if col == "model" else "right")
    for m in models:
        n = m.get("judged_n") or 0
        ex = m.get("ex")

        def share(call: str, n: int = n, m: dict[str, Any] = m) -> str:
            return f"{(m.get(f'judged_{call}') or 0) / n:.3f}" if n else "—"

        t.add_row(
            m["model"],
            "—" if ex is None else f"{ex:.3f}",
            share("right"),
            share("wrong"),
            share("unsure"),
            f"{n:,}",
        )
    return t


def summary_renderable(
    report: dict[str, Any], frame: pl.DataFrame, metric: str, ex_mode: str
) -> RenderableType:
    """The whole metrics tab for one metric: models, each facet's chart, error sources, tags."""
    models = [m["model"] for m in report["models"]]
    parts: list[RenderableType] = [model_table(report["models"], ex_mode, report.get("intervals")), Text("")]
    if any(m.get("ex_ts_n") for m in report["models"]):
        parts += [ts_table(report["models"], ex_mode), Text("")]
    if any(m.get("equivalence_n") for m in report["models"]):
        parts += [verified_table(report["models"]), Text("")]
    if any(m.get("judged_n") for m in report["models"]):
        parts += [judgement_table(report["models"]), Text("")]
    if found := report.get("schema_only"):
        from sqltriage.core.reporting.report import schema_only_line

        parts += [Text(schema_only_line(found), style="bold"), Text("")]
    for facet, rows in report["breakdowns"].items():
        if rows:
            parts += [facet_chart(rows, models, facet, metric), Text("")]
    parts += [error_sources_chart(report["error_sources"]), Text(""), tag_chart(frame, models)]
    return Group(*parts)
