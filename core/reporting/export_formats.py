"""The export in other formats: JSON lines and Parquet (written by polars), SQLite (by sqlite-utils).

Every format holds the same rows and columns as the CSV export. The SQLite file has one table,
`evaluations`, with typed columns (INTEGER, REAL, TEXT from the frame's types) and the key
(index, model), so it can be joined and queried without casting. Like the CSV, each file is written
to a temporary name first: a failed export leaves no half file.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from sqltriage.core.errors import UsageError
from sqltriage.core.reporting.export import write_csv
from sqltriage.core.reporting.report import export_frame

FORMATS = ("csv", "jsonl", "parquet", "sqlite")
_SUFFIXES = {
    ".csv": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".sqlite": "sqlite",
    ".db": "sqlite",
    ".sqlite3": "sqlite",
}


def format_of(out: Path, fmt: str | None = None) -> str:
    """The format asked for, else the one the file name says (`.csv`, `.jsonl`, `.parquet`, `.sqlite`/`.db`)."""
    if fmt:
        if fmt not in FORMATS:
            raise UsageError(f"unknown export format {fmt!r}", hint=f"use one of {', '.join(FORMATS)}")
        return fmt
    found = _SUFFIXES.get(out.suffix.lower())
    if found is None:
        raise UsageError(
            f"cannot tell the format from the file name {out.name!r}",
            hint=f"end it in .csv, .jsonl, .parquet or .sqlite, or give --format ({', '.join(FORMATS)})",
        )
    return found


def write_export(frame: pl.DataFrame, out: Path, fmt: str | None = None) -> int:
    """Write the export columns of `frame` to `out` in `fmt` (or the format its name says); rows written."""
    fmt = format_of(out, fmt)
    if fmt == "csv":
        return write_csv(frame, out)
    data = export_frame(frame)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".partial")
    tmp.unlink(missing_ok=True)
    if fmt == "jsonl":
        data.write_ndjson(tmp)
    elif fmt == "parquet":
        data.write_parquet(tmp)
    else:
        _write_sqlite(data, tmp)
    tmp.replace(out)
    return data.height


_SQL_TYPES = {pl.Int64: int, pl.Int32: int, pl.Float64: float, pl.Boolean: int}


def _write_sqlite(data: pl.DataFrame, path: Path) -> None:
    import sqlite_utils  # only the sqlite export needs it

    columns = {name: _SQL_TYPES.get(dtype, str) for name, dtype in data.schema.items()}
    db = sqlite_utils.Database(path, execute_plugins=False)
    try:
        table = db.table("evaluations")
        table.create(columns, pk=("index", "model"))
        table.insert_all(data.iter_rows(named=True), batch_size=2000)
        db.conn.commit()
    finally:
        db.close()
