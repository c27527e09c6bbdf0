"""Sizes as people write them (`100KB`, `500MB`, `2GB`) and as they read them."""

from __future__ import annotations

import re

from sqltriage.core.errors import UsageError

UNITS = {"": 1, "B": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(I?B)?\s*$", re.IGNORECASE)


def parse_size(text: str, *, where: str = "size") -> int:
    """Bytes from `100KB`, `500MB`, `2GB`, `1.5G`, `2GiB` or a plain number of bytes (K = 1024 bytes)."""
    m = _SIZE.match(str(text))
    if not m:
        raise UsageError(
            f"cannot read {text!r} as a size",
            where=where,
            hint="write a number with a unit, e.g. 100KB, 500MB or 2GB (1 KB = 1024 bytes)",
        )
    number, unit = float(m.group(1)), m.group(2).upper()
    return int(number * UNITS[unit])


def format_size(size: int) -> str:
    """`1.5 GB`, `12.0 MB`, `640 B`: the unit that gives a number below 1024."""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"
