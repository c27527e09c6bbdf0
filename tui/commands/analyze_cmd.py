"""`sqltriage analyze DATASET`: the dataset-analysis report."""

from __future__ import annotations

import argparse

from sqltriage.tui.inputs import load_inputs


def run(args: argparse.Namespace) -> int:
    from sqltriage.tui.commands.analyze import run as analyze

    inputs = load_inputs(args)
    return analyze(inputs.dataset, as_json=args.json, pipeline=args.pipeline)
