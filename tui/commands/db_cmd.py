"""`sqltriage db copy SOURCE --to URL`: SQLite databases loaded into PostgreSQL or MySQL/MariaDB, with a
progress bar, types, keys and indexes kept where the data allows (and a note where it does not);
`db drop-scratch URL` removes the scratch places the neighbours were replayed in (core/engines/replay.py)."""

from __future__ import annotations

import argparse
import json
import sys


def run(args: argparse.Namespace) -> int:
    command = getattr(args, "db_command", None)
    if command == "generate":
        return _generate(args)
    if command == "drop-scratch":
        return _drop_scratch(args)
    if command != "copy":
        print(
            "sqltriage db: say what to do: `sqltriage db copy SOURCE --to URL`, "
            "`sqltriage db generate DATASET --out DIR` or `sqltriage db drop-scratch URL`",
            file=sys.stderr,
        )
        return 2
    return _copy(args)


def _drop_scratch(args: argparse.Namespace) -> int:
    """The neighbours' scratch places gone from the server; a later `eval --neighbours` loads them again."""
    from sqltriage.core.engines.refs import parse_url
    from sqltriage.core.engines.replay import drop_scratch

    dropped = drop_scratch(args.url)
    if args.json:
        json.dump({"url": parse_url(args.url).redacted(), "dropped": dropped}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    for name in dropped:
        print(f"dropped {name}")
    print(f"{len(dropped)} scratch place(s) dropped from {parse_url(args.url).redacted()}", file=sys.stderr)
    return 0


def _generate(args: argparse.Namespace) -> int:
    """Databases from the schema alone, one per db_id, with a progress bar; what could not be reproduced
    is said per database."""
    from pathlib import Path

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from sqltriage.core.errors import UsageError
    from sqltriage.core.verdicts.testsuite.generated import generate_databases
    from sqltriage.tui.console import make_console
    from sqltriage.tui.inputs import load_inputs

    if args.rows is not None and args.rows < 1:
        raise UsageError("--rows must be at least 1")
    dataset = load_inputs(args).dataset
    out = Path(args.out)
    console = make_console()
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=make_console(stderr=True),
        transient=args.json,
    ) as bar:
        task = bar.add_task("generating", total=len(dataset.schemas))

        def progress(db_id: str, done: int, _total: int) -> None:
            bar.update(task, completed=done, description=f"generating {db_id}")

        made = generate_databases(dataset, out, seed=args.seed, rows=args.rows, progress=progress)
        bar.update(task, completed=len(made), description="generated")
    if args.json:
        doc = [
            {
                "db_id": g.db_id,
                "path": str(g.path) if g.tables else None,
                "tables": g.tables,
                "rows": g.rows,
                "golds": g.golds,
                "evidence_queries": g.evidence,
                "problems": list(g.problems),
            }
            for g in made
        ]
        json.dump({"out": str(out), "seed": args.seed, "databases": doc}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0 if all(g.tables for g in made) else 1
    for g in made:
        if not g.tables:
            console.print(f"[red]{g.db_id}: {'; '.join(g.problems)}[/]")
            continue
        console.print(
            f"{g.db_id}: {g.tables} tables, {g.rows} rows, planted from {g.golds} golds and {g.evidence} "
            f"comparisons of the evidence → {g.path}"
        )
    console.print(
        "[dim]generated from the schema alone: no row comes from real data (docs/judgement.md); "
        "`eval --db-dir` reads them like real databases[/]"
    )
    return 0 if all(g.tables for g in made) else 1


def _copy(args: argparse.Namespace) -> int:
    from pathlib import Path

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from sqltriage.core.engines.load import copy_databases, sources
    from sqltriage.core.engines.refs import parse_url
    from sqltriage.tui.console import make_console

    source = Path(args.source)
    server = parse_url(args.to)
    found = sources(source)
    console = make_console()
    bar_console = make_console(stderr=True) if args.json else console
    total = sum(s.rows for s in found)
    done_before: dict[str, int] = {}  # rows of the tables finished, per db_id and table
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=bar_console,
        transient=args.json,
    ) as bar:
        task = bar.add_task(f"copying {len(found)} database(s) to {server.redacted()}", total=total)

        def progress(db_id: str, table: str, rows: int, _of: int) -> None:
            done_before[f"{db_id}.{table}"] = rows
            bar.update(task, completed=sum(done_before.values()), description=f"{db_id}.{table}")

        reports = copy_databases(
            source, args.to, replace=args.replace, progress=progress, numbers_from_text=args.numbers_from_text
        )
    if args.json:
        doc = [
            {"db_id": r.db_id, "tables": r.tables, "rows": r.rows, "notes": list(r.notes)} for r in reports
        ]
        json.dump({"to": server.redacted(), "databases": doc}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    for r in reports:
        console.print(f"{r.db_id}: {r.tables} tables, {r.rows} rows → {server.redacted(r.db_id)}")
        for note in r.notes:
            console.print(f"  note: {note}", markup=False)
    return 0
