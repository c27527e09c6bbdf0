"""The adapter of each engine, one per process (each keeps its connections per thread)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqltriage.core.engines.refs import DbRef
from sqltriage.core.errors import UsageError

if TYPE_CHECKING:
    from sqltriage.core.engines.base import Engine
    from sqltriage.core.model import Dataset
    from sqltriage.core.verdicts.exec_result import ExecResult

_ADAPTERS: dict[str, Engine] = {}


def adapter_for(engine: str) -> Engine:
    """The adapter of `engine` ("sqlite", "postgresql", "mysql"); a clear error when its driver is missing."""
    found = _ADAPTERS.get(engine)
    if found is not None:
        return found
    if engine == "sqlite":
        from sqltriage.core.engines.sqlite import SqliteEngine as cls
    elif engine == "postgresql":
        try:
            from sqltriage.core.engines.postgres import PostgresEngine as cls
        except ImportError as exc:
            raise UsageError(f"PostgreSQL needs psycopg: pip install 'sqltriage[engines]' ({exc})") from None
    elif engine == "mysql":
        try:
            from sqltriage.core.engines.mysql import MysqlEngine as cls
        except ImportError as exc:
            raise UsageError(
                f"MySQL/MariaDB needs PyMySQL: pip install 'sqltriage[engines]' ({exc})"
            ) from None
    else:
        raise UsageError(f"unknown engine {engine!r} (sqlite, postgresql, mysql)")
    found = _ADAPTERS[engine] = cls()
    return found


@dataclass(frozen=True, slots=True)
class Database:
    """A database on a server with the adapter that runs it: where the evaluation holds a SQLite file's
    `Path`, this stands (`verdicts.exec_result.ServerDatabase`), so a pair runs on it unchanged."""

    ref: DbRef

    @property
    def engine(self) -> str:
        return self.ref.engine

    @property
    def dialect(self) -> str:
        return self.ref.dialect

    @property
    def fingerprint(self) -> str:
        return self.ref.fingerprint

    def execute(self, sql: str, *, timeout: float, max_rows: int) -> ExecResult:
        return adapter_for(self.ref.engine).execute(self.ref, sql, timeout=timeout, max_rows=max_rows)

    def __str__(self) -> str:
        return str(self.ref)


def close_all() -> None:
    """Close every adapter's connections in this process."""
    for adapter in _ADAPTERS.values():
        adapter.close()


def _forget_in_child() -> None:
    """A forked worker opens its own connections: a server connection is never shared across fork."""
    for adapter in _ADAPTERS.values():
        forget = getattr(adapter, "forget", None)
        if forget is not None:
            forget()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


def on_server(dataset: Dataset, url: str) -> Dataset:
    """`dataset` with every `db_id`'s database on the server at `url` (`--db-url`), and the schemas it lacks
    (no tables.json, no SQLite file) read from the server; a server that cannot be reached is an error
    naming the URL, before anything runs."""
    from dataclasses import replace

    from sqltriage.core.engines.refs import parse_url

    server = parse_url(url)
    adapter = adapter_for(server.engine)
    databases = {db_id: Database(server.ref(db_id)) for db_id in dataset.db_ids}
    schemas = dict(dataset.schemas)
    for db_id in dataset.db_ids:
        if db_id not in schemas:
            try:
                schemas[db_id] = adapter.schema(server.ref(db_id)).as_model(db_id)
            except UsageError:
                if not server.per_db_id:
                    raise
    return replace(dataset, databases=databases, schemas=schemas)


def warnings_for(url: str, db_ids: list[str]) -> list[str]:
    """What about the login at `url` makes evaluation less safe (checked on the first database)."""
    from sqltriage.core.engines.refs import parse_url

    server = parse_url(url)
    if not db_ids:
        return []
    try:
        return adapter_for(server.engine).warnings(server.ref(db_ids[0]))
    except Exception:  # the check is advisory: a server that refuses it is reported by the run itself
        return []
