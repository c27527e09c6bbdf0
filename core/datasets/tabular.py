"""Generic datasets: JSONL or CSV with named columns, and Spider's `SQL<TAB>db_id` gold files."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sqltriage.core.datasets.jsondataset import default_name
from sqltriage.core.datasets.jsonio import loads, read_text
from sqltriage.core.datasets.locate import (
    check_db_dir,
    find_db_dir,
    find_tables_json,
    resolve_databases,
    resolve_schemas,
)
from sqltriage.core.datasets.records import (
    DB_KEYS,
    ID_KEYS,
    QUESTION_KEYS,
    SQL_KEYS,
    example_from_record,
    pick_key,
)
from sqltriage.core.errors import DatasetError
from sqltriage.core.model import Dataset, Example

COLUMN_ROLES = {"question": QUESTION_KEYS, "sql": SQL_KEYS, "db_id": DB_KEYS, "id": ID_KEYS}


def read_jsonl(path: Path, *, error: type[DatasetError] | Any = DatasetError) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for lineno, line in enumerate(read_text(path, error=error).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = loads(line)
        except json.JSONDecodeError as exc:
            raise error(
                f"is not valid JSON: {exc.msg}",
                path=path,
                where=f"line {lineno}, column {exc.colno}",
                hint="each line of a .jsonl file must be one JSON object",
            ) from None
        if not isinstance(value, dict):
            raise error("expected a JSON object on this line", path=path, where=f"line {lineno}")
        rows.append(value | {"__line__": lineno})
    return rows


def read_csv(path: Path, *, error: type[DatasetError] | Any = DatasetError) -> list[dict[str, Any]]:
    text = read_text(path, error=error)
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",\t;")
    except csv.Error:
        dialect = csv.excel
    # a cell may hold a whole model response, reasoning included: far past the csv module's 128 kB default
    csv.field_size_limit(max(csv.field_size_limit(), 1 << 30))
    reader = csv.DictReader(io.StringIO(text), dialect=dialect)
    if not reader.fieldnames:
        raise error(
            "has no header row", path=path, where="line 1", hint="the first line must name the columns"
        )
    rows = []
    for row in reader:
        if None in row:
            raise error(
                "has more fields than the header names",
                path=path,
                where=f"line {reader.line_num}",
                hint="quote fields that contain the delimiter",
            )
        rows.append(dict(row) | {"__line__": reader.line_num})
    if not rows:
        raise error("has a header but no rows", path=path)
    return rows


def load_tabular_dataset(
    path: Path,
    *,
    fmt: str,
    db_dir: Path | None = None,
    tables: Path | None = None,
    columns: Mapping[str, str] | None = None,
    name: str | None = None,
) -> Dataset:
    """JSONL/CSV questions; `columns` maps roles (question, sql, db_id, id) to column names."""
    check_db_dir(db_dir)
    rows = read_jsonl(path) if fmt == "jsonl" else read_csv(path)
    columns = dict(columns or {})
    for role in columns:
        if role not in COLUMN_ROLES:
            raise DatasetError(f"unknown column role {role!r}", hint=f"roles: {', '.join(COLUMN_ROLES)}")
    first = rows[0]
    for role, col in columns.items():
        if col not in first:
            raise DatasetError(
                f"no column named {col!r} (for the {role})",
                path=path,
                where="header" if fmt == "csv" else f"line {first['__line__']}",
                hint=f"columns present: {', '.join(k for k in first if k != '__line__')}",
            )
    keys = {role: columns.get(role) or pick_key(first, cands) for role, cands in COLUMN_ROLES.items()}
    examples = tuple(
        example_from_record(
            {k: v for k, v in row.items() if k != "__line__"},
            index=i,
            path=path,
            question_key=keys["question"],
            sql_key=keys["sql"],
            db_key=keys["db_id"],
            id_key=keys["id"],
            where=f"line {row['__line__']}",
        )
        for i, row in enumerate(rows)
    )
    return _finish(path, fmt, examples, db_dir, tables, name)


def load_gold_file(
    path: Path, *, db_dir: Path | None = None, tables: Path | None = None, name: str | None = None
) -> Dataset:
    """Spider's `dev_gold.sql`: one `SQL<TAB>db_id` per line, no questions."""
    check_db_dir(db_dir)
    examples = []
    for lineno, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        sql, sep, db_id = line.rstrip().rpartition("\t")
        if not sep or not db_id.strip() or not sql.strip():
            raise DatasetError(
                "expected `SQL<TAB>db_id`",
                path=path,
                where=f"line {lineno}",
                hint="every line of a gold file is the gold SQL, a tab, and the database id",
            )
        i = len(examples)
        examples.append(Example(i, str(i), db_id.strip(), "", sql.strip()))
    return _finish(path, "gold", tuple(examples), db_dir, tables, name)


def _finish(
    path: Path,
    fmt: str,
    examples: tuple[Example, ...],
    db_dir: Path | None,
    tables: Path | None,
    name: str | None,
) -> Dataset:
    db_dir = db_dir or find_db_dir(path.parent)
    tables = tables or find_tables_json(path.parent)
    databases = resolve_databases((e.db_id for e in examples), db_dir)
    return Dataset(
        name=name or default_name(path),
        path=path,
        format=fmt,
        examples=examples,
        schemas=resolve_schemas(databases, tables, databases),
        databases=databases,
    )
