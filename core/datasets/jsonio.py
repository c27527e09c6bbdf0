"""Reading text and JSON files with errors that say where the problem is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sqltriage.core.errors import DatasetError, SqlTriageError


def read_text(path: Path, *, error: type[SqlTriageError] = DatasetError) -> str:
    """The file's text as UTF-8 (a BOM is accepted); clear errors for missing, binary or empty files."""
    if not path.exists():
        raise error("file does not exist", path=path, hint="check the path")
    if path.is_dir():
        raise error("is a folder, a file was expected", path=path)
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise error(
            f"is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})",
            path=path,
            where=f"line {line}",
            hint="re-save the file as UTF-8",
        ) from None
    if not text.strip():
        raise error("file is empty", path=path, hint="give a file with content")
    return text


def read_json(path: Path, *, error: type[SqlTriageError] = DatasetError) -> Any:
    text = read_text(path, error=error)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(
            f"is not valid JSON: {exc.msg}",
            path=path,
            where=f"line {exc.lineno}, column {exc.colno}",
            hint="fix the JSON syntax at that place",
        ) from None
