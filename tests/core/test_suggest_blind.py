"""The blind batches of hand-labelled causes are frozen: their bytes cannot change without these tests failing."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tests.core.suggest_set import load_rows, read_label_file

BLIND = Path(__file__).parent / "fixtures" / "suggest_blind.tsv"  # scored once, then tuned on
BLIND2 = Path(__file__).parent / "fixtures" / "suggest_blind2.tsv"  # scored once, then tuned on
BLIND3 = Path(__file__).parent / "fixtures" / "suggest_blind3.tsv"  # labelled before the third round's rules
BLIND4 = Path(__file__).parent / "fixtures" / "suggest_blind4.tsv"  # labelled under the guide, scored once
BLIND5 = Path(__file__).parent / "fixtures" / "suggest_blind5.tsv"  # labelled under the guide, scored once
FROZEN_SHA256 = {
    BLIND: "ee7cdca22361b7378b8b7521c9f51be0a350b08c432bb29a8824d827962f2896",
    BLIND2: "2f16521efdbffa1ebdd275ca1b4a1b2ec3c69f8c6b1202e284d05a64dd29c8c7",
    BLIND3: "0b391caff6818f176eaec5e7a674c5121f2ca4bf47fbd4b07c39bb54305e5cf8",
    BLIND4: "8a8eb0b1c28b5e4af33b209100e527ccbbd447447e878cff5e48eddf6401dc3b",
    BLIND5: "6ead3e824e91194b0430d4c4a55b91a48b5fb6d8dcad25fabf0a96f4a1b7fb72",
}
BATCHES = pytest.mark.parametrize(
    "batch", [BLIND, BLIND2, BLIND3, BLIND4, BLIND5], ids=["first", "second", "third", "fourth", "fifth"]
)


@BATCHES
def test_the_blind_batch_is_unchanged(batch: Path) -> None:
    assert hashlib.sha256(batch.read_bytes()).hexdigest() == FROZEN_SHA256[batch], (
        f"{batch} changed: a blind batch is frozen; label a new batch in a new file instead"
    )


@BATCHES
def test_the_blind_batch_is_new_and_balanced(batch: Path) -> None:
    rows = read_label_file(batch)
    keys = {(r["dataset"], r["source"], r["index"]) for r in rows}
    earlier = [read_label_file()] + [read_label_file(b) for b in FROZEN_SHA256 if b.name < batch.name]
    older = {(r["dataset"], r["source"], r["index"]) for rs in earlier for r in rs}
    assert len(rows) >= 150 and len(keys) == len(rows) and not keys & older
    assert {r["split"] for r in rows} == {"blind"}
    wrong = sum(bool(r["labels"].strip()) for r in rows)
    assert 0.4 <= wrong / len(rows) <= 0.6  # about half wrong, half right
    assert {r["dataset"] for r in rows} == {"spider", "bird", "archer"}


@BATCHES
def test_every_blind_row_resolves_to_real_sql(shared_data: Path, batch: Path) -> None:
    rows = load_rows(shared_data, batch)
    assert len(rows) == len(read_label_file(batch))
    assert all(r.gold_sql and r.pred_sql for r in rows)


def test_the_second_batch_shares_no_row_with_the_first() -> None:
    first = {(r["dataset"], r["source"], r["index"]) for r in read_label_file(BLIND)}
    second = {(r["dataset"], r["source"], r["index"]) for r in read_label_file(BLIND2)}
    assert first and second and not first & second


@pytest.mark.parametrize("batch", [BLIND3, BLIND4, BLIND5], ids=["third", "fourth", "fifth"])
def test_the_later_batches_are_weighted_to_bird_and_near_half_there(batch: Path) -> None:
    rows = [r for r in read_label_file(batch) if r["dataset"] == "bird"]
    wrong = sum(bool(r["labels"].strip()) for r in rows)
    assert len(rows) >= 90 and 0.4 <= wrong / len(rows) <= 0.6


DRAWS = {
    BLIND: "suggest_blind_draw",
    BLIND2: "suggest_blind2_draw",
    BLIND3: "suggest_blind3_draw",
    BLIND4: "suggest_blind4_draw",
    BLIND5: "suggest_blind5_draw",
}


@BATCHES
def test_the_batch_is_what_its_seeded_draw_gives(shared_data: Path, batch: Path) -> None:
    """Each batch's rows, in order, are those its script in tests/core/ draws (the seed is in the script)."""
    import importlib

    draw = importlib.import_module(f"tests.core.{DRAWS[batch]}").draw
    keys = [(r["dataset"], r["source"], int(r["index"])) for r in read_label_file(batch)]
    assert keys == draw()


@BATCHES
def test_every_label_is_a_tag_of_the_default_taxonomy(batch: Path) -> None:
    from sqltriage.core.triage.taxonomy import load_taxonomy

    tax = load_taxonomy()
    unknown = [
        (r["index"], tag)
        for r in read_label_file(batch)
        for tag in (t.strip() for t in r["labels"].split(";"))
        if tag and tax.by_tag(tag) is None
    ]
    assert not unknown, f"{batch.name}: labels that are no tag of the taxonomy: {unknown}"
