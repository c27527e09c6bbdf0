"""Categories and hardness, table-driven from tests/core/fixtures/sql/categories.sql."""

from __future__ import annotations

from pathlib import Path

import pytest

from sqltriage.core.model import Column, Schema, Table
from sqltriage.core.sql.categories import (
    OPERATOR_TYPES,
    STRUCTURAL_LETTERS,
    categorize,
    hardness,
    subqueries,
)
from sqltriage.core.sql.parse import parse_sql

FIXTURE = Path(__file__).parent / "fixtures" / "sql" / "categories.sql"


def _cases() -> list[tuple[str, dict[str, str]]]:
    cases = []
    for block in FIXTURE.read_text().split("\n\n"):
        lines = [ln for ln in block.strip().splitlines() if ln and not ln.startswith("#")]
        if not lines:
            continue
        sql = " ".join(ln for ln in lines if ":" not in ln.split(" ")[0])
        expected = {}
        for ln in lines:
            key, _, value = ln.partition(":")
            if key in ("structural", "operators", "hardness"):
                expected[key] = value.strip().strip('"')
        cases.append((sql, expected))
    return cases


CASES = _cases()


@pytest.mark.parametrize(("sql", "expected"), CASES, ids=[c[0][:60] for c in CASES])
def test_fixture(sql: str, expected: dict[str, str]) -> None:
    cats = categorize(sql)
    assert cats.error is None
    assert cats.structural == expected["structural"]
    assert cats.operators == expected["operators"]
    assert cats.hardness == expected["hardness"]


def test_fixtures_cover_every_letter_and_operator_type_several_times() -> None:
    for letter in STRUCTURAL_LETTERS:
        n = sum(letter in e["structural"].split() for _, e in CASES)
        assert n >= 3, f"structural letter {letter} appears in {n} fixture cases"
    for op in OPERATOR_TYPES:
        n = sum(op in e["operators"].split() for _, e in CASES)
        assert n >= 3, f"operator type {op} appears in {n} fixture cases"
    for level in ("easy", "medium", "hard", "extra"):
        assert any(e["hardness"] == level for _, e in CASES)


def test_join_on_equalities_are_comparisons_and_their_and_is_part_of_the_join() -> None:
    sql = "SELECT a.x FROM a JOIN b ON a.id = b.id AND a.k = b.k JOIN c ON b.z = c.z OR b.w = c.w"
    cats = categorize(sql)
    assert cats.operators == "J C"
    ops = subqueries(sql)[0].operators
    assert ops == ("from:join", "from:=", "from:=#2", "from:join#2", "from:=#3", "from:=#4")


def test_counts() -> None:
    cats = categorize(
        "SELECT T1.name, count(*) FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.singer_id "
        "WHERE T2.year > 2014 AND T1.country = 'France' GROUP BY T1.name "
        "HAVING count(*) > (SELECT avg(n) FROM stats) LIMIT 3"
    )
    # join, = (its ON), count (select), >, and, = (where), count, > (having), avg (nested)
    assert cats.n_operators == 9
    assert cats.n_tables == 3
    # singer.name, singer.id, concert.singer_id, concert.year, singer.country, stats.n
    assert cats.n_columns == 6
    assert cats.n_values == 2  # 2014 and 'France'; the LIMIT count is not a database value
    assert cats.nesting_depth == 1


def test_nesting_depth_counts_levels_not_subqueries() -> None:
    flat = categorize("SELECT a FROM t UNION SELECT a FROM s")
    two = categorize("SELECT a FROM t WHERE a IN (SELECT b FROM s WHERE b > (SELECT avg(c) FROM u))")
    assert flat.nesting_depth == 0
    assert two.nesting_depth == 2


def test_length_ignores_layout() -> None:
    a = categorize("SELECT name FROM singer")
    b = categorize("SELECT   name\n  FROM singer")
    assert a.length == b.length == len("SELECT name FROM singer")


def test_aliases_do_not_change_tables_or_columns() -> None:
    a = categorize("SELECT T1.name FROM singer AS T1 WHERE T1.age > 3")
    b = categorize("SELECT name FROM singer WHERE age > 3")
    assert (a.n_tables, a.n_columns) == (b.n_tables, b.n_columns) == (1, 2)


def test_schema_resolves_unqualified_columns_in_joins() -> None:
    schema = Schema(
        "music",
        (
            Table("singer", (Column("id"), Column("name"))),
            Table("concert", (Column("singer_id"), Column("year"))),
        ),
    )
    sql = "SELECT name FROM singer JOIN concert ON id = singer_id WHERE year > 2000"
    without = subqueries(sql)[0].variables
    with_schema = subqueries(sql, schema)[0].variables
    assert "column:name" in without
    assert "column:singer.name" in with_schema
    assert "column:concert.year" in with_schema


@pytest.mark.parametrize("bad", ["", "SELEC name FORM singer", "SELECT * FROM (", ";;;", "\x00\x01"])
def test_unreadable_query_is_a_value(bad: str) -> None:
    cats = categorize(bad)
    assert cats.error
    assert (cats.structural, cats.operators, cats.hardness) == ("", "", "")
    assert hardness(bad) == ""


def test_statement_that_is_not_a_query() -> None:
    cats = categorize("CREATE TABLE x (a INTEGER)")
    assert cats.error is not None and "not a query" in cats.error


def test_accepts_a_parse_made_earlier() -> None:
    parsed = parse_sql("SELECT name FROM singer ORDER BY age LIMIT 1")
    assert categorize(parsed) == categorize(parsed.sql)
    assert hardness(parsed) == "medium"
