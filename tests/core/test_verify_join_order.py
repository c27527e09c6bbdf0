"""Pairs that differ only in the order of their inner joins (join_order.py) and the reuse of a gold's
refutations (verify/columns.py): what is decided without the solver must agree with SQLite on real data."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

pytest.importorskip("z3")

from sqltriage.core.verdicts.exec_compare import compare
from sqltriage.core.verdicts.execution import execute
from sqltriage.core.verdicts.verify import check_pair
from sqltriage.core.verdicts.verify.check import TIES_NOTE
from sqltriage.core.verdicts.verify.columns import verify_columns
from sqltriage.core.verdicts.verify.join_order import same_up_to_join_order
from sqltriage.core.verdicts.verify.tables import db_info

SCHEMA = """
CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT, age INTEGER);
CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, venue TEXT, year INTEGER);
CREATE TABLE sings (concert_id INTEGER REFERENCES concert(concert_id),
                    singer_id INTEGER REFERENCES singer(singer_id));
"""

GOLD = (
    "SELECT T2.name, T3.venue FROM sings AS T1 JOIN singer AS T2 ON T1.singer_id = T2.singer_id "
    "JOIN concert AS T3 ON T1.concert_id = T3.concert_id WHERE T3.year > 2014"
)
REVERSED = (
    "select singer.name, concert.venue from concert join sings on concert.concert_id = sings.concert_id "
    "join singer on sings.singer_id = singer.singer_id where concert.year > 2014"
)
IN_WHERE = (
    "SELECT s.name, c.venue FROM singer s, sings x, concert c "
    "WHERE x.singer_id = s.singer_id AND c.year > 2014 AND c.concert_id = x.concert_id"
)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("join_order") / "concerts.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA)
    conn.executemany(
        "INSERT INTO singer VALUES (?, ?, ?, ?)",
        [(i, f"singer {i % 7}", ["France", "Peru", "Japan"][i % 3], 20 + i % 9) for i in range(40)],
    )
    conn.executemany(
        "INSERT INTO concert VALUES (?, ?, ?)", [(i, f"venue {i % 5}", 2010 + i % 8) for i in range(40)]
    )
    conn.executemany("INSERT INTO sings VALUES (?, ?)", [((3 * i) % 40, (7 * i) % 40) for i in range(60)])
    conn.commit()
    conn.close()
    return path


def _alike(db: Path, gold: str, pred: str, mode: str = "spider") -> bool:
    return same_up_to_join_order(gold, pred, mode, db_info(db))


def _same_on(db: Path, gold: str, pred: str) -> bool:
    return compare(execute(db, gold), execute(db, pred), "spider", order_matters=False) == 1


def _verdict(gold: str, pred: str, db: Path, cache: str, timeout: float) -> dict:
    """`verify_columns` on an EX pass no neighbour checked, at 3 rows per table."""
    row = {"ex_spider": 1, "ex_ts": None, "ts_witness": None}
    return verify_columns(gold, pred, db, row, bound=3, timeout=timeout, neighbour_cache=cache)


def test_joins_in_another_order_or_in_the_where_are_the_same_query(db: Path) -> None:
    assert _alike(db, GOLD, REVERSED) is True
    assert _alike(db, GOLD, IN_WHERE) is True
    assert _same_on(db, GOLD, REVERSED) and _same_on(db, GOLD, IN_WHERE)
    verdict = check_pair(GOLD, REVERSED, db)
    assert (verdict.status, verdict.note) == ("verified", None)


def test_a_gold_that_sorts_is_left_to_the_solver_unless_sets_are_compared(db: Path) -> None:
    """Joined in another order, the same rows may come out in another order: how ties fall is the solver's
    question (sorted_rows.py hands this module only the rows that reach the sort)."""
    gold, pred = GOLD + " ORDER BY T2.age", REVERSED + " ORDER BY singer.age"
    assert _alike(db, gold, pred) is False
    assert _alike(db, gold, pred, mode="bird") is True  # sets: the order is not compared


@pytest.mark.parametrize(
    ("pred", "why"),
    [
        (REVERSED.replace("join singer", "left join singer"), "a LEFT JOIN is not commutative"),
        (REVERSED.replace("concert.year > 2014", "concert.year >= 2014"), "another condition"),
        (
            "select * from concert join sings on concert.concert_id = sings.concert_id",
            "SELECT *: the columns follow the join order",
        ),
        (REVERSED + " limit 3", "a LIMIT through rows in another order"),
    ],
)
def test_what_is_not_the_same_query_is_left_to_the_solver(db: Path, pred: str, why: str) -> None:
    gold = (
        GOLD
        if "*" not in pred
        else "select * from sings join concert on concert.concert_id = sings.concert_id"
    )
    gold = gold + " limit 3" if "limit" in pred else gold
    assert _alike(db, gold, pred) is False, why


def test_a_bare_column_is_the_same_only_when_the_group_key_determines_it(db: Path) -> None:
    by_key = (
        "SELECT T2.name, count(*) FROM sings AS T1 JOIN singer AS T2 ON T1.singer_id = T2.singer_id "
        "GROUP BY T2.singer_id",
        "SELECT singer.name, count(*) FROM singer JOIN sings ON sings.singer_id = singer.singer_id "
        "GROUP BY singer.singer_id",
    )
    assert _alike(db, *by_key) is True
    by_country = (
        "SELECT T2.name, count(*) FROM sings AS T1 JOIN singer AS T2 ON T1.singer_id = T2.singer_id "
        "GROUP BY T2.country",
        "SELECT singer.name, count(*) FROM singer JOIN sings ON sings.singer_id = singer.singer_id "
        "GROUP BY singer.country",
    )
    # the name is read from some row of a country's group: which row may follow the join order
    assert _alike(db, *by_country) is False
    # an unqualified column found in two tables of the join cannot be placed
    assert (
        _alike(db, GOLD, REVERSED.replace("concert.venue", "venue").replace("singer.name", "concert_id"))
        is False
    )


def test_a_sort_of_the_same_rows_in_another_join_order_is_verified_up_to_ties(db: Path) -> None:
    """The rows reaching the two sorts are the same up to join order: told without the solver, so even a
    time limit no solver meets gives the verdict (the ordered question, out of time, leaves the ties note)."""
    gold = "SELECT T2.name FROM singer AS T2 JOIN sings AS T1 ON T1.singer_id = T2.singer_id ORDER BY T2.age"
    pred = (
        "select singer.name from sings join singer on singer.singer_id = sings.singer_id order by singer.age"
    )
    for timeout in (20.0, 1e-4):
        verdict = check_pair(gold, pred, db, timeout=timeout)
        assert (verdict.status, verdict.note) == ("verified", TIES_NOTE), timeout
    other = pred.replace("order by singer.age", "where singer.age > 30 order by singer.age")
    assert check_pair(gold, other, db, timeout=1e-4).status == "unknown"  # not the same rows: solving needed


def test_a_sort_whose_ties_hold_equal_rows_is_verified_without_the_note_once_per_gold(db: Path) -> None:
    """Sorted by the singer's key, two result rows that tie are the same row, so the same rows sorted alike
    come back in one order. That is a question of the gold alone, answered once: a second prediction then
    gets it under a time limit no solver meets (its rows are the same up to join order, told without one)."""
    gold = (
        "SELECT T2.name FROM singer AS T2 JOIN sings AS T1 ON T1.singer_id = T2.singer_id "
        "ORDER BY T2.singer_id LIMIT 1"
    )
    reversed_joins = (
        "select singer.name from sings join singer on singer.singer_id = sings.singer_id "
        "order by singer.singer_id limit 1"
    )
    in_where = (
        "SELECT s.name FROM sings x, singer s WHERE s.singer_id = x.singer_id ORDER BY s.singer_id LIMIT 1"
    )
    verdict = check_pair(gold, reversed_joins, db)
    assert (verdict.status, verdict.note) == ("verified", None)
    verdict = check_pair(gold, in_where, db, timeout=1e-4)
    assert (verdict.status, verdict.note) == ("verified", None)
    assert _same_on(db, gold, reversed_joins) and _same_on(db, gold, in_where)
    # Sorted by age, two different singers may tie: the ties note, or a refutation SQLite confirms.
    by_age = [
        q.replace("singer_id LIMIT 1", "age LIMIT 1").replace("singer_id limit 1", "age limit 1")
        for q in (gold, reversed_joins)
    ]
    verdict = check_pair(*by_age, db)
    assert (verdict.status, verdict.note) in (("verified", TIES_NOTE), ("refuted", None))
    if verdict.status == "refuted":
        assert (
            compare(
                execute(verdict.witness, by_age[0]),
                execute(verdict.witness, by_age[1]),
                "spider",
                order_matters=True,
            )
            == 0
        )


def test_a_gold_s_refutation_is_tried_on_its_other_predictions(db: Path, tmp_path: Path) -> None:
    """The second wrong prediction is refuted by the first one's database, re-run in SQLite: with a time
    limit no solver meets, so only that reuse can refute it."""
    gold = "SELECT count(*) FROM singer WHERE age > 25"
    wrong = ["SELECT count(*) FROM singer WHERE age >= 25", "SELECT count(*) FROM singer WHERE 25 <= age"]
    cache = str(tmp_path)
    first = _verdict(gold, wrong[0], db, cache, 5.0)
    assert first["equivalence"] == "refuted"
    unsolvable = _verdict(gold, "SELECT count(*) FROM singer WHERE NOT age <= 25", db, cache, 1e-4)
    assert (unsolvable["equivalence"], unsolvable["equivalence_note"]) == ("unknown", "timeout")
    second = _verdict(gold, wrong[1], db, cache, 1e-4)
    assert second["equivalence"] == "refuted"
    assert second["ts_witness"] == first["ts_witness"]
    witness = Path(second["ts_witness"])
    assert compare(execute(witness, gold), execute(witness, wrong[1]), "spider", order_matters=False) == 0
    right = _verdict(gold, "SELECT count(*) FROM singer WHERE 25 < age", db, cache, 5.0)
    assert right["equivalence"] == "verified"


def test_another_gold_s_refutation_is_tried_only_where_it_filled_every_table_read(
    db: Path, tmp_path: Path
) -> None:
    """A refutation of one question's prediction refutes a wrong prediction of another question of the same
    database, under a time limit no solver meets, when its database was solved for every table the second
    pair reads; not where it left a table empty that the original never leaves empty (SQLite would tell the
    two apart there, on a database no neighbour is)."""
    own = tmp_path / "concerts.sqlite"
    own.write_bytes(db.read_bytes())  # a database of its own: no earlier test's refutations
    cache = str(tmp_path / "cache")
    first = _verdict(
        "SELECT count(*) FROM singer WHERE age > 25",
        "SELECT count(*) FROM singer WHERE age >= 25",
        own,
        cache,
        5.0,
    )
    assert first["equivalence"] == "refuted"
    witness = Path(first["ts_witness"])
    gold, wrong = "SELECT name FROM singer WHERE age > 25", "SELECT name FROM singer WHERE age >= 25"
    other = _verdict(gold, wrong, own, cache, 1e-4)
    assert (other["equivalence"], other["ts_witness"]) == ("refuted", str(witness))
    assert compare(execute(witness, gold), execute(witness, wrong), "spider", order_matters=False) == 0

    gold, same = "SELECT max(year) FROM concert", "SELECT year FROM concert ORDER BY year DESC LIMIT 1"
    empty = compare(execute(witness, gold), execute(witness, same), "spider", order_matters=True)
    assert empty == 0, "the witness has no concert: max() gives a NULL row, the sort none"
    untried = _verdict(gold, same, own, cache, 1e-4)
    assert (untried["equivalence"], untried["equivalence_note"]) == ("unknown", "timeout")
    solved = _verdict(gold, same, own, cache, 5.0)
    assert solved["equivalence"] == "verified"  # concert is never empty in practice
