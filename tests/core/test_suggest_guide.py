"""The rules the labelling guide (docs/suggestions.md, "Labelling guide") implies, each on its doc example:
real sqlglot parses, and real SQLite where the prediction's error or results decide."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from sqltriage.core.model import Column, Schema, Table
from sqltriage.core.suggest import Suggestion, suggest_causes
from sqltriage.core.verdicts.execution import execute
from sqltriage.core.verdicts.pair_run import execution_outcomes

SCHOOLS = Schema(
    "schools",
    (
        Table("satscores", (Column("cds"), Column("AvgScrMath"))),
        Table("schools", (Column("CDSCode"), Column("County"))),
    ),
)
CARS = Schema(
    "cars",
    (
        Table("car_names", (Column("MakeId"), Column("Model"))),
        Table("model_list", (Column("ModelId"), Column("Model"))),
    ),
)


def _tags(found: list[Suggestion]) -> list[str]:
    return [s.tag for s in found]


def _run(db: Path, gold: str, pred: str, schema: Schema | None = None) -> list[Suggestion]:
    """The row as an evaluation runs it on its database."""
    g, p = execute(db, gold), execute(db, pred)
    ex = execution_outcomes(g, p, gold)["ex_spider"] if g.ok else None
    return suggest_causes(
        gold, pred, schema=schema, gold_result=g, pred_result=p, ex=ex, error=p.error, ex_mode="spider"
    )


@pytest.fixture
def schools_db(tmp_path: Path) -> Path:
    path = tmp_path / "schools.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript(
            "CREATE TABLE satscores (cds TEXT, AvgScrMath INTEGER);"
            "CREATE TABLE schools (CDSCode TEXT, County TEXT);"
            "INSERT INTO satscores VALUES ('1', 400), ('2', 600);"
            "INSERT INTO schools VALUES ('1', 'Alameda'), ('2', 'Fresno');"
        )
    return path


# --- 1. a column read from a table that lacks it: the attribute beside the table -------------------------


def test_a_column_read_from_a_table_without_it_is_an_attribute_and_a_missing_table() -> None:
    """Guide: "attribute added beside the table tag" (`County` read from satscores, schools never joined)."""
    found = suggest_causes(
        "SELECT T2.County FROM satscores AS T1 JOIN schools AS T2 ON T1.cds = T2.CDSCode ORDER BY T1.AvgScrMath LIMIT 1",
        "SELECT County FROM satscores ORDER BY AvgScrMath LIMIT 1",
        schema=SCHOOLS,
        ex=0,
    )
    assert {"Attribute: mismatch", "Table: missing"} <= set(_tags(found[:3]))


def test_the_error_no_such_column_names_the_attribute_and_the_table(schools_db: Path) -> None:
    found = _run(
        schools_db,
        "SELECT T2.County FROM satscores AS T1 JOIN schools AS T2 ON T1.cds = T2.CDSCode WHERE T1.AvgScrMath > 500",
        "SELECT County FROM satscores WHERE AvgScrMath > 500",
        SCHOOLS,
    )
    assert set(_tags(found[:2])) == {"Attribute: mismatch", "Table: missing"}
    assert all("schools" in s.reason for s in found[:2])


def test_a_same_named_column_of_a_replacing_table_is_both_tags() -> None:
    """Guide: `Model` of model_list for `Model` of car_names is "Table: mismatch" and "Attribute: mismatch"."""
    found = suggest_causes(
        "SELECT Model FROM car_names GROUP BY Model ORDER BY count(*) DESC LIMIT 1",
        "SELECT Model FROM model_list GROUP BY Model ORDER BY count(*) DESC LIMIT 1",
        schema=CARS,
        ex=0,
    )
    assert {"Table: mismatch", "Attribute: mismatch"} <= set(_tags(found[:3]))
    assert "Table: missing" not in _tags(found)


def test_a_column_the_table_has_is_not_misplaced() -> None:
    found = suggest_causes(
        "SELECT County FROM schools WHERE CDSCode = '1'",
        "SELECT County FROM schools WHERE CDSCode = '2'",
        schema=SCHOOLS,
        ex=0,
    )
    assert _tags(found) == ["Value: mismatch"]


def test_a_select_alias_named_like_a_column_of_another_table_is_not_misplaced() -> None:
    found = suggest_causes(
        "SELECT County, count(*) FROM schools GROUP BY County ORDER BY count(*) DESC LIMIT 1",
        "SELECT County, count(*) AS cds FROM schools GROUP BY County ORDER BY cds DESC LIMIT 1",
        schema=SCHOOLS,
        ex=0,
    )
    assert "Attribute: mismatch" not in _tags(found)


# --- 2. the same column from the other of two joined tables: the attribute alone --------------------------


def test_the_same_column_from_the_other_joined_table_is_the_attribute_alone() -> None:
    """Guide: `races.url` for `circuits.url`, both tables read: "Attribute: mismatch", not "Table: mismatch"."""
    found = suggest_causes(
        "SELECT c.url FROM circuits AS c JOIN races AS r ON r.cid = c.cid WHERE c.name = 'Monza'",
        "SELECT r.url FROM races AS r JOIN circuits AS c ON r.cid = c.cid WHERE c.name = 'Monza'",
        ex=0,
    )
    assert _tags(found) == ["Attribute: mismatch"]


# --- 3. a lookup's link column: the join condition ---------------------------------------------------------

FRIENDS = Schema(
    "school",
    (
        Table("highschooler", (Column("id"), Column("grade"))),
        Table("friend", (Column("student_id"), Column("friend_id"))),
    ),
)


@pytest.fixture
def bank_db(tmp_path: Path) -> Path:
    path = tmp_path / "bank.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript(
            "CREATE TABLE disp (disp_id INTEGER, account_id INTEGER, type TEXT);"
            "CREATE TABLE account (account_id INTEGER, district_id INTEGER);"
            "CREATE TABLE district (district_id INTEGER, A11 INTEGER);"
            "INSERT INTO disp VALUES (1, 1, 'OWNER'), (2, 2, 'DISPONENT');"
            "INSERT INTO account VALUES (1, 1), (2, 2);"
            "INSERT INTO district VALUES (1, 8500), (2, 9500);"
        )
    return path


def test_no_such_column_on_a_link_column_is_a_join_condition(bank_db: Path) -> None:
    """Guide: `district_id IN (SELECT district_id …)` on disp, which has no district_id, is "Table: join
    condition", not "Attribute: mismatch"."""
    found = _run(
        bank_db,
        "SELECT T3.type FROM district AS T1 JOIN account AS T2 ON T1.district_id = T2.district_id "
        "JOIN disp AS T3 ON T2.account_id = T3.account_id WHERE T1.A11 BETWEEN 8000 AND 9000",
        "SELECT type FROM disp WHERE district_id IN (SELECT district_id FROM district WHERE A11 BETWEEN 8000 AND 9000)",
    )
    assert found[0].tag == "Table: join condition" and "no such column" in found[0].reason
    assert "Attribute: mismatch" not in _tags(found)


def test_a_returned_column_missing_from_its_table_stays_an_attribute(bank_db: Path) -> None:
    found = _run(
        bank_db,
        "SELECT T2.district_id FROM disp AS T1 JOIN account AS T2 ON T1.account_id = T2.account_id",
        "SELECT district_id FROM disp WHERE NOT district_id IN (SELECT district_id FROM district)",
    )
    assert found[0].tag == "Attribute: mismatch"


def test_a_link_column_the_table_lacks_is_a_join_condition_though_sqlite_reads_it_from_outside() -> None:
    """`id IN (SELECT id FROM friend)`: friend has no id, SQLite takes the outer one and does not fail."""
    found = suggest_causes(
        "SELECT avg(grade) FROM highschooler WHERE id IN (SELECT student_id FROM friend)",
        "SELECT avg(grade) FROM highschooler WHERE id IN (SELECT id FROM friend)",
        schema=FRIENDS,
        ex=0,
    )
    assert _tags(found) == ["Table: join condition"]


def test_a_lookup_linking_the_tables_on_other_columns_is_a_join_condition() -> None:
    """Guide: `id NOT IN (SELECT id FROM cartoon …)` where gold links the channel's id with `channel`."""
    found = suggest_causes(
        "SELECT package_option FROM tv_channel WHERE id NOT IN (SELECT channel FROM cartoon WHERE directed_by = 'Ben Jones')",
        "SELECT package_option FROM tv_channel WHERE NOT id IN (SELECT id FROM cartoon WHERE directed_by = 'Ben Jones')",
        ex=0,
    )
    assert _tags(found) == ["Table: join condition"]


def test_a_lookup_on_a_column_named_alike_in_both_tables_is_a_link() -> None:
    found = suggest_causes(
        "SELECT T2.overall_rating FROM player AS T1 JOIN player_attributes AS T2 "
        "ON T1.player_fifa_api_id = T2.player_fifa_api_id WHERE T1.player_name = 'A'",
        "SELECT overall_rating FROM player_attributes WHERE player_api_id = "
        "(SELECT player_api_id FROM player WHERE player_name = 'A')",
        ex=0,
    )
    assert "Table: join condition" not in _tags(found)


# --- 4. one cause per difference ---------------------------------------------------------------------------

ONE_CAUSE = [
    # (gold, prediction, the tags, in order): the guide's examples of a replaced condition
    (  # column and value replaced: one condition mismatch, not a missing and a redundant one
        "SELECT name FROM t WHERE country = 'France'",
        "SELECT name FROM t WHERE city = 'Paris'",
        ["Condition: explicit mismatch"],
    ),
    (  # column replaced and the value in another case: two parts
        "SELECT count(*) FROM makers AS T1 JOIN countries AS T2 ON T1.country = T2.id WHERE T2.CountryName = 'france'",
        "SELECT count(*) FROM makers AS T1 JOIN countries AS T2 ON T1.country = T2.id WHERE T1.Country = 'France'",
        ["Condition: explicit mismatch"],
    ),
    (  # operator and value replaced
        "SELECT count(*) FROM cards WHERE hand = '3'",
        "SELECT count(*) FROM cards WHERE hand LIKE '+%'",
        ["Condition: explicit mismatch"],
    ),
    (  # one part: the column
        "SELECT a FROM t WHERE name = 'Ann'",
        "SELECT a FROM t WHERE title = 'Ann'",
        ["Attribute: mismatch"],
    ),
    (  # one part: the operator
        "SELECT a FROM t WHERE n > 5",
        "SELECT a FROM t WHERE n < 5",
        ["Operator: comparison"],
    ),
    (  # one comparison of a compound condition, one part: that part
        "SELECT id FROM customers WHERE NOT (first_name = 'Dameon' AND last_name = 'Sanford')",
        "SELECT id FROM customers WHERE NOT (first_name <> 'Dameon' AND last_name = 'Sanford')",
        ["Operator: comparison"],
    ),
    (  # the value in another form, the operator following it: the form first, the operator after it, and
        # the reading of two parts written otherwise as one condition replaced (the guide's rule 2) beside
        "SELECT d FROM lap WHERE time LIKE '1:27%'",
        "SELECT d FROM lap WHERE time = '0:01:27'",
        ["Value: data format", "Operator: comparison", "Condition: explicit mismatch"],
    ),
]


@pytest.mark.parametrize(("gold", "pred", "tags"), ONE_CAUSE)
def test_a_replaced_condition_is_one_cause(gold: str, pred: str, tags: list[str]) -> None:
    assert _tags(suggest_causes(gold, pred, ex=0)) == tags


def test_between_against_strict_bounds_is_one_doubtful_operator_not_a_redundant_bound() -> None:
    found = suggest_causes(
        "SELECT count(*) FROM district WHERE A11 BETWEEN 6000 AND 10000",
        "SELECT count(*) FROM district WHERE A11 > 6000 AND A11 < 10000",
        ex=0,
    )
    assert found == []  # (doubtful: the two differ only on a row holding a bound)


# --- 5. a word for its stored code ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gold_value", "pred_value"), [("EUR", "euro"), ("SVK", "Slovakia"), ("IN", "Indiana")]
)
def test_a_word_for_its_stored_code_is_data_format(gold_value: str, pred_value: str) -> None:
    found = suggest_causes(
        f"SELECT count(*) FROM customers WHERE currency = '{gold_value}'",
        f"SELECT count(*) FROM customers WHERE currency = '{pred_value}'",
        ex=0,
    )
    assert _tags(found) == ["Value: data format"]


@pytest.mark.parametrize(("gold_value", "pred_value"), [("EUR", "CZK"), ("SME", "Small"), ("USA", "Canada")])
def test_another_code_or_word_stays_a_value_mismatch(gold_value: str, pred_value: str) -> None:
    found = suggest_causes(
        f"SELECT count(*) FROM customers WHERE currency = '{gold_value}'",
        f"SELECT count(*) FROM customers WHERE currency = '{pred_value}'",
        ex=0,
    )
    assert _tags(found) == ["Value: mismatch"]


# --- 6. gold judged wrong: a difference that only follows gold's error ------------------------------------


@pytest.fixture
def world_db(tmp_path: Path) -> Path:
    path = tmp_path / "world.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript(
            "CREATE TABLE country (name TEXT, continent TEXT, population INTEGER);"
            "INSERT INTO country VALUES ('Canada', 'North America', 38), ('Mexico', 'North America', 126),"
            " ('Peru', 'South America', 33), ('Chad', 'africa', 17);"
        )
    return path


def test_gold_lower_case_value_that_matches_nothing_is_gold_wrong(world_db: Path) -> None:
    """Spider's gold writes "north america"; the data stores 'North America', which the prediction wrote."""
    found = _run(
        world_db,
        "SELECT sum(population), avg(population) FROM country WHERE continent = 'north america'",
        "SELECT sum(population), avg(population) FROM country WHERE continent = 'North America'",
    )
    assert _tags(found) == ["Evaluation: gold SQL wrong"]
    excluded = _run(
        world_db,
        "SELECT name FROM country WHERE continent != 'north america'",
        "SELECT name FROM country WHERE continent != 'North America'",
    )
    assert _tags(excluded) == ["Evaluation: gold SQL wrong"]


def test_a_lower_case_value_the_data_holds_stays_the_predictions_data_format(world_db: Path) -> None:
    found = _run(
        world_db,
        "SELECT name FROM country WHERE continent = 'africa'",
        "SELECT name FROM country WHERE continent = 'Africa'",
    )
    assert _tags(found) == ["Value: data format"]


def test_several_statements_are_read_as_their_first_with_the_rest_missing() -> None:
    """The first statement is the answer (a reader's and Spider's evaluator's reading); gold's columns that
    only later statements return are missing, and where the text runs as written (BIRD) it also fails."""
    gold = "SELECT type_id, (SELECT COUNT(DISTINCT user_id) FROM comments WHERE post_id = 7) FROM history WHERE post_id = 7"
    pred = "SELECT type_id FROM history WHERE post_id = 7; SELECT COUNT(DISTINCT user_id) FROM comments WHERE post_id = 7;"
    bird = _tags(suggest_causes(gold, pred, ex=0, ex_mode="bird"))
    assert "Attribute: missing" in bird and "Other: other" in bird
    spider = _tags(suggest_causes(gold, pred, ex=0, ex_mode="spider"))
    assert "Attribute: missing" in spider and "Other: other" not in spider


def test_a_right_first_statement_followed_by_prose_is_other() -> None:
    gold = "SELECT COUNT(*) FROM cards WHERE border = 'white'"
    pred = "SELECT COUNT(*) FROM cards WHERE border = 'white'; ### and now the next question"
    found = suggest_causes(
        gold, pred, ex=0, ex_mode="spider", error="You can only execute one statement at a time."
    )
    assert _tags(found) == ["Other: other"]
    assert "first statement" in found[0].reason


def test_a_reference_spelled_from_the_name_gold_tests_names_the_same_row() -> None:
    gold = "SELECT MIN(r.fastestLapTime) FROM drivers AS d JOIN results AS r ON r.driverId = d.driverId WHERE d.forename = 'Lewis' AND d.surname = 'Hamilton'"
    pred = "SELECT MIN(fastestLapTime) FROM results WHERE driverId = (SELECT driverId FROM drivers WHERE driverRef = 'hamilton')"
    assert suggest_causes(gold, pred, ex=0) == []
    other = pred.replace("'hamilton'", "'vettel'")
    assert "Condition: explicit mismatch" in _tags(suggest_causes(gold, other, ex=0))


def test_a_value_named_at_more_length_is_also_read_as_its_stored_form() -> None:
    gold = "SELECT Website FROM schools WHERE County = 'Los Angeles'"
    pred = "SELECT Website FROM schools WHERE County = 'Los Angeles County'"
    assert _tags(suggest_causes(gold, pred, ex=0))[:2] == ["Value: mismatch", "Value: data format"]


def test_an_operator_split_by_a_space_is_read_joined_and_the_rest_compared() -> None:
    """`ALB < = 3.5`, as BIRD's evidence writes it: SQLite refuses it, and the rest of the query is still
    compared (every column selected, a column of a table never read)."""
    gold = "SELECT DISTINCT T1.ID FROM Patient AS T1 JOIN Laboratory AS T2 ON T1.ID = T2.ID WHERE T1.SEX = 'M' AND (T2.ALB <= 3.5 OR T2.ALB >= 5.5)"
    pred = "SELECT * FROM Patient WHERE SEX = 'M' AND (ALB < = 3.5 OR ALB > = 5.5)"
    tags = _tags(suggest_causes(gold, pred, ex=0, ex_mode="bird"))
    assert "Other: other" in tags and ({"Table: missing", "Attribute: redundant"} & set(tags))
