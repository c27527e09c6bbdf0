"""Rich tables for the evaluation report: models side by side, then breakdowns and error sources."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from sqltriage.core.reporting.report import FACETS

MAIN_COLUMNS = (
    ("VA", "va"),
    ("EX", "ex"),
    ("EX bird", "ex_bird"),
    ("EX archer", "ex_archer"),
    ("EM", "em"),
    ("EM (Spider)", "em_spider"),
    ("PM", "pm"),
    ("SM", "sm"),
    ("OM", "om"),
    ("VM", "vm"),
)


def fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def pct(value: float | None) -> str:
    return "  —" if value is None else f"{value * 100:3.0f}"


def main_columns(models: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The report's columns: `EX official` (and how many rows it decides otherwise) beside EX when it differs."""
    columns = list(MAIN_COLUMNS)
    if any(m.get("reviewed") for m in models):  # raw and reviewed EX side by side
        at = columns.index(("EX", "ex")) + 1
        columns[at:at] = [("EX reviewed", "ex_reviewed"), ("reviewed", "reviewed")]
    if any(m.get("soft_f1_n") for m in models):
        at = columns.index(("EX bird", "ex_bird")) + 1
        columns[at:at] = [("Soft F1", "soft_f1")]
        if any(m.get("r_ves_n") for m in models):
            columns[at + 1 : at + 1] = [("R-VES", "r_ves")]
    if any(m.get("official_differs") for m in models):
        at = columns.index(("EX", "ex")) + 1
        columns[at:at] = [("EX official", "ex_official"), ("≠ official", "official_differs")]
    return columns


def ts_gap(m: dict[str, Any]) -> float | None:
    """EX minus TS over the same rows (both are means over the rows with a verdict)."""
    if m.get("ex_ts") is None or m.get("ex_spider") is None:
        return None
    return m["ex_spider"] - m["ex_ts"]


def print_authors_table(models: list[dict[str, Any]], console: Console) -> None:
    """Partial match as the paper's published code computes it, for reproducing the paper's tables.

    Their code scores 0 where it raises; our columns are empty there (and where a query does not parse).
    Both means are shown: over the rows scored, and with the others counted as 0 (the paper's way).
    """
    if not any(m.get("pm_authors_n") for m in models):
        return
    t = Table(title="Partial match as the paper's code computes it", title_justify="left")
    for label in ("model", "PM", "SM", "OM", "VM", "not scored", "PM (unscored = 0)"):
        t.add_column(label, justify="left" if label == "model" else "right")
    for m in models:
        scored, n = m.get("pm_authors_n") or 0, m["n"]
        as_paper = None if m.get("pm_authors") is None or not n else m["pm_authors"] * scored / n
        t.add_row(
            m["model"],
            *(fmt(m.get(k)) for k in ("pm_authors", "sm_authors", "om_authors", "vm_authors")),
            str(n - scored),
            fmt(as_paper),
        )
    console.print(t)


def print_report(report: dict[str, Any], console: Console) -> None:
    models = report["models"]
    columns = main_columns(models)
    t = Table(title="Metrics per model (EX in spider mode unless named)", title_justify="left")
    t.add_column("model", style="bold")
    t.add_column("n", justify="right")
    t.add_column("n exec", justify="right")
    with_ts = any(m.get("ex_ts_n") for m in models)
    for label, _ in columns:
        t.add_column(label, justify="right")
    if with_ts:
        t.add_column("EX (TS)", justify="right")
        t.add_column("EX − TS", justify="right")
        t.add_column("TS bird", justify="right")
        t.add_column("TS archer", justify="right")
    for m in models:
        cells = [
            str(m[key]) if key in ("official_differs", "reviewed") else fmt(m[key]) for _, key in columns
        ]
        if with_ts:
            cells += [
                fmt(m.get("ex_ts")),
                fmt(ts_gap(m)),
                fmt(m.get("ex_ts_bird")),
                fmt(m.get("ex_ts_archer")),
            ]
        t.add_row(m["model"], str(m["n"]), str(m["n_exec"]), *cells)
    console.print(t)
    if any(m.get("equivalence_n") for m in models):
        v = Table(
            title="EX, TS and EX verified (equivalent to the gold up to the bound)", title_justify="left"
        )
        for col in ("model", "EX", "TS", "EX verified", "checked", "refuted"):
            v.add_column(col, justify="left" if col == "model" else "right")
        for m in models:
            v.add_row(
                m["model"],
                fmt(m.get("ex")),
                fmt(m.get("ex_ts")),
                fmt(m.get("ex_verified")),
                str(m.get("equivalence_n") or 0),
                str(m.get("refuted") or 0),
            )
        console.print(v)
    if any(m.get("judged_n") for m in models):
        print_judgement_tables(models, console)
    console.print(
        "[dim]Execution metrics are averaged over the rows whose database exists (n exec); "
        "match metrics over all rows.[/]"
    )
    print_authors_table(models, console)
    if any(m.get("r_ves_n") for m in models):
        console.print(
            "[dim]R-VES (BIRD Mini-Dev): mean of √reward × 100 over the rows timed; a timing, so: "
            + "; ".join(
                f"{m['model']}: {m.get('r_ves_n') or 0} rows timed, {m.get('r_ves_unsteady') or 0} whose "
                "ratio ± its spread crosses a reward boundary"
                for m in models
            )
            + "[/]"
        )
    if report.get("engine") not in (None, "sqlite"):
        console.print(f"[dim]Engine: {report['engine']}, queries read as {report.get('dialect')} SQL.[/]")
    print_response_tables(report, console)
    if quirks := report.get("official_quirks"):
        console.print(
            "[dim]EX official: the official Spider evaluator's verdict, quirk for quirk; where it differs "
            "from EX, the quirk that decides (see docs/ex-differences.md):[/] "
            + "; ".join(f"{q['model']}: {q['quirk']} ×{q['rows']}" for q in quirks)
        )
    for facet in FACETS:
        rows = report["breakdowns"][facet]
        if not rows:
            continue
        names = [m["model"] for m in models]
        bt = Table(title=f"EX / EM / PM (%) by {facet}", title_justify="left")
        bt.add_column(facet, no_wrap=True, min_width=len(facet))
        bt.add_column("n", justify="right", no_wrap=True)
        for name in names:
            bt.add_column(
                f"{name}\n EX  EM  PM", justify="right", overflow="fold", min_width=11, max_width=11
            )
        by_value: dict[str, dict[str, dict[str, Any]]] = {}
        for r in rows:
            by_value.setdefault(r["value"], {})[r["model"]] = r
        for value, per_model in by_value.items():
            n = next(iter(per_model.values()))["n"]
            cells = []
            for name in names:
                r = per_model.get(name)
                cells.append("" if r is None else f"{pct(r['ex'])} {pct(r['em'])} {pct(r['pm'])}")
            bt.add_row(value, str(n), *cells)
        console.print(bt)
    et = Table(title="Share of errors with a mismatch of each kind", title_justify="left")
    for col in ("model", "errors", "structural", "operator", "variable"):
        et.add_column(col, justify="right" if col != "model" else "left")
    for r in report["error_sources"]:
        et.add_row(r["model"], str(r["errors"]), fmt(r["structural"]), fmt(r["operator"]), fmt(r["variable"]))
    console.print(et)


def print_judgement_tables(models: list[dict[str, Any]], console: Console) -> None:
    """The judgement beside EX per model, and what each model's refutations assume (docs/judgement.md)."""
    from sqltriage.core.reporting.report import ASSUMPTIONS
    from sqltriage.tui.widgets.charts import judgement_table

    console.print(judgement_table(models))
    if not any(m.get("assumes_n") for m in models):
        return
    t = Table(
        title="Refutations of EX passes by what their witness assumes (share of each model's refutations)",
        title_justify="left",
    )
    for col in ("model", "refuted", *ASSUMPTIONS):
        t.add_column(col, justify="left" if col == "model" else "right")
    for m in models:
        n = m.get("assumes_n") or 0
        shares = [f"{(m.get(f'assumes_{a}') or 0) / n:.0%}" if n else "—" for a in ASSUMPTIONS]
        t.add_row(m["model"], f"{n:,}", *shares)
    console.print(t)


def print_response_tables(report: dict[str, Any], console: Console) -> None:
    """Models read from raw responses: rows per extraction kind, and greedy EX, maj@k, pass@k, the oracle."""
    if kinds := report.get("extraction"):
        t = Table(title="Rows per extraction of the SQL from the response", title_justify="left")
        for name in ("model", "extraction", "rows"):
            t.add_column(name, justify="right" if name == "rows" else "left")
        for r in kinds:
            t.add_row(r["model"], r["extraction"], str(r["rows"]))
        console.print(t)
    rows = [m for m in report.get("candidates") or [] if m["k"] > 1]
    if rows:
        k_max = max(m["k"] for m in rows)
        ks = sorted({1, 2, 4, 8, 16, 32, k_max} & set(range(1, k_max + 1)))
        t = Table(title="k candidates per question (EX in the dataset's mode)", title_justify="left")
        t.add_column("model", style="bold")
        for name in ("n", "k", "greedy EX", "maj@k", *(f"pass@{k}" for k in ks), "oracle", "missed"):
            t.add_column(name, justify="right")
        for m in rows:
            passes = [m["pass_at_k"].get(str(k), {}).get("value") for k in ks]
            k_text = str(m["k"]) if m["k_min"] == m["k"] else f"{m['k_min']}–{m['k']}"
            t.add_row(
                m["model"],
                str(m["n"]),
                k_text,
                fmt(m["greedy_ex"]),
                fmt(m["maj_at_k"]),
                *(fmt(v) for v in passes),
                fmt(m["oracle"]),
                str(m["missed"]),
            )
        console.print(t)
        console.print(
            "[dim]pass@k: the unbiased estimator of Chen et al. (2021) over the questions with at least k "
            "candidates; missed: questions whose scored candidate fails although a right one exists.[/]"
        )
    if figures := report.get("response_figures"):
        parts = []
        for r in figures:
            for name in ("tokens", "latency", "cost", "confidence"):
                if r.get(f"{name}_n"):
                    parts.append(
                        f"{r['model']}: {name} mean {r[f'{name}_mean']:.4g}, total {r[f'{name}_total']:.4g}"
                    )
        if parts:
            console.print("[dim]given with the responses:[/] " + "; ".join(parts))
