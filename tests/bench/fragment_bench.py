"""`python -m tests.bench fragment`: how much of BIRD dev the bounded-equivalence checker can encode.

BIRD dev's databases are generated from the schema (`sqltriage db generate`, into a temporary folder, or
`--db-dir DIR` holding `DIR/<db_id>/<db_id>.sqlite` already), then every pair of a gold and the chatgpt_kg
prediction (`predict_dev_chatgpt_kg.json`; its few non-text entries are skipped) is asked `outside_fragment`
in BIRD's EX mode. Figures: the share of pairs inside the fragment (target ≥ 85 %); the same share among
pairs whose prediction runs on the generated database (a prediction SQLite rejects, e.g. a DIVIDE function
or a column that does not exist, is decided without the solver: it fails); the share of pairs either inside
or decided so (with, as its note, the most the first figure can reach: a failing prediction is outside
whatever the fragment); the seconds it took (target ≤ 120). Then the reasons left, the most frequent
first: among the pairs whose prediction runs, then among the rest.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from tests.bench.harness import PYTHON, SHARED_DATA, Figure, table

BIRD_DEV = SHARED_DATA / "bird_dev"
PREDICTIONS = BIRD_DEV / "predict_dev_chatgpt_kg.json"
INSIDE_TARGET = 0.85
SECONDS_TARGET = 120.0
RUN_TIMEOUT = 2.0  # seconds a prediction may run on a generated database before it counts as not running
TOP_REASONS = 25


def pairs() -> list[tuple[int, str, str, str]]:
    """(index, db_id, gold, prediction) for every BIRD dev example whose prediction is text."""
    dev = json.loads((BIRD_DEV / "dev.json").read_text())
    predicted = json.loads(PREDICTIONS.read_text())
    out = []
    for i, ex in enumerate(dev):
        p = predicted.get(str(i))
        if isinstance(p, str):
            out.append((i, ex["db_id"], ex["SQL"], p.split("\t")[0]))
    return out


def generate(out: Path) -> None:
    """BIRD dev's databases from the schema, as `sqltriage db generate` writes them."""
    cli = Path(PYTHON).parent / "sqltriage"
    subprocess.run(
        [str(cli), "db", "generate", str(BIRD_DEV / "dev.json"), "--out", str(out)],
        check=True,
        capture_output=True,
        timeout=600,
    )


def runs(sql: str, db: Path) -> bool:
    """Whether SQLite runs the query on the database without an error within RUN_TIMEOUT seconds."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    deadline = time.monotonic() + RUN_TIMEOUT
    conn.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
    try:
        conn.execute(sql).fetchall()
        return True
    except (sqlite3.Error, sqlite3.Warning, ValueError, OverflowError):
        return False
    finally:
        conn.close()


def measure(db_dir: Path) -> tuple[list[Figure], Counter, Counter, dict]:
    from sqltriage.core.verdicts.verify.check import outside_fragment

    started = time.perf_counter()
    running: Counter = Counter()  # reason → pairs whose prediction runs
    failing: Counter = Counter()  # reason → pairs whose prediction SQLite rejects
    n = inside = n_running = inside_running = 0
    for _, db_id, gold, pred in pairs():
        db = db_dir / db_id / f"{db_id}.sqlite"
        why = outside_fragment(gold, pred, db, mode="bird")
        ok = runs(pred, db)
        n += 1
        inside += why is None
        n_running += ok
        inside_running += ok and why is None
        if why is not None:
            (running if ok else failing)[why] += 1
    seconds = time.perf_counter() - started
    decided = inside_running + n - n_running  # both inside, or decided without the solver
    figures = [
        Figure(
            "1",
            f"pairs inside the fragment ({inside}/{n})",
            "%",
            [100 * inside / n],
            100 * INSIDE_TARGET,
            f">= {100 * INSIDE_TARGET:.0f} %",
            higher_is_better=True,
        ),
        Figure(
            "2",
            f"… whose prediction runs ({inside_running}/{n_running})",
            "%",
            [100 * inside_running / max(n_running, 1)],
        ),
        Figure(
            "3",
            f"pairs inside, or whose prediction fails ({decided}/{n})",
            "%",
            [100 * decided / n],
            note=f"figure 1 can reach at most {100 * (n_running + inside - inside_running) / n:.1f} %",
        ),
        Figure(
            "4", "seconds (outside_fragment + one run of each prediction)", "s", [seconds], SECONDS_TARGET
        ),
    ]
    details = {"pairs": n, "inside": inside, "running": n_running, "inside_running": inside_running}
    return figures, running, failing, details


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench fragment", description=__doc__)
    parser.add_argument("--db-dir", type=Path, help="BIRD dev's generated databases (else generated here)")
    args = parser.parse_args(argv)
    if not (BIRD_DEV / "dev.json").exists() or not PREDICTIONS.exists():
        print(
            f"BIRD dev or its predictions not found at {BIRD_DEV}: set SQLTRIAGE_SHARED_DATA", file=sys.stderr
        )
        return 2
    with tempfile.TemporaryDirectory(prefix="sqltriage-fragment-") as tmp:
        db_dir = args.db_dir
        if db_dir is None:
            db_dir = Path(tmp) / "bird_dev_generated"
            print("generating BIRD dev's databases from the schema…", file=sys.stderr)
            generate(db_dir)
        figures, running, failing, details = measure(db_dir)
    print(table(figures))
    print(
        f"\nreasons left among the pairs whose prediction runs (top {TOP_REASONS} of {sum(running.values())}):"
    )
    for reason, count in running.most_common(TOP_REASONS):
        print(f"{count:5d}  {reason}")
    print(
        f"\namong the pairs whose prediction SQLite rejects (top {TOP_REASONS} of {sum(failing.values())}):"
    )
    for reason, count in failing.most_common(TOP_REASONS):
        print(f"{count:5d}  {reason}")
    print(json.dumps(details))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
