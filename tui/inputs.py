"""Loading the dataset and predictions a command names, shared by every command and the app."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

from sqltriage.core.datasets.inputs import Inputs
from sqltriage.core.datasets.inputs import load_inputs as load_named
from sqltriage.core.datasets.predictions import parse_pred_arg
from sqltriage.core.workspace.store import default_workspace

__all__ = ["Inputs", "default_workspace", "load_inputs"]


def _pred_args(args: argparse.Namespace) -> Iterator[tuple[str, Path]]:
    """Each --pred NAME=FILE, parsed only when its turn comes (so earlier files load first)."""
    for arg in getattr(args, "pred", None) or []:
        yield parse_pred_arg(arg)


def load_inputs(args: argparse.Namespace) -> Inputs:
    """Dataset first, then each --pred against it; the first unusable input stops with its message."""
    return load_named(
        args.dataset,
        _pred_args(args),
        fmt=getattr(args, "format", "auto") or "auto",
        db_dir=getattr(args, "db_dir", None),
        tables=getattr(args, "tables", None),
        question_column=getattr(args, "question_column", None),
        gold_column=getattr(args, "gold_column", None),
        db_column=getattr(args, "db_column", None),
        id_column=getattr(args, "id_column", None),
        alternatives=getattr(args, "alternatives", None),
        pred_format=getattr(args, "pred_format", "auto") or "auto",
        sql_column=getattr(args, "sql_column", None),
    )
