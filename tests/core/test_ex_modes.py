"""The three EX modes on hand-made results: every rule of spider and bird, every branch of Archer's Algorithm 1."""

from __future__ import annotations

import random

import pytest

from sqltriage.core.verdicts import exec_compare
from sqltriage.core.verdicts.ex_modes import EX_MODES
from sqltriage.core.verdicts.exec_compare import compare, order_matters, spider_sql
from sqltriage.core.verdicts.exec_result import ExecResult
from sqltriage.core.verdicts.pair_run import execution_outcomes


def res(rows: list[tuple], columns: tuple[str, ...] | None = None) -> ExecResult:
    ncols = len(rows[0]) if rows else 1
    return ExecResult(columns or tuple(f"c{i}" for i in range(ncols)), tuple(rows), 0.0)


def fail(kind: str = "syntax") -> ExecResult:
    return ExecResult((), (), 0.0, error="boom", error_kind=kind)


def verdicts(gold: ExecResult, pred: ExecResult, *, ordered: bool = False, **kw) -> dict[str, int | None]:
    return {m: compare(gold, pred, m, order_matters=ordered, **kw) for m in EX_MODES}


# ------------------------------------------------------------------ order_matters


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT name FROM singer ORDER BY age", True),
        ("SELECT name FROM singer ORDER BY age DESC LIMIT 3", True),
        ("SELECT name FROM singer", False),
        # ORDER BY only inside a subquery: the outer result is unordered (the substring test says ordered)
        ("SELECT count(*) FROM t WHERE id = (SELECT id FROM t ORDER BY x DESC LIMIT 1)", False),
        ("SELECT a FROM (SELECT a FROM t ORDER BY a)", False),
        ("SELECT a FROM t UNION SELECT b FROM u ORDER BY 1", True),
        ("SELECT a FROM t UNION SELECT b FROM u", False),
        ("WITH x AS (SELECT 1 AS a) SELECT a FROM x ORDER BY a", True),
        ("SELECT name FROM singer WHERE note = 'order by'", False),
    ],
)
def test_order_matters_reads_the_outermost_query(sql: str, expected: bool) -> None:
    assert order_matters(sql) is expected


def test_order_matters_falls_back_to_top_level_text_when_the_gold_does_not_parse() -> None:
    assert order_matters("SELECT a FROM t WHERE ( ORDER BY x") is False  # only inside parentheses
    assert order_matters("SELECT a FROM t WHERE b = ((1) ORDER BY a") is False
    assert order_matters("SELECT a FROM t WHERE ) b ORDER  BY a") is True


# ------------------------------------------------------------------ spider


def test_spider_rows_are_bags_and_duplicates_count() -> None:
    gold = res([(1, "a"), (1, "a"), (2, "b")])
    assert compare(gold, res([(2, "b"), (1, "a"), (1, "a")]), "spider", order_matters=False) == 1
    assert compare(gold, res([(2, "b"), (2, "b"), (1, "a")]), "spider", order_matters=False) == 0
    assert compare(gold, res([(1, "a"), (2, "b")]), "spider", order_matters=False) == 0


def test_spider_row_order_counts_only_when_gold_orders() -> None:
    gold = res([(1,), (2,), (3,)])
    shuffled = res([(3,), (1,), (2,)])
    assert compare(gold, shuffled, "spider", order_matters=False) == 1
    assert compare(gold, shuffled, "spider", order_matters=True) == 0
    assert compare(gold, res([(1,), (2,), (3,)]), "spider", order_matters=True) == 1


def test_spider_any_column_permutation() -> None:
    gold = res([(1, "x", 2.5), (2, "y", 3.5)])
    pred = res([("y", 3.5, 2), ("x", 2.5, 1)])
    assert compare(gold, pred, "spider", order_matters=False) == 1
    assert compare(gold, pred, "spider", order_matters=True) == 0  # rows in the other order
    # same column multisets but rows pair them differently: no permutation works
    assert compare(res([(1, "x"), (2, "y")]), res([(1, "y"), (2, "x")]), "spider", order_matters=False) == 0


def test_spider_two_empty_results_match_whatever_their_columns() -> None:
    assert compare(res([], ("a",)), res([], ("a", "b")), "spider", order_matters=False) == 1


def test_spider_different_widths_or_lengths_do_not_match() -> None:
    assert compare(res([(1,)]), res([(1, 1)]), "spider", order_matters=False) == 0
    assert compare(res([(1,)]), res([]), "spider", order_matters=False) == 0


def test_spider_values_compare_as_sqlite_returns_them() -> None:
    assert compare(res([(1,)]), res([(1.0,)]), "spider", order_matters=False) == 1
    assert compare(res([(1,)]), res([("1",)]), "spider", order_matters=False) == 0
    assert compare(res([(0.1 + 0.2,)]), res([(0.3,)]), "spider", order_matters=False) == 0
    assert compare(res([(None,)]), res([(None,)]), "spider", order_matters=False) == 1


def test_float_tolerance_is_opt_in() -> None:
    gold, pred = res([(0.1 + 0.2, "a")]), res([("a", 0.3)])
    assert verdicts(gold, pred) == {"spider": 0, "bird": 0, "archer": 0}
    assert compare(gold, pred, "spider", order_matters=False, float_tol=1e-9) == 1
    assert compare(res([(0.30001,)]), res([(0.3,)]), "spider", order_matters=False, float_tol=1e-9) == 0


def _wide(ncols: int, nrows: int, seed: int) -> list[tuple]:
    rng = random.Random(seed)
    return [tuple(rng.randrange(5) for _ in range(ncols)) for _ in range(nrows)]


def test_spider_wide_results_find_the_permutation_without_trying_all_orders() -> None:
    # 16 columns: 16! orders. Columns drawn from the same small domain, so most look alike.
    rows = _wide(16, 60, seed=3)
    perm = list(range(16))
    random.Random(7).shuffle(perm)
    pred = [tuple(r[j] for j in perm) for r in rows]
    random.Random(8).shuffle(pred)
    assert compare(res(rows), res(pred), "spider", order_matters=False) == 1
    pred[0] = (*pred[0][:-1], 99)
    assert compare(res(rows), res(pred), "spider", order_matters=False) == 0


def test_spider_identical_columns_are_not_permuted_among_themselves() -> None:
    # 12 equal columns plus one distinguishing column: a naive search would try 13! orders.
    gold = [(i % 3,) * 12 + (i,) for i in range(30)]
    pred = [(i,) + (i % 3,) * 12 for i in range(30)]
    assert compare(res(gold), res(pred), "spider", order_matters=True) == 1
    pred[5] = (5,) + (9,) * 12
    assert compare(res(gold), res(pred), "spider", order_matters=True) == 0


def test_spider_says_undecidable_rather_than_guessing_when_the_search_is_cut(monkeypatch) -> None:
    # Rows of a Latin square: every column holds the same values and no column anchors the others.
    n = 6
    gold = [tuple((r + c) % n for c in range(n)) for r in range(n)]
    perm = [1, 0, 2, 3, 4, 5]  # a swap that a cyclic shift of rows cannot undo
    pred = [tuple(row[j] for j in perm) for row in gold]
    assert compare(res(gold), res(pred), "spider", order_matters=False) == 1
    monkeypatch.setattr(exec_compare, "MAX_PERMUTATION_CANDIDATES", 1)
    assert compare(res(gold), res(pred), "spider", order_matters=False) is None


def test_spider_sql_is_the_text_the_official_evaluator_runs() -> None:
    assert spider_sql("SELECT DISTINCT a FROM t") == "SELECT  a FROM t"
    assert spider_sql("SELECT count(DISTINCT a) FROM t") == "SELECT count( a) FROM t"
    assert spider_sql("SELECT a FROM t WHERE b = 'distinct' AND c > = 1") == (
        "SELECT a FROM t WHERE b = 'distinct' AND c >= 1"
    )
    assert spider_sql("SELECT distinct_count FROM t") == "SELECT distinct_count FROM t"
    assert spider_sql("SELECT * FROM t WHERE y < YEAR(CURDATE())") == "SELECT * FROM t WHERE y < 2020"


# ------------------------------------------------------------------ bird


def test_bird_compares_sets_of_rows_with_columns_as_given() -> None:
    gold = res([(1, "a"), (2, "b")])
    assert compare(gold, res([(2, "b"), (1, "a"), (1, "a")]), "bird", order_matters=True) == 1
    assert compare(gold, res([("a", 1), ("b", 2)]), "bird", order_matters=False) == 0
    assert compare(gold, res([(1, "a")]), "bird", order_matters=False) == 0
    assert compare(res([], ("a",)), res([], ("a", "b")), "bird", order_matters=False) == 1


# ------------------------------------------------------------------ archer, Algorithm 1 line by line


def test_archer_l1_prediction_that_does_not_execute_is_false() -> None:
    assert compare(res([(1,)]), fail(), "archer", order_matters=False) == 0


def test_archer_l9_exactly_equal_is_true() -> None:
    rows = [(1, "a"), (2, "b")]
    assert compare(res(rows), res(list(rows)), "archer", order_matters=True) == 1
    assert compare(res([]), res([], ("x", "y")), "archer", order_matters=False) == 1


def test_archer_l12_different_row_or_column_counts_are_false() -> None:
    assert compare(res([(1,), (2,)]), res([(1,)]), "archer", order_matters=False) == 0
    assert compare(res([(1,), (2,)]), res([(1, 1), (2, 2)]), "archer", order_matters=False) == 0


def test_archer_l15_ordered_gold_compares_sets_of_columns() -> None:
    gold = res([(1, "a"), (2, "b")])
    assert compare(gold, res([("a", 1), ("b", 2)]), "archer", order_matters=True) == 1  # columns swapped
    assert compare(gold, res([(2, "b"), (1, "a")]), "archer", order_matters=True) == 0  # rows swapped


def test_archer_l20_unordered_gold_compares_row_and_column_frequencies() -> None:
    gold = res([(1, "a"), (2, "b"), (2, "b")])
    assert compare(gold, res([("b", 2), ("a", 1), ("b", 2)]), "archer", order_matters=False) == 1
    # every row is a gold row, but column 0 holds {1: 2, 2: 1} where gold holds {1: 1, 2: 2}
    assert compare(gold, res([(1, "a"), (1, "a"), (2, "b")]), "archer", order_matters=False) == 0
    # columns match as multisets, but the rows pair the values differently
    assert compare(res([(1, "a"), (2, "b")]), res([(1, "b"), (2, "a")]), "archer", order_matters=False) == 0


def test_archer_l20_checks_membership_not_multiplicity() -> None:
    # As written, each pred row's (and column's) frequencies need only be *present* among gold's:
    # how many rows or columns carry them is not compared. So a prediction that repeats one gold
    # row passes here while spider (bags) and bird (sets) reject it.
    gold = res([(1, 1), (1, 1), (1, 2)])  # columns {1: 3} and {1: 2, 2: 1}
    pred = res([(1, 1), (1, 1), (1, 1)])  # columns {1: 3} twice; rows {1: 2}, present in gold
    assert verdicts(gold, pred) == {"spider": 0, "bird": 0, "archer": 1}


# ------------------------------------------------------------------ undecidable and outcomes


def test_undecidable_cases_are_none_not_zero() -> None:
    ok = res([(1,), (2,)])
    cut = ExecResult(("a",), ((1,), (2,)), 0.0, truncated=True)  # cut by size: at least these two rows
    for mode in EX_MODES:
        assert compare(fail("runtime"), ok, mode, order_matters=False) is None  # gold failed
        assert compare(cut, ok, mode, order_matters=False) is None
        assert compare(ok, cut, mode, order_matters=False) is None
        assert compare(cut, cut, mode, order_matters=False) is None
        assert compare(fail("db_missing"), fail("db_missing"), mode, order_matters=False) is None
        assert compare(ok, fail("timeout"), mode, order_matters=False) == 0


def capped(rows: list[tuple], cap: int, columns: tuple[str, ...] | None = None) -> ExecResult:
    """A result cut at a row cap of `cap`: only its first `cap` rows were fetched."""
    ncols = len(rows[0])
    cols = columns or tuple(f"c{i}" for i in range(ncols))
    return ExecResult(cols, tuple(rows[:cap]), 0.0, truncated=True, max_rows=cap)


def test_a_cut_result_scores_0_when_its_row_count_rules_a_match_out_in_every_mode() -> None:
    gold = res([(7,)])  # one row, one column: a cut prediction of more rows than the cap cannot match
    huge = capped([(i,) for i in range(10)], 5)
    assert verdicts(gold, huge) == {"spider": 0, "bird": 0, "archer": 0}
    # the gold cut, the prediction complete and shorter than the cap: no match either
    assert verdicts(capped([(i,) for i in range(10)], 5), res([(1,), (2,)])) == {
        "spider": 0,
        "bird": 0,
        "archer": 0,
    }


def test_a_cut_result_scores_0_when_its_column_count_rules_a_match_out() -> None:
    rows = [(i, i) for i in range(10)]
    for mode in EX_MODES:
        assert compare(capped(rows, 5), capped([(i,) for i in range(10)], 5), mode, order_matters=False) == 0


def test_a_cut_result_scores_0_when_the_rows_already_seen_rule_a_match_out() -> None:
    gold = capped([(i, "x") for i in range(10)], 5)
    # ordered gold: the seen prefixes differ at row 0
    assert (
        compare(gold, capped([(9, "x"), *((i, "x") for i in range(1, 10))], 5), "spider", order_matters=True)
        == 0
    )
    # same prefixes: the rest is unseen, so no verdict
    assert compare(gold, capped([("x", i) for i in range(10)], 5), "spider", order_matters=True) is None
    # bird: a seen predicted row that the complete gold lacks
    assert compare(res([(1,), (2,)]), capped([(1,), (3,), (1,)], 2), "bird", order_matters=False) == 0
    assert compare(res([(1,), (2,)]), capped([(1,), (2,), (1,)], 2), "bird", order_matters=False) is None
    # spider, unordered: more copies of a row seen than the complete gold has
    big_gold = res([(1,), (2,), (3,), (4,)])
    assert compare(big_gold, capped([(1,), (2,), (3,)], 2), "spider", order_matters=False) is None
    assert compare(big_gold, capped([(1,), (1,), (2,)], 2), "spider", order_matters=False) == 0


def test_spider_scores_the_first_statement_of_a_multi_statement_prediction() -> None:
    assert spider_sql("SELECT a FROM t; SELECT b FROM t") == "SELECT a FROM t;"
    assert spider_sql("SELECT a FROM t; This query lists a.") == "SELECT a FROM t;"
    assert spider_sql("SELECT ';' FROM t; x") == "SELECT ';' FROM t;"  # a quoted ; is not the end
    assert spider_sql("SELECT a FROM t -- ; no\n") == "SELECT a FROM t -- ; no\n"
    assert spider_sql("SELECT a FROM t;") == "SELECT a FROM t;"  # one statement: unchanged
    assert spider_sql("SELECT a FROM t;  ") == "SELECT a FROM t;  "


def test_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown EX mode"):
        compare(res([(1,)]), res([(1,)]), "strict", order_matters=False)


def test_modes_disagree_where_their_definitions_differ() -> None:
    gold_sql = "SELECT a, b FROM t"
    gold = res([(1, "x"), (1, "x"), (2, "y")])
    pred = res([("x", 1), ("y", 2)])  # columns swapped, duplicate dropped
    out = execution_outcomes(gold, pred, gold_sql)
    assert out == {"va": 1, "ex": 0, "ex_spider": 0, "ex_bird": 0, "ex_archer": 0}
    pred = res([(2, "y"), (1, "x")])
    assert execution_outcomes(gold, pred, gold_sql) == {
        "va": 1,
        "ex": 0,  # bags: the duplicate counts
        "ex_spider": 0,
        "ex_bird": 1,  # sets
        "ex_archer": 0,  # row counts differ
    }


def test_outcomes_when_gold_fails_keep_va() -> None:
    out = execution_outcomes(fail("runtime"), res([(1,)]), "SELECT 1")
    assert out == {"va": 1, "ex": None, "ex_spider": None, "ex_bird": None, "ex_archer": None}
