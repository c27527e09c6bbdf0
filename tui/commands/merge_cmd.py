"""`sqltriage merge A.db B.db --out C.db`: one study tagged on two machines, every annotator's changes kept."""

from __future__ import annotations

import argparse
import sys


def run(args: argparse.Namespace) -> int:
    from sqltriage.core.workspace.merge import merge

    added = merge(args.a, args.b, args.out)
    print(
        f"merged {args.b} into a copy of {args.a}: {added['annotations']} tags, {added['tag_log']} tag changes, "
        f"{added['note_log']} note changes, {added['adjudication_log']} adjudications added → {args.out}",
        file=sys.stderr,
    )
    return 0
