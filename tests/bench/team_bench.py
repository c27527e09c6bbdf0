"""`python -m tests.bench team`: several annotators on a large workspace (20,000 rows, all tagged).

A synthetic workspace of 10,000 examples × 2 models (no dataset needed): annotator A tags every row,
B tags half of them with another tag and a quarter with A's. Figures, median of --runs: a bulk tag of
every row (one transaction, with the final tags refreshed), reading the evaluation frame (with `tags_by`,
`annotators`, `disagree`, `adjudicated_by`), and `agreement` (Cohen's and Fleiss' κ). Each must stay
linear in the rows: a quadratic read of the annotations showed as minutes, not a fraction of a second.
Options: `--runs N` (default 3), `--examples N` (default 10,000).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from tests.bench.harness import Figure, load_average, table

MODELS = ("a", "b")


def _workspace(path: Path, examples: int) -> None:
    from sqltriage.core.workspace.store import Workspace

    with Workspace.open(path) as ws, ws.write():
        ws.db.executemany(
            "INSERT INTO models (name, position) VALUES (?, ?)", [(m, i) for i, m in enumerate(MODELS)]
        )
        ws.db.executemany(
            "INSERT INTO examples (idx, question) VALUES (?, 'q')", [(i,) for i in range(examples)]
        )
        ws.db.executemany(
            "INSERT INTO results (model, idx, ex) VALUES (?, ?, 0)",
            [(m, i) for m in MODELS for i in range(examples)],
        )


def run(runs: int, examples: int) -> list[Figure]:
    from sqltriage.core.reporting.report import load_frame
    from sqltriage.core.triage.agreement import compute, read_labels
    from sqltriage.core.workspace.store import Workspace

    rows = len(MODELS) * examples
    tag = Figure("1", f"bulk tag of {rows:,} rows by one annotator", "s", target=5.0, target_text="≤ 5 s")
    frame = Figure("2", f"evaluation frame of {rows:,} tagged rows", "s", target=2.0, target_text="≤ 2 s")
    agree = Figure("3", "agreement (2 annotators, every row)", "s", target=2.0, target_text="≤ 2 s")
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "team.db"
            _workspace(path, examples)
            pairs = [(i, m) for m in MODELS for i in range(examples)]
            with Workspace.open(path) as ws:
                start = time.perf_counter()
                ws.add_tags(pairs, "Table: missing", annotator="ann")
                tag.samples.append(time.perf_counter() - start)
                ws.add_tags(pairs[: rows // 2], "Value: mismatch", annotator="bob")
                ws.add_tags(pairs[: rows // 4], "Table: missing", annotator="bob")
                load_frame(ws)  # the view made once, as any first load does
                start = time.perf_counter()
                load_frame(ws)
                frame.samples.append(time.perf_counter() - start)
                start = time.perf_counter()
                compute(read_labels(ws))
                agree.samples.append(time.perf_counter() - start)
    return [tag, frame, agree]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench team", description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--examples", type=int, default=10_000)
    args = parser.parse_args(argv)
    figures = run(args.runs, args.examples)
    print(f"load average {load_average()}")
    print(table(figures))
    return 0 if all(f.verdict() != "MISSED" for f in figures) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
