"""`sqltriage agreement --workspace W`: Cohen's κ for every pair of annotators, Fleiss' κ across them."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def run(args: argparse.Namespace) -> int:
    from sqltriage.core.triage.agreement import compute, read_labels, text_report
    from sqltriage.core.workspace.store import Workspace

    with Workspace.open_for_reading(Path(args.workspace)) as ws:
        result = compute(read_labels(ws))
    if args.json:
        json.dump(result.to_json(), sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
    else:
        print(text_report(result))
    return 0
