"""Suggested causes from real partial-match breakdowns (sqlglot parses, no hand-built breakdowns)."""

from __future__ import annotations

import pytest

from sqltriage.core.sql.partial_match import partial_match
from sqltriage.core.suggest import suggest_causes
from sqltriage.core.taxonomy import load_taxonomy

CASES = [
    # (gold, prediction, a tag that must be suggested, a tag that must not)
    (
        "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.sid",
        "SELECT name FROM singer",
        "Table: missing",
        "Table: redundant",
    ),
    (
        "SELECT name FROM singer",
        "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.sid",
        "Table: redundant",
        "Table: missing",
    ),
    ("SELECT count(*) FROM singer", "SELECT max(age) FROM singer", "Function: aggregate", "Table: missing"),
    (
        "SELECT name FROM singer WHERE age > 20",
        "SELECT name FROM singer WHERE age >= 20",
        "Operator: comparison",
        "Value: mismatch",
    ),
    (
        "SELECT name FROM singer WHERE age > 20",
        "SELECT name FROM singer WHERE age > 30",
        "Value: mismatch",
        "Operator: comparison",
    ),
    (
        "SELECT name FROM singer WHERE age > 20 AND id = 1",
        "SELECT name FROM singer WHERE age > 20 OR id = 1",
        "Operator: logical",
        "Value: mismatch",
    ),
    (
        "SELECT name FROM singer WHERE age > 20",
        "SELECT name FROM singer",
        "Condition: explicit missing",
        "Condition: explicit redundant",
    ),
    (
        "SELECT name FROM singer",
        "SELECT name FROM singer WHERE age > 20",
        "Condition: explicit redundant",
        "Condition: explicit missing",
    ),
    (
        "SELECT name FROM singer ORDER BY age DESC",
        "SELECT name FROM singer ORDER BY age",
        "Other: ASC/DESC",
        "Clause: missing",
    ),
    (
        "SELECT country, count(*) FROM singer GROUP BY country",
        "SELECT country, count(*) FROM singer",
        "Clause: missing",
        "Clause: redundant",
    ),
    (
        "SELECT name FROM singer WHERE age > (SELECT avg(age) FROM singer)",
        "SELECT name FROM singer WHERE age > 30",
        "Subquery: missing",
        "Subquery: mismatch",
    ),
    ("SELECT name FROM singer", "SELECT age FROM singer", "Attribute: mismatch", "Table: mismatch"),
    (
        "SELECT name FROM singer WHERE year = '2014'",
        "SELECT name FROM singer WHERE year LIKE '%2014%'",
        "Value: data format",
        "Value: mismatch",
    ),
]


@pytest.mark.parametrize(("gold", "pred", "wanted", "unwanted"), CASES)
def test_rules(gold: str, pred: str, wanted: str, unwanted: str) -> None:
    tags = [s.tag for s in suggest_causes(partial_match(gold, pred), ex=0, va=1)]
    assert wanted in tags
    assert unwanted not in tags


def test_every_suggestion_is_a_cause_of_the_default_taxonomy() -> None:
    tax = load_taxonomy()
    for gold, pred, _, _ in CASES:
        for s in suggest_causes(partial_match(gold, pred), ex=0, va=1):
            assert tax.by_tag(s.tag) is not None, s.tag
            assert s.reason


def test_identical_queries_suggest_nothing_and_each_tag_comes_once() -> None:
    sql = "SELECT name FROM singer WHERE age > 20"
    assert suggest_causes(partial_match(sql, sql), ex=1, va=1) == []
    found = suggest_causes(partial_match(CASES[0][0], CASES[0][1]), ex=0, va=1)
    assert len({s.tag for s in found}) == len(found)


def test_execution_side() -> None:
    same = partial_match("SELECT name FROM singer", "SELECT name FROM singer")
    tags = [s.tag for s in suggest_causes(same, ex=0, va=1)]
    assert tags == ["Evaluation: EX false negative (equivalent query)"]
    far = partial_match("SELECT count(*) FROM singer WHERE age > 3", "SELECT count(*) FROM concert")
    assert "Evaluation: EX false positive" in [s.tag for s in suggest_causes(far, ex=1, va=1)]
    error = suggest_causes(same, ex=0, va=0, error="no such column: nam")
    assert error[0].tag == "Attribute: mismatch" and "no such column" in error[0].reason
