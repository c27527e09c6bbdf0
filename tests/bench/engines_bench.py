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

from tests.bench.eval_bench import eval_cmd
from tests.bench.floor import distinct_queries, parse_seconds
from tests.bench.harness import SPIDER_DEV, Figure, load_average, run_process, spider_predictions, table
from tests.servers import mariadb_missing, postgres_missing, start_mariadb, start_postgres

FLOOR_TARGET = 2.0  # sqltriage on PostgreSQL: at most twice the floor
TIMEOUT_MS = 5000


def _copy(url: str) -> float:
    from sqltriage.tui.cli import main

    started = time.perf_counter()
    with contextlib.redirect_stdout(sys.stderr):
        assert main(["db", "copy", str(SPIDER_DEV / "database"), "--to", url, "--json"]) == 0
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
    pg_gen, maria_gen = start_postgres(), start_mariadb()
    pg_server, maria_server = next(pg_gen), next(maria_gen)
    try:
        url = pg_server.url("spider_{db_id}")
        copy_pg.samples.append(_copy(url))
        copy_maria.samples.append(_copy(maria_server.url("spider_{db_id}")))
        floor_s, queries = _floor(url, preds)
        floor.samples.append(floor_s)
        floor.note = f"{queries} distinct (database, query) pairs"
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
    finally:
        for gen in (pg_gen, maria_gen):
            gen.close()
    return [copy_pg, copy_maria, lite, pg, pg_wall, floor, ratio, versus]


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
