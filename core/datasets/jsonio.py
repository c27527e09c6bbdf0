"""Reading text and JSON files with errors that say where the problem is."""

from __future__ import annotations

import json
import re
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


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def loads(text: str) -> Any:
    """`json.loads`, with lone surrogates (`"\\udcff"`, legal JSON but not encodable text) made U+FFFD,
    so a hostile string cannot crash the writes, displays and exports that expect valid UTF-8."""
    data = json.loads(text)
    # Only a `\\uD800`–`\\uDFFF` escape can produce a lone surrogate: skip the walk for the usual file.
    return _valid_text(data) if _SURROGATE_ESCAPE.search(text) else data


def _valid_text(value: Any) -> Any:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
        return value
    if isinstance(value, list):
        return [_valid_text(v) for v in value]
    if isinstance(value, dict):
        return {_valid_text(k): _valid_text(v) for k, v in value.items()}
    return value


def read_json(path: Path, *, error: type[SqlTriageError] = DatasetError) -> Any:
    text = read_text(path, error=error)
    try:
        return loads(text)
    except json.JSONDecodeError as exc:
        raise error(
            f"is not valid JSON: {exc.msg}",
            path=path,
            where=f"line {exc.lineno}, column {exc.colno}",
            hint="fix the JSON syntax at that place",
        ) from None
