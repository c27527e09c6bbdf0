"""Each lint on a real query where it fires (a Spider dev or BIRD dev gold, or a system's prediction, named in
the test) and on a near miss where it must stay silent; hand-written queries only where no real one fires."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from sqltriage.core.datasets import load_dataset
from sqltriage.core.model import Dataset, Schema
from sqltriage.core.sql.lints import LINTS, LintHit, format_lints, lint_query
from sqltriage.core.sql.parse import parse_sql


@pytest.fixture(scope="module")
def spider(spider_dev: Path) -> Dataset:
    return load_dataset(spider_dev / "dev.json")


@pytest.fixture(scope="module")
def bird(shared_data: Path) -> Dataset:
    return load_dataset(shared_data / "bird_dev" / "dev.json")


def lint(sql: str, schema: Schema | None = None, question: str | None = None) -> list[LintHit]:
    parsed = parse_sql(sql, schema)
    assert parsed.ok and parsed.tree is not None, parsed.error
    return lint_query(parsed.tree, schema, question)


def gold(ds: Dataset, index: int, sql: str | None = None) -> list[LintHit]:
    """The lints of example `index`'s gold (or of `sql` asked of the same example)."""
    e = ds.examples[index]
    return lint(sql if sql is not None else e.gold_sql, ds.schemas[e.db_id], e.question)


def spider_prediction(spider_dev: Path, spider: Dataset, system: str, index: int) -> list[LintHit]:
    line = (spider_dev / "predictions" / f"{system}.sql").read_text(encoding="utf-8").splitlines()[index]
    return gold(spider, index, line)


def bird_prediction(shared_data: Path, bird: Dataset, index: int) -> list[LintHit]:
    """The official ChatGPT + knowledge baseline's prediction for BIRD dev example `index`."""
    found = json.loads((shared_data / "bird_dev" / "predict_dev_chatgpt_kg.json").read_text(encoding="utf-8"))
    return gold(bird, index, found[str(index)].split("\t----- bird -----\t")[0])


def only(hits: list[LintHit], lint_id: str) -> list[str]:
    return [h.detail for h in hits if h.id == lint_id]


# ----- counting -----


def test_count_of_case_else_zero_fires_on_bird_gold_1279(bird: Dataset) -> None:
    # "percentage of patients …": COUNT(CASE … ELSE 0 END) counts every patient, so the share is always 1
    assert only(gold(bird, 1279), "count-case-else-zero") == [
        "COUNT(CASE WHEN T1.Diagnosis LIKE '%SLE%' THEN T1.ID ELSE 0 END)"
    ]


def test_count_of_case_else_null_is_silent_bird_gold_317(bird: Dataset) -> None:
    assert "ELSE NULL END" in bird.examples[317].gold_sql
    assert only(gold(bird, 317), "count-case-else-zero") == []
    assert only(lint("SELECT SUM(CASE WHEN a > 1 THEN 1 ELSE 0 END) FROM t"), "count-case-else-zero") == []


def test_count_of_iif_with_a_value_fires() -> None:
    assert only(lint("SELECT COUNT(IIF(a > 1, 1, 0)) FROM t"), "count-case-else-zero") == [
        "COUNT(IIF(a > 1, 1, 0))"
    ]
    assert only(lint("SELECT COUNT(IIF(a > 1, 1, NULL)) FROM t"), "count-case-else-zero") == []


def test_count_without_distinct_fires_on_the_spider_example_predictions_56(
    spider_dev: Path, spider: Dataset
) -> None:
    # "How many different types of pet are there?" predicted as count(PetType): every pet, not every type
    hits = spider_prediction(spider_dev, spider, "spider_repo_pred_example", 56)
    assert only(hits, "count-without-distinct") == ["COUNT(PetType)"]


def test_count_with_distinct_or_of_a_key_is_silent(spider: Dataset) -> None:
    assert only(gold(spider, 56), "count-without-distinct") == []  # count(DISTINCT pettype)
    # counting a key needs no DISTINCT: each value is one row
    assert only(gold(spider, 56, "SELECT count(petid) FROM pets"), "count-without-distinct") == []


# ----- comparisons -----


def test_self_comparison_fires_on_graphix_spider_632(spider_dev: Path, spider: Dataset) -> None:
    # `"Hight_definition_TV"` names the column itself in SQLite: the filter compares the column with itself
    hits = spider_prediction(spider_dev, spider, "graphix_t5_daildir", 632)
    assert only(hits, "self-comparison") == ['hight_definition_tv = "Hight_definition_TV"']


def test_self_comparison_fires_on_graphix_spider_258_join(spider_dev: Path, spider: Dataset) -> None:
    hits = spider_prediction(spider_dev, spider, "graphix_t5_daildir", 258)
    assert only(hits, "self-comparison") == ["flights.destairport = flights.destairport"]


def test_a_column_compared_with_a_value_or_another_alias_is_silent(spider: Dataset) -> None:
    assert only(gold(spider, 632), "self-comparison") == []  # hight_definition_TV = "yes": a value
    assert only(lint("SELECT * FROM a AS T1 JOIN a AS T2 ON T1.id = T2.id"), "self-comparison") == []


def test_equals_null_fires_on_either_operator() -> None:
    hits = lint("SELECT name FROM singer WHERE country = NULL OR age != NULL")
    assert only(hits, "equals-null") == ["country = NULL", "age <> NULL"]


def test_is_null_is_silent() -> None:
    assert only(lint("SELECT name FROM singer WHERE country IS NULL OR age IS NOT NULL"), "equals-null") == []


def test_like_without_wildcard_fires_on_spider_gold_361(spider: Dataset) -> None:
    # "paragraph that includes the text 'Korea'": LIKE 'korea' matches only a paragraph that is exactly that
    assert only(gold(spider, 361), "like-without-wildcard") == ["paragraph_text LIKE 'korea'"]


def test_like_with_a_wildcard_is_silent(spider: Dataset) -> None:
    fixed = "select other_details from paragraphs where paragraph_text like '%korea%'"
    assert only(gold(spider, 361, fixed), "like-without-wildcard") == []


def test_text_ordered_against_a_number_fires_on_spider_gold_125(spider: Dataset, spider_dev: Path) -> None:
    assert only(gold(spider, 125), "text-compared-with-number") == ["horsepower > 150"]
    # what the lint warns of, on the real database: the digits compare as text ('95' > '150')
    db = sqlite3.connect(spider_dev / "database" / "car_1" / "car_1.sqlite")
    as_text = db.execute(spider.examples[125].gold_sql).fetchone()[0]
    as_number = db.execute("SELECT count(*) FROM cars_data WHERE CAST(horsepower AS REAL) > 150").fetchone()[
        0
    ]
    db.close()
    assert (as_text, as_number) == (281, 49)


def test_a_number_column_ordered_against_a_number_is_silent(spider: Dataset) -> None:
    assert only(gold(spider, 45), "text-compared-with-number") == []  # pets.weight > 10, weight a number


def test_number_compared_with_a_word_fires_on_dinsql_spider_215(spider_dev: Path, spider: Dataset) -> None:
    # flights.Airline is the airline's number; its name is in airlines, which the gold joins
    hits = spider_prediction(spider_dev, spider, "dinsql_gpt4", 215)
    assert only(hits, "number-compared-with-word") == ["Airline = 'United Airlines'"]


def test_number_compared_with_a_number_string_or_text_column_is_silent(spider: Dataset) -> None:
    assert only(gold(spider, 215), "number-compared-with-word") == []  # airlines.Airline is text
    assert (
        only(
            gold(spider, 215, "SELECT count(*) FROM flights WHERE Airline = '5'"), "number-compared-with-word"
        )
        == []
    )


# ----- arithmetic -----


def test_integer_division_fires_on_bird_golds_1391_317_1033(bird: Dataset) -> None:
    # a ratio of two counts, a truncated percentage, a mean of integer heights
    (ratio,) = only(gold(bird, 1391), "integer-division")
    assert ratio.startswith("SUM(CASE WHEN major_name = 'Finance' THEN 1 ELSE 0 END) / SUM(CASE")
    assert len(only(gold(bird, 317), "integer-division")) == 1
    assert only(gold(bird, 1033), "integer-division") == ["SUM(height) / COUNT(id)"]


def test_division_cast_to_real_or_by_a_literal_is_silent(bird: Dataset) -> None:
    assert "AS REAL" in bird.examples[1190].gold_sql
    assert only(gold(bird, 1190), "integer-division") == []
    assert only(lint("SELECT COUNT(x) * 1.0 / COUNT(*) FROM t"), "integer-division") == []
    assert only(lint("SELECT year / 10 FROM t", question="Which decade?"), "integer-division") == []


# ----- ordering -----


def test_limit_without_order_by_fires_on_bird_gold_580(bird: Dataset) -> None:
    assert only(gold(bird, 580), "limit-without-order-by") == ["LIMIT 10"]


def test_limit_over_one_aggregate_row_or_an_order_is_silent() -> None:
    assert only(lint("SELECT count(*) FROM t LIMIT 1"), "limit-without-order-by") == []
    assert only(lint("SELECT a FROM t ORDER BY a LIMIT 3"), "limit-without-order-by") == []
    assert (
        only(lint("SELECT a FROM x UNION SELECT b FROM y ORDER BY 1 LIMIT 2"), "limit-without-order-by") == []
    )


def test_limit_one_dropping_ties_fires_on_spider_gold_7(spider: Dataset) -> None:
    # "all the songs of the youngest singer": singers can share the youngest age, LIMIT 1 keeps one song
    assert only(gold(spider, 7), "limit-one-drops-ties") == ["ORDER BY age"]


def test_limit_one_for_the_one_extreme_or_a_key_is_silent(spider: Dataset, bird: Dataset) -> None:
    assert spider.examples[6].gold_sql == spider.examples[7].gold_sql
    assert only(gold(spider, 6), "limit-one-drops-ties") == []  # "the song by the youngest singer"
    # a subquery reading only its sort key: tied rows give the same value
    assert only(gold(bird, 884), "limit-one-drops-ties") == []
    key = "SELECT song_name FROM singer ORDER BY singer_id LIMIT 1"
    assert only(gold(spider, 7, key), "limit-one-drops-ties") == []


def test_aggregate_in_where_fires_on_llama_spider_162(spider_dev: Path, spider: Dataset) -> None:
    hits = spider_prediction(spider_dev, spider, "nl2sql360_Llama2-7B", 162)
    assert only(hits, "aggregate-in-where") == ["COUNT(*)"]


def test_aggregate_in_a_where_subquery_or_union_order_is_silent(spider: Dataset) -> None:
    assert only(gold(spider, 974), "aggregate-in-where") == []  # age < (SELECT avg(age) FROM Dogs)
    union = "SELECT a FROM t WHERE a IN (SELECT b FROM u UNION SELECT c FROM v GROUP BY 1 ORDER BY COUNT(*) LIMIT 1)"
    assert only(lint(union), "aggregate-in-where") == []


# ----- grouping -----


def test_group_by_name_fires_on_spider_gold_469(spider: Dataset) -> None:
    # "for each player": players sharing a first name are averaged together; player_id is in the join
    assert only(gold(spider, 469), "group-by-name") == ["GROUP BY T1.first_name"]


def test_group_by_the_key_is_silent(spider: Dataset) -> None:
    assert only(gold(spider, 25), "group-by-name") == []  # GROUP BY t2.stadium_id, selecting the name
    by_key = (
        "SELECT avg(ranking), T1.first_name FROM players AS T1 JOIN rankings AS T2 "
        "ON T1.player_id = T2.player_id GROUP BY T1.player_id"
    )
    assert only(gold(spider, 469, by_key), "group-by-name") == []


def test_having_without_group_by_fires() -> None:
    assert only(lint("SELECT name FROM singer HAVING count(*) > 1"), "having-without-group-by") == [
        "HAVING COUNT(*) > 1"
    ]


def test_having_with_group_by_is_silent(spider: Dataset) -> None:
    assert "HAVING" in spider.examples[162].gold_sql.upper()
    assert only(gold(spider, 162), "having-without-group-by") == []


# ----- joins -----


def test_join_on_same_alias_fires_on_bird_gold_646(bird: Dataset) -> None:
    assert only(gold(bird, 646), "join-on-same-alias") == ["T2.PostId = T2.Id"]
    assert only(gold(bird, 646), "join-not-linking") == []  # one mistake, one lint


def test_join_on_two_aliases_is_silent(bird: Dataset) -> None:
    fixed = bird.examples[646].gold_sql.replace("T2.PostId = T2.Id", "T2.PostId = T1.Id")
    assert [h.id for h in gold(bird, 646, fixed) if h.id.startswith("join-")] == []


def test_join_not_linking_fires_on_bird_chatgpt_prediction_1480(shared_data: Path, bird: Dataset) -> None:
    # `JOIN customers ON transactions_1k.CustomerID`: the condition never reads customers
    hits = bird_prediction(shared_data, bird, 1480)
    assert only(hits, "join-not-linking") == ["transactions_1k.CustomerID"]


def test_join_not_linking_fires_on_a_condition_between_earlier_tables() -> None:
    sql = "SELECT * FROM a AS T1 JOIN b AS T2 ON T1.id = T2.aid JOIN c AS T3 ON T1.id = T2.bid"
    assert only(lint(sql), "join-not-linking") == ["T1.id = T2.bid"]
    linked = "SELECT * FROM a AS T1 JOIN b AS T2 ON T1.id = T2.aid JOIN c AS T3 ON T3.id = T2.bid"
    assert only(lint(linked), "join-not-linking") == []


# ----- nulls -----


def test_not_in_over_an_attribute_fires_on_bird_gold_247(bird: Dataset) -> None:
    assert len(only(gold(bird, 247), "not-in-nullable")) == 1


def test_not_in_over_a_foreign_key_is_silent(spider: Dataset) -> None:
    assert (
        only(gold(spider, 28), "not-in-nullable") == []
    )  # stadium_id NOT IN (SELECT stadium_id FROM concert)


# ----- the registry -----


def test_registry_ids_are_kebab_case_and_unique() -> None:
    ids = [lint.id for lint in LINTS]
    assert len(ids) == len(set(ids))
    assert all(i == i.lower() and " " not in i and "_" not in i and i.strip("-") == i for i in ids)
    assert all(lint.title and lint.explanation for lint in LINTS)


def test_format_lints_gives_distinct_sorted_ids() -> None:
    hits = [LintHit("limit-without-order-by", "LIMIT 3"), LintHit("equals-null", "a = NULL")]
    assert format_lints([*hits, LintHit("equals-null", "b = NULL")]) == "equals-null; limit-without-order-by"
    assert format_lints([]) == ""


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT",
        "SELECT * FROM (SELECT 1) JOIN (SELECT 2) ON 1",
        "SELECT COUNT() FROM t LIMIT x",
        "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c LIMIT 5) SELECT n / n FROM c",
        "SELECT a FROM t GROUP BY HAVING",
    ],
)
def test_odd_sql_never_raises(sql: str, spider: Dataset) -> None:
    parsed = parse_sql(sql, spider.schemas["concert_singer"])
    if parsed.tree is not None:
        assert isinstance(lint_query(parsed.tree, spider.schemas["concert_singer"], None), list)
        assert isinstance(lint_query(parsed.tree, None, "how many different ones tie?"), list)
