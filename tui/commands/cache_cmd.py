"""`sqltriage cache`: what sqltriage keeps in the user cache folder, and `cache prune` to bound it."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any


def run(args: argparse.Namespace) -> int:
    if getattr(args, "cache_command", None) == "prune":
        return _prune(args)
    return _list(args)


def _list(args: argparse.Namespace) -> int:
    from rich.table import Table

    from sqltriage.core.cache import format_size, inventory, user_cache_dir
    from sqltriage.core.cache.inventory import KIND_LABELS
    from sqltriage.tui.config import load_config
    from sqltriage.tui.console import make_console

    root = user_cache_dir()
    entries = sorted(inventory(root), key=lambda e: (e.kind, -e.last_used))
    limit = load_config().cache_max_size
    total = sum(e.size for e in entries)
    if args.json:
        doc: dict[str, Any] = {
            "root": str(root),
            "size": total,
            "max_size": limit,
            "entries": [e.as_json() for e in entries],
        }
        json.dump(doc, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    limit_text = f"limit {format_size(limit)}" if limit is not None else "no size limit"
    table = Table(title=f"{root}: {format_size(total)} ({limit_text})", title_justify="left")
    for column in ("kind", "entry", "size", "last used", ""):
        table.add_column(column, justify="right" if column == "size" else "left")
    now = time.time()
    for e in entries:
        state = "in use" if e.in_use() else ("" if e.complete else "unfinished")
        table.add_row(
            KIND_LABELS.get(e.kind, e.kind), e.name, format_size(e.size), _ago(now - e.last_used), state
        )
    console = make_console()
    if entries:
        console.print(table)
    else:
        console.print(f"{root}: empty")
    return 0


def _ago(seconds: float) -> str:
    for unit, span in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= span:
            n = int(seconds // span)
            return f"{n} {unit}{'s' if n != 1 else ''} ago"
    return "just now"


def _prune(args: argparse.Namespace) -> int:
    from sqltriage.core.cache import format_size, parse_size, prune
    from sqltriage.core.errors import UsageError
    from sqltriage.tui.config import load_config

    max_size = parse_size(args.max_size, where="--max-size") if args.max_size is not None else None
    if args.older_than is not None and args.older_than < 0:
        raise UsageError("--older-than is a number of days, 0 or more")
    if max_size is None and args.older_than is None:
        max_size = load_config().cache_max_size
        if max_size is None:
            raise UsageError(
                "nothing to prune by: the config sets no cache size limit",
                hint="give --max-size SIZE (e.g. 500MB) or --older-than DAYS",
            )
    result = prune(max_size=max_size, older_than_days=args.older_than)
    if args.json:
        doc = {
            "removed": [e.as_json() for e in result.removed],
            "in_use": [e.as_json() for e in result.in_use],
            "size_before": result.size_before,
            "size_after": result.size_after,
        }
        json.dump(doc, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    print(
        f"removed {len(result.removed)} entr{'y' if len(result.removed) == 1 else 'ies'}, "
        f"{format_size(result.freed)} freed; the cache holds {format_size(result.size_after)}",
        file=sys.stderr,
    )
    for e in result.in_use:
        print(f"  kept {e.kind}/{e.name}: in use by a running process", file=sys.stderr)
    return 0


def keep_within_limit() -> None:
    """After a run that wrote to the user cache: prune it down to the config's limit, quietly.

    Never fails the run that called it: a broken config or an unwritable cache is reported once.
    """
    from sqltriage.core.cache import format_size, prune
    from sqltriage.core.errors import SqlTriageError
    from sqltriage.tui.config import load_config

    try:
        limit = load_config().cache_max_size
        if limit is None:
            return
        result = prune(max_size=limit)
    except (SqlTriageError, OSError) as exc:
        print(f"sqltriage: the user cache was not pruned ({exc})", file=sys.stderr)
        return
    if result.removed:
        print(
            f"sqltriage: the user cache went over its limit ({format_size(limit)}): removed "
            f"{len(result.removed)} least recently used entr{'y' if len(result.removed) == 1 else 'ies'}, "
            f"{format_size(result.freed)}",
            file=sys.stderr,
        )
