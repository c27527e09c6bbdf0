"""`python -m tests.bench candidates`: 8 candidates per question against the first candidate alone.

Spider dev's 8 systems written as one model's responses (a ```sql fence each), 8 candidates per question,
evaluated into a fresh workspace; then the same file's first candidate alone. Both in this process
(jobs=1, question features off) so that the machine's other work moves them alike. Target: the 8 candidates
cost at most 3× the first alone (the others are only run and compared, once per distinct text).
Options: `--runs N` (default 3), `--jobs N` (default 1).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from tests.bench.harness import SPIDER_DEV, Figure, load_average, spider_predictions, table

RATIO_TARGET = 3.0


def write_responses(folder: Path) -> tuple[Path, Path, int]:
    """(8 candidates per question, the first alone, distinct (question, text) pairs among the 8)."""
    systems = [p.read_text(encoding="utf-8").split("\n")[:1034] for p in spider_predictions()]
    k8, k1 = folder / "k8.jsonl", folder / "k1.jsonl"
    distinct = 0
    with k8.open("w", encoding="utf-8") as many, k1.open("w", encoding="utf-8") as one:
        for i in range(len(systems[0])):
            texts = [s[i].strip() for s in systems]
            distinct += len(set(texts))
            responses = [f"Reasoning about the schema.\n```sql\n{t}\n```" for t in texts]
            many.write(json.dumps({"id": i, "responses": responses}) + "\n")
            one.write(json.dumps({"id": i, "responses": responses[:1]}) + "\n")
    return k8, k1, distinct


def _evaluate(path: Path, jobs: int) -> tuple[float, float]:
    """(wall, CPU of this process) seconds of one evaluation into a fresh workspace."""
    from sqltriage.core.datasets import load_dataset
    from sqltriage.core.datasets.predictions import load_predictions
    from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
    from sqltriage.core.workspace.store import Workspace

    dataset = load_dataset(SPIDER_DEV)
    preds = load_predictions(path, dataset, name=path.stem)
    with tempfile.TemporaryDirectory() as tmp, Workspace.open(Path(tmp) / "w.db") as ws:
        wall, cpu = time.perf_counter(), time.process_time()
        evaluate(dataset, [preds], ws, EvalOptions(jobs=jobs, features=False))
        return time.perf_counter() - wall, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench candidates", description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        k8, k1, distinct = write_responses(Path(tmp))
        _evaluate(k1, args.jobs)  # warm: imports and the databases' pages, for neither figure to pay
        first = Figure("1", "first candidate alone (1034 pairs)", "s")
        eight = Figure("2", "8 candidates per question", "s")
        ratio = Figure("3", "8 candidates / first alone", "×", target=RATIO_TARGET, target_text="≤ 3×")
        cpu = Figure("4", "the same in CPU seconds of this process", "×", note="less moved by other work")
        for _ in range(args.runs):  # alternated, so a change in the machine's load falls on both
            w1, c1 = _evaluate(k1, args.jobs)
            w8, c8 = _evaluate(k8, args.jobs)
            first.samples.append(w1)
            eight.samples.append(w8)
            ratio.samples.append(w8 / w1)
            cpu.samples.append(c8 / c1)
    ratio.note = f"{distinct} distinct (question, text) of {8 * 1034}: equal texts run once"
    print(f"Spider dev, 8 systems as 8 candidates of one model; jobs={args.jobs}, {args.runs} run(s)")
    print(table([first, eight, ratio, cpu] if args.jobs == 1 else [first, eight, ratio]))
    print(f"load after: {load_average()}")
    return 0 if ratio.verdict() == "met" else 1


if __name__ == "__main__":
    sys.exit(main())
