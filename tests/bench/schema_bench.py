"""`python -m tests.bench schema`: the judgement without a database on BIRD dev, as it costs.

1. `sqltriage db generate` of BIRD dev's 11 databases from the schema, the golds and the evidence, timed
   from outside (target: at most 60 s).
2. BIRD dev with the ChatGPT + knowledge baseline's predictions evaluated in-process without any database
   file (`--neighbours 3 --verify`, jobs=1, a fresh cache folder): the CPU each row spends on the
   generated databases and on the proof from the declared schema (`schema_columns`, `schema_proof`),
   per row; the median over the rows the judgement decides (target: at most 0.5 s). The share of rows
   decided is printed beside it. A row whose pair an earlier row already ran costs what its own calls
   cost (the memo), as in any evaluation.

The share of BIRD dev pairs inside the solver's fragment is `python -m tests.bench fragment`. Options:
`--limit N` (the first N questions only, for a quick look).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.bench.harness import PYTHON, SHARED_DATA, Figure, load_average, run_process, table

BIRD_DEV = SHARED_DATA / "bird_dev"
GENERATE_TARGET = 60.0
PAIR_TARGET = 0.5
PARTS = ("schema_columns", "schema_proof")


def _generate(out: Path) -> float:
    start = time.monotonic()
    cli = [PYTHON, "-c", "import sys; from sqltriage.tui.cli import main; sys.exit(main())"]
    run_process([*cli, "db", "generate", str(BIRD_DEV / "dev.json"), "--out", str(out)])
    return time.monotonic() - start


def _evaluate(limit: int | None, root: Path) -> tuple[list[float], int, int]:
    """(CPU seconds of each decided row, rows decided, rows)."""
    import json

    import sqltriage.core.verdicts.judgement.schema_only as schema_only
    from tests.core.schema_only_run import judged_rows

    data = BIRD_DEV
    if limit is not None:  # a subset in a folder of its own, its tables beside it
        dev = json.loads((BIRD_DEV / "dev.json").read_text())[:limit]
        preds = json.loads((BIRD_DEV / "predict_dev_chatgpt_kg.json").read_text())
        (root / "dev.json").write_text(json.dumps(dev))
        (root / "dev_tables.json").write_text((BIRD_DEV / "dev_tables.json").read_text())
        kept = {str(i): preds[str(i)] for i in range(len(dev)) if str(i) in preds}
        (root / "predict_dev_chatgpt_kg.json").write_text(json.dumps(kept))
        data = root
    spent: dict[tuple[str, str], float] = defaultdict(float)

    def timed(fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(gold_sql: str, pred_sql: str, *args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return fn(gold_sql, pred_sql, *args, **kwargs)
            finally:
                spent[(gold_sql, pred_sql)] += time.process_time() - start

        return wrapper

    originals = {name: getattr(schema_only, name) for name in PARTS}
    for name, fn in originals.items():
        setattr(schema_only, name, timed(fn))
    try:
        rows = judged_rows(data / "dev.json", data / "predict_dev_chatgpt_kg.json", root, name="chatgpt_kg")
    finally:
        for name, fn in originals.items():
            setattr(schema_only, name, fn)
    decided = [r for r in rows if r["judgement"] in ("right", "wrong")]
    seconds = [spent.get((r["gold_sql"], r["pred_sql"]), 0.0) for r in decided]
    return seconds, len(decided), len(rows)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench schema", description=__doc__)
    parser.add_argument("--limit", type=int, default=None, help="the first N BIRD dev questions only")
    args = parser.parse_args(argv)
    if not (BIRD_DEV / "dev.json").exists():
        print(f"BIRD dev not found at {BIRD_DEV}", file=sys.stderr)
        return 2
    print(f"load before: {load_average()}")
    with tempfile.TemporaryDirectory(prefix="sqltriage-schema-bench-") as tmp:
        root = Path(tmp)
        generate = Figure("1", "db generate, BIRD dev's 11 databases", "s", target=GENERATE_TARGET)
        generate.target_text = f"<= {GENERATE_TARGET:.0f} s"
        generate.samples.append(_generate(root / "generated"))
        seconds, decided, rows = _evaluate(args.limit, root)
        pair = Figure("2", "CPU per decided pair (generated databases + proof)", "s", target=PAIR_TARGET)
        pair.target_text = f"<= {PAIR_TARGET} s (median)"
        pair.samples.extend(seconds)
        pair.note = f"{decided} of {rows} rows decided ({decided / max(rows, 1):.0%})"
        p95 = Figure("2b", "the same, 95th percentile", "s", stat="p95")
        p95.samples.extend(seconds)
    print(table([generate, pair, p95]))
    print(f"load after: {load_average()}")
    return 0 if all(f.verdict() != "MISSED" for f in (generate, pair)) else 1
