"""The taxonomy file: the built-in default and a user's replacement."""

from __future__ import annotations

from pathlib import Path

import pytest

from sqltriage.core.errors import UsageError
from sqltriage.core.triage.taxonomy import load_taxonomy, parse_taxonomy


def test_default_has_the_papers_categories_and_the_evaluation_causes() -> None:
    tax = load_taxonomy()
    assert tax.categories == (
        "Attribute",
        "Table",
        "Condition",
        "Value",
        "Function",
        "Clause",
        "Subquery",
        "Operator",
        "Other",
        "Evaluation",
    )
    bug_causes = [c for c in tax.causes if c.category != "Evaluation"]
    assert len(bug_causes) == 31  # NL2SQL-Bugs' subcategories
    assert {c.name for c in tax.causes if c.category == "Evaluation"} == {
        "gold SQL wrong",
        "question ambiguous",
        "EX false positive",
        "EX false negative (equivalent query)",
    }
    keys = [c.key for c in tax.causes]
    assert all(keys) and len(set(keys)) == len(keys)


def test_lookup_by_quick_key_tag_and_search() -> None:
    tax = load_taxonomy()
    assert tax.by_key("T2").tag == "Table: missing"  # type: ignore[union-attr]
    assert tax.by_tag("Function: aggregate").key == "f1"  # type: ignore[union-attr]
    assert [c.tag for c in tax.search("join")] == [
        "Table: redundant",  # its description: "a table gold does not use is joined"
        "Table: join condition",
        "Table: join type",
    ]
    assert tax.by_key("zz") is None


def test_a_replacement_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(
        '[[category]]\nname = "Schema"\n[[category.tag]]\nname = "wrong table"\nkey = "w"\n'
        '[[category.tag]]\nname = "no key"\n',
        encoding="utf-8",
    )
    tax = load_taxonomy(path)
    assert [c.tag for c in tax.causes] == ["Schema: wrong table", "Schema: no key"]
    assert tax.by_key("w").name == "wrong table"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name = 1", "no [[category]]"),
        ('[[category]]\nname = "A"\n', "has no [[category.tag]]"),
        ('[[category]]\nname = "A"\n[[category.tag]]\nkey = "x"\n', "needs a non-empty `name`"),
        (
            '[[category]]\nname = "A"\n[[category.tag]]\nname = "b"\nkey = "x"\n[[category.tag]]\nname = "c"\nkey = "X"\n',
            "quick key 'X' is used twice",
        ),
        ("[[category", "not valid TOML"),
    ],
)
def test_bad_files_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("[", r"\[").replace("(", r"\(")):
        parse_taxonomy(text, source="t.toml")


def test_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read the taxonomy"):
        load_taxonomy(tmp_path / "nope.toml")
