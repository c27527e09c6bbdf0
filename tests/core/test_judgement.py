"""The judgement's parts on real databases: what a witness assumes, the gold's flags, the decision table.

Witnesses are built the way the neighbour generator and the solver leave them (the original's schema, a
few rows), on Spider dev's real databases, so each assumption is decided against real data.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from sqltriage.core.verdicts.judgement.assumption import classify
from sqltriage.core.verdicts.judgement.decide import judge
from sqltriage.core.verdicts.judgement.gold_flags import consensus, gold_flags, strong


def witness(original: Path, path: Path, rows: dict[str, list[tuple[Any, ...]]]) -> Path:
    """A database with the original's tables (empty) and these rows."""
    source = sqlite3.connect(original)
    ddl = [
        sql
        for (sql,) in source.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL AND name NOT LIKE 'sqlite_%'"
        )
    ]
    source.close()
    out = sqlite3.connect(path)
    for statement in ddl:
        out.execute(statement)
    for table, values in rows.items():
        for row in values:
            out.execute(f'INSERT INTO "{table}" VALUES ({", ".join("?" * len(row))})', row)
    out.commit()
    out.close()
    return path


def db(spider_dev: Path, name: str) -> Path:
    return spider_dev / "database" / name / f"{name}.sqlite"


# --- what a refutation assumes ------------------------------------------------------------------------


def test_two_students_named_kyle_is_a_duplicate(spider_dev: Path, tmp_path: Path) -> None:
    """network_1 has one Kyle: a witness with two needs a world the question never meant, and the scalar
    subquery is not told apart from the join on real data."""
    original = db(spider_dev, "network_1")
    w = witness(
        original,
        tmp_path / "w.sqlite",
        {
            "Highschooler": [(1780, "Kris", 11), (1129, "Kyle", 10), (1379, "Kyle", 12)],
            "Friend": [(1379, 1780)],
        },
    )
    gold = 'SELECT count(*) FROM Friend AS T1 JOIN Highschooler AS T2 ON T1.student_id = T2.id WHERE T2.name = "Kyle"'
    pred = "SELECT COUNT(*) FROM friend WHERE student_id = (SELECT id FROM highschooler WHERE name = 'Kyle')"
    found = classify(w, original, gold, pred)
    assert found is not None
    assert found.kind == "duplicate"
    assert "share a name, the value the gold names ('Kyle')" in found.detail


def test_a_name_the_data_repeats_is_realistic(spider_dev: Path, tmp_path: Path) -> None:
    """pets_1's students share first names (34 students, 24 first names): two Georges are realistic, so a
    gold that INTERSECTs first names differs from one that goes by the student on a realistic database."""
    original = db(spider_dev, "pets_1")
    w = witness(
        original,
        tmp_path / "w.sqlite",
        {
            "Student": [
                (1003, "Schul", "George", 22, "M", 600, 8918, "Xmc"),
                (1018, "Smith", "George", 20, "F", 50, 1121, "BO"),
            ],
            "Has_Pet": [(1018, 2002), (1003, 3895)],
            "Pets": [(2002, "cat", 3, 9.3), (3895, "dog", 2, 9.3)],
        },
    )
    gold = (
        "SELECT T1.Fname FROM student AS T1 JOIN has_pet AS T2 ON T1.stuid = T2.stuid JOIN pets AS T3 ON "
        "T3.petid = T2.petid WHERE T3.pettype = 'cat' INTERSECT SELECT T1.Fname FROM student AS T1 JOIN "
        "has_pet AS T2 ON T1.stuid = T2.stuid JOIN pets AS T3 ON T3.petid = T2.petid WHERE T3.pettype = 'dog'"
    )
    pred = (
        "SELECT Fname FROM Student WHERE StuID IN (SELECT StuID FROM Has_Pet WHERE PetID IN (SELECT PetID FROM "
        "Pets WHERE PetType = 'cat') INTERSECT SELECT StuID FROM Has_Pet WHERE PetID IN (SELECT PetID FROM Pets "
        "WHERE PetType = 'dog'))"
    )
    found = classify(w, original, gold, pred)
    assert found is not None
    assert found.kind == "none"
    assert found.detail.startswith("they differ on a realistic database of 6 rows")


def test_a_null_where_the_named_rows_never_have_one(spider_dev: Path, tmp_path: Path) -> None:
    """world_1's LifeExpectancy is NULL for some countries but for none in Asia: an Asian country without
    one is a world the question never meant, though the column holds NULLs."""
    original = db(spider_dev, "world_1")
    source = sqlite3.connect(original)
    row = list(
        source.execute("SELECT * FROM country WHERE Continent = 'Asia' ORDER BY Code LIMIT 1").fetchone()
    )
    cols = [r[1] for r in source.execute("PRAGMA table_info(country)")]
    source.close()
    row[cols.index("LifeExpectancy")] = None
    w = witness(original, tmp_path / "w.sqlite", {"country": [tuple(row)]})
    gold = 'SELECT Name FROM country WHERE Continent = "Asia" ORDER BY LifeExpectancy LIMIT 1'
    pred = (
        "SELECT Name FROM country WHERE Continent='Asia' AND LifeExpectancy = "
        "(SELECT MIN(LifeExpectancy) FROM country WHERE Continent='Asia')"
    )
    found = classify(w, original, gold, pred)
    assert found is not None
    assert found.kind == "null"
    assert "country.LifeExpectancy is NULL" in found.detail


def test_a_type_without_templates_is_an_empty_group(spider_dev: Path, tmp_path: Path) -> None:
    """Every template type of cre_Doc_Template_Mgt has templates: listing the types with fewer than three
    from the types table or from the templates differs only on a type with none."""
    original = db(spider_dev, "cre_Doc_Template_Mgt")
    w = witness(original, tmp_path / "w.sqlite", {"Ref_Template_Types": [("PPT", "CV")]})
    gold = "SELECT template_type_code FROM Templates GROUP BY template_type_code HAVING count(*) < 3"
    pred = (
        "SELECT Ref_Template_Types.Template_Type_Code FROM Ref_Template_Types WHERE "
        "Ref_Template_Types.Template_Type_Code NOT IN (SELECT Templates.Template_Type_Code FROM Templates "
        "GROUP BY Templates.Template_Type_Code HAVING COUNT(*) >= 3)"
    )
    found = classify(w, original, gold, pred)
    assert found is not None
    assert found.kind == "empty"
    assert "has no Templates ('PPT')" in found.detail


def test_grouping_by_a_type_the_data_never_repeats(spider_dev: Path, tmp_path: Path) -> None:
    """dog_kennels' charge types are all distinct: a prediction grouping by them loses a row only when two
    charges share a type; the prediction is the fragile side."""
    original = db(spider_dev, "dog_kennels")
    w = witness(original, tmp_path / "w.sqlite", {"Charges": [(1, "Drugs", 322), (2, "Drugs", 640)]})
    found = classify(
        w,
        original,
        "SELECT charge_type, charge_amount FROM Charges",
        "select charge_type, charge_amount from charges group by charge_type",
    )
    assert found is not None
    assert (found.kind, found.fragile) == ("duplicate", "prediction")


def test_a_tie_at_the_cut(spider_dev: Path, tmp_path: Path) -> None:
    """Two singers of the same age at ORDER BY age LIMIT 1 against = MIN(age): the one that cuts is fragile."""
    original = db(spider_dev, "concert_singer")
    w = witness(
        original,
        tmp_path / "w.sqlite",
        {
            "singer": [
                (1, "Joe Sharp", "Netherlands", "You", "1992", 52, "F"),
                (2, "Timbaland", "United States", "Dangerous", "2008", 52, "T"),
            ]
        },
    )
    gold = "SELECT name FROM singer WHERE age = (SELECT min(age) FROM singer)"
    pred = "SELECT name FROM singer ORDER BY age LIMIT 1"
    found = classify(w, original, gold, pred)
    assert found is not None
    assert (found.kind, found.fragile) == ("tie", "prediction")


def test_a_witness_that_no_longer_refutes_is_not_classified(spider_dev: Path, tmp_path: Path) -> None:
    original = db(spider_dev, "concert_singer")
    w = witness(
        original, tmp_path / "w.sqlite", {"singer": [(1, "Joe Sharp", "Netherlands", "You", "1992", 52, "F")]}
    )
    assert classify(w, original, "SELECT count(*) FROM singer", "SELECT count(singer_id) FROM singer") is None


# --- the gold's flags ---------------------------------------------------------------------------------


def rows(*results: tuple[int | None, str | None]) -> list[dict[str, Any]]:
    return [{"ex_spider": ex, "result_digest": digest} for ex, digest in results]


def test_models_agree_needs_three_and_half_returning_one_result() -> None:
    shared = rows((0, "a"), (0, "a"), (0, "a"), (1, "g"), (1, "g"), (0, "b"))
    assert consensus(shared, "spider") == "a"
    assert gold_flags(None, None, shared, "spider") == "models-agree"
    assert consensus(rows((0, "a"), (0, "a"), (1, "g")), "spider") is None  # two are not enough
    assert consensus(rows((0, "a"), (0, "a"), (0, "a"), *[(1, "g")] * 4), "spider") is None  # not half


def test_flags_list_audit_lints_and_agreement_but_not_an_empty_gold() -> None:
    flagged = gold_flags(
        "empty result; LIMIT cuts a tie", "count-case-else-zero", rows((0, "a")) * 3, "spider"
    )
    assert flagged == "audit:tie; lint:count-case-else-zero; models-agree"
    assert gold_flags("empty result", None, [], "spider") == ""
    assert gold_flags(None, "group-by-name", [], "spider") == ""  # an advisory lint is listed, not a doubt


def test_models_agree_excuses_only_the_shared_result() -> None:
    assert strong("models-agree", {"result_digest": "a", "consensus": "a"}) == ["models-agree"]
    assert strong("models-agree", {"result_digest": "b", "consensus": "a"}) == []


# --- the decision table (docs/judgement.md) -------------------------------------------------------------


@pytest.mark.parametrize(
    ("row", "flags", "call", "why"),
    [
        ({"db_missing": 1, "em": 1}, "", "right", "matches the gold exactly"),
        ({"db_missing": 1, "em": 0}, "", "unsure", "no database"),
        (  # a generated database that tells them apart outweighs an exact match of the text
            {
                "db_missing": 1,
                "em": 1,
                "values_match": 1,
                "schema_verdict": "differs",
                "refutation_assumption": "none",
            },
            "",
            "wrong",
            "no database file",
        ),
        ({"db_missing": 1, "em": 1, "values_match": 0}, "", "unsure", "no database"),
        ({"gold_error": "no such table: x"}, "", "unsure", "the gold itself fails"),
        ({"ex_spider": None, "error": "no such column: y"}, "", "wrong", "does not run"),
        ({"ex_spider": 0}, "", "wrong", "other rows than the gold"),
        ({"ex_spider": 0, "tie_sensitive": 1}, "", "unsure", "tied at the gold's LIMIT"),
        ({"ex_spider": 0, "result_digest": "a", "consensus": "a"}, "models-agree", "unsure", "doubted gold"),
        ({"ex_spider": 0, "result_digest": "b", "consensus": "a"}, "models-agree", "wrong", "other rows"),
        ({"ex_spider": 0, "difference": "extra columns"}, "", "unsure", "may forgive: extra columns"),
        ({"ex_spider": 1}, "", "right", "passes EX on the original"),
        ({"ex_spider": 1, "ex_ts": 1, "ts_databases": 10}, "", "right", "every one of 10 neighbour"),
        ({"ex_spider": 1, "equivalence": "verified", "equivalence_bound": 2}, "", "right", "proved equal"),
        (
            {
                "ex_spider": 1,
                "ex_ts": 0,
                "refutation_assumption": "duplicate",
                "refutation_detail": "they differ only if x",
            },
            "",
            "right",
            "a world the question never meant",
        ),
        (
            {
                "ex_spider": 1,
                "ex_ts": 0,
                "refutation_assumption": "none",
                "refutation_detail": "they differ on a realistic database of 3 rows",
            },
            "",
            "wrong",
            "passes EX by chance",
        ),
        (
            {
                "ex_spider": 1,
                "ex_ts": 0,
                "refutation_assumption": "none",
                "refutation_detail": "d",
                "difference": "repeated rows",
            },
            "",
            "unsure",
            "forgive",
        ),
        ({"ex_spider": 1, "ex_ts": 0}, "", "unsure", "could not be read"),
        ({"ex_spider": 1, "gold_suspect": "empty result"}, "", "unsure", "finds nothing"),
        ({"ex_spider": 1, "pred_lints": "limit-without-order-by"}, "", "unsure", "likely mistake"),
        (
            {"ex_spider": 1, "pred_lints": "self-comparison", "gold_lints": "self-comparison"},
            "",
            "right",
            "passes EX",
        ),
        ({"ex_spider": 1, "pred_lints": "group-by-name"}, "", "right", "passes EX"),  # advisory: no doubt
    ],
)
def test_decision_table(row: dict[str, Any], flags: str, call: str, why: str) -> None:
    got, reason = judge(row, flags)
    assert got == call, reason
    assert why in reason


# --- differences a reader may forgive ----------------------------------------------------------------


def test_the_asked_column_among_many_is_an_extra_columns_difference() -> None:
    """`SELECT *` over a wide table returns the asked column among 44: found by its name."""
    from sqltriage.core.verdicts.exec_result import ExecResult
    from sqltriage.core.verdicts.judgement.difference import forgivable

    wide = (*tuple(f"c{i}" for i in range(40)), "ID", "Date", "GOT", "GPT")
    gold = ExecResult(("Date",), (("1991-06-12",), ("1992-01-03",)), 0.0)
    pred = ExecResult(
        wide, tuple((*tuple(range(40)), 48473, d, 69, 70) for d in ("1991-06-12", "1992-01-03")), 0.0
    )
    assert forgivable(gold, pred) == "extra columns"
    other = ExecResult(
        wide, tuple((*tuple(range(40)), 48473, d, 69, 70) for d in ("1991-06-12", "1999-01-03")), 0.0
    )
    assert forgivable(gold, other) is None  # other rows: no forgiving


def test_a_full_name_for_first_and_last_names_is_a_joined_columns_difference() -> None:
    """BIRD dev 1381: `first_name || ' ' || last_name` where the gold returns the two names apart."""
    from sqltriage.core.verdicts.exec_result import ExecResult
    from sqltriage.core.verdicts.judgement.difference import forgivable

    gold = ExecResult(("first_name", "last_name"), (("Elijah", "Allen"), ("Amy", "Firth")), 0.0)
    pred = ExecResult(("full_name",), (("Elijah Allen",), ("Amy Firth",)), 0.0)
    assert forgivable(gold, pred) == "columns joined into one"
    swapped = ExecResult(("full_name",), (("Elijah Firth",), ("Amy Allen",)), 0.0)
    assert forgivable(gold, swapped) is None  # the names of other people: no forgiving
    fewer = ExecResult(("first_name",), (("Elijah",), ("Amy",)), 0.0)
    assert forgivable(gold, fewer) is None  # a column dropped is not a column joined
