"""Spider, Archer and BIRD releases: a JSON list of records plus tables.json and a database folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqltriage.core.datasets.jsonio import read_json
from sqltriage.core.datasets.locate import (
    check_db_dir,
    find_db_dir,
    find_tables_json,
    resolve_databases,
    resolve_schemas,
)
from sqltriage.core.datasets.records import example_from_record
from sqltriage.core.errors import DatasetError
from sqltriage.core.model import Dataset

JSON_CANDIDATES = ("dev.json", "train.json", "test.json", "train_spider.json")


def dataset_json_in(folder: Path) -> Path:
    """The questions file of a release folder: dev.json first, then the only other non-schema json."""
    for name in JSON_CANDIDATES:
        if (folder / name).is_file():
            return folder / name
    others = [p for p in sorted(folder.glob("*.json")) if "tables" not in p.name and "predict" not in p.name]
    if len(others) == 1:
        return others[0]
    raise DatasetError(
        "cannot tell which file holds the questions"
        + (f" (candidates: {', '.join(p.name for p in others)})" if others else " (no .json file found)"),
        path=folder,
        hint="give the path of the questions json itself",
    )


def load_records(path: Path) -> list[Any]:
    data = read_json(path)
    if isinstance(data, dict):
        for key in ("data", "examples", "questions"):
            if isinstance(data.get(key), list):
                return data[key]
        raise DatasetError(
            "expected a JSON list of records, found an object",
            path=path,
            hint="a Spider/BIRD/Archer file is a list of {question, query/SQL, db_id} records",
        )
    if not isinstance(data, list):
        raise DatasetError("expected a JSON list of records", path=path)
    if not data:
        raise DatasetError("the list of records is empty", path=path, hint="give a dataset with questions")
    return data


def load_json_dataset(
    json_path: Path,
    *,
    fmt: str,
    db_dir: Path | None = None,
    tables: Path | None = None,
    name: str | None = None,
    records: list[Any] | None = None,
) -> Dataset:
    """Load any of the JSON releases; `fmt` only labels it, the fields are recognised per record."""
    check_db_dir(db_dir)
    folder = json_path.parent
    if records is None:
        records = load_records(json_path)
    examples = tuple(
        example_from_record(rec, index=i, path=json_path, where=f"record {i} (0-based)")
        for i, rec in enumerate(records)
    )
    db_dir = db_dir or find_db_dir(folder)
    tables = tables or find_tables_json(folder)
    if tables is not None and not tables.is_file():
        raise DatasetError("schema file does not exist", path=tables, hint="check the --tables path")
    databases = resolve_databases((e.db_id for e in examples), db_dir)
    schemas = resolve_schemas(databases, tables, databases)
    return Dataset(
        name=name or default_name(json_path),
        path=json_path,
        format=fmt,
        examples=examples,
        schemas=schemas,
        databases=databases,
    )


def default_name(json_path: Path) -> str:
    """`spider_dev` for spider_dev/dev.json; `train` for archer/train.json would be too vague, so join them."""
    parent = json_path.parent.name
    stem = json_path.stem
    if stem in ("dev", "train", "test") and parent:
        return parent if stem in parent else f"{parent}_{stem}"
    return stem
