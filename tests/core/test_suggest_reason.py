"""Reasons written when read: the SQL they quote is sqlglot's SQLite text, the parse is left as it was."""

from __future__ import annotations

from sqlglot import exp

from sqltriage.core.sql.parse import parse_sql
from sqltriage.core.suggest import suggest_causes
from sqltriage.core.suggest.reason import Reason, sql_text


def test_a_reason_quotes_sql_and_keeps_braces_in_values_as_written() -> None:
    condition = parse_sql("SELECT name FROM t WHERE note = '{x} {}'").tree.find(exp.EQ)
    reason = Reason("gold tests {}, the prediction {}", condition, "{0}")
    assert str(reason) == "gold tests note = '{x} {}', the prediction {0}"
    assert f"{reason}; more" == "gold tests note = '{x} {}', the prediction {0}; more"
    items = tuple(parse_sql("SELECT T1.name, count(*) FROM singer AS T1").tree.expressions)
    assert str(Reason("gold also selects {}", items)) == "gold also selects T1.name, COUNT(*)"
    assert str(Reason("{} (text vs number)", Reason("gold tests {}", condition))).endswith("(text vs number)")


def test_writing_sql_leaves_the_parse_unchanged() -> None:
    # SQLite's generator rewrites a parenthesised query with its own ORDER BY / LIMIT in place: only a copy
    # may be written from
    query = (
        "SELECT name FROM singer WHERE age = ((SELECT age FROM singer) ORDER BY age DESC LIMIT 1) "
        "AND country IN (SELECT country FROM concert WHERE year = '2014')"
    )
    tree = parse_sql(query).tree
    before = tree.sql(dialect="sqlite")
    for node in tree.find(exp.Where).this.flatten():
        assert sql_text(node) == node.sql(dialect="sqlite")
    assert tree.sql(dialect="sqlite") == before


def test_suggestions_come_back_with_their_reasons_written() -> None:
    found = suggest_causes(
        "SELECT name, age FROM singer WHERE country = 'France'", "SELECT name FROM singer WHERE age > 30"
    )
    assert found and all(type(s.reason) is str for s in found)
    assert any("country = 'France'" in s.reason for s in found), [s.reason for s in found]
    assert all(type(d["reason"]) is str for d in (s.as_dict() for s in found))
