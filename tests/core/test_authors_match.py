"""Partial match as the paper's published code computes it, rule by rule (real sqlglot parses)."""

from __future__ import annotations

import pytest

from sqltriage.core.sql.authors_match import authors_columns, authors_partial_match, jaccard_list
from sqltriage.core.sql.partial_match import partial_match

PAPER_GOLD = (
    "select name from students where age < (select avg(age) from students where age>17) "
    "and grade in (select grade from best_grades)"
)
PAPER_PRED = "select name from students where grade>10 and age>17"


def test_worked_example_text_gives_0_2_and_the_authors_code_0_375() -> None:
    assert partial_match(PAPER_GOLD, PAPER_PRED).sm == pytest.approx(0.2)
    m = authors_partial_match(PAPER_GOLD, PAPER_PRED)
    # depth 0: {select, from, where, nesting:where} vs {select, from, where} = 3/4; depth 1: missing = 0
    assert m.sm == pytest.approx(0.375)
    assert m.raises is None
    assert m.pm == pytest.approx((m.sm + m.om + m.vm) / 3)


def test_identical_queries_score_one() -> None:
    sql = "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.singer_id WHERE T2.year > 2014"
    m = authors_partial_match(sql, sql)
    assert (m.sm, m.om, m.vm, m.pm) == (1.0, 1.0, 1.0, 1.0)


def test_depths_are_averaged_each_on_its_own() -> None:
    gold = "SELECT a FROM t WHERE b IN (SELECT b FROM u) AND c IN (SELECT c FROM v)"
    pred = "SELECT a FROM t WHERE b IN (SELECT b FROM u)"
    m = authors_partial_match(gold, pred)
    assert m.sm == pytest.approx(0.75)  # depth 0 equal; depth 1: both subqueries as one unit, half there
    flat = partial_match(gold, pred)
    assert flat.sm == pytest.approx((4 / 5 + 1 + 0) / 3)  # the text: a flat mean over the three pairs


def test_a_set_operation_is_one_unit_and_its_variables_carry_no_side() -> None:
    gold = "SELECT c FROM singer WHERE y < 1945 INTERSECT SELECT c FROM singer WHERE y > 1955"
    pred = "SELECT c FROM singer WHERE y < 1945 OR y > 1955"
    m = authors_partial_match(gold, pred)
    assert m.vm == pytest.approx(6 / 8)  # the right branch's c and singer are surplus copies
    assert m.om == 0.0  # operators inside a set operation are not those of a plain query


def test_join_on_equality_is_a_comparison_and_inner_join_is_not_join() -> None:
    gold = "SELECT a.x FROM a JOIN b ON a.id = b.id"
    same = authors_partial_match(gold, "SELECT a.x FROM a JOIN b ON a.id = b.id")
    inner = authors_partial_match(gold, "SELECT a.x FROM a INNER JOIN b ON a.id = b.id")
    greater = authors_partial_match(gold, "SELECT a.x FROM a JOIN b ON a.id > b.id")
    assert same.om == 1.0
    assert inner.om == pytest.approx(1 / 3)  # {join, =} vs {inner join, =}
    assert greater.om == pytest.approx(1 / 3)


def test_repeated_columns_count_once_per_occurrence() -> None:
    m = authors_partial_match(
        "SELECT name FROM singer ORDER BY age", "SELECT name FROM singer WHERE age > 0 ORDER BY age"
    )
    assert m.vm == pytest.approx(3 / 5)  # name, singer, age vs name, singer, age, age, 0
    assert jaccard_list(["a", "a"], ["a"]) == pytest.approx(0.5)


def test_values_as_written_star_and_limit_are_not_variables() -> None:
    gold = "SELECT count(*) FROM singer WHERE country = 'France' LIMIT 3"
    assert (
        authors_partial_match(gold, "SELECT count(*) FROM singer WHERE country = 'France' LIMIT 9").vm == 1.0
    )
    assert authors_partial_match(
        gold, "SELECT count(*) FROM singer WHERE country = 'france'"
    ).vm == pytest.approx(2 / 4)


def test_a_join_prediction_is_read_through_its_own_on_equalities() -> None:
    gold = "SELECT template_id FROM documents GROUP BY template_id"
    pred = (
        "SELECT templates.template_id FROM templates JOIN documents "
        "ON templates.template_id = documents.template_id GROUP BY templates.template_id"
    )
    # templates.template_id equals documents.template_id by the ON: the gold's two columns are found
    assert authors_partial_match(gold, pred).vm == pytest.approx(3 / 6)


def test_unqualified_column_of_a_join_is_not_its_qualified_name() -> None:
    gold = "SELECT T1.name FROM conductor AS T1 JOIN orchestra AS T2 ON T1.id = T2.cid WHERE T2.year > 2008"
    pred = "SELECT T1.name FROM conductor AS T1 JOIN orchestra AS T2 ON T1.id = T2.cid WHERE year > 2008"
    assert authors_partial_match(gold, pred).vm == pytest.approx(6 / 8)


@pytest.mark.parametrize(
    ("pred", "reason"),
    [
        ("SELECT name FROM singer WHERE age IS NULL", "IS NULL"),
        ("SELECT s.name FROM singer AS s JOIN song AS t ON s.id = t.a OR s.id = t.b", "ON with OR"),
        ("SELECT name FROM singer WHERE EXISTS (SELECT 1 FROM song)", "constant"),
        ("SELECT name || 'x' FROM singer", "||"),
    ],
)
def test_where_their_code_raises_nothing_is_made_up(pred: str, reason: str) -> None:
    m = authors_partial_match("SELECT name FROM singer", pred)
    assert (m.sm, m.om, m.vm, m.pm) == (None, None, None, None)
    assert m.raises is not None and m.raises.startswith("their code would raise") and reason in m.raises
    assert authors_columns(m)["authors_note"] == m.raises
    assert partial_match("SELECT name FROM singer", pred).pm is not None  # ours still scores it


def test_a_clause_out_of_place_is_rejected_by_their_parser_as_by_sqlite() -> None:
    m = authors_partial_match(
        "SELECT city FROM employee WHERE age < 30 GROUP BY city",
        "SELECT city FROM employee GROUP BY city WHERE age < 30",
    )
    assert m.pm is None and m.raises is not None and m.raises.startswith("their parser would reject it")


def test_is_not_null_is_an_operator_not_a_crash() -> None:
    m = authors_partial_match("SELECT name FROM singer", "SELECT name FROM singer WHERE age IS NOT NULL")
    assert m.raises is None and m.om == 0.0


def test_multiset_jaccard_counts_shared_occurrences() -> None:
    assert jaccard_list(["a", "a", "b"], ["a", "b", "b", "c"]) == pytest.approx(2 / 5)  # a, b of a a b b c
    assert jaccard_list(["x", "x"], ["x", "x"]) == 1.0
    assert jaccard_list([], []) == 1.0 and jaccard_list(["a"], []) == 0.0


def test_a_gold_parse_reused_for_many_predictions_scores_each_as_if_read_anew() -> None:
    from sqltriage.core.sql.parse import parse_sql

    for gold_sql in ("SELECT name FROM singer WHERE age IS NULL", "SELECT name FROM singer WHERE age > 3"):
        gold = parse_sql(gold_sql)  # one parse for every prediction, as an evaluation passes it
        for pred in ("SELECT name FROM singer", "SELECT name FROM singer WHERE age > 3", "SELECT age FROM t"):
            assert authors_partial_match(gold, pred) == authors_partial_match(gold_sql, pred)
    failing = parse_sql("SELECT a FROM t WHERE b IS NULL")
    first = authors_partial_match(failing, "SELECT a FROM t")
    assert first.raises and authors_partial_match(failing, "SELECT a FROM t") == first  # kept, raised again
