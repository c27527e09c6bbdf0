"""`sqltriage check`: validate and summarise inputs without evaluating."""

from __future__ import annotations

import argparse
import json
import sys

from sqltriage.core.datasets.checks import summarize_dataset, summarize_predictions
from sqltriage.tui.inputs import load_inputs


def run(args: argparse.Namespace) -> int:
    inputs = load_inputs(args)
    summary = summarize_dataset(inputs.dataset)
    summary["database_sizes"] = _sizes(inputs.dataset)
    preds = [summarize_predictions(p, inputs.dataset).as_dict() for p in inputs.predictions]
    if args.json:
        json.dump({"dataset": summary, "predictions": preds}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    _render(summary, preds)
    return 0


SIZES_SHOWN = 30  # databases listed by name; the rest are summed


def _sizes(dataset) -> dict[str, dict[str, int]]:  # type: ignore[no-untyped-def]
    """Tables and rows of every database found (what a schema alone does not say), largest first."""
    from sqltriage.core.datasets.schema import table_sizes
    from sqltriage.core.errors import DatasetError

    out: dict[str, dict[str, int]] = {}
    for db_id, path in sorted(dataset.databases.items()):
        if path is None:
            continue
        try:
            sizes = table_sizes(path)
        except DatasetError:
            continue  # not a database: `check` already reports it as unusable elsewhere
        out[db_id] = {"tables": len(sizes), "rows": sum(sizes.values())}
    return dict(sorted(out.items(), key=lambda kv: -kv[1]["rows"]))


def _render(summary: dict, preds: list[dict]) -> None:
    from rich.table import Table

    from sqltriage.tui.console import make_console

    console = make_console()
    t = Table(
        title=f"Dataset {summary['name']} ({summary['format']})", show_header=False, title_justify="left"
    )
    t.add_column(style="bold")
    t.add_column()
    t.add_row("path", summary["path"])
    t.add_row("examples", str(summary["examples"]))
    t.add_row(
        "databases",
        f"{summary['databases_referenced']} referenced, {summary['databases_found']} found, "
        f"{len(summary['databases_missing'])} missing",
    )
    for db, n in summary["databases_missing"].items():
        t.add_row("  missing", f"[yellow]{db}[/] ({n} examples: no execution metrics)")
    sizes = summary["database_sizes"]
    for db, size in list(sizes.items())[:SIZES_SHOWN]:
        t.add_row("  size", f"{db}: {size['tables']} tables, {size['rows']:,} rows")
    if len(sizes) > SIZES_SHOWN:
        rest = list(sizes.values())[SIZES_SHOWN:]
        t.add_row("  size", f"{len(rest)} more: {sum(r['rows'] for r in rest):,} rows")
    if summary["schemas_unknown"]:
        t.add_row("schemas unknown", ", ".join(summary["schemas_unknown"]))
    if summary["with_evidence"]:
        t.add_row("evidence", f"{summary['with_evidence']} examples")
    if summary["difficulty"]:
        t.add_row("difficulty", ", ".join(f"{k} {v}" for k, v in summary["difficulty"].items()))
    if summary["with_reasoning"]:
        tokens = ", ".join(f"{k} {v}" for k, v in summary["reasoning_tokens"].items())
        t.add_row("reasoning", f"{summary['with_reasoning']} annotated examples; tokens: {tokens}")
    if summary["with_commonsense"]:
        t.add_row("commonsense", f"{summary['with_commonsense']} examples with commonsense knowledge")
    if summary["empty_gold"]:
        t.add_row("empty gold SQL", f"[red]{summary['empty_gold']}[/]")
    if summary["without_question"]:
        t.add_row("no question text", str(summary["without_question"]))
    console.print(t)
    if preds:
        pt = Table(title="Predictions", title_justify="left")
        for col in ("name", "format", "aligned", "empty", "db_id checked", "path"):
            pt.add_column(col)
        for p in preds:
            pt.add_row(
                p["name"],
                p["format"],
                f"{p['aligned']}/{p['expected']}",
                str(p["empty"]),
                str(p["db_checked"]),
                p["path"],
            )
        console.print(pt)
        for p in preds:
            if p["extraction"]:
                kinds = ", ".join(
                    f"{kind} {n}" for kind, n in sorted(p["extraction"].items(), key=lambda kv: -kv[1])
                )
                k = f"; up to {p['candidates']} candidates per question" if p["candidates"] > 1 else ""
                console.print(f"{p['name']}: raw responses, SQL found by {kinds}{k}")
            for problem in p["problems"][:10]:
                console.print(f"[yellow]{p['name']}: {problem}[/]")
            if len(p["problems"]) > 10:
                console.print(f"[yellow]{p['name']}: … {len(p['problems']) - 10} more (all in --json)[/]")
