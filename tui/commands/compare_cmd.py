"""`sqltriage compare A B --workspace W`: is the difference between two models more than noise."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def run(args: argparse.Namespace) -> int:
    from sqltriage.core.reporting.report import workspace_frame
    from sqltriage.core.reporting.significance import CATEGORY_FACETS, check_models, compare

    columns = ["index", "model", args.metric, *CATEGORY_FACETS]
    frame = workspace_frame(Path(args.workspace), [args.a, args.b], columns=columns)
    if frame.get_column("model").n_unique() < 2 and args.a != args.b:
        check_models(workspace_frame(Path(args.workspace), columns=["model"]), [args.a, args.b])
    doc = compare(frame, args.a, args.b, args.metric, rounds=args.rounds, seed=args.seed)
    if args.json:
        json.dump(doc, sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
    else:
        render(doc)
    return 0


def _ci(ci: list[float] | None, pct: bool = True) -> str:
    if ci is None:
        return "—"
    return f"[{ci[0]:+.1%}, {ci[1]:+.1%}]" if not pct else f"[{ci[0]:.1%}, {ci[1]:.1%}]"


def _p(p: float) -> str:
    return f"{p:.2g}" if p >= 1e-4 else f"{p:.1e}"


def render(doc: dict[str, Any]) -> None:
    from rich.table import Table

    from sqltriage.tui.console import make_console

    console = make_console()
    a, b, n = doc["a"], doc["b"], doc["n"]
    level = f"{doc['level']:.0%}"
    console.print(
        f"[bold]{a}[/] (A) vs [bold]{b}[/] (B) on {doc['metric']}: {n:,} examples where both have a verdict"
        + (f" ({doc['skipped']:,} left out)" if doc["skipped"] else "")
    )
    grid = Table(show_edge=False, title="2×2", title_justify="left")
    grid.add_column("")
    grid.add_column("B passes", justify="right")
    grid.add_column("B fails", justify="right")
    grid.add_row("A passes", f"{doc['both']:,}", f"{doc['only_a']:,}")
    grid.add_row("A fails", f"{doc['only_b']:,}", f"{doc['neither']:,}")
    console.print(grid)
    if not n:
        return
    console.print(
        f"A {doc['accuracy_a']:.1%} {_ci(doc['ci_a'])}   B {doc['accuracy_b']:.1%} {_ci(doc['ci_b'])}   "
        f"A − B {doc['delta']:+.1%} {_ci(doc['ci_delta'], pct=False)}  ({level} bootstrap intervals, "
        f"{doc['rounds']} resamples, seed {doc['seed']})"
    )
    verdict = "a real difference" if doc["mcnemar_p"] < 0.05 else "not distinguishable from noise"
    console.print(
        f"McNemar's exact test on the {doc['only_a'] + doc['only_b']:,} discordant examples: "
        f"p = {_p(doc['mcnemar_p'])} → {verdict} at 5 %"
    )
    table = Table(
        show_edge=False, title="By category (p Holm-adjusted within each facet)", title_justify="left"
    )
    for col in ("facet", "value", "n", "A", "B", "A − B", f"{level} interval", "p", "p (Holm)"):
        table.add_column(col, justify="left" if col in ("facet", "value") else "right")
    for r in doc["by_category"]:
        style = "bold" if r["significant"] else ""
        table.add_row(
            r["facet"],
            r["value"],
            f"{r['n']:,}",
            f"{r['accuracy_a']:.1%}",
            f"{r['accuracy_b']:.1%}",
            f"{r['delta']:+.1%}",
            _ci(r["ci_delta"], pct=False),
            _p(r["mcnemar_p"]),
            _p(r["p_holm"]),
            style=style,
        )
    console.print(table)
