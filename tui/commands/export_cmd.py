"""`sqltriage export`: one row per (example, model), filtered, as CSV, JSON lines, Parquet or SQLite."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def run(args: argparse.Namespace) -> int:
    from sqltriage.core.reporting.export import exported
    from sqltriage.core.reporting.export_formats import format_of, write_export

    out = Path(args.out)
    fmt = format_of(out, getattr(args, "format", None))  # a bad name fails before any work
    frame = exported(Path(args.workspace), args.where or [], args.model)
    n = write_export(frame, out, fmt)
    print(f"wrote {n} rows to {args.out} ({fmt})", file=sys.stderr)
    return 0
