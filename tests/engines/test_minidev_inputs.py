"""BIRD Mini-Dev's files load as they are: its JSON questions and `SQL<TAB>db_id` golds in each dialect,
and the models' predictions in BIRD's JSON format; its golds parse in their own dialect."""

from __future__ import annotations

from pathlib import Path

import pytest

from sqltriage.core.datasets import load_dataset
from sqltriage.core.datasets.predictions import load_predictions
from sqltriage.core.sql import parse


@pytest.fixture(scope="module")
def minidev(shared_data: Path) -> Path:
    folder = shared_data / "bird_minidev"
    if not folder.is_dir():
        pytest.skip(f"BIRD Mini-Dev not found at {folder}")
    return folder


@pytest.mark.parametrize(
    ("dialect", "read"), [("sqlite", "sqlite"), ("postgresql", "postgres"), ("mysql", "mysql")]
)
def test_questions_golds_and_predictions_load(minidev: Path, dialect: str, read: str) -> None:
    questions = load_dataset(minidev / f"mini_dev_{dialect}.json")
    golds = load_dataset(minidev / f"mini_dev_{dialect}_gold.sql")
    assert len(questions.examples) == len(golds.examples) == 500
    assert [" ".join(e.gold_sql.split()) for e in questions.examples] == [
        " ".join(e.gold_sql.split()) for e in golds.examples
    ]
    assert {e.difficulty for e in questions.examples} == {"simple", "moderate", "challenging"}
    for model in ("gpt-4", "meta-llama-3-70b-instruct-2"):
        preds = load_predictions(
            minidev / "predictions" / f"predict_mini_dev_{model}_{dialect}.json", questions
        )
        assert len(preds.predictions) == 500 and preds.format == "bird"
    parse.use_dialect(read)
    try:
        parsed = sum(parse.parse_sql(e.gold_sql).ok for e in questions.examples)
    finally:
        parse.use_dialect("sqlite")
    assert parsed >= 495, f"{parsed}/500 {dialect} golds parse as {read}"
