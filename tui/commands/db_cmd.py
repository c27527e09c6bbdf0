"""`sqltriage db copy SOURCE --to URL`: SQLite databases loaded into PostgreSQL or MySQL/MariaDB, with a
progress bar, types, keys and indexes kept where the data allows (and a note where it does not)."""

from __future__ import annotations

import argparse
import json
import sys


def run(args: argparse.Namespace) -> int:
    if getattr(args, "db_command", None) != "copy":
        print("sqltriage db: say what to do: `sqltriage db copy SOURCE --to URL`", file=sys.stderr)
        return 2
    return _copy(args)


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
