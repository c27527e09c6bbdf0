"""A dataset and the models' predictions against it, loaded together: what every command and the API start from."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from sqltriage.core.datasets import load_dataset
from sqltriage.core.datasets.predictions import load_predictions
from sqltriage.core.errors import PredictionsError
from sqltriage.core.model import Dataset, PredictionSet


@dataclass(frozen=True)
class Inputs:
    dataset: Dataset
    predictions: tuple[PredictionSet, ...]


def load_inputs(
    dataset: Path | str,
    predictions: Iterable[tuple[str, Path | str]],
    *,
    fmt: str = "auto",
    db_dir: Path | str | None = None,
    tables: Path | str | None = None,
    question_column: str | None = None,
    gold_column: str | None = None,
    db_column: str | None = None,
    id_column: str | None = None,
    alternatives: Path | str | None = None,
    pred_format: str = "auto",
    sql_column: str | None = None,
) -> Inputs:
    """Dataset first, then each (name, file) against it; the first unusable input stops with its message.

    `predictions` is consumed lazily, so a caller that parses its arguments while iterating reports a bad
    argument only after the files before it loaded, as the command line always has. The `*_column`
    names say which columns of a CSV/JSONL dataset hold the question, gold SQL, db_id and id.
    """
    columns = {
        role: col
        for role, col in (
            ("question", question_column),
            ("sql", gold_column),
            ("db_id", db_column),
            ("id", id_column),
        )
        if col
    }
    loaded = load_dataset(
        dataset, fmt=fmt, db_dir=db_dir, tables=tables, columns=columns or None, alternatives=alternatives
    )
    preds: list[PredictionSet] = []
    names: set[str] = set()
    for name, file in predictions:
        if name in names:
            raise PredictionsError(
                f"two predictions are named {name!r}", hint="give each --pred a unique NAME="
            )
        names.add(name)
        preds.append(load_predictions(file, loaded, name=name, fmt=pred_format, sql_column=sql_column))
    return Inputs(loaded, tuple(preds))
