"""`python -m tests.bench engines`: sqltriage on PostgreSQL beside SQLite and beside the floor.

Throwaway PostgreSQL 15 and MariaDB servers (tests/servers.py) get Spider dev's 19 databases by `sqltriage
db copy` (timed); then Spider dev × the first system is evaluated cold by the real command line on SQLite
and with `--db-url` on PostgreSQL. The floor on PostgreSQL is a plain psycopg loop running every distinct
(database, query) of that evaluation once, on one connection per database, plus sqlglot parsing each
distinct text once (as tests/bench/floor.py does for SQLite): no evaluation on that server can be faster.
`--runs N` repeats the evaluations (default 1), `--systems K` evaluates the first K systems (default 1).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

from sqltriage.tui.inputs import load_inputs
from tests.bench.eval_bench import eval_cmd
from tests.bench.floor import distinct_queries, parse_seconds
from tests.bench.harness import SPIDER_DEV, Figure, load_average, run_process, spider_predictions, table
from tests.servers import mariadb_missing, postgres_missing, start_mariadb, start_postgres

FLOOR_TARGET = 2.0  # sqltriage on PostgreSQL: at most twice the floor
PER_PAIR_TARGET = 0.5  # sqltriage on PostgreSQL: at most half a per-pair evaluator's time
TIMEOUT_MS = 5000


def _copy(url: str) -> float:
    from sqltriage.tui.cli import main

    started = time.perf_counter()
    with contextlib.redirect_stdout(sys.stderr):
        assert (
            main(["db", "copy", str(SPIDER_DEV / "database"), "--to", url, "--json", "--numbers-from-text"])
            == 0
        )
    return time.perf_counter() - started


def _floor(server_url: str, preds: list[Path]) -> tuple[float, int]:
    """Seconds of the plain psycopg loop over every distinct (database, query), and how many."""
    import psycopg

    from sqltriage.core.engines.refs import parse_url

    url = parse_url(server_url)
    runs, texts = distinct_queries(SPIDER_DEV, preds)
    by_db: dict[str, list[str]] = {}
    for db, sql in runs:
        by_db.setdefault(db.stem, []).append(sql)
    parse_seconds(set(list(texts)[:50]))  # warm sqlglot outside the clock
    started = time.perf_counter()
    for db_id, sqls in by_db.items():
        with psycopg.connect(host=url.host, port=url.port, user=url.user, dbname=url.database(db_id)) as conn:
            conn.execute(f"SET statement_timeout = {TIMEOUT_MS}")
            for sql in sqls:
                with contextlib.suppress(psycopg.Error):
                    conn.execute(sql).fetchall()
                conn.rollback()
    return time.perf_counter() - started + parse_seconds(texts), len(runs)


def _per_pair(server_url: str, preds: list[Path]) -> tuple[float, int]:
    """Seconds of an evaluator that works as BIRD Mini-Dev's `evaluation_ex.py` is documented to (one
    process): for every (prediction, gold) row, a new connection, the prediction then the gold run and
    fetched, the connection closed, the two compared as sets, the whole under a timer thread of its own.
    Written here from that description, for scale; the evaluator's own code is not used."""
    import threading

    import psycopg

    from sqltriage.core.engines.refs import parse_url

    url = parse_url(server_url)
    inputs = load_inputs(argparse.Namespace(dataset=str(SPIDER_DEV), pred=[f"{f.stem}={f}" for f in preds]))
    pairs = [
        (e.db_id, p.predictions[e.index].sql, e.gold_sql)
        for e in inputs.dataset.examples
        for p in inputs.predictions
    ]

    def one(db_id: str, pred: str, gold: str, out: list[int]) -> None:
        try:
            conn = psycopg.connect(host=url.host, port=url.port, user=url.user, dbname=url.database(db_id))
            try:
                predicted = conn.execute(pred).fetchall()
                conn.rollback()
                truth = conn.execute(gold).fetchall()
            finally:
                conn.close()
            out.append(int(set(predicted) == set(truth)))
        except psycopg.Error:
            out.append(0)

    started = time.perf_counter()
    for db_id, pred, gold in pairs:
        found: list[int] = []
        worker = threading.Thread(target=one, args=(db_id, pred, gold, found), daemon=True)
        worker.start()
        worker.join(TIMEOUT_MS / 1000)
    return time.perf_counter() - started, len(pairs)


def run(runs: int, systems: int, tmp: Path) -> list[Figure]:
    why = postgres_missing() or mariadb_missing()
    if why is not None:
        raise SystemExit(f"cannot run the engines benchmark: {why}")
    preds = spider_predictions()[:systems]
    copy_pg = Figure("E1", "db copy Spider dev (19 databases) → PostgreSQL", "s")
    copy_maria = Figure("E2", "db copy Spider dev (19 databases) → MariaDB", "s")
    lite = Figure("E3", f"cold eval Spider dev × {systems} on SQLite, evaluate()", "s")
    pg = Figure("E4", f"cold eval Spider dev × {systems} on PostgreSQL (--db-url), evaluate()", "s")
    pg_wall = Figure("E4", "  wall of the command", "s")
    floor = Figure("E5", "floor on PostgreSQL: psycopg loop + sqlglot parse", "s")
    ratio = Figure("E6", "sqltriage on PostgreSQL / the floor", "x", target=FLOOR_TARGET,
                   target_text=f"<= {FLOOR_TARGET:g}x")  # fmt: skip
    versus = Figure("E7", "PostgreSQL / SQLite, evaluate()", "x")
    per_pair = Figure("E8", "a per-pair evaluator on PostgreSQL (Mini-Dev's way, one process)", "s")
    per_pair_ratio = Figure("E9", "sqltriage on PostgreSQL / the per-pair evaluator", "x",
                            target=PER_PAIR_TARGET, target_text=f"<= {PER_PAIR_TARGET:g}x")  # fmt: skip
    pg_gen, maria_gen = start_postgres(), start_mariadb()
    pg_server, maria_server = next(pg_gen), next(maria_gen)
    try:
        url = pg_server.url("spider_{db_id}")
        copy_pg.samples.append(_copy(url))
        copy_maria.samples.append(_copy(maria_server.url("spider_{db_id}")))
        floor_s, queries = _floor(url, preds)
        floor.samples.append(floor_s)
        floor.note = f"{queries} distinct (database, query) pairs"
        per_pair_s, rows = _per_pair(url, preds)
        per_pair.samples.append(per_pair_s)
        per_pair.note = f"{rows} rows, a connection each, EX only"
        for i in range(runs):  # alternated, so a change in the machine's load hits both sides alike
            for figure, extra, wall in ((lite, [], None), (pg, ["--db-url", url], pg_wall)):
                workspace = tmp / f"{figure.number}-{i}.db"
                done = run_process([*eval_cmd(workspace, preds), *extra])
                figure.samples.append(float(json.loads(done.stdout)["run"]["elapsed"]))
                if wall is not None:
                    wall.samples.append(done.wall)
                workspace.unlink()
        ratio.samples = [p / floor_s for p in pg.samples]
        versus.samples = [p / s for p, s in zip(pg.samples, lite.samples, strict=True)]
        per_pair_ratio.samples = [p / per_pair_s for p in pg.samples]
    finally:
        for gen in (pg_gen, maria_gen):
            gen.close()
    return [copy_pg, copy_maria, lite, pg, pg_wall, floor, ratio, versus, per_pair, per_pair_ratio]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench engines", description=__doc__)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--systems", type=int, default=1)
    args = parser.parse_args(argv)
    print(
        f"# engines benchmark — {platform.node()}, load {load_average()}, {time.strftime('%Y-%m-%d %H:%M')}"
    )
    with tempfile.TemporaryDirectory(prefix="sqltriage-engines-bench-") as tmp:
        figures = run(args.runs, args.systems, Path(tmp))
    print(table(figures))
    return 0 if all(f.verdict() != "MISSED" for f in figures) else 1


if __name__ == "__main__":
    sys.exit(main())
