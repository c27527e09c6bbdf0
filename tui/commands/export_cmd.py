"""`sqltriage export`: one CSV row per (example, model), filtered."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def run(args: argparse.Namespace) -> int:
    from sqltriage.core.export import apply_filters, write_csv
    from sqltriage.core.report import load_frame
    from sqltriage.core.workspace import Workspace

    with Workspace.open(Path(args.workspace), create=False) as ws:
        frame = load_frame(ws)
    frame = apply_filters(frame, args.where or [], args.model)
    n = write_csv(frame, Path(args.out))
    print(f"wrote {n} rows to {args.out}", file=sys.stderr)
    return 0
