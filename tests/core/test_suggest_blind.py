"""The blind batch of hand-labelled causes is frozen: its bytes cannot change without this test failing."""

from __future__ import annotations

import hashlib
from pathlib import Path

from tests.core.suggest_set import load_rows, read_label_file

BLIND = Path(__file__).parent / "fixtures" / "suggest_blind.tsv"
FROZEN_SHA256 = "726cdbfe0fcc1ece833943fc5c187c0b573155981c935ddb41d3bf81070310b3"


def test_the_blind_batch_is_unchanged() -> None:
    assert hashlib.sha256(BLIND.read_bytes()).hexdigest() == FROZEN_SHA256, (
        f"{BLIND} changed: the blind batch is frozen; label a new batch in a new file instead"
    )


def test_the_blind_batch_is_new_and_balanced() -> None:
    rows = read_label_file(BLIND)
    keys = {(r["dataset"], r["source"], r["index"]) for r in rows}
    older = {(r["dataset"], r["source"], r["index"]) for r in read_label_file()}
    assert len(rows) >= 150 and len(keys) == len(rows) and not keys & older
    assert {r["split"] for r in rows} == {"blind"}
    wrong = sum(bool(r["labels"].strip()) for r in rows)
    assert 0.4 <= wrong / len(rows) <= 0.6  # about half wrong, half right
    assert {r["dataset"] for r in rows} == {"spider", "bird", "archer"}


def test_every_blind_row_resolves_to_real_sql(shared_data: Path) -> None:
    rows = load_rows(shared_data, BLIND)
    assert len(rows) == len(read_label_file(BLIND))
    assert all(r.gold_sql and r.pred_sql for r in rows)
