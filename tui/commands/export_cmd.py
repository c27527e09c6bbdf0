"""`sqltriage export`: one row per (example, model), filtered, as CSV, JSON lines, Parquet or SQLite."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def run(args: argparse.Namespace) -> int:
    from sqltriage.core.reporting.export import apply_filters
    from sqltriage.core.reporting.export_formats import format_of, write_export
    from sqltriage.core.reporting.report import load_frame
    from sqltriage.core.workspace.store import Workspace

    out = Path(args.out)
    fmt = format_of(out, getattr(args, "format", None))  # a bad name fails before any work
    with Workspace.open(Path(args.workspace), create=False) as ws:
        frame = load_frame(ws)
    frame = apply_filters(frame, args.where or [], args.model)
    n = write_export(frame, out, fmt)
    print(f"wrote {n} rows to {args.out} ({fmt})", file=sys.stderr)
    return 0
