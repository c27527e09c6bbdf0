"""Parsing what real predictions contain, and never raising on what they should not contain."""

from __future__ import annotations

import pytest
from sqlglot import exp

from sqltriage.core.model import Column, Schema, Table
from sqltriage.core.sql.parse import parse_sql, pretty, resolve_aliases

SCHEMA = Schema(
    "music",
    (
        Table("singer", (Column("id"), Column("name"), Column("country"))),
        Table("concert", (Column("singer_id"), Column("year"))),
    ),
)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT name FROM singer",
        "select name from singer;",
        "SELECT name FROM singer ;  ",
        "SELECT `name` FROM `singer`",
        'SELECT "name" FROM "singer"',
        "SELECT [name] FROM [singer]",
        "SeLeCt NAME fRoM Singer",
        "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.singer_id",
    ],
)
def test_tolerated_forms_parse_to_the_same_query(sql: str) -> None:
    parsed = parse_sql(sql)
    assert parsed.ok, parsed.error
    assert isinstance(parsed.tree, exp.Select)
    assert parsed.sql == sql  # the text is kept as given


@pytest.mark.parametrize(
    "sql",
    [
        "",
        "   ",
        ";",
        "SELECT FROM WHERE (",
        "SELECT name FROM singer WHERE name = 'unterminated",
        "SELECT 1; SELECT 2",
        "### What is the name? SELECT",
        "(" * 3000 + "1" + ")" * 3000,
        "\x00\xff garbage \u2603",
    ],
)
def test_failures_are_values_with_a_message(sql: str) -> None:
    parsed = parse_sql(sql)
    assert not parsed.ok
    assert parsed.tree is None
    assert parsed.error


def test_double_quoted_value_becomes_a_string_without_schema() -> None:
    tree = parse_sql('SELECT name FROM singer WHERE country = "France"').tree
    assert tree is not None
    literal = tree.find(exp.Literal)
    assert literal is not None and literal.is_string and literal.this == "France"


def test_double_quoted_name_stays_a_column_with_schema() -> None:
    tree = parse_sql('SELECT "name" FROM singer WHERE "country" = "France"', SCHEMA).tree
    assert tree is not None
    assert sorted(c.name for c in tree.find_all(exp.Column)) == ["country", "name"]
    assert [lit.this for lit in tree.find_all(exp.Literal)] == ["France"]


def test_backticked_value_position_is_not_turned_into_a_string() -> None:
    tree = parse_sql("SELECT name FROM singer WHERE country = `name`").tree
    assert tree is not None and tree.find(exp.Literal) is None


def test_resolve_aliases_per_scope() -> None:
    sql = (
        "SELECT T1.name FROM singer AS T1 WHERE T1.id IN "
        "(SELECT T1.singer_id FROM concert AS T1 WHERE T1.year > 2000)"
    )
    resolved = resolve_aliases(parse_sql(sql).tree, SCHEMA).sql()
    assert "T1" not in resolved
    assert "singer.name" in resolved and "singer.id" in resolved
    assert "concert.singer_id" in resolved and "concert.year" in resolved


def test_resolve_aliases_fills_tables_from_the_schema() -> None:
    tree = parse_sql("SELECT name, year FROM singer JOIN concert ON id = singer_id").tree
    resolved = resolve_aliases(tree, SCHEMA).sql()
    assert "singer.name" in resolved and "concert.year" in resolved


def test_resolve_aliases_keeps_self_joins_correct() -> None:
    tree = parse_sql("SELECT a.name FROM singer AS a JOIN singer AS b ON a.id = b.id").tree
    resolved = resolve_aliases(tree, SCHEMA).sql()
    assert "a.id = b.id" in resolved


def test_resolve_aliases_leaves_the_input_tree_alone() -> None:
    tree = parse_sql("SELECT T1.name FROM singer AS T1").tree
    before = tree.sql()
    resolve_aliases(tree, SCHEMA)
    assert tree.sql() == before


def test_pretty_is_canonical_and_falls_back() -> None:
    assert pretty("select  name\nfrom singer;") == pretty("SELECT name FROM singer")
    assert "\n" in pretty("SELECT name FROM singer WHERE age > 3")
    assert pretty("SELEC oops") == "SELEC oops"


def test_sqlite_syntax_verdicts_follow_the_text_asked_about() -> None:
    """The last verdict is reused for the same text only: alternating texts keep their own answers."""
    from sqltriage.core.sql.sqlite_syntax import sqlite_syntax_error

    bad, good = "SELECT name FROM singer GROUP BY name WHERE age > 3", "SELECT name FROM singer"
    for sql in (bad, bad, good, good, bad, " SELECT name FROM singer ;"):
        found = sqlite_syntax_error(sql)
        assert (found is not None and "syntax error" in found) if sql == bad else found is None


def test_what_is_read_off_a_parse_is_made_once_per_key_and_is_not_part_of_the_parse() -> None:
    made: list[str] = []
    parsed = parse_sql("SELECT name FROM singer")
    for key in ("a", "a", "b", "a"):
        assert parsed.derived(key, lambda key=key: made.append(key) or key.upper()) == key.upper()
    assert made == ["a", "b"]
    assert parsed == parse_sql("SELECT name FROM singer")  # equal parses whatever each has derived
