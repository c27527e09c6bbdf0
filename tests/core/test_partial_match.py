"""Partial match as the error-analysis paper defines it, with the sets behind each score."""

from __future__ import annotations

import pytest

from sqltriage.core.sql.categories import subqueries
from sqltriage.core.sql.parse import parse_sql
from sqltriage.core.sql.partial_match import compare_subqueries, jaccard, partial_match

PAPER_GOLD = (
    "select name from students where age < (select avg(age) from students where age>17) "
    "and grade in (select grade from best_grades)"
)
PAPER_PRED = "select name from students where grade>10 and age>17"


def test_paper_worked_example_gives_sm_0_2() -> None:
    m = partial_match(PAPER_GOLD, PAPER_PRED)
    assert m.error is None
    assert m.sm == pytest.approx(0.2)
    top = m.subqueries[0]
    assert (top.level, top.position) == (0, 0)
    assert set(top.structural.both) == {"select", "from", "where"}
    assert set(top.structural.gold_only) == {"nesting:where#1", "nesting:where#2"}
    assert top.structural.score == pytest.approx(3 / 5)
    assert [(s.level, s.position, s.pred_sql) for s in m.subqueries[1:]] == [(1, 0, None), (1, 1, None)]


def test_breakdown_points_at_the_cause() -> None:
    m = partial_match(PAPER_GOLD, PAPER_PRED)
    top = m.subqueries[0]
    assert "where:<" in top.operator.gold_only and "where:in" in top.operator.gold_only
    assert "value:10" in top.variable.pred_only
    assert m.pm == pytest.approx((m.sm + m.om + m.vm) / 3)


def test_same_query_written_differently_scores_one() -> None:
    m = partial_match(
        "SELECT T1.name FROM singer AS T1 WHERE T1.country = 'France'",
        'select name from SINGER where country = "France";',
    )
    assert (m.sm, m.om, m.vm, m.pm) == (1.0, 1.0, 1.0, 1.0)
    assert all(not s.variable.gold_only and not s.variable.pred_only for s in m.subqueries)


def test_values_compare_as_sqlite_compares_them_case_sensitively() -> None:
    m = partial_match(
        "SELECT name FROM singer WHERE country = 'France'", "SELECT name FROM singer WHERE country = 'france'"
    )
    assert (m.sm, m.om) == (1.0, 1.0)
    assert m.subqueries[0].variable.gold_only == ("value:France",)
    assert m.subqueries[0].variable.pred_only == ("value:france",)


def test_star_is_not_a_variable() -> None:
    m = partial_match("SELECT count(*) FROM singer", "SELECT count(name) FROM singer")
    assert m.subqueries[0].variable.gold_only == ()
    assert m.subqueries[0].variable.pred_only == ("column:singer.name",)
    assert m.vm == pytest.approx(1 / 2)
    assert partial_match("SELECT * FROM singer", "SELECT * FROM singer").subqueries[0].variable.both == (
        "table:singer",
    )


def test_join_on_equality_is_a_comparison_operator() -> None:
    m = partial_match(
        "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.singer_id",
        "SELECT singer.name FROM singer JOIN concert ON singer.id > concert.singer_id",
    )
    assert m.subqueries[0].operator.gold_only == ("from:=",)
    assert m.subqueries[0].operator.pred_only == ("from:>",)
    assert m.om == pytest.approx(1 / 3)


def test_prediction_sqlite_rejects_scores_zero_though_sqlglot_reads_it() -> None:
    gold = "SELECT city FROM employee WHERE age < 30 GROUP BY city"
    m = partial_match(gold, "SELECT city FROM employee GROUP BY city WHERE age < 30")
    assert (m.sm, m.om, m.vm, m.pm) == (0.0, 0.0, 0.0, 0.0)
    assert m.error is not None and "SQLite rejects it" in m.error and "syntax error" in m.error
    # the same clauses in SQLite's order are fine, and unknown names are not syntax errors
    assert partial_match(gold, "SELECT city FROM nowhere WHERE age < 30 GROUP BY city").error is None


def test_numbers_compare_by_value() -> None:
    assert partial_match("SELECT a FROM t WHERE b = 20", "SELECT a FROM t WHERE b = '20.0'").vm == 1.0


def test_wrong_column_and_value_lower_vm_only() -> None:
    m = partial_match("SELECT name FROM singer WHERE age > 30", "SELECT name FROM singer WHERE height > 30")
    assert (m.sm, m.om) == (1.0, 1.0)
    assert m.vm == pytest.approx(3 / 5)  # both: name, singer, 30; gold: age; pred: height
    assert m.subqueries[0].variable.gold_only == ("column:singer.age",)
    assert m.subqueries[0].variable.pred_only == ("column:singer.height",)


def test_values_can_be_left_out() -> None:
    gold = "SELECT name FROM singer WHERE country = 'France'"
    pred = "SELECT name FROM singer WHERE country = 'terminal'"
    assert partial_match(gold, pred).vm < 1.0
    assert partial_match(gold, pred, values=False).vm == 1.0


def test_set_operation_right_side_is_one_level_down() -> None:
    m = partial_match(
        "SELECT name FROM a INTERSECT SELECT name FROM b",
        "SELECT name FROM a",
    )
    assert [(s.level, s.position) for s in m.subqueries] == [(0, 0), (1, 0)]
    assert m.subqueries[0].structural.gold_only == ("intersect",)
    assert m.subqueries[1].pred_sql is None
    assert m.subqueries[1].operator.score == 0.0  # a missing subquery scores 0 in every component


def test_unparseable_prediction_scores_zero_with_error() -> None:
    m = partial_match("SELECT name FROM singer", "SELEC name FORM")
    assert (m.sm, m.om, m.vm, m.pm) == (0.0, 0.0, 0.0, 0.0)
    assert m.error is not None and m.error.startswith("prediction:")
    assert m.subqueries[0].structural.gold_only == ("select", "from")


def test_non_query_prediction_scores_zero() -> None:
    m = partial_match("SELECT name FROM singer", "DROP TABLE singer")
    assert m.pm == 0.0 and m.error is not None


def test_unparseable_gold_gives_no_scores() -> None:
    m = partial_match("SELECT FROM (", "SELECT name FROM singer")
    assert (m.sm, m.om, m.vm, m.pm) == (None, None, None, None)
    assert m.error is not None and m.error.startswith("gold query:")


def test_reusing_parses_and_subqueries_gives_the_same_result() -> None:
    gold = parse_sql(PAPER_GOLD)
    pred = parse_sql(PAPER_PRED)
    direct = partial_match(PAPER_GOLD, PAPER_PRED)
    assert partial_match(gold, pred) == direct
    assert compare_subqueries(subqueries(gold), subqueries(pred)) == direct


def test_jaccard_edges() -> None:
    assert jaccard([], []) == 1.0
    assert jaccard(["a"], []) == 0.0
    assert jaccard(["a", "b"], ["b", "c"]) == pytest.approx(1 / 3)


def test_subquery_texts_are_the_nested_queries_written_out() -> None:
    """Kept as nodes until shown; then each slot's text is that subquery alone, and stays the same."""
    m = partial_match(PAPER_GOLD, PAPER_PRED)
    texts = [s.gold_sql for s in m.subqueries]
    assert texts[1:] == [
        "SELECT AVG(age) FROM students WHERE age > 17",
        "SELECT grade FROM best_grades",
    ]
    assert texts[0] == PAPER_GOLD and [s.gold_sql for s in m.subqueries] == texts
    plain = m.subqueries[1].as_dict()
    assert list(plain) == ["level", "position", "gold_sql", "pred_sql", "structural", "operator", "variable"]
    assert plain["gold_sql"] == texts[1] and plain["pred_sql"] is None
    assert plain["structural"] == {
        "gold_only": ("select", "from", "where"),
        "pred_only": (),
        "both": (),
        "score": 0.0,
    }
