"""A solver's counterexample as a SQLite file, trusted only once plain sqlite3 shows it separates the queries.

The file gets the original's tables (its own DDL, so types, keys and affinities are SQLite's), the model's
rows in the tables the queries read, nothing elsewhere. Both queries then run on it through the read-only
sandbox (execution.py) and are compared by the EX comparison itself (exec_compare.compare). A file that
does not separate them, or that SQLite will not load, makes the pair `unknown`, never `refuted`. A kept
file is stored as a neighbour witness is: read-only, content-addressed, under `<cache>/witnesses/`.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqltriage.core.verdicts.testsuite.constraints import quoted

DIGEST_CHARS = 20


@dataclass(frozen=True, slots=True)
class Confirmed:
    path: Path | None  # the stored counterexample, None when it does not hold up
    rows: int = 0
    note: str | None = None
    # the tables the solver filled (lower case); any other holds no row, or parents for the filled ones' keys
    tables: frozenset[str] = frozenset()


def default_root() -> Path:
    from sqltriage.core.verdicts.testsuite.cache import default_cache_root

    return default_cache_root() / "witnesses"


def confirm(
    tables: dict[str, list[dict[str, Any]]],
    gold_sql: str,
    pred_sql: str,
    db_path: Path,
    mode: str,
    root: Path | None,
    exec_timeout: float,
    keys: tuple = ((), None),
) -> Confirmed:
    from sqltriage.core.verdicts.exec_compare import compare, order_matters, spider_sql
    from sqltriage.core.verdicts.execution import execute

    root = Path(root) if root is not None else default_root()
    root.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=".verify-", suffix=".sqlite", dir=root)
    os.close(fd)
    work = Path(name)
    try:
        try:
            rows = _write(work, tables, db_path, keys)
        except sqlite3.Error as exc:
            return Confirmed(None, note=f"the solver's database does not load in SQLite: {exc}")
        texts = (spider_sql(gold_sql), spider_sql(pred_sql)) if mode == "spider" else (gold_sql, pred_sql)
        g = execute(work, texts[0], timeout=exec_timeout)
        p = execute(work, texts[1], timeout=exec_timeout)
        if not g.ok:
            return Confirmed(None, note=f"the gold fails on the solver's database: {g.error}")
        if compare(g, p, mode, order_matters=order_matters(gold_sql)) != 0:
            return Confirmed(None, note="SQLite does not confirm the solver's counterexample")
        final = root / f"{hashlib.sha256(work.read_bytes()).hexdigest()[:DIGEST_CHARS]}.sqlite"
        if not final.is_file():
            work.chmod(0o444)  # evidence: nothing should change it
            os.replace(work, final)
        return Confirmed(final, rows, tables=frozenset(t.lower() for t in tables))
    finally:
        work.unlink(missing_ok=True)


def separates(witness: Path, gold_sql: str, pred_sql: str, mode: str, exec_timeout: float = 10.0) -> bool:
    """Whether a stored counterexample still separates the two, re-run in SQLite as `confirm` runs it (for a
    verdict reused from a prediction that is the same query written differently)."""
    from sqltriage.core.verdicts.exec_compare import compare, order_matters, spider_sql
    from sqltriage.core.verdicts.execution import execute

    texts = (spider_sql(gold_sql), spider_sql(pred_sql)) if mode == "spider" else (gold_sql, pred_sql)
    g = execute(witness, texts[0], timeout=exec_timeout)
    p = execute(witness, texts[1], timeout=exec_timeout)
    return g.ok and compare(g, p, mode, order_matters=order_matters(gold_sql)) == 0


def _write(path: Path, tables: dict[str, list[dict[str, Any]]], db_path: Path, keys: tuple) -> int:
    """`keys`: the tables.json foreign keys and the Practice the solver kept (their parents are added)."""
    from sqltriage.core.verdicts.verify.practice import NONE
    from sqltriage.core.verdicts.verify.tables import db_info

    extra_fks, practice = keys
    info = db_info(db_path, extra_fks, practice or NONE)
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA journal_mode = OFF")
        for t, _cols in info.values():
            conn.execute(t.ddl)
        rows = 0
        for name, records in tables.items():
            for r in records:
                cols = ", ".join(quoted(c) for c in r)
                marks = ", ".join("?" for _ in r)
                conn.execute(f"INSERT INTO {quoted(name)} ({cols}) VALUES ({marks})", tuple(r.values()))
                rows += 1
        rows += _add_parents(conn, info, set(tables))
        conn.commit()
        conn.execute("VACUUM")
    finally:
        conn.close()
    return rows


def _add_parents(conn: sqlite3.Connection, info: dict, encoded: set[str]) -> int:
    """Rows in the tables the queries do not read, so that every foreign key of the written rows has its
    parent: such a table is invisible to both queries, so its rows change neither result."""
    added = 0
    done: set[str] = set()
    for _ in range(len(info)):  # a parent's own foreign keys may need rows further up
        missing = []
        for t, _cols in info.values():
            for col, parent, parent_col in t.foreign_keys:
                if parent in encoded or parent.lower() not in info:
                    continue
                sql = (
                    f"SELECT DISTINCT c.{quoted(col)} FROM {quoted(t.name)} AS c WHERE c.{quoted(col)} IS NOT NULL "
                    f"AND NOT EXISTS (SELECT 1 FROM {quoted(parent)} AS p WHERE p.{quoted(parent_col)} = c.{quoted(col)})"
                )
                missing += [(parent, parent_col, v) for (v,) in conn.execute(sql).fetchall()]
        if not missing:
            break
        for parent, parent_col, value in missing:
            ptable = info[parent.lower()][0]
            row = {parent_col: value}
            for c in ptable.columns:
                if c.name != parent_col and (c.not_null or c.pk):
                    row[c.name] = _filler(c.declared, added)
            names = ", ".join(quoted(c) for c in row)
            marks = ", ".join("?" for _ in row)
            try:
                conn.execute(
                    f"INSERT OR IGNORE INTO {quoted(ptable.name)} ({names}) VALUES ({marks})",
                    tuple(row.values()),
                )
            except (
                sqlite3.Error
            ):  # the parent cannot hold that value (a text key into an INTEGER PRIMARY KEY)
                continue
            added += 1
        break_out = all(p.lower() in done for p, _, _ in missing)
        done.update(p.lower() for p, _, _ in missing)
        if break_out:
            break
    return added


def _filler(declared: str, n: int) -> object:
    d = declared.upper()
    return 10_000 + n if any(k in d for k in ("INT", "REAL", "FLOA", "DOUB", "DEC", "NUM")) else f"filler {n}"
