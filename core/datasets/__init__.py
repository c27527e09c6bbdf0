"""Loaders: every dataset and prediction format becomes the same `Example` / `Prediction` records.

Also the dataset's own alternative golds (alternatives), `sqltriage check`'s input summary (checks), and
a dataset loaded with the models' predictions against it (inputs).
May import: core.model, core.errors only.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from sqltriage.core.datasets.alternatives import find_sidecar, with_sidecar
from sqltriage.core.datasets.detect import (
    DATASET_FORMATS,
    JSON_FORMATS,
    dataset_file,
    format_by_suffix,
    format_of_records,
    undecidable,
)
from sqltriage.core.datasets.jsondataset import load_json_dataset, load_records
from sqltriage.core.datasets.tabular import load_gold_file, load_tabular_dataset
from sqltriage.core.errors import DatasetError
from sqltriage.core.model import Dataset

__all__ = ["DATASET_FORMATS", "load_dataset"]


def load_dataset(
    path: Path | str,
    *,
    fmt: str = "auto",
    db_dir: Path | str | None = None,
    tables: Path | str | None = None,
    columns: Mapping[str, str] | None = None,
    name: str | None = None,
    alternatives: Path | str | None = None,
) -> Dataset:
    """Load a dataset in any supported format; either it loads whole or a DatasetError says why.

    Alternative gold queries come from the records themselves, from `alternatives` (a sidecar file) or
    from a sidecar found beside the dataset file (see core/datasets/alternatives.py).
    """
    dataset = _load(path, fmt=fmt, db_dir=db_dir, tables=tables, columns=columns, name=name)
    if alternatives is not None:
        sidecar: Path | None = Path(alternatives)
        if not sidecar.is_file():
            raise DatasetError("alternatives file does not exist", path=sidecar, hint="check --alternatives")
    else:
        sidecar = find_sidecar(dataset.path)
    return with_sidecar(dataset, sidecar) if sidecar is not None else dataset


def _load(
    path: Path | str,
    *,
    fmt: str,
    db_dir: Path | str | None,
    tables: Path | str | None,
    columns: Mapping[str, str] | None,
    name: str | None,
) -> Dataset:
    path = Path(path)
    db_dir = Path(db_dir) if db_dir is not None else None
    tables = Path(tables) if tables is not None else None
    if fmt not in DATASET_FORMATS:
        raise DatasetError(f"unknown format {fmt!r}", hint=f"choose one of: {', '.join(DATASET_FORMATS)}")
    file = dataset_file(path)
    kind = fmt if fmt != "auto" else format_by_suffix(file)
    if kind is None:
        raise undecidable(file)
    if kind in ("json", *JSON_FORMATS):
        records = load_records(file)
        label = fmt if fmt in JSON_FORMATS else format_of_records(records)
        return load_json_dataset(file, fmt=label, db_dir=db_dir, tables=tables, name=name, records=records)
    if kind in ("jsonl", "csv"):
        return load_tabular_dataset(file, fmt=kind, db_dir=db_dir, tables=tables, columns=columns, name=name)
    return load_gold_file(file, db_dir=db_dir, tables=tables, name=name)
