"""`python -m tests.bench`: every benchmark on Spider dev, as one table.

Options: `--runs N` (repetitions of each eval figure and of each launch from outside, default 3),
`--rounds N` (key presses per app figure, default 10), `--only eval|app|testsuite|official|launch` (one
part), `--workspace FILE` (reuse a Spider dev × 8 workspace for the app half instead of evaluating one),
`--official PATH` (the official evaluator's folder for the side-by-side figure), `--busy N` (N other
processes spinning on the CPU throughout: the figures for a busy machine). `python -m tests.bench launch`
runs the launch figures alone (`--runs N`, `--systems 8,130`); `python -m tests.bench candidates` 8
candidates per question against the first alone (`--runs N`, `--jobs N`); `python -m tests.bench fragment`
the share of BIRD dev's pairs inside the equivalence checker's fragment (`--db-dir DIR`). See docs/benchmarks.md for what each
figure measures.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

from tests.bench.harness import (
    SPIDER_DEV,
    Figure,
    busy_machine,
    load_average,
    run_process,
    spider_predictions,
    table,
)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["suggest"]:  # the suggestion engine against the hand-labelled causes
        from tests.bench import suggest_bench

        return suggest_bench.main(argv[1:])
    if argv[:1] == ["judgement"]:  # the judgement, lints and assumptions as a share of eval --verify
        from tests.bench import judgement_bench

        return judgement_bench.main(argv[1:])
    if argv[:1] == ["schema"]:  # the judgement without a database on BIRD dev: db generate, CPU per pair
        from tests.bench import schema_bench

        return schema_bench.main(argv[1:])
    if argv[:1] == ["findings"]:  # slices, compare and report on the 42-system workspace
        from tests.bench import findings_bench

        return findings_bench.main(argv[1:])
    if argv[:1] == ["cluster"]:  # the Dask engine's overhead against the local pool
        from tests.bench import cluster_bench

        return cluster_bench.main(argv[1:])
    if argv[:1] == ["verify"]:  # bounded equivalence (eval --verify): coverage, time per pair, cost
        from tests.bench import verify_bench

        return verify_bench.main(argv[1:])
    if argv[:1] == ["fragment"]:  # the share of BIRD dev's pairs the equivalence checker can encode
        from tests.bench import fragment_bench

        return fragment_bench.main(argv[1:])
    if argv[:1] == ["verify-calibrate"]:  # the solver's budget units against CPU seconds on this machine
        from tests.bench import verify_calibrate

        return verify_calibrate.main(argv[1:])
    if argv[:1] == ["team"]:  # several annotators on 20,000 tagged rows: tagging, the frame, agreement
        from tests.bench import team_bench

        return team_bench.main(argv[1:])
    if argv[:1] == ["engines"]:  # PostgreSQL beside SQLite and beside a plain psycopg loop; db copy
        from tests.bench import engines_bench

        return engines_bench.main(argv[1:])
    if argv[:1] == ["candidates"]:  # 8 candidates per question against the first alone
        from tests.bench import candidates_bench

        return candidates_bench.main(argv[1:])
    if argv[:1] == ["launch"]:  # opening the app, timed from outside in a real terminal (8 and 130 systems)
        from tests.bench import launch_bench

        return launch_bench.main(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m tests.bench", description=__doc__)
    parser.add_argument("--runs", type=int, default=3, help="runs of each eval figure and launch (default 3)")
    parser.add_argument("--rounds", type=int, default=10, help="key presses per app figure (default 10)")
    parser.add_argument(
        "--only", choices=("eval", "app", "testsuite", "official", "launch"), help="run one part only"
    )
    parser.add_argument("--workspace", help="a Spider dev × 8 workspace for the app half (else one is built)")
    parser.add_argument(
        "--official",
        metavar="PATH",
        help="folder of the official Spider evaluator (test-suite-sql-eval) for the side-by-side figure "
        "(default: $SQLTRIAGE_OFFICIAL_EVAL; skipped when neither is set)",
    )
    parser.add_argument(
        "--busy",
        type=int,
        default=0,
        metavar="N",
        help="keep N other processes spinning on the CPU during the run: figures for a busy machine (default 0)",
    )
    args = parser.parse_args(argv)
    if not (SPIDER_DEV / "dev.json").exists():
        print(f"Spider dev not found at {SPIDER_DEV}: set SQLTRIAGE_SHARED_DATA", file=sys.stderr)
        return 2

    from tests.bench import eval_bench, launch_bench, official, testsuite_bench, tui_bench

    started = time.perf_counter()
    load_before = load_average()
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory(prefix="sqltriage-bench-") as tmp, busy_machine(args.busy):
        # A user cache folder of the benchmark's own: "cold" means nothing cached, not even question features.
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "user-cache")
        cached = Path(args.workspace) if args.workspace else None
        if args.only in (None, "official"):
            figures += official.figures(args.runs, Path(tmp), args.official, spider_predictions())
        if args.only in (None, "eval"):
            eval_figs, built = eval_bench.run(args.runs, Path(tmp))
            figures += eval_figs
            cached = cached or built
        if args.only in (None, "testsuite"):
            figures += testsuite_bench.run(Path(tmp), args.runs)
        if args.only in (None, "app"):
            if cached is None:
                cached = Path(tmp) / "spider8.sqltriage.db"
                print("evaluating Spider dev × 8 for the app benchmarks…", file=sys.stderr)
                run_process(eval_bench.eval_cmd(cached, spider_predictions()))
            figures += tui_bench.run(args.rounds, cached)
        if args.only in (None, "launch"):
            figures += launch_bench.run(args.runs, Path(tmp))
    busy = f"; {args.busy} other processes kept spinning on the CPU throughout" if args.busy else ""
    print(
        f"sqltriage benchmarks — {platform.python_version()}, {platform.machine()}, load before {load_before}, "
        f"after {load_average()}; {time.perf_counter() - started:.0f} s in all{busy}"
    )
    print(table(figures))
    missed = [f for f in figures if f.verdict() == "MISSED"]
    print(f"\n{len(figures) - len(missed)} figures within target or untargeted, {len(missed)} missed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
