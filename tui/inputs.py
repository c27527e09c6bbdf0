"""Loading the dataset and predictions a command names, shared by every command and the app."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from sqltriage.core.datasets import load_dataset
from sqltriage.core.datasets.predictions import load_predictions, parse_pred_arg
from sqltriage.core.errors import PredictionsError
from sqltriage.core.model import Dataset, PredictionSet


@dataclass(frozen=True)
class Inputs:
    dataset: Dataset
    predictions: tuple[PredictionSet, ...]


def load_inputs(args: argparse.Namespace) -> Inputs:
    """Dataset first, then each --pred against it; the first unusable input stops with its message."""
    columns = {
        role: col
        for role, col in (
            ("question", getattr(args, "question_column", None)),
            ("sql", getattr(args, "gold_column", None)),
            ("db_id", getattr(args, "db_column", None)),
            ("id", getattr(args, "id_column", None)),
        )
        if col
    }
    dataset = load_dataset(
        args.dataset,
        fmt=getattr(args, "format", "auto") or "auto",
        db_dir=getattr(args, "db_dir", None),
        tables=getattr(args, "tables", None),
        columns=columns or None,
        alternatives=getattr(args, "alternatives", None),
    )
    preds: list[PredictionSet] = []
    names: set[str] = set()
    for arg in getattr(args, "pred", None) or []:
        name, file = parse_pred_arg(arg)
        if name in names:
            raise PredictionsError(
                f"two predictions are named {name!r}", hint="give each --pred a unique NAME="
            )
        names.add(name)
        preds.append(
            load_predictions(
                file,
                dataset,
                name=name,
                fmt=getattr(args, "pred_format", "auto") or "auto",
                sql_column=getattr(args, "sql_column", None),
            )
        )
    return Inputs(dataset, tuple(preds))


def default_workspace(dataset: Dataset) -> Path:
    return Path.cwd() / f"{dataset.name}.sqltriage.db"
