"""`sqltriage report`: one HTML file to share, readable offline, with the error-analysis paper's figures.

Everything is inside the file: the style sheet, every figure as inline SVG, no script, no font, no
image or link to fetch. It holds the per-model metrics with bootstrap intervals; accuracy by hardness,
structural and operator category and by each question axis; the EX / TS / verified gap; error causes
from the triage tags and, marked as such, from the suggestions; the top slices; the pairwise
significance; and for the most frequent causes a few examples with the gold / prediction diff.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from sqltriage.core.reporting import figures as figs
from sqltriage.core.reporting.report import model_summary
from sqltriage.core.reporting.significance import model_intervals, pairwise
from sqltriage.core.reporting.slice_features import describe
from sqltriage.core.reporting.slices import find_slices

Progress = Callable[[int, int, str], None]  # (done, total, what is being drawn)
INTERVAL_METRICS = ("ex", "ex_ts", "em", "ex_reviewed")
EXAMPLE_CAUSES = 5  # causes with examples
EXAMPLES_PER_CAUSE = 3
PAIR_TABLE_MAX = 45  # pairs listed in the table (10 models); the heatmap shows all


@dataclass
class Report:
    html: str
    figures: list[str] = field(default_factory=list)  # figure names, in page order
    files: list[Path] = field(default_factory=list)  # SVG / PDF written for a paper


def build_report(
    frame: pl.DataFrame,
    *,
    title: str,
    metric: str = "ex",
    seed: int = 0,
    figures_dir: Path | None = None,
    progress: Progress | None = None,
) -> Report:
    figs.require_matplotlib()
    models = frame.get_column("model").unique(maintain_order=True).to_list()
    axes = figs.axes_present(frame)
    total = 8 + len(axes)
    done = 0

    def step(what: str) -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total, what)

    summary = model_summary(frame)
    intervals = {m: model_intervals(frame, m, seed=seed) for m in INTERVAL_METRICS if m in frame.columns}
    step("metrics")
    drawn: list[tuple[str, str, Any]] = []  # (name, caption, figure)
    value_rows = [
        {"model": r["model"], "value": r.get(metric), "ci": intervals[metric].get(r["model"])}
        for r in summary
    ]
    drawn.append(
        (
            "metrics",
            f"{metric} per model with its 95 % bootstrap interval",
            figs.metrics_figure(value_rows, metric),
        )
    )
    for facet in ("hardness", "structural", "operators"):
        fig = figs.category_heatmap(frame, facet, metric, models)
        if fig is not None:
            drawn.append((f"by_{facet}", f"{metric} by {facet} category (rarest grouped as other)", fig))
        step(f"by {facet}")
    for axis in axes:
        fig = figs.axis_figure(frame, axis, metric, models)
        if fig is not None:
            drawn.append(
                (f"by_{axis}", f"{metric} by {figs.AXIS_NAMES.get(axis, axis)}, binned at quartiles", fig)
            )
        step(f"by {axis}")
    gap = figs.gap_figure(summary)
    if gap is not None:
        drawn.append(("gap", "EX, EX on neighbour databases (TS) and EX after review, per model", gap))
    tags, suggested = cause_counts(frame, metric)
    for name, counts, caption in (
        ("causes_tags", tags, "error causes from the triage tags"),
        ("causes_suggested", suggested, "error causes suggested by sqltriage (not reviewed: suggestions)"),
    ):
        fig = figs.causes_figure(counts, models, caption)
        if fig is not None:
            drawn.append((name, caption, fig))
    step("error causes")
    slices = find_slices(frame, metric=metric) if frame.get_column(metric).is_not_null().any() else None
    per_model = (
        {m: find_slices(frame, model=m, metric=metric, top=3) for m in models} if len(models) <= 12 else {}
    )
    step("slices")
    pairs = pairwise(frame, models, metric, seed=seed) if len(models) > 1 else []
    fig = figs.pairwise_figure(pairs, models)
    if fig is not None:
        drawn.append(("pairwise", "pairwise differences (row − column) and their significance", fig))
    step("significance")
    examples = cause_examples(frame, metric, tags, suggested)
    step("examples")
    files: list[Path] = []
    svgs = []
    for name, caption, fig in drawn:
        svgs.append((name, caption, figs.svg_text(fig, name)))
        if figures_dir is not None:
            files += figs.save(fig, figures_dir, name)
    step("figures")
    page = _page(title, metric, seed, summary, intervals, svgs, slices, per_model, pairs, tags, examples)
    step("page")
    return Report(page, [n for n, _, _ in drawn], files)


# --- data -------------------------------------------------------------------------------------------


def _errors(frame: pl.DataFrame, metric: str) -> pl.DataFrame:
    return frame.filter((pl.col(metric) == 0).fill_null(False))


def cause_counts(
    frame: pl.DataFrame, metric: str
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, int]]]:
    """Per model, its error rows per tag, and per first suggested cause (the suggestion's best guess)."""
    wrong = _errors(frame, metric)
    tags: dict[str, dict[str, int]] = {}
    suggested: dict[str, dict[str, int]] = {}
    if "tags" in wrong.columns:
        exploded = (
            wrong.select("model", pl.col("tags").str.split(", ").alias("t")).explode("t").drop_nulls("t")
        )
        for model, tag, n in exploded.group_by("model", "t").len().iter_rows():
            if tag:
                tags.setdefault(model, {})[tag] = n
    if "suggested" in wrong.columns:
        first = wrong.select("model", pl.col("suggested").str.split("; ").list.first().alias("s")).drop_nulls(
            "s"
        )
        for model, cause, n in first.group_by("model", "s").len().iter_rows():
            if cause:
                suggested.setdefault(model, {})[cause] = n
    return tags, suggested


def _top(counts: dict[str, dict[str, int]], k: int) -> list[str]:
    totals: dict[str, int] = {}
    for per_model in counts.values():
        for cause, n in per_model.items():
            totals[cause] = totals.get(cause, 0) + n
    return sorted(totals, key=lambda c: (-totals[c], c))[:k]


def cause_examples(
    frame: pl.DataFrame,
    metric: str,
    tags: dict[str, dict[str, int]],
    suggested: dict[str, dict[str, int]],
) -> list[dict[str, Any]]:
    """For the most frequent tags (or, with no tag yet, suggested causes) a few error rows with their diff."""
    from sqltriage.core.sql.diff import sql_diff

    wrong = _errors(frame, metric)
    use_tags = bool(tags)
    out = []
    for cause in _top(tags if use_tags else suggested, EXAMPLE_CAUSES):
        if use_tags:
            hit = wrong.filter(pl.col("tags").fill_null("").str.split(", ").list.contains(cause))
        else:
            hit = wrong.filter(pl.col("suggested").fill_null("").str.split("; ").list.first() == cause)
        rows = []
        for r in (
            hit.unique("index", keep="first", maintain_order=True)
            .head(EXAMPLES_PER_CAUSE)
            .iter_rows(named=True)
        ):
            diff = sql_diff(r.get("gold_sql") or "", r.get("pred_sql") or "", resolve=True)
            rows.append({"row": r, "diff": diff})
        out.append({"cause": cause, "suggested": not use_tags, "count": hit.height, "examples": rows})
    return out


# --- HTML -------------------------------------------------------------------------------------------

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.6em 0}td,th{padding:.2em .6em;border-bottom:1px solid #eee;text-align:right}
td:first-child,th:first-child,td.l,th.l{text-align:left}
figure{margin:1.2em 0}figcaption{color:#555;font-size:.9em}figure svg{max-width:100%;height:auto}
.sig{font-weight:bold}.dim{color:#777}.note{color:#555;font-size:.9em}
.diff td{vertical-align:top;text-align:left;font:12px/1.4 ui-monospace,monospace}
.g{background:#fdd;color:#900}.p{background:#dfd;color:#060}.suggested{color:#a60;font-style:italic}
"""


def _e(x: Any) -> str:
    return html.escape(str(x))


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{v:.1%}"


def _ci(ci: Any) -> str:
    return "" if not ci else f' <span class="dim">[{ci[0]:.1%}, {ci[1]:.1%}]</span>'


def _page(
    title: str,
    metric: str,
    seed: int,
    summary: list[dict[str, Any]],
    intervals: dict[str, dict[str, Any]],
    svgs: list[tuple[str, str, str]],
    slices: Any,
    per_model: dict[str, Any],
    pairs: list[dict[str, Any]],
    tags: dict[str, dict[str, int]],
    examples: list[dict[str, Any]],
) -> str:
    from sqltriage.core import __version__

    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">",
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f'<p class="note">sqltriage {_e(__version__)} · {len(summary)} models · main metric {_e(metric)} · '
        f"intervals are 95 % percentile bootstraps over examples (2000 resamples, seed {seed})</p>",
        "<h2>Metrics</h2>",
        _metrics_table(summary, intervals),
        _judgement_table(summary),
        "<h2>Figures</h2>",
    ]
    for name, caption, svg in svgs:
        parts.append(f'<figure id="fig-{_e(name)}">{svg}<figcaption>{_e(caption)}</figcaption></figure>')
    parts.append("<h2>Where the models fail: top slices</h2>")
    parts.append(_slices_section(slices, per_model))
    parts.append("<h2>Pairwise significance</h2>")
    parts.append(_pairs_table(pairs))
    parts.append("<h2>Error causes, with examples</h2>")
    parts.append(_examples_section(examples, bool(tags)))
    parts.append("</body></html>")
    return "\n".join(parts)


def _metrics_table(summary: list[dict[str, Any]], intervals: dict[str, dict[str, Any]]) -> str:
    cols = [m for m in INTERVAL_METRICS if m in intervals and any(r.get(m) is not None for r in summary)]
    out = [
        "<table><tr><th>model</th><th>rows</th>"
        + "".join(f"<th>{_e(c)}</th>" for c in cols)
        + "<th>pm</th></tr>"
    ]
    for r in summary:
        cells = "".join(f"<td>{_pct(r.get(c))}{_ci(intervals[c].get(r['model']))}</td>" for c in cols)
        pm = "—" if r.get("pm") is None else f"{r['pm']:.3f}"
        out.append(f"<tr><td>{_e(r['model'])}</td><td>{r['n']:,}</td>{cells}<td>{pm}</td></tr>")
    out.append("</table>")
    return "".join(out)


def _judgement_table(summary: list[dict[str, Any]]) -> str:
    """EX beside the judgement per model (docs/judgement.md); nothing for a workspace without one."""
    if not any(r.get("judged_n") for r in summary):
        return ""
    out = [
        "<h3>The judgement beside EX</h3><table><tr><th>model</th><th>ex</th><th>right</th><th>wrong</th>"
        "<th>unsure</th><th>judged</th></tr>"
    ]
    for r in summary:
        n = r.get("judged_n") or 0
        cells = "".join(
            f"<td>{_pct((r.get(f'judged_{c}') or 0) / n if n else None)}</td>"
            for c in ("right", "wrong", "unsure")
        )
        out.append(f"<tr><td>{_e(r['model'])}</td><td>{_pct(r.get('ex'))}</td>{cells}<td>{n:,}</td></tr>")
    out.append("</table>")
    return "".join(out)


def _slice_rows(search: Any) -> str:
    if search is None or not search.slices:
        return '<p class="dim">no slice is worse than the whole by more than its size costs</p>'
    out = [
        "<table><tr><th>#</th><th class=l>slice</th><th>rows</th><th>errors</th><th>error rate</th><th>score</th></tr>"
    ]
    for i, s in enumerate(search.slices, 1):
        out.append(
            f"<tr><td>{i}</td><td class=l>{_e(describe(s.predicates))}</td><td>{s.size:,}</td><td>{s.errors:,}</td>"
            f"<td>{s.error_rate:.1%}</td><td>{s.score:.3f}</td></tr>"
        )
    out.append("</table>")
    return "".join(out)


def _slices_section(slices: Any, per_model: dict[str, Any]) -> str:
    parts = []
    if slices is not None:
        parts.append(
            f'<p class="note">SliceLine score (α = {slices.alpha}), at least {slices.min_support} rows; overall '
            f"error rate {_pct(slices.overall_error_rate)} over {slices.rows:,} rows of every model.</p>"
        )
    parts.append(_slice_rows(slices))
    for model, search in per_model.items():
        parts.append(
            f"<h3>{_e(model)} <span class=dim>(error rate {_pct(search.overall_error_rate)})</span></h3>"
        )
        parts.append(_slice_rows(search))
    return "".join(parts)


def _pairs_table(pairs: list[dict[str, Any]]) -> str:
    if not pairs:
        return '<p class="dim">one model: nothing to compare</p>'
    shown = sorted(pairs, key=lambda p: p["mcnemar_p"])[:PAIR_TABLE_MAX]
    out = [
        '<p class="note">McNemar\'s exact test on the examples both models have a verdict for; p Holm-adjusted '
        f"over all {len(pairs)} pairs; bold: significant at 5 %."
        + (f" The {PAIR_TABLE_MAX} smallest p-values are listed." if len(pairs) > PAIR_TABLE_MAX else "")
        + "</p>",
        "<table><tr><th class=l>A</th><th class=l>B</th><th>n</th><th>A − B</th><th>95 % interval</th>"
        "<th>only A</th><th>only B</th><th>p</th><th>p (Holm)</th></tr>",
    ]
    for p in shown:
        cls = ' class="sig"' if p["significant"] else ""
        ci = p["ci_delta"]
        interval = "—" if not ci else f"[{ci[0]:+.1%}, {ci[1]:+.1%}]"
        delta = "—" if p["delta"] is None else f"{p['delta']:+.1%}"
        out.append(
            f"<tr{cls}><td class=l>{_e(p['a'])}</td><td class=l>{_e(p['b'])}</td><td>{p['n']:,}</td><td>{delta}</td>"
            f"<td>{interval}</td><td>{p['only_a']:,}</td><td>{p['only_b']:,}</td><td>{p['mcnemar_p']:.2g}</td>"
            f"<td>{p['p_holm']:.2g}</td></tr>"
        )
    out.append("</table>")
    return "".join(out)


def _tokens(tokens: Any) -> str:
    out = []
    for t in tokens:
        text = _e(t.text)
        cls = {"gold_only": "g", "pred_only": "p"}.get(t.kind)
        out.append((" " if t.space and out else "") + (f'<span class="{cls}">{text}</span>' if cls else text))
    return "".join(out)


def _examples_section(examples: list[dict[str, Any]], tagged: bool) -> str:
    if not examples:
        return '<p class="dim">no error rows</p>'
    parts = []
    if not tagged:
        parts.append(
            '<p class="suggested">No row is tagged yet: the causes below are sqltriage\'s suggestions, '
            "not a person's review.</p>"
        )
    for item in examples:
        mark = ' <span class="suggested">(suggested)</span>' if item["suggested"] else ""
        parts.append(
            f"<h3>{_e(item['cause'])}{mark} <span class=dim>· {item['count']:,} error rows</span></h3>"
        )
        for ex in item["examples"]:
            r, diff = ex["row"], ex["diff"]
            parts.append(
                f"<p><b>{_e(r.get('db_id') or '')}</b> · {_e(r.get('model'))} · #{r.get('index')}: {_e(r.get('question') or '')}</p>"
            )
            rows = "".join(
                f"<tr><td><b>{_e(c.clause)}</b></td><td>{_tokens(c.gold)}</td><td>{_tokens(c.pred)}</td></tr>"
                for c in diff.clauses
            )
            parts.append(
                f'<table class="diff"><tr><th class=l></th><th class=l>gold</th><th class=l>prediction</th></tr>{rows}</table>'
            )
    return "".join(parts)
