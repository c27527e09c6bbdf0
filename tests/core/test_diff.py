"""Clause-aligned, token-marked diff of gold and predicted SQL."""

from __future__ import annotations

from sqltriage.core.sql.diff import EQUAL, GOLD_ONLY, PRED_ONLY, sql_diff


def _marked(tokens, kind: str) -> list[str]:
    return [t.text for t in tokens if t.kind == kind]


def test_layout_and_case_are_not_differences() -> None:
    d = sql_diff("select name from singer where age > 3;", "SELECT  name\nFROM singer WHERE age > 3")
    assert d.identical
    assert d.gold_pretty == d.pred_pretty


def test_clauses_are_aligned_and_tokens_marked() -> None:
    d = sql_diff(
        "SELECT name FROM singer WHERE age > 30 ORDER BY age DESC",
        "SELECT name FROM singer WHERE age > 20 ORDER BY age LIMIT 1",
    )
    assert [c.clause for c in d.clauses] == ["SELECT", "FROM", "WHERE", "ORDER BY", "LIMIT"]
    by_name = {c.clause: c for c in d.clauses}
    assert by_name["SELECT"].equal and by_name["FROM"].equal
    assert _marked(by_name["WHERE"].gold, GOLD_ONLY) == ["30"]
    assert _marked(by_name["WHERE"].pred, PRED_ONLY) == ["20"]
    assert _marked(by_name["ORDER BY"].gold, GOLD_ONLY) == ["DESC"]
    assert by_name["LIMIT"].gold == () and _marked(by_name["LIMIT"].pred, PRED_ONLY) == ["LIMIT", "1"]
    assert not d.identical


def test_string_case_is_a_difference_keyword_case_is_not() -> None:
    d = sql_diff("SELECT a FROM t WHERE b = 'France'", "select a from t where b = 'france'")
    where = next(c for c in d.clauses if c.clause == "WHERE")
    assert _marked(where.gold, GOLD_ONLY) == ["'France'"]
    assert "WHERE" in _marked(where.gold, EQUAL)


def test_nested_query_stays_inside_its_clause() -> None:
    d = sql_diff(
        "SELECT a FROM t WHERE b IN (SELECT b FROM s WHERE c = 1)",
        "SELECT a FROM t WHERE b IN (SELECT b FROM s)",
    )
    assert [c.clause for c in d.clauses] == ["SELECT", "FROM", "WHERE"]
    where = d.clauses[2]
    assert _marked(where.gold, GOLD_ONLY) == ["WHERE", "c", "=", "1"]


def test_resolved_aliases_hide_alias_choice() -> None:
    gold = "SELECT T1.name FROM singer AS T1"
    pred = "SELECT name FROM singer"
    assert not sql_diff(gold, pred).identical
    assert sql_diff(gold, pred, resolve=True).identical


def test_unparseable_side_is_diffed_as_written() -> None:
    d = sql_diff("SELECT name FROM singer", "SELEC name FROM singer")
    assert d.pred_error is not None and d.gold_error is None
    assert d.pred_pretty == "SELEC name FROM singer"
    assert any(t.kind == PRED_ONLY for c in d.clauses for t in c.pred)


def test_tokens_carry_spacing_for_one_line_rendering() -> None:
    d = sql_diff("SELECT count(*) FROM t", "SELECT count(*) FROM t")
    rendered = "".join((" " if t.space else "") + t.text for t in d.clauses[0].gold)
    assert rendered == "SELECT COUNT(*)"
