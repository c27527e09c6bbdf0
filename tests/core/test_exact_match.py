"""Exact-set match on fixture cases (tests/core/fixtures/em/cases.txt) over a small tables.json."""

from __future__ import annotations

from pathlib import Path

import pytest

from sqltriage.core.datasets.schema import load_tables_json
from sqltriage.core.model import Schema
from sqltriage.core.sql.exact_match import ExactMatch, exact_match
from sqltriage.core.sql.parse import parse_sql
from sqltriage.core.sql.spider_struct import clause_order_error, foreign_key_map

FIXTURES = Path(__file__).parent / "fixtures" / "em"


def _cases() -> list[dict[str, str]]:
    cases: list[dict[str, str]] = []
    block: dict[str, str] = {}
    for line in [*(FIXTURES / "cases.txt").read_text(encoding="utf-8").splitlines(), ""]:
        if line.startswith("#"):
            continue
        if not line.strip():
            if block:
                cases.append(block)
            block = {}
            continue
        key, _, value = line.partition(":")
        block[key.strip()] = value.strip()
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def schemas() -> dict[str, Schema]:
    return load_tables_json(FIXTURES / "tables.json")


def _score(text: str) -> int | None:
    return None if text == "None" else int(text)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_case(case: dict[str, str], schemas: dict[str, Schema]) -> None:
    result = exact_match(case["gold"], case["pred"], schemas[case["db"]])
    assert (result.em, result.em_spider) == (_score(case["em"]), _score(case["em_spider"])), result
    expected_error = case.get("error")
    if expected_error == "-":
        assert result.error is None
    elif expected_error:
        assert result.error is not None and expected_error in result.error, result
    if "reason" in case:
        assert result.reason == case["reason"], result


def test_fixture_covers_both_verdicts() -> None:
    """The cases exercise every outcome, including em and em_spider disagreeing."""
    pairs = {(c["em"], c["em_spider"]) for c in CASES}
    assert {("1", "1"), ("0", "0"), ("0", "1"), ("None", "None")} <= pairs


def test_em_never_exceeds_em_spider(schemas: dict[str, Schema]) -> None:
    for case in CASES:
        result = exact_match(case["gold"], case["pred"], schemas[case["db"]])
        if result.em is not None and result.em_spider is not None:
            assert result.em <= result.em_spider, case["name"]


def test_parsed_queries_score_like_text(schemas: dict[str, Schema]) -> None:
    """A pipeline passes earlier parses; the verdicts do not change."""
    for case in CASES:
        schema = schemas[case["db"]]
        from_text = exact_match(case["gold"], case["pred"], schema)
        from_trees = exact_match(parse_sql(case["gold"], schema), parse_sql(case["pred"], schema), schema)
        assert (from_trees.em, from_trees.em_spider) == (from_text.em, from_text.em_spider), case["name"]


def test_gold_analysis_is_reused_without_leaking_between_predictions(schemas: dict[str, Schema]) -> None:
    schema = schemas["concert_singer"]
    gold = "SELECT Name FROM singer WHERE Age > 20 ORDER BY Age DESC LIMIT 1"
    first = exact_match(gold, "SELECT Age FROM singer", schema)
    second = exact_match(gold, "SELECT Name FROM singer WHERE Age > 30 ORDER BY Age DESC LIMIT 1", schema)
    third = exact_match(gold, "SELECT Age FROM singer", schema)
    assert (first.em_spider, second.em_spider, third.em_spider) == (0, 1, 0)
    assert first == third


def test_result_is_a_frozen_record(schemas: dict[str, Schema]) -> None:
    result = exact_match(
        "SELECT count(*) FROM singer", "SELECT count(*) FROM singer", schemas["concert_singer"]
    )
    assert result == ExactMatch(1, 1, None, None)
    with pytest.raises(AttributeError):
        result.em = 0  # type: ignore[misc]


def test_foreign_key_map_follows_the_official_grouping(schemas: dict[str, Schema]) -> None:
    """Every column of a key set maps to the set's lowest-numbered column (tables.json order)."""
    kmap = foreign_key_map(schemas["flight_2"])
    assert kmap["__flights.destairport__"] == "__airports.airportcode__"
    assert kmap["__flights.sourceairport__"] == "__airports.airportcode__"
    assert "__flights.flightno__" not in kmap


@pytest.mark.parametrize(
    ("sql", "bad"),
    [
        ("SELECT a FROM t GROUP BY a WHERE b = 1", True),
        ("SELECT a FROM t ORDER BY a LIMIT 1", False),
        ("SELECT a FROM t HAVING count(*) > 1 GROUP BY a", False),  # SQLite accepts HAVING first
        ("SELECT a FROM t GROUP BY a HAVING count(*) > (SELECT count(*) FROM u WHERE x = 1)", False),
        ("SELECT a FROM t GROUP BY a UNION SELECT b FROM u WHERE b = 1", False),
        ("SELECT a FROM t LIMIT 1 ORDER BY a", True),
    ],
)
def test_clause_order(sql: str, bad: bool) -> None:
    assert (clause_order_error(sql) is not None) == bad


@pytest.mark.parametrize(
    "pred",
    [
        "SELECT " + "(" * 3000 + "1" + ")" * 3000,
        "PRAGMA table_info(singer)",
        "INSERT INTO singer VALUES (1)",
        "WITH x AS (SELECT 1) SELECT * FROM x",
        "\x00\x01",
        "VALUES (1)",
    ],
    ids=["deep nesting", "pragma", "insert", "cte", "control characters", "values"],
)
def test_predictions_that_are_not_spider_queries_score_zero_with_a_reason(
    pred: str, schemas: dict[str, Schema]
) -> None:
    result = exact_match("SELECT Name FROM singer", pred, schemas["concert_singer"])
    assert (result.em, result.em_spider) == (0, 0)
    assert result.error is not None and result.error.startswith("prediction:")


@pytest.mark.parametrize(
    "pred",
    [
        "(SELECT Name FROM singer) UNION (SELECT Name FROM singer ORDER BY Age LIMIT 1) ORDER BY 1",
        "SELECT Name FROM singer UNION (SELECT Name FROM singer UNION SELECT Country FROM singer)",
        "SELECT * FROM singer AS T1 JOIN singer AS T2 ON T1.Age = T2.Age JOIN concert USING (Stadium_ID)",
        "SELECT CASE WHEN Age > 1 THEN 'a' END, strftime('%Y', Age) FROM singer ORDER BY 99",
        "SELECT Name FROM singer WHERE EXISTS (SELECT * FROM nowhere) AND NOT (Age > 1 OR Age < 0)",
    ],
)
def test_unusual_valid_sql_gets_a_verdict(pred: str, schemas: dict[str, Schema]) -> None:
    result = exact_match("SELECT Name FROM singer", pred, schemas["concert_singer"])
    assert result.error is None
    assert (result.em, result.em_spider) == (0, 0)
