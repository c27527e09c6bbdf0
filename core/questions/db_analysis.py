"""Database axes of the dataset-analysis paper: schema complexity, schema quality, database size.

Works from the schema alone (tables.json) when the database file is missing; only the row count
needs the file.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from sqltriage.core.model import Schema
from sqltriage.core.questions.nl import name_parts

# A name part is an English word when wordfreq's English Zipf frequency is at least this (once per
# million words). Single letters other than "a"/"i" are not words even though wordfreq lists them.
ENGLISH_ZIPF = 3.0


@dataclass(frozen=True, slots=True)
class DatabaseStats:
    db_id: str
    n_tables: int
    n_columns: int
    n_rows: int | None  # total rows over all tables; None when the file is missing or unreadable
    english_share: float  # share of table and column names made only of English words


@cache
def is_english_word(part: str) -> bool:
    """Whether one lower-cased name part is an English word (numbers neither count nor disqualify)."""
    from wordfreq import zipf_frequency

    if len(part) == 1 and part not in {"a", "i"}:
        return False
    return zipf_frequency(part, "en") >= ENGLISH_ZIPF


def is_english_name(name: str) -> bool:
    """True when every alphabetic part of the name (split as in question analysis) is an English word."""
    words = [p for p in name_parts(name) if not p.isdigit()]
    return bool(words) and all(is_english_word(p) for p in words)


def english_share(schema: Schema) -> float:
    """Share of schema elements (each table, each column of each table) whose names are English."""
    names = [t.name for t in schema.tables] + [c.name for t in schema.tables for c in t.columns]
    if not names:
        return 0.0
    return sum(1 for n in names if is_english_name(n)) / len(names)


def count_rows(db_path: Path, tables: tuple[str, ...]) -> int | None:
    """Total rows over the given tables, read-only; None when the file cannot be read."""
    if not db_path.is_file():
        return None
    try:
        conn = sqlite3.connect(f"file:{db_path.resolve()}?mode=ro", uri=True)
    except sqlite3.Error:
        return None
    try:
        existing = {
            r[0].lower(): r[0]
            for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
        }
        total = 0
        for name in tables:
            real = existing.get(name.lower())
            if real is None:
                continue
            quoted = '"' + real.replace('"', '""') + '"'
            total += conn.execute(f"SELECT count(*) FROM {quoted}").fetchone()[0]
        return total
    except sqlite3.Error:
        return None
    finally:
        conn.close()


def analyze_database(schema: Schema, db_path: Path | None) -> DatabaseStats:
    """Tables, columns, rows and schema quality of one database."""
    n_rows = count_rows(db_path, tuple(t.name for t in schema.tables)) if db_path is not None else None
    return DatabaseStats(
        db_id=schema.db_id,
        n_tables=len(schema.tables),
        n_columns=sum(len(t.columns) for t in schema.tables),
        n_rows=n_rows,
        english_share=english_share(schema),
    )
