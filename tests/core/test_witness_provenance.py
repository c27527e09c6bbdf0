"""Where a witness's shrinking starts: the rows each SELECT of a query reads past its joins and filters."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqltriage.core.verdicts.execution import execute
from sqltriage.core.verdicts.testsuite.provenance import read_rows, rowid_queries

SCHEMA = """
CREATE TABLE shop (id INTEGER PRIMARY KEY, name TEXT, city TEXT);
CREATE TABLE sale (id INTEGER PRIMARY KEY, shop_id INTEGER REFERENCES shop(id), amount INTEGER);
INSERT INTO shop VALUES (1, 'Alpha', 'Oslo'), (2, 'Beta', 'Rome'), (3, 'Gamma', 'Oslo');
INSERT INTO sale VALUES (10, 1, 3), (11, 1, 8), (12, 2, 9), (13, 3, 1);
"""


def test_each_select_is_rewritten_to_the_rowids_of_its_tables() -> None:
    gold = (
        "SELECT T1.name, count(*) FROM shop AS T1 JOIN sale AS T2 ON T1.id = T2.shop_id "
        "WHERE T2.amount > 5 GROUP BY T1.id ORDER BY count(*) DESC LIMIT 1"
    )
    (query, tables), *rest = rowid_queries(gold)
    assert rest == [] and tables == ("shop", "sale")
    assert query.startswith("SELECT T1.rowid, T2.rowid FROM shop AS T1 JOIN sale AS T2")
    assert "WHERE T2.amount > 5" in query and not any(w in query for w in ("GROUP", "ORDER", "LIMIT"))
    nested = rowid_queries("SELECT name FROM shop WHERE id IN (SELECT shop_id FROM sale WHERE amount > 5)")
    assert [t for _, t in nested] == [("shop",), ("sale",)]
    # a FROM that is a subquery has no rows of its own; broken SQL gives nothing to run
    assert [t for _, t in rowid_queries("SELECT a FROM (SELECT name AS a FROM shop)")] == [("shop",)]
    assert rowid_queries("SELEC nothing FROM") == ()


def test_the_rows_read_are_those_past_the_filters(tmp_path: Path) -> None:
    db = tmp_path / "shops.sqlite"
    conn = sqlite3.connect(db)
    conn.executescript(SCHEMA)
    conn.close()

    def run(sql: str):
        return execute(db, sql)

    read = read_rows(
        [
            "SELECT count(*) FROM sale WHERE amount > 5",
            "SELECT name FROM shop WHERE city = 'Oslo' AND id IN (SELECT shop_id FROM sale WHERE amount = 1)",
        ],
        run,
    )
    assert read == {"sale": {11, 12, 13}, "shop": {3}}
    # a SELECT that does not run (a correlated subquery alone, an unknown table) reads nothing
    assert read_rows(["SELECT * FROM nowhere"], run) == {}
