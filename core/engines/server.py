"""What the two server adapters share: connections kept per thread and database, the failure record, and
the messages that name a server by its URL without its password."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from typing import Any

from sqltriage.core.engines.base import Engine
from sqltriage.core.engines.refs import DbRef, ServerUrl
from sqltriage.core.verdicts.exec_result import ExecResult

KEPT_PER_THREAD = 24  # a dataset's databases (Spider dev: 20) stay open per worker thread


def failure(kind: str, message: str, started: float) -> ExecResult:
    return ExecResult((), (), time.perf_counter() - started, error=message, error_kind=kind)


def server_of(ref: DbRef) -> ServerUrl:
    if ref.server is None:
        raise ValueError(f"{ref} has no server URL")
    return ref.server


RETRY_AFTER = 10.0  # seconds a failed connection attempt is answered from memory (a missing database)


class KeptConnections(threading.local):
    """Open connections of this thread, by (server, database): opening one costs more than a query. A
    database that could not be reached is not tried again for `RETRY_AFTER` seconds: its failure is raised
    again at once (a dataset's missing database is asked for by every query of its examples)."""

    def __init__(self) -> None:
        self.open: dict[tuple, Any] = {}
        self.failed: dict[tuple, tuple[float, BaseException]] = {}

    def get(self, key: tuple, connect: Callable[[], Any]) -> Any:
        conn = self.open.pop(key, None)
        if conn is None:
            failed = self.failed.get(key)
            if failed is not None and time.monotonic() - failed[0] < RETRY_AFTER:
                raise failed[1]
            try:
                conn = connect()
            except Exception as exc:
                self.failed[key] = (time.monotonic(), exc)
                raise
            self.failed.pop(key, None)
        self.open[key] = conn  # most recently used last
        while len(self.open) > KEPT_PER_THREAD:
            _close(self.open.pop(next(iter(self.open))))
        return conn

    def drop(self, key: tuple) -> None:
        conn = self.open.pop(key, None)
        if conn is not None:
            _close(conn)

    def close_all(self) -> None:
        for conn in self.open.values():
            _close(conn)
        self.open.clear()


def _close(conn: Any) -> None:
    with contextlib.suppress(Exception):
        conn.close()


def unreachable(url: ServerUrl, db_id: str | None, exc: BaseException) -> str:
    """A connection failure that names the URL (never its password) and says what to do."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if url.password:
        text = text.replace(url.password, "***")
    return (
        f"cannot use {url.redacted(db_id)}: {text} (is the server running, the login right, the database "
        "created with `sqltriage db copy`?)"
    )


class ServerEngine(Engine):
    """An engine reached over the network: its connections kept per thread and database (`KeptConnections`),
    dropped after a failure, closed at the end, forgotten in a forked child."""

    def __init__(self) -> None:
        self._kept = KeptConnections()

    def _drop(self, ref: DbRef) -> None:
        url = server_of(ref)
        self._kept.drop(url.key(url.database(ref.db_id)))

    def close(self) -> None:
        self._kept.close_all()

    def forget(self) -> None:
        self._kept.open = {}
