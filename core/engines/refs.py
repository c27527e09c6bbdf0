"""A database reference: which engine, where, and a fingerprint, where a `Path` stood for SQLite alone.

A reference is a record; `registry.Database` is a reference with its engine's adapter, what the evaluation
carries for each `db_id` on a server, so verdicts code that knew a file path needs no engine of its own (it
calls `execute` on whatever it is given). URLs: `postgresql://user@host:port/dbname`, `mysql://user@host:port/dbname` (`mariadb://` too),
with `{db_id}` in the name for one database per `db_id`; without it every `db_id` lives in the one database
(BIRD Mini-Dev's layout). A password in the URL is never shown: `redacted` is what messages print.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from sqltriage.core.errors import UsageError

ENGINES = {"sqlite": "sqlite", "postgresql": "postgresql", "postgres": "postgresql", "mysql": "mysql",
           "mariadb": "mysql"}  # fmt: skip
DIALECTS = {"sqlite": "sqlite", "postgresql": "postgres", "mysql": "mysql"}  # sqlglot's names
PLACEHOLDER = "{db_id}"


@dataclass(frozen=True, slots=True)
class ServerUrl:
    """A parsed server URL; `dbname` may hold the `{db_id}` placeholder."""

    engine: str  # "postgresql" | "mysql"
    host: str
    port: int | None
    user: str | None
    password: str | None = field(default=None, repr=False)
    dbname: str = ""
    params: tuple[tuple[str, str], ...] = ()

    @property
    def per_db_id(self) -> bool:
        return PLACEHOLDER in self.dbname

    def database(self, db_id: str) -> str:
        """The server database that holds `db_id`."""
        return self.dbname.replace(PLACEHOLDER, db_id)

    def redacted(self, db_id: str | None = None) -> str:
        """The URL as messages show it: the password replaced by `***`."""
        who = quote(self.user or "", safe="") + (":***" if self.password else "")
        at = f"{who}@" if who else ""
        port = f":{self.port}" if self.port else ""
        name = self.database(db_id) if db_id is not None else self.dbname
        return f"{self.engine}://{at}{self.host}{port}/{name}"

    def key(self, dbname: str) -> tuple:
        """What a kept connection is for: the login with its password (a connection opened with one
        password is never reused for a URL with another), the server and the database."""
        return (self.engine, self.host, self.port, self.user, self.password, dbname, self.params)

    def ref(self, db_id: str) -> DbRef:
        """The reference of `db_id` on this server."""
        return DbRef(self.engine, self.redacted(db_id), db_id, self)


def parse_url(url: str) -> ServerUrl:
    """Read `postgresql://…` or `mysql://…`; a clear error for anything else."""
    parts = urlsplit(url)
    engine = ENGINES.get(parts.scheme.lower().split("+")[0])
    if engine is None or engine == "sqlite":
        raise UsageError(
            f"not a database server URL: {parts.scheme or url!r} (expected postgresql://user@host:port/dbname"
            " or mysql://user@host:port/dbname)"
        )
    dbname = unquote(parts.path.lstrip("/"))
    if not dbname:
        raise UsageError(f"{_safe(url)} names no database: add /dbname (or /{PLACEHOLDER} for one per db_id)")
    try:
        port = parts.port
    except ValueError as exc:
        raise UsageError(f"{_safe(url)}: bad port ({exc})") from None
    return ServerUrl(
        engine,
        parts.hostname or "localhost",
        port,
        unquote(parts.username) if parts.username else None,
        unquote(parts.password) if parts.password is not None else None,
        dbname,
        tuple(parse_qsl(parts.query)),
    )


def _safe(url: str) -> str:
    """`url` without its password, for an error about a URL that did not parse."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return url.replace(f":{parts.password}@", ":***@", 1)


@dataclass(frozen=True, slots=True)
class DbRef:
    """Engine plus locator (a file for SQLite, a redacted URL and db_id for a server) and its server URL.

    Equal references name the same database; `fingerprint` is what run keys and the gold cache hash.
    """

    engine: str
    locator: str
    db_id: str = ""
    server: ServerUrl | None = field(default=None, compare=False, repr=False)

    @classmethod
    def sqlite(cls, path: Path) -> DbRef:
        return cls("sqlite", str(path), path.stem)

    @property
    def path(self) -> Path | None:
        return Path(self.locator) if self.engine == "sqlite" else None

    @property
    def dialect(self) -> str:
        return DIALECTS[self.engine]

    @property
    def fingerprint(self) -> str:
        """SHA-256 of what identifies the database: the file's bytes, or the server, database and db_id (a
        server's content is not hashed: its schema listing is part of `evaluate`'s run key instead)."""
        if self.engine == "sqlite":
            from sqltriage.core.verdicts.execution import file_digest

            return file_digest(Path(self.locator))
        return hashlib.sha256(f"{self.engine}|{self.locator}|{self.db_id}".encode()).hexdigest()

    def __str__(self) -> str:
        return self.locator if self.engine == "sqlite" else f"{self.locator} ({self.db_id})"
