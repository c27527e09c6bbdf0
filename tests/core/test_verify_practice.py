"""`--verify` keeps what the neighbours keep: names unique in practice, join links whose values all occur
in their partner, categorical domains with every gold's literals, and tables the original fills. A pair
equivalent only on such data is verified; the same pair on a database that does not keep the rule (or
with golds that widen it) is refuted by a database plain sqlite3 confirms; and no neighbour built from the
same golds separates a pair the solver verified."""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("z3")

from sqltriage.core.verdicts.testsuite import ensure_neighbours
from sqltriage.core.verdicts.verify import check_pair

SCHEMA = """
CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT);
CREATE TABLE pet (id INTEGER PRIMARY KEY, owner INTEGER NOT NULL REFERENCES person(id), kind TEXT NOT NULL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, amount INTEGER);
"""
ROWS = 40  # over the 30 rows the mined rules ask for (testsuite/mine.py)

# Equivalent when no two people share a name: the gold picks people, the prediction names.
BY_NAME = (
    "SELECT name FROM person WHERE id IN (SELECT owner FROM pet WHERE kind = 'dog')",
    "SELECT name FROM person WHERE name IN "
    "(SELECT p.name FROM person AS p JOIN pet ON pet.owner = p.id WHERE pet.kind = 'dog')",
)
# Equivalent when every order's customer exists (the golds join them, and the data keeps it).
JOINED = (
    "SELECT count(*) FROM orders",
    "SELECT count(*) FROM orders AS o JOIN person AS c ON o.customer_id = c.id",
)
JOINING_GOLD = "SELECT c.name, o.amount FROM orders AS o JOIN person AS c ON o.customer_id = c.id"
# Equivalent while a pet is a dog or a cat, which is all the data holds.
KINDS = ("SELECT count(*) FROM pet WHERE kind != 'dog'", "SELECT count(*) FROM pet WHERE kind = 'cat'")


def _build(path: Path, *, shared_name: bool = False, empty_pets: bool = False) -> Path:
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA)
    names = [f"person {i}" for i in range(ROWS)]
    if shared_name:
        names[1] = names[0]
    conn.executemany(
        "INSERT INTO person VALUES (?, ?, ?)", [(i, n, f"city {i % 25}") for i, n in enumerate(names)]
    )
    if not empty_pets:
        conn.executemany(
            "INSERT INTO pet VALUES (?, ?, ?)",
            [(i, i % ROWS, "dog" if i % 3 else "cat") for i in range(ROWS)],
        )
    conn.executemany(
        "INSERT INTO orders VALUES (?, ?, ?)", [(i, (7 * i) % ROWS, 10 + i) for i in range(ROWS)]
    )
    conn.commit()
    conn.close()
    return path


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build(tmp_path_factory.mktemp("practice") / "people.sqlite")


def _check(db: Path, pair: tuple[str, str], golds: tuple[str, ...], root: Path) -> object:
    return check_pair(*pair, db, golds=golds, witness_root=root, timeout=20)


def _separates(path: Path, gold: str, pred: str) -> bool:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return Counter(conn.execute(gold).fetchall()) != Counter(conn.execute(pred).fetchall())
    finally:
        conn.close()


def _rows(path: Path, sql: str) -> list:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_names_unique_in_practice_are_kept_unique(db: Path, tmp_path: Path) -> None:
    v = _check(db, BY_NAME, (BY_NAME[0],), tmp_path)
    assert (v.status, v.note) == ("verified", None)


def test_a_shared_name_in_the_data_lets_the_solver_refute_the_same_pair(tmp_path: Path) -> None:
    shared = _build(tmp_path / "shared.sqlite", shared_name=True)
    v = _check(shared, BY_NAME, (BY_NAME[0],), tmp_path / "w")
    assert v.status == "refuted", v.note
    assert _separates(v.witness, *BY_NAME)
    names = [n for (n,) in _rows(v.witness, "SELECT name FROM person")]
    assert len(names) != len(set(names))  # what separates them: two people of one name


def test_a_link_the_golds_join_on_and_the_data_keeps_is_kept_like_a_foreign_key(
    db: Path, tmp_path: Path
) -> None:
    v = _check(db, JOINED, (JOINED[0], JOINING_GOLD), tmp_path)
    assert (v.status, v.note) == ("verified", None)
    # No gold joins them: the neighbours would draw customers freely, and so may the solver.
    v = _check(db, JOINED, (JOINED[0],), tmp_path / "w")
    assert v.status == "refuted", v.note
    assert _separates(v.witness, *JOINED)
    dangling = (
        "SELECT count(*) FROM orders WHERE customer_id IS NULL OR customer_id NOT IN (SELECT id FROM person)"
    )
    assert _rows(v.witness, dangling) != [(0,)]


def test_a_categorical_domain_takes_the_literals_of_every_gold_of_the_database(
    db: Path, tmp_path: Path
) -> None:
    v = _check(db, KINDS, (KINDS[0],), tmp_path)
    assert (v.status, v.note) == ("verified", None)
    # Another gold asks for birds: the neighbours may hold birds, so the solver may too.
    v = _check(db, KINDS, (KINDS[0], "SELECT count(*) FROM pet WHERE kind = 'bird'"), tmp_path / "w")
    assert v.status == "refuted", v.note
    assert _separates(v.witness, *KINDS)
    assert ("bird",) in _rows(v.witness, "SELECT DISTINCT kind FROM pet")


def test_a_table_the_original_fills_is_never_empty(db: Path, tmp_path: Path) -> None:
    pair = ("SELECT max(id) FROM pet", "SELECT id FROM pet ORDER BY id DESC LIMIT 1")
    assert _check(db, pair, (pair[0],), tmp_path).status == "verified"
    empty = _build(tmp_path / "empty.sqlite", empty_pets=True)
    v = _check(empty, pair, (pair[0],), tmp_path / "w")
    assert v.status == "refuted", v.note
    assert _rows(v.witness, "SELECT count(*) FROM pet") == [(0,)]


def test_no_neighbour_built_from_the_same_golds_separates_a_verified_pair(db: Path, tmp_path: Path) -> None:
    golds = (BY_NAME[0], JOINED[0], JOINING_GOLD, KINDS[0])
    pairs = [BY_NAME, JOINED, KINDS]
    assert [_check(db, p, golds, tmp_path).status for p in pairs] == ["verified"] * 3
    neighbours = ensure_neighbours(db, list(golds), 10, cache_root=tmp_path / "nb")
    assert len(neighbours) == 10
    for path in neighbours:
        for gold, pred in pairs:
            assert not _separates(path, gold, pred), (path.name, pred)
