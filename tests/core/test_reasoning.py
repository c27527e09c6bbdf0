"""Reasoning types: annotations mapped to names, arithmetic inferred from gold SQL and marked so."""

from __future__ import annotations

import pytest

from sqltriage.core.model import Example
from sqltriage.core.questions.reasoning import REASONING_NAMES, Reasoning, reasoning_for, reasoning_label


def ex(sql: str = "SELECT 1", **kw) -> Example:
    return Example(index=0, example_id="0", db_id="d", question="q?", gold_sql=sql, **kw)


def test_archer_tokens_map_to_names_and_keep_commonsense() -> None:
    r = reasoning_for(ex(reasoning=("-", "C"), commonsense="unavailable = total - available"))
    assert r == Reasoning(("subtraction", "commonsense"), False, False, "unavailable = total - available")
    assert reasoning_label(r) == "subtraction commonsense"


def test_every_archer_token_has_a_name() -> None:
    r = reasoning_for(ex(reasoning=("+", "-", "*", "/", "C", "H")))
    assert r.types == tuple(REASONING_NAMES.values())


def test_annotation_order_does_not_change_the_facet_value() -> None:
    a = reasoning_label(reasoning_for(ex(reasoning=("/", "*", "C"))))
    b = reasoning_label(reasoning_for(ex(reasoning=("*", "C", "/"))))
    assert a == b == "multiplication division commonsense"


def test_annotation_wins_over_the_sql() -> None:
    # The gold SQL divides, but the annotation says hypothetical only: the annotation is what is shown.
    r = reasoning_for(ex("SELECT a / b FROM t", reasoning=("H",)))
    assert r.types == ("hypothetical",)
    assert not r.inferred


def test_empty_annotation_is_an_annotation_of_nothing() -> None:
    r = reasoning_for(ex("SELECT a + b FROM t", reasoning=()))
    assert r.types == ()
    assert not r.inferred
    assert reasoning_label(r) == ""


@pytest.mark.parametrize(
    ("sql", "types"),
    [
        ("SELECT a / b FROM t", ("division",)),
        ("SELECT max(a) - min(a), sum(b * 2) + 1 FROM t", ("addition", "subtraction", "multiplication")),
        ("SELECT count(*) FROM t", ()),  # the star of count(*) is no multiplication
        ("SELECT * FROM t WHERE x = -1", ()),  # a sign, not a subtraction
        ("SELECT * FROM t WHERE d = '2015-06-02'", ()),  # a date string
        ("SELECT * FROM t WHERE x IN (SELECT y / 100 FROM u)", ("division",)),  # nested
        ("SELECT FROM WHERE ((", ()),  # broken SQL is a value, not an exception
        ("", ()),
    ],
)
def test_arithmetic_is_inferred_from_the_gold_sql(sql: str, types: tuple[str, ...]) -> None:
    r = reasoning_for(ex(sql))
    assert r.types == types
    assert r.inferred


def test_inferred_labels_say_so() -> None:
    assert reasoning_label(reasoning_for(ex("SELECT a / b FROM t"))) == "arithmetic:division (inferred)"
    label = reasoning_label(reasoning_for(ex("SELECT a * b - c FROM t")))
    assert label == "arithmetic:subtraction,multiplication (inferred)"
    assert reasoning_label(reasoning_for(ex("SELECT a FROM t"))) == ""


def test_bird_evidence_flags_external_knowledge() -> None:
    assert reasoning_for(ex(evidence="rate = a / b")).external_knowledge
    assert not reasoning_for(ex(evidence="   ")).external_knowledge
    assert not reasoning_for(ex()).external_knowledge
