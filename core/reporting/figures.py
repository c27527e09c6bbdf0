"""The report's figures, drawn with matplotlib's object API (no pyplot state, so safe in a worker).

Each figure is a `matplotlib.figure.Figure`; `svg_text` gives it as inline SVG for the HTML report
(text kept as text, no date, ids salted per figure so that several SVGs share one page) and
`save` writes SVG and PDF for a paper. Accuracy by category is a heatmap (categories × models): it
stays readable from 2 models to 40, where grouped bars do not.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from sqltriage.core.errors import UsageError
from sqltriage.core.reporting.report import HARDNESS_ORDER, top_categories
from sqltriage.core.reporting.slice_features import QUESTION_AXES, quartile_labels

if TYPE_CHECKING:
    from matplotlib.figure import Figure

INSTALL_HINT = 'pip install "sqltriage[report]"  (matplotlib draws the figures)'
AXIS_NAMES = {
    "q_words": "question length (words)",
    "q_tree_depth": "dependency tree depth",
    "q_lexical_density": "lexical density",
    "q_rarity": "share of rare words",
    "q_flesch": "Flesch reading ease",
    "q_schema_linkage": "schema linkage",
}
_STYLE = {"svg.fonttype": "none", "font.size": 9, "axes.spines.top": False, "axes.spines.right": False}


def require_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError(
            "the report's figures need matplotlib, which is not installed", hint=INSTALL_HINT
        ) from None


def _figure(width: float, height: float) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def svg_text(fig: Figure, name: str) -> str:
    """The figure as an `<svg>` element to put inside HTML (no XML prolog, no external reference)."""
    import matplotlib

    out = io.StringIO()
    with matplotlib.rc_context({**_STYLE, "svg.hashsalt": name}):
        fig.savefig(out, format="svg", metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    text = out.getvalue()
    text = re.sub(r"<\?xml[^>]*\?>\s*", "", text)
    text = re.sub(r"<!DOCTYPE[^>]*>\s*", "", text)
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)
    return text.strip()


def save(fig: Figure, folder: Path, name: str) -> list[Path]:
    """`name.svg` and `name.pdf` in `folder`."""
    import matplotlib

    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext in ("svg", "pdf"):
        path = folder / f"{name}.{ext}"
        with matplotlib.rc_context({**_STYLE, "svg.hashsalt": name}):
            fig.savefig(
                path, format=ext, metadata={"Creator": None} if ext == "svg" else {"Creator": "sqltriage"}
            )
        paths.append(path)
    return paths


def _label(model: str, width: int = 22) -> str:
    return model if len(model) <= width else model[: width - 1] + "…"


# --- the figures -----------------------------------------------------------------------------------


def metrics_figure(rows: Sequence[dict[str, Any]], metric: str) -> Figure:
    """Each model's accuracy with its bootstrap interval."""
    fig = _figure(7, 0.3 * len(rows) + 1.2)
    ax = fig.add_subplot()
    names = [_label(r["model"]) for r in rows]
    values = np.array([r["value"] if r["value"] is not None else np.nan for r in rows])
    lo = np.array([r["ci"][0] if r["ci"] else np.nan for r in rows])
    hi = np.array([r["ci"][1] if r["ci"] else np.nan for r in rows])
    y = np.arange(len(rows))[::-1]
    ax.barh(y, values, color="#4c78a8")
    ax.errorbar(values, y, xerr=[values - lo, hi - values], fmt="none", ecolor="black", capsize=3, lw=1)
    ax.set_yticks(y, names)
    ax.set_xlim(0, 1)
    ax.set_xlabel(f"{metric} (95 % bootstrap interval)")
    return fig


def category_heatmap(frame: pl.DataFrame, facet: str, metric: str, models: Sequence[str]) -> Figure | None:
    """Accuracy per (category, model) as a heatmap, categories ordered by frequency, rare ones as "other"."""
    rows = frame.filter(pl.col(metric).is_not_null())
    if rows.is_empty():
        return None
    values = (
        top_categories(rows, facet) if facet != "hardness" else rows.get_column(facet).fill_null("(none)")
    )
    rows = rows.with_columns(values.alias("_cat"))
    order = rows.get_column("_cat").value_counts(sort=True).get_column("_cat").to_list()
    if facet == "hardness":
        order.sort(key=lambda v: HARDNESS_ORDER.index(v) if v in HARDNESS_ORDER else 9)
    order = [v for v in order if v != "other"] + (["other"] if "other" in order else [])
    acc = rows.group_by("_cat", "model").agg(pl.col(metric).cast(pl.Float64).mean().alias("acc"))
    lookup = {(r["_cat"], r["model"]): r["acc"] for r in acc.iter_rows(named=True)}
    grid = np.array([[lookup.get((c, m), np.nan) for m in models] for c in order], dtype=float)
    return _heatmap(grid, order, models, f"{metric} by {facet} category", annotate=len(models) <= 12)


def _heatmap(
    grid: np.ndarray, rows: Sequence[str], cols: Sequence[str], title: str, *, annotate: bool
) -> Figure:
    fig = _figure(max(5.0, 0.55 * len(cols) + 2.5), 0.35 * len(rows) + 2.2)
    ax = fig.add_subplot()
    image = _cells(ax, grid, "viridis", 0, 1)
    ax.set_xticks(range(len(cols)), [_label(c) for c in cols], rotation=60, ha="right")
    ax.set_yticks(range(len(rows)), list(rows))
    ax.set_title(title, loc="left")
    if annotate:
        for i in range(grid.shape[0]):
            for j in range(grid.shape[1]):
                if np.isfinite(grid[i, j]):
                    color = "white" if grid[i, j] < 0.6 else "black"
                    ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=7, color=color)
    fig.colorbar(image, ax=ax, shrink=0.8)
    return fig


VECTOR_CELLS = 600  # a larger heatmap is drawn as one inline image: a path per cell is slow and heavy


def _cells(ax: Any, grid: np.ndarray, cmap: str, vmin: float, vmax: float) -> Any:
    """A heatmap, row 0 on top: vector cells (sharp in a paper's PDF) up to VECTOR_CELLS, else an image."""
    rows, cols = grid.shape
    if rows * cols > VECTOR_CELLS:
        return ax.imshow(grid, cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto", interpolation="nearest")
    x, y = np.arange(cols + 1) - 0.5, np.arange(rows + 1) - 0.5
    mesh = ax.pcolormesh(x, y, np.ma.masked_invalid(grid), cmap=cmap, vmin=vmin, vmax=vmax)
    ax.set_xlim(-0.5, cols - 0.5)
    ax.set_ylim(rows - 0.5, -0.5)
    return mesh


def axis_figure(frame: pl.DataFrame, axis: str, metric: str, models: Sequence[str]) -> Figure | None:
    """Accuracy per quartile of a question axis, one line per model (the paper's per-axis plots)."""
    if axis not in frame.columns or frame.get_column(axis).null_count() == frame.height:
        return None
    per_example = frame.unique("index", keep="first", maintain_order=True).get_column(axis)
    rows = frame.with_columns(quartile_labels(frame.get_column(axis), per_example).alias("_bin"))
    rows = rows.filter(pl.col(metric).is_not_null() & pl.col("_bin").is_not_null())
    if rows.is_empty():
        return None
    order = rows.group_by("_bin").agg(pl.col(axis).min().alias("lo")).sort("lo").get_column("_bin").to_list()
    acc = rows.group_by("_bin", "model").agg(pl.col(metric).cast(pl.Float64).mean().alias("acc"))
    lookup = {(r["_bin"], r["model"]): r["acc"] for r in acc.iter_rows(named=True)}
    fig = _figure(6.5, 3.6)
    ax = fig.add_subplot()
    x = np.arange(len(order))
    grid = np.array([[lookup.get((b, m), np.nan) for b in order] for m in models], dtype=float)
    if len(models) <= 10:
        for m, line in zip(models, grid, strict=True):
            ax.plot(x, line, marker="o", label=_label(m))
        ax.legend(fontsize=7, loc="lower left", ncols=2)
    else:  # many models: their median and the band from the lowest to the highest
        ax.fill_between(x, np.nanmin(grid, 0), np.nanmax(grid, 0), alpha=0.25, label="range over models")
        ax.plot(x, np.nanmedian(grid, 0), marker="o", label="median model")
        ax.legend(fontsize=7)
    ax.set_xticks(x, order)
    ax.set_ylim(0, 1)
    ax.set_xlabel(AXIS_NAMES.get(axis, axis) + " (quartiles of the examples)")
    ax.set_ylabel(metric)
    return fig


def gap_figure(rows: Sequence[dict[str, Any]]) -> Figure | None:
    """EX, EX on neighbour databases (TS) and EX after review per model: how much each check removes."""
    metrics = [m for m in ("ex", "ex_ts", "ex_reviewed") if any(r.get(m) is not None for r in rows)]
    if not rows or not metrics:
        return None
    fig = _figure(max(6.0, 0.5 * len(rows) * len(metrics) / 2 + 2), 3.6)
    ax = fig.add_subplot()
    x = np.arange(len(rows))
    width = 0.8 / len(metrics)
    names = {"ex": "EX", "ex_ts": "EX on neighbours (TS)", "ex_reviewed": "EX after review (verified)"}
    for k, m in enumerate(metrics):
        vals = [r.get(m) if r.get(m) is not None else np.nan for r in rows]
        ax.bar(x + (k - (len(metrics) - 1) / 2) * width, vals, width, label=names[m])
    ax.set_xticks(x, [_label(r["model"]) for r in rows], rotation=60, ha="right")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7, loc="lower left")
    return fig


def causes_figure(counts: dict[str, dict[str, int]], models: Sequence[str], title: str) -> Figure | None:
    """Per model, its errors split by cause (stacked bars), the 8 most frequent causes."""
    totals: dict[str, int] = {}
    for per_model in counts.values():
        for cause, n in per_model.items():
            totals[cause] = totals.get(cause, 0) + n
    if not totals:
        return None
    causes = sorted(totals, key=lambda c: (-totals[c], c))[:8]
    fig = _figure(7.5, 0.3 * len(models) + 1.8)
    ax = fig.add_subplot()
    y = np.arange(len(models))[::-1]
    left = np.zeros(len(models))
    for cause in causes:
        vals = np.array([counts.get(m, {}).get(cause, 0) for m in models], dtype=float)
        ax.barh(y, vals, left=left, label=_label(cause, 40))
        left += vals
    ax.set_yticks(y, [_label(m) for m in models])
    ax.set_xlabel("error rows")
    ax.set_title(title, loc="left")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


def pairwise_figure(pairs: Sequence[dict[str, Any]], models: Sequence[str]) -> Figure | None:
    """A − B for every pair as a diverging heatmap; a dot marks a Holm-significant difference."""
    if len(models) < 2:
        return None
    pos = {m: i for i, m in enumerate(models)}
    grid = np.full((len(models), len(models)), np.nan)
    fig = _figure(max(5.0, 0.35 * len(models) + 3), max(4.0, 0.35 * len(models) + 2))
    ax = fig.add_subplot()
    marks = []
    for p in pairs:
        i, j = pos[p["a"]], pos[p["b"]]
        if p["delta"] is not None:
            grid[i, j], grid[j, i] = p["delta"], -p["delta"]
            if p["significant"]:
                marks += [(i, j), (j, i)]
    bound = max(0.05, float(np.nanmax(np.abs(grid))) if np.isfinite(grid).any() else 0.05)
    image = _cells(ax, grid, "RdBu", -bound, bound)
    if marks:
        ax.scatter([j for _, j in marks], [i for i, _ in marks], s=6, c="black", marker="o")
    labels = [_label(m) for m in models]
    ax.set_xticks(range(len(models)), labels, rotation=60, ha="right")
    ax.set_yticks(range(len(models)), labels)
    ax.set_title("row − column accuracy; • significant (McNemar, Holm)", loc="left")
    fig.colorbar(image, ax=ax, shrink=0.8)
    return fig


def axes_present(frame: pl.DataFrame) -> list[str]:
    return [
        a for a in QUESTION_AXES if a in frame.columns and frame.get_column(a).null_count() < frame.height
    ]
