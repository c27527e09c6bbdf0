"""Build the bundled sample's SQLite databases and tables.json from the readable files in schema/.

The `.sql` files are the source of truth; the databases are rebuilt from them (with sqlite-utils) so
that anyone can read, review and change the sample as text. The one large table (library `loans`, a few thousand rows) is
generated here with a fixed seed, so every run produces the same rows and the same tables.json.

Usage, from the repository root:  python samples/build_sample.py [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import sys
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import sqlite_utils

SAMPLE_DIR = Path(__file__).resolve().parent / "sample"
SCHEMA_DIR = SAMPLE_DIR / "schema"

SEED = 20240701
LOAN_COUNT = 3000
LOAN_DAYS = 21
FINE_PER_DAY = 0.25
FIRST_LOAN = date(2022, 1, 1)
SNAPSHOT = date(2024, 7, 1)  # the day the data was taken: later returns are not known yet
NEW_MEMBER_SINCE = date(2024, 5, 1)  # members who joined after this have not borrowed yet
NEVER_LENT = {37, 38}  # books bought in 2024 that nobody has borrowed yet

Row = tuple[Any, ...]


def generate_loans(conn: sqlite3.Connection, rng: random.Random) -> list[Row]:
    """Loans with skewed popularity (a few books and members account for many loans), as in real libraries."""
    books = [b for (b,) in conn.execute("SELECT book_id FROM books ORDER BY book_id") if b not in NEVER_LENT]
    members = [
        (m, date.fromisoformat(j))
        for m, j in conn.execute("SELECT member_id, joined_date FROM members ORDER BY member_id")
        if date.fromisoformat(j) < NEW_MEMBER_SINCE
    ]
    book_weights = [1.0 / (1 + (i % 12)) + rng.random() for i in range(len(books))]
    member_weights = [0.3 + rng.random() * 2 for _ in members]
    span = (SNAPSHOT - FIRST_LOAN).days
    loan_dates = sorted(FIRST_LOAN + timedelta(days=int(rng.random() * span)) for _ in range(LOAN_COUNT))
    rows: list[Row] = []
    for loan_id, loan_date in enumerate(loan_dates, start=1):
        eligible = [
            (m, w) for (m, joined), w in zip(members, member_weights, strict=True) if joined <= loan_date
        ]
        member_id = rng.choices([m for m, _ in eligible], weights=[w for _, w in eligible])[0]
        book_id = rng.choices(books, weights=book_weights)[0]
        due = loan_date + timedelta(days=LOAN_DAYS)
        kept = 2 + int(rng.random() * 19) if rng.random() < 0.8 else 21 + int(rng.random() * 25)
        returned = loan_date + timedelta(days=kept)
        if returned >= SNAPSHOT or rng.random() < 0.01:  # not back yet, or lost
            rows.append((loan_id, book_id, member_id, loan_date.isoformat(), due.isoformat(), None, None))
            continue
        fine = round(max(0, (returned - due).days) * FINE_PER_DAY, 2)
        rows.append(
            (loan_id, book_id, member_id, loan_date.isoformat(), due.isoformat(), returned.isoformat(), fine)
        )
    return rows


# Generated tables per database: (table, generator). Each generator sees the rows the .sql file inserted.
GENERATED: dict[str, list[tuple[str, Callable[[sqlite3.Connection, random.Random], list[Row]]]]] = {
    "library": [("loans", generate_loans)],
}


def build_database(sql_path: Path, db_path: Path) -> None:
    """Create db_path afresh from the DDL and INSERTs in sql_path plus the generated tables."""
    db_id = sql_path.stem
    db_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = db_path.with_suffix(".sqlite.tmp")
    tmp.unlink(missing_ok=True)
    db = sqlite_utils.Database(tmp, execute_plugins=False)
    conn = db.conn
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        conn.executescript(sql_path.read_text(encoding="utf-8"))
        rng = random.Random(f"{SEED}:{db_id}")
        for name, generate in GENERATED.get(db_id, []):
            table = db.table(name)
            names = [c.name for c in table.columns]
            table.insert_all(
                (dict(zip(names, row, strict=True)) for row in generate(conn, rng)), batch_size=1000
            )
        conn.commit()
        problems = conn.execute("PRAGMA foreign_key_check").fetchall()
        if problems:
            raise SystemExit(f"{sql_path}: foreign keys violated: {problems[:5]}")
        db.vacuum()
    finally:
        db.close()
    tmp.replace(db_path)


def _natural(name: str) -> str:
    """Spider's table_names / column_names: lower case, words separated by spaces."""
    return name.replace("_", " ").lower()


def _type(declared: str) -> str:
    d = declared.lower()
    if any(k in d for k in ("date", "time")):
        return "time"
    if any(k in d for k in ("int", "real", "num", "dec", "double", "float")):
        return "number"
    return "text"


def tables_entry(db_path: Path, db_id: str) -> dict[str, Any]:
    """One Spider tables.json record read from the database itself, so the two cannot disagree."""
    conn = sqlite3.connect(f"file:{db_path.resolve()}?mode=ro", uri=True)
    db = sqlite_utils.Database(conn, execute_plugins=False, recursive_triggers=False)
    try:
        tables = [
            n
            for (n,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
            )
        ]
        columns: list[tuple[int, str]] = [(-1, "*")]
        types: list[str] = ["text"]
        index: dict[tuple[str, str], int] = {}
        primary: list[int] = []
        for t_idx, table in enumerate(tables):
            for column in db.table(table).columns:
                index[(table, column.name)] = len(columns)
                if column.is_pk:
                    primary.append(len(columns))
                columns.append((t_idx, column.name))
                types.append(_type(column.type or ""))
        foreign: list[list[int]] = []
        for table in tables:
            for fk in db.table(table).foreign_keys:
                foreign.append([index[(table, fk.column)], index[(fk.other_table, fk.other_column)]])
    finally:
        conn.close()
    return {
        "column_names": [[t, _natural(c) if t >= 0 else c] for t, c in columns],
        "column_names_original": [[t, c] for t, c in columns],
        "column_types": types,
        "db_id": db_id,
        "foreign_keys": sorted(foreign),
        "primary_keys": primary,
        "table_names": [_natural(t) for t in tables],
        "table_names_original": tables,
    }


def _dump_tables(entries: list[dict[str, Any]]) -> str:
    """tables.json with one key per line, each value on a single line: readable and diff-friendly."""
    blocks = []
    for entry in entries:
        fields = [f"    {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in entry.items()]
        blocks.append("  {\n" + ",\n".join(fields) + "\n  }")
    return "[\n" + ",\n".join(blocks) + "\n]\n"


def build(out_dir: Path, schema_dir: Path = SCHEMA_DIR) -> list[str]:
    """Build every database of schema_dir under out_dir/database and write out_dir/tables.json."""
    entries = []
    db_ids = []
    for sql_path in sorted(schema_dir.glob("*.sql")):
        db_id = sql_path.stem
        db_path = out_dir / "database" / db_id / f"{db_id}.sqlite"
        build_database(sql_path, db_path)
        entries.append(tables_entry(db_path, db_id))
        db_ids.append(db_id)
    text = _dump_tables(entries)
    (out_dir / "tables.json").write_text(text, encoding="utf-8")
    return db_ids


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=SAMPLE_DIR, help="folder to write into (default: %(default)s)"
    )
    args = parser.parse_args(argv)
    db_ids = build(args.out)
    print(f"built {', '.join(db_ids)} and tables.json in {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
