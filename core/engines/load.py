"""`sqltriage db copy`: SQLite databases loaded into a server, each through its engine's `copy_in`.

SOURCE is one `.sqlite` file or a folder of `<db_id>/<db_id>.sqlite` (Spider's, BIRD's, or those `db
generate` writes). With `{db_id}` in the URL's name each database gets its own server database; without it
all of them share one (Mini-Dev's layout), which is refused when two of them have a table of the same name.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from sqltriage.core.engines.base import CopyReport, Progress
from sqltriage.core.engines.refs import parse_url
from sqltriage.core.engines.registry import adapter_for
from sqltriage.core.errors import UsageError


@dataclass(frozen=True, slots=True)
class Source:
    db_id: str
    path: Path
    tables: tuple[str, ...]
    rows: int


def sources(source: Path) -> list[Source]:
    """The databases under `source`, with their tables and row counts (for the progress bar)."""
    if source.is_file():
        files = [(source.stem, source)]
    elif source.is_dir():
        files = sorted(
            (d.name, f) for d in source.iterdir() if d.is_dir() and (f := d / f"{d.name}.sqlite").is_file()
        )
        if not files:
            raise UsageError(f"{source} holds no <db_id>/<db_id>.sqlite database")
    else:
        raise UsageError(f"{source} does not exist")
    out = []
    for db_id, path in files:
        try:
            conn = sqlite3.connect(f"file:{path.resolve()}?mode=ro", uri=True)
            try:
                names = tuple(
                    r[0]
                    for r in conn.execute(
                        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
                    )
                )
                rows = sum(conn.execute(f'SELECT count(*) FROM "{n.replace(chr(34), chr(34) * 2)}"').fetchone()[0]
                           for n in names)  # fmt: skip
            finally:
                conn.close()
        except sqlite3.Error as exc:
            raise UsageError(f"{path} is not a readable SQLite database: {exc}") from None
        out.append(Source(db_id, path, names, rows))
    return out


def copy_databases(
    source: Path,
    url: str,
    *,
    replace: bool = False,
    progress: Progress | None = None,
    numbers_from_text: bool = False,
) -> list[CopyReport]:
    """Copy every database of `source` into the server at `url`; refuse to overwrite unless `replace`."""
    server = parse_url(url)
    found = sources(source)
    if not server.per_db_id:
        owner: dict[str, str] = {}
        for s in found:
            for t in s.tables:
                other = owner.setdefault(t.lower(), s.db_id)
                if other != s.db_id:
                    raise UsageError(
                        f"{other} and {s.db_id} both have a table {t}: they cannot share "
                        f"{server.redacted()}; put {{db_id}} in the database name for one database each"
                    )
    adapter = adapter_for(server.engine)
    return [
        adapter.copy_in(
            s.path,
            server.ref(s.db_id),
            replace=replace,
            progress=progress,
            numbers_from_text=numbers_from_text,
        )
        for s in found
    ]
