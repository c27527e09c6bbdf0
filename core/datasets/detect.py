"""Format sniffing for datasets (`--format auto`), with a clear message when it cannot decide."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sqltriage.core.datasets.jsondataset import dataset_json_in
from sqltriage.core.errors import DatasetError

DATASET_FORMATS = ("auto", "spider", "bird", "archer", "jsonl", "csv", "gold")
JSON_FORMATS = ("spider", "bird", "archer")


def dataset_file(path: Path) -> Path:
    """The questions file for a path that may be a release folder."""
    if not path.exists():
        raise DatasetError("path does not exist", path=path, hint="check the dataset path")
    return dataset_json_in(path) if path.is_dir() else path


def format_of_records(records: list[Any]) -> str:
    first = records[0] if records and isinstance(records[0], Mapping) else {}
    if "reasoning_type" in first:
        return "archer"
    if "SQL" in first or "question_id" in first or "evidence" in first:
        return "bird"
    return "spider"


def format_by_suffix(file: Path) -> str | None:
    suffix = file.suffix.lower()
    if suffix == ".json":
        return "json"
    if suffix == ".jsonl":
        return "jsonl"
    if suffix in (".csv", ".tsv"):
        return "csv"
    if suffix in (".sql", ".txt"):
        return "gold"
    return None


def undecidable(file: Path) -> DatasetError:
    return DatasetError(
        "cannot tell the dataset format from the file name",
        path=file,
        hint="name it with --format (spider, bird, archer, jsonl, csv or gold)",
    )
