"""`sqltriage tags import FILE.csv --workspace W --annotator NAME`: labels made elsewhere, all or nothing."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def run(args: argparse.Namespace) -> int:
    from sqltriage.core.triage.import_tags import import_tags
    from sqltriage.core.triage.taxonomy import load_taxonomy
    from sqltriage.core.workspace.store import Workspace
    from sqltriage.tui.config import load_config, resolve_annotator

    config = load_config()
    annotator = resolve_annotator(args.annotator, config)
    taxonomy = load_taxonomy(config.taxonomy)
    with Workspace.open(Path(args.workspace), create=False) as ws:
        done = import_tags(ws, Path(args.file), taxonomy, annotator, adjudicate=args.adjudicate)
    what = "adjudicated" if args.adjudicate else f"{done['added']} tags added, {done['removed']} removed"
    print(
        f"imported {done['rows']} rows as {annotator} ({what}, {done['notes']} notes) into {args.workspace}",
        file=sys.stderr,
    )
    return 0
