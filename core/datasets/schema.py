"""Schemas from Spider-style tables.json files or straight from a SQLite file."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from sqltriage.core.datasets.jsonio import read_json
from sqltriage.core.errors import DatasetError
from sqltriage.core.model import Column, Schema, Table


def schema_from_tables_entry(entry: dict[str, Any], *, path: Path, position: int) -> Schema:
    """Build a Schema from one tables.json record (original table and column names)."""
    where = f"record {position}"
    try:
        db_id = entry["db_id"]
        table_names = entry.get("table_names_original") or entry["table_names"]
        column_names = entry.get("column_names_original") or entry["column_names"]
        column_types = entry.get("column_types") or ["text"] * len(column_names)
    except (KeyError, TypeError) as exc:
        raise DatasetError(
            f"schema record lacks the field {exc}",
            path=path,
            where=where,
            hint="tables.json records need db_id, table_names_original and column_names_original",
        ) from None
    columns: list[list[Column]] = [[] for _ in table_names]
    qualified: list[tuple[str, str] | None] = []
    for i, pair in enumerate(column_names):
        t_idx, c_name = pair
        if t_idx < 0:
            qualified.append(None)
            continue
        if t_idx >= len(table_names):
            raise DatasetError(
                f"column {c_name!r} names table #{t_idx}, but there are {len(table_names)} tables",
                path=path,
                where=f"{where} (db_id {db_id!r})",
                hint="fix the column_names_original entry",
            )
        ctype = column_types[i] if i < len(column_types) else "text"
        columns[t_idx].append(Column(c_name, ctype))
        qualified.append((table_names[t_idx], c_name))

    def col(i: int) -> tuple[str, str] | None:
        return qualified[i] if 0 <= i < len(qualified) else None

    pks: list[tuple[str, str]] = []
    for pk in entry.get("primary_keys", []):
        for i in pk if isinstance(pk, list) else [pk]:
            if (c := col(i)) is not None:
                pks.append(c)
    fks = []
    for a, b in entry.get("foreign_keys", []):
        ca, cb = col(a), col(b)
        if ca is not None and cb is not None:
            fks.append((ca, cb))
    tables = tuple(Table(n, tuple(cs)) for n, cs in zip(table_names, columns, strict=True))
    return Schema(db_id, tables, tuple(pks), tuple(fks))


def load_tables_json(path: Path) -> dict[str, Schema]:
    data = read_json(path)
    if not isinstance(data, list):
        raise DatasetError(
            "expected a JSON list of schema records", path=path, hint="give a Spider/BIRD tables.json"
        )
    out: dict[str, Schema] = {}
    for i, entry in enumerate(data):
        if not isinstance(entry, dict):
            raise DatasetError("schema record is not an object", path=path, where=f"record {i}")
        schema = schema_from_tables_entry(entry, path=path, position=i)
        out[schema.db_id] = schema
    return out


def _read_only(db_path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{db_path.resolve()}?mode=ro", uri=True)


def schema_from_sqlite(db_path: Path, db_id: str | None = None) -> Schema:
    """Read tables, columns and keys from the file itself (opened read-only), through sqlite-utils.

    Used when no tables.json is given. A foreign key written `REFERENCES other` (no column) points at
    the other table's primary key, as SQLite reads it.
    """
    import sqlite_utils  # only datasets without tables.json need it: kept off every other path

    conn = _read_only(db_path)
    try:
        db = sqlite_utils.Database(conn, execute_plugins=False, recursive_triggers=False)
        tables: list[Table] = []
        pks: list[tuple[str, str]] = []
        fks: list[tuple[tuple[str, str], tuple[str, str]]] = []
        for name in _table_names(conn):
            table = db.table(name)
            columns = table.columns
            tables.append(Table(name, tuple(Column(c.name, type_family(c.type)) for c in columns)))
            pks += [(name, c.name) for c in columns if c.is_pk]
            for fk in table.foreign_keys:
                pairs = (
                    zip(fk.columns, fk.other_columns, strict=False)
                    if fk.is_compound
                    else [(fk.column, fk.other_column)]
                )
                fks += [((name, a), (fk.other_table, b)) for a, b in pairs if a and b]
    except sqlite3.DatabaseError as exc:
        raise DatasetError(
            f"cannot read the schema: {exc}", path=db_path, hint="is this a SQLite database file?"
        ) from None
    finally:
        conn.close()
    return Schema(db_id or db_path.stem, tuple(tables), tuple(pks), tuple(fks))


def _table_names(conn: sqlite3.Connection) -> list[str]:
    """User tables in creation order (the order tables.json lists them in)."""
    rows = conn.execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
    )
    return [r[0] for r in rows]


def table_sizes(db_path: Path) -> dict[str, int]:
    """Rows per table of a database file (read-only, through sqlite-utils), for `sqltriage check`."""
    import sqlite_utils

    conn = _read_only(db_path)
    try:
        db = sqlite_utils.Database(conn, execute_plugins=False, recursive_triggers=False)
        return {name: db.table(name).count for name in _table_names(conn)}
    except sqlite3.DatabaseError as exc:
        raise DatasetError(f"cannot count rows: {exc}", path=db_path) from None
    finally:
        conn.close()


def type_family(declared: str) -> str:
    d = (declared or "").lower()
    if any(k in d for k in ("int", "real", "num", "dec", "double", "float")):
        return "number"
    if any(k in d for k in ("date", "time", "year")):
        return "time"
    if "bool" in d:
        return "boolean"
    return "text"
