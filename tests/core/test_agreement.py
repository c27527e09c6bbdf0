"""Agreement figures against computations made another way: textbook tables and the confusion-matrix form."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from sqltriage.core.triage.agreement import cohen, compute, fleiss


def _kappa_from_table(a: Sequence[bool], b: Sequence[bool]) -> float:
    """Cohen's κ from the 2×2 table: 2(ad − bc) / ((a+b)(b+d) + (a+c)(c+d)), a second way to the same figure."""
    yy = sum(x and y for x, y in zip(a, b, strict=True))
    yn = sum(x and not y for x, y in zip(a, b, strict=True))
    ny = sum(not x and y for x, y in zip(a, b, strict=True))
    nn = sum(not x and not y for x, y in zip(a, b, strict=True))
    return 2 * (yy * nn - yn * ny) / ((yy + yn) * (yn + nn) + (yy + ny) * (ny + nn))


def _fleiss_multicategory(table: Sequence[Sequence[int]]) -> float:
    """Fleiss' κ from an items × categories count table with the same raters per item (Fleiss 1971)."""
    n = sum(table[0])
    items = len(table)
    p_j = [sum(row[j] for row in table) / (items * n) for j in range(len(table[0]))]
    p_i = [(sum(c * c for c in row) - n) / (n * (n - 1)) for row in table]
    p_bar, p_e = sum(p_i) / items, sum(p * p for p in p_j)
    return (p_bar - p_e) / (1 - p_e)


def test_cohen_on_a_textbook_table() -> None:
    # 50 items: both yes 20, only A 5, only B 10, both no 15 → p_o 0.7, p_e 0.5, κ 0.4
    a = [True] * 25 + [False] * 25
    b = [True] * 20 + [False] * 5 + [True] * 10 + [False] * 15
    kappa, raw = cohen(a, b)
    assert raw == pytest.approx(0.7)
    assert kappa == pytest.approx(0.4)


def test_cohen_equals_the_confusion_matrix_form_on_random_labels() -> None:
    rng = random.Random(7)
    for _ in range(50):
        n = rng.randint(5, 60)
        a = [rng.random() < 0.4 for _ in range(n)]
        b = [x if rng.random() < 0.7 else rng.random() < 0.5 for x in a]
        if len(set(a)) == 1 and len(set(b)) == 1:
            continue
        assert cohen(a, b)[0] == pytest.approx(_kappa_from_table(a, b))


def test_kappa_is_undefined_when_expected_agreement_is_one() -> None:
    assert cohen([True] * 4, [True] * 4) == (None, 1.0)
    assert cohen([False] * 3, [False] * 3) == (None, 1.0)
    assert cohen([], []) == (None, None)
    assert fleiss([(3, 3), (3, 3)]) is None


def test_fleiss_by_hand_and_against_the_multicategory_form() -> None:
    # 3 raters, 4 items with 3, 0, 2, 1 "yes": P̄ = (1 + 1 + 1/3 + 1/3) / 4 = 2/3, P_e = 0.5 → κ = 1/3
    assert fleiss([(3, 3), (3, 0), (3, 2), (3, 1)]) == pytest.approx(1 / 3)
    rng = random.Random(3)
    for _ in range(30):
        raters = rng.randint(3, 6)
        ks = [rng.randint(0, raters) for _ in range(rng.randint(4, 30))]
        if len({*ks} - {0, raters}) == 0 and len(set(ks)) == 1:
            continue
        table = [[k, raters - k] for k in ks]
        assert fleiss([(raters, k) for k in ks]) == pytest.approx(_fleiss_multicategory(table))


def test_pairs_and_pooled_figures_on_constructed_labels() -> None:
    rows = [(i, "m") for i in range(6)]
    x, y = "Table: missing", "Value: wrong"
    labels = {
        "ann": {
            rows[0]: frozenset({x}),
            rows[1]: frozenset({x, y}),
            rows[2]: frozenset(),
            rows[3]: frozenset({y}),
        },
        "bob": {
            rows[0]: frozenset({x}),
            rows[1]: frozenset({x}),
            rows[2]: frozenset({y}),
            rows[5]: frozenset({x}),
        },
        "cy": {rows[0]: frozenset({x}), rows[1]: frozenset({y}), rows[2]: frozenset()},
    }
    result = compute(labels)
    assert [p.annotators for p in result.pairs] == [("ann", "bob"), ("ann", "cy"), ("bob", "cy")]
    ann_bob = result.pairs[0]
    assert ann_bob.items == 3  # rows 0, 1, 2: both decided them
    # tag x: ann [1,1,0], bob [1,1,0] → κ 1; tag y: ann [0,1,0], bob [0,0,1] → κ from the table
    assert ann_bob.per_tag[x] == pytest.approx(1.0)
    assert ann_bob.per_tag[y] == pytest.approx(_kappa_from_table([0, 1, 0], [0, 0, 1]))
    pooled_a, pooled_b = [1, 1, 0, 0, 1, 0], [1, 1, 0, 0, 0, 1]
    assert ann_bob.kappa_pooled == pytest.approx(_kappa_from_table(pooled_a, pooled_b))
    assert ann_bob.agreement_pooled == pytest.approx(4 / 6)
    # Fleiss over rows 0..2 (three annotators each), tags x and y: counts of "yes" per (row, tag)
    table = [[3, 0], [0, 3], [2, 1], [2, 1], [0, 3], [1, 2]]
    assert result.fleiss_items == 3
    assert result.fleiss_pooled == pytest.approx(_fleiss_multicategory(table))
    doc = result.to_json()
    assert set(doc) == {"pairs", "fleiss_pooled"}
    assert set(doc["pairs"][0]) == {"annotators", "items", "kappa_pooled", "per_tag", "agreement_pooled"}


def test_two_annotators_always_giving_the_same_single_tag_have_undefined_kappa() -> None:
    rows = [(i, "m") for i in range(4)]
    same = {r: frozenset({"Table: missing"}) for r in rows}
    result = compute({"a": same, "b": same})
    pair = result.pairs[0]
    assert pair.per_tag == {"Table: missing": None} and pair.kappa_pooled is None
    assert pair.agreement_pooled == 1.0
    assert result.to_json()["pairs"][0]["kappa_pooled"] is None
    assert result.fleiss_pooled is None  # nobody else: no row has three annotators
