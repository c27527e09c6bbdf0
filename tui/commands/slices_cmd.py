"""`sqltriage slices --workspace W`: where a model fails, as the slices SliceLine scores highest."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def run(args: argparse.Namespace) -> int:
    from sqltriage.core.reporting.report import workspace_frame
    from sqltriage.core.reporting.slice_features import columns_needed
    from sqltriage.core.reporting.slices import find_slices

    models = [args.model] if args.model else None
    frame = workspace_frame(Path(args.workspace), models, columns=columns_needed([args.metric]))
    if args.model and frame.is_empty():
        from sqltriage.core.reporting.significance import check_models

        check_models(workspace_frame(Path(args.workspace), columns=["model"]), [args.model])
    search = find_slices(
        frame,
        model=args.model,
        metric=args.metric,
        max_predicates=args.max_predicates,
        min_support=args.min_support,
        top=args.top,
        alpha=args.alpha,
    )
    if args.json:
        json.dump(search.to_json(), sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
    else:
        render(search.to_json())
    return 0


def render(doc: dict[str, Any]) -> None:
    from rich.table import Table

    from sqltriage.core.reporting.slice_features import describe
    from sqltriage.tui.console import make_console

    console = make_console()
    who = doc["model"] or "every model"
    rate = doc["overall_error_rate"]
    console.print(
        f"[bold]Slices of {who}[/] on {doc['metric']}: {doc['rows']:,} rows, {doc['errors']:,} errors"
        + (f" ({rate:.1%})" if rate is not None else "")
        + f"; at least {doc['min_support']} rows, up to {doc['max_predicates']} predicates, α = {doc['alpha']}"
    )
    if not doc["slices"]:
        console.print("[dim]no slice is worse than the whole by more than its size costs[/]")
        return
    table = Table(show_edge=False)
    for name, justify in (("#", "right"), ("score", "right"), ("rows", "right"), ("errors", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    table.add_column("error rate", justify="right")
    table.add_column("slice")
    for i, s in enumerate(doc["slices"], 1):
        table.add_row(
            str(i),
            f"{s['score']:.3f}",
            f"{s['size']:,}",
            f"{s['errors']:,}",
            f"{s['error_rate']:.1%}",
            describe(s["predicates"]),
        )
    console.print(table)
