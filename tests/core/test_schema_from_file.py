"""Schemas and sizes read from a database file when no tables.json is given (sqlite-utils, read-only)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from sqltriage.core.datasets.schema import schema_from_sqlite, table_sizes
from sqltriage.samples import SAMPLE_DIR
from sqltriage.tui.cli import main


def _shop(path: Path) -> Path:
    with sqlite3.connect(path) as db:
        db.executescript(
            """
            CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT, joined DATE);
            CREATE TABLE orders (no INTEGER, customer_id INTEGER REFERENCES customer, total REAL,
                                 PRIMARY KEY (no));
            CREATE TABLE line (order_no INTEGER, pos INTEGER, sku TEXT, PRIMARY KEY (order_no, pos),
                               FOREIGN KEY (order_no) REFERENCES orders (no));
            INSERT INTO customer VALUES (1, 'Ada', '2024-01-02'), (2, 'Bo', '2024-03-04');
            INSERT INTO orders VALUES (10, 1, 9.5), (11, 1, 3.0), (12, 2, 7.25);
            """
        )
    return path


def test_schema_keys_and_sizes(tmp_path: Path) -> None:
    db = _shop(tmp_path / "shop.sqlite")
    before = db.read_bytes()
    schema = schema_from_sqlite(db)
    assert [t.name for t in schema.tables] == ["customer", "orders", "line"]  # creation order
    assert [(c.name, c.type) for c in schema.tables[0].columns] == [
        ("id", "number"),
        ("name", "text"),
        ("joined", "time"),
    ]
    assert set(schema.primary_keys) == {
        ("customer", "id"),
        ("orders", "no"),
        ("line", "order_no"),
        ("line", "pos"),
    }
    # `REFERENCES customer` names no column: it means customer's primary key, as SQLite reads it
    assert set(schema.foreign_keys) == {
        (("orders", "customer_id"), ("customer", "id")),
        (("line", "order_no"), ("orders", "no")),
    }
    assert table_sizes(db) == {"customer": 2, "orders": 3, "line": 0}
    assert db.read_bytes() == before  # read-only


def test_check_reports_database_sizes(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["check", str(SAMPLE_DIR), "--json"]) == 0
    sizes = json.loads(capsys.readouterr().out)["dataset"]["database_sizes"]
    for db_id, size in sizes.items():
        with sqlite3.connect(SAMPLE_DIR / "database" / db_id / f"{db_id}.sqlite") as conn:
            names = [n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            rows = sum(conn.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names)
        assert size == {"tables": len(names), "rows": rows}
    assert list(sizes) == ["library", "airline"]  # largest first
