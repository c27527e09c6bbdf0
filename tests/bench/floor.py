"""The floor for a cold evaluation: SQLite alone and sqlglot alone, each distinct query once, one core.

No evaluation can be faster than running every distinct gold and predicted query once and parsing each
distinct text once; what the pipeline adds on top (guards, EX comparison, EM, partial match, categories,
workspace writes, process start-up) is the overhead the benchmark keeps in view.
"""

from __future__ import annotations

import argparse
import contextlib
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import sqlglot

from sqltriage.tui.inputs import load_inputs

TIMEOUT = 5.0  # seconds per query, as the evaluation's default


@dataclass(frozen=True)
class Floor:
    queries: int  # distinct (database, SQL) pairs executed
    texts: int  # distinct SQL texts parsed
    sqlite_s: float
    parse_s: float


def distinct_queries(dataset_dir: Path, pred_files: list[Path]) -> tuple[set[tuple[Path, str]], set[str]]:
    """(database, SQL) pairs to execute (examples with a database) and SQL texts to parse (all)."""
    inputs = load_inputs(
        argparse.Namespace(dataset=str(dataset_dir), pred=[f"{f.stem}={f}" for f in pred_files])
    )
    runs: set[tuple[Path, str]] = set()
    texts: set[str] = set()
    for e in inputs.dataset.examples:
        sqls = [e.gold_sql, *(p.predictions[e.index].sql for p in inputs.predictions)]
        texts.update(sqls)
        db = inputs.dataset.db_path(e.db_id)
        if db is not None:
            runs.update((db, s) for s in sqls if s.strip())
    return runs, texts


def _run(conn: sqlite3.Connection, sql: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    conn.set_progress_handler(lambda: int(time.monotonic() > deadline), 2_000)
    # a failing query costs what it costs; the floor counts it like the evaluation does
    with contextlib.suppress(sqlite3.Error, ValueError, OverflowError):
        conn.execute(sql).fetchall()


def sqlite_seconds(runs: set[tuple[Path, str]]) -> float:
    """Every query once, one read-only connection per database (opened outside the clock)."""
    conns: dict[Path, sqlite3.Connection] = {}
    for db in {d for d, _ in runs}:
        conn = sqlite3.connect(f"file:{quote(str(db.resolve()))}?mode=ro", uri=True)
        conn.text_factory = lambda b: b.decode("utf-8", errors="replace")
        conns[db] = conn
    try:
        started = time.perf_counter()
        for db, sql in sorted(runs, key=lambda r: (str(r[0]), r[1])):
            _run(conns[db], sql)
        return time.perf_counter() - started
    finally:
        for conn in conns.values():
            conn.close()


def parse_seconds(texts: set[str]) -> float:
    """Every text parsed once by sqlglot (SQLite dialect), failures included."""
    started = time.perf_counter()
    for sql in texts:
        with contextlib.suppress(Exception):
            sqlglot.parse(sql, read="sqlite")
    return time.perf_counter() - started


def measure(dataset_dir: Path, pred_files: list[Path]) -> Floor:
    runs, texts = distinct_queries(dataset_dir, pred_files)
    parse_seconds(set(list(texts)[:50]))  # import and warm sqlglot outside the clock
    return Floor(len(runs), len(texts), sqlite_seconds(runs), parse_seconds(texts))
