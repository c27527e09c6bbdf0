"""What one query returned, or why it returned nothing: the record every verdict reads.

A leaf below the module that runs queries (execution) and those that compare their results (exec_compare,
official_ex), so that none of them imports another for it. The defaults of a run live here because a
result remembers what it ran under (`ex_spider` re-runs a query with them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

DEFAULT_TIMEOUT = 5.0  # seconds per query, execution and fetch together
DEFAULT_MAX_ROWS = 100_000  # rows fetched before a result is marked truncated

ERROR_KINDS = (
    "empty",  # nothing to run (blank, only comments)
    "syntax",  # the statement does not compile: parse error, unknown table/column/function, limits
    "runtime",  # compiled but failed while running
    "timeout",  # interrupted at the deadline
    "forbidden",  # tried to write, attach, change settings or load code
    "multiple_statements",  # more than one statement
    "db_missing",  # no database file for this example
    "db_unreadable",  # the file exists but SQLite cannot open or read it
    "db_locked",  # another program holds a lock on the file
)
DB_FAULTS = frozenset({"db_missing", "db_unreadable", "db_locked"})  # failures that say nothing of the query


@dataclass(frozen=True, slots=True)
class ExecResult:
    """What one query returned, or why it returned nothing."""

    columns: tuple[str, ...]
    rows: tuple[tuple, ...]
    elapsed: float  # seconds, open + execute + fetch
    error: str | None = None  # full message
    error_kind: str | None = None  # one of ERROR_KINDS
    truncated: bool = False  # row or byte cap hit: the rows are a prefix of the full result
    # Where the result came from, so `ex_spider` can re-run the official rewriting of the query when
    # a caller gives only the results; not part of equality.
    sql: str | None = field(default=None, compare=False, repr=False)
    db_path: Path | ServerDatabase | None = field(default=None, compare=False, repr=False)
    timeout: float = field(default=DEFAULT_TIMEOUT, compare=False, repr=False)
    max_rows: int = field(default=DEFAULT_MAX_ROWS, compare=False, repr=False)

    @property
    def ok(self) -> bool:
        return self.error is None


@runtime_checkable
class ServerDatabase(Protocol):
    """A database on a server, where a SQLite file's `Path` stands otherwise (`engines.refs.DbRef`): named
    here so that execution runs it without importing the engines, which build on execution."""

    engine: str

    @property
    def fingerprint(self) -> str: ...

    def execute(self, sql: str, *, timeout: float, max_rows: int) -> ExecResult: ...
