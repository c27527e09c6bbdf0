"""Finding a dataset's schemas and database files next to it, the way the public releases lay them out."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from sqltriage.core.datasets.schema import load_tables_json, schema_from_sqlite
from sqltriage.core.errors import DatasetError
from sqltriage.core.model import Schema

TABLES_NAMES = ("tables.json", "dev_tables.json", "train_tables.json", "test_tables.json")
DB_DIR_NAMES = ("database", "databases", "dev_databases", "train_databases", "test_database", "db")


def find_tables_json(folder: Path) -> Path | None:
    for name in TABLES_NAMES:
        if (folder / name).is_file():
            return folder / name
    return None


def find_db_dir(folder: Path) -> Path | None:
    for name in DB_DIR_NAMES:
        if (folder / name).is_dir():
            return folder / name
    return None


def database_file(db_dir: Path | None, db_id: str) -> Path | None:
    """`<dir>/<db>/<db>.sqlite` (Spider, BIRD) or `<dir>/<db>.sqlite`; None when absent."""
    if db_dir is None:
        return None
    for candidate in (
        db_dir / db_id / f"{db_id}.sqlite",
        db_dir / db_id / f"{db_id}.db",
        db_dir / f"{db_id}.sqlite",
        db_dir / f"{db_id}.db",
    ):
        if candidate.is_file():
            return candidate
    return None


def resolve_databases(db_ids: Iterable[str], db_dir: Path | None) -> dict[str, Path | None]:
    return {db_id: database_file(db_dir, db_id) for db_id in dict.fromkeys(db_ids)}


def resolve_schemas(
    db_ids: Iterable[str], tables_json: Path | None, databases: Mapping[str, Path | None]
) -> dict[str, Schema]:
    """Schemas from tables.json where it has them, else read from the database file; absent if neither."""
    from_json = load_tables_json(tables_json) if tables_json is not None else {}
    schemas: dict[str, Schema] = {}
    for db_id in dict.fromkeys(db_ids):
        if db_id in from_json:
            schemas[db_id] = from_json[db_id]
        elif (db_path := databases.get(db_id)) is not None:
            try:
                schemas[db_id] = schema_from_sqlite(db_path, db_id)
            except DatasetError:
                continue  # an unreadable database leaves the schema unknown; execution reports it per row
    return schemas


def check_db_dir(db_dir: Path | None) -> None:
    if db_dir is not None and not db_dir.is_dir():
        raise DatasetError(
            "database folder does not exist",
            path=db_dir,
            hint="give --db-dir the folder that holds <db_id>/<db_id>.sqlite",
        )
