"""`sqltriage neighbours`: build the neighbour databases of every database of a dataset, with a progress bar."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from sqltriage.core.errors import UsageError
from sqltriage.tui.inputs import load_inputs


def run(args: argparse.Namespace) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table

    from sqltriage.core.verdicts.testsuite import DEFAULT_K, DEFAULT_SEED, NeighbourError, ensure_neighbours
    from sqltriage.core.verdicts.testsuite.cache import read_manifest
    from sqltriage.tui.console import make_console

    k = DEFAULT_K if args.neighbours is None else args.neighbours
    if k < 1:
        raise UsageError("-K must be at least 1")
    seed = DEFAULT_SEED if args.seed is None else args.seed
    root = Path(args.out) if args.out else None
    dataset = load_inputs(args).dataset
    err = make_console(stderr=True)
    rows: list[dict[str, Any]] = []
    db_ids = [d for d in dataset.db_ids if not dataset.db_missing(d)]
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=err
    ) as bar:
        task = bar.add_task("neighbours", total=len(db_ids))
        for db_id in db_ids:
            bar.update(task, description=f"neighbours of {db_id}")
            schema = dataset.schemas.get(db_id)
            golds = [e.gold_sql for e in dataset.examples if e.db_id == db_id]
            row: dict[str, Any] = {"db_id": db_id}
            try:
                paths = ensure_neighbours(
                    dataset.db_path(db_id),  # type: ignore[arg-type]
                    golds,
                    k,
                    seed,
                    root,
                    foreign_keys=schema.foreign_keys if schema is not None else (),
                    primary_keys=schema.primary_keys if schema is not None else (),
                )
                manifest = read_manifest(paths[0].parent)
                row.update(
                    folder=str(paths[0].parent),
                    neighbours=len(paths),
                    mutants=manifest["mutants"],
                    covered=manifest["mutants_covered"],
                    build_seconds=manifest["build_seconds"],
                    problems=manifest["problems"],
                    coverage=manifest["coverage"],
                )
            except NeighbourError as exc:
                row.update(error=str(exc))
            except Exception as exc:  # one database we cannot imitate must not stop the others
                row.update(error=f"generation failed ({type(exc).__name__}: {exc})")
            rows.append(row)
            bar.advance(task)
    if root is None:
        from sqltriage.tui.commands.cache_cmd import keep_within_limit

        keep_within_limit()  # the sets went to the user cache
    for db_id in dataset.missing_dbs:
        rows.append({"db_id": db_id, "error": "the database is missing"})
    built = [r["coverage"] for r in rows if "coverage" in r]
    can, covered = sum(c["can_return_rows"] for c in built), sum(c["covered"] for c in built)
    summary = {"golds": sum(c["golds"] for c in built), "can_return_rows": can, "covered": covered}
    summary["share"] = round(covered / can, 4) if can else 1.0
    if args.json:
        out = {"k": k, "seed": seed, "coverage": summary, "databases": rows}
        json.dump(out, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    t = Table(title=f"Neighbour databases (K={k}, seed={seed})", title_justify="left")
    for col in ("database", "mutants covered", "golds covered", "build s", "folder or problem"):
        t.add_column(col, justify="left" if col in ("database", "folder or problem") else "right")
    for r in rows:
        if "error" in r:
            t.add_row(r["db_id"], "", "", "", f"[red]{r['error']}[/]")
        else:
            cov = r["coverage"]
            note = r["folder"] + "".join(f"\n  {p}" for p in r["problems"])
            note += "".join(f"\n  not covered ({u['reason']}): {u['sql']}" for u in cov["uncovered"])
            golds = f"{cov['covered']}/{cov['can_return_rows']}"
            t.add_row(r["db_id"], f"{r['covered']}/{r['mutants']}", golds, f"{r['build_seconds']:.1f}", note)
    console = make_console()
    console.print(t)
    console.print(
        f"golds with a non-empty, non-trivial result on some neighbour: {covered} of the {can} that can "
        f"return rows ({summary['share']:.1%}); the rest are listed with their reason"
    )
    return 0
