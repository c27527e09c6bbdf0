"""Does SQLite's own parser accept a query's text? Tables and columns are not looked up.

sqlglot reads more than SQLite does (`… GROUP BY x WHERE y` parses), and a query SQLite rejects as a
syntax error cannot be a partial answer: it never runs. The text is only compiled (`EXPLAIN`), on an
empty in-memory database whose authorizer denies every action, so nothing of it can run; name errors
("no such table") and the authorizer's refusal come after parsing and mean the syntax was accepted.
"""

from __future__ import annotations

import sqlite3
import threading

from sqltriage.core.sql.parse import statement_body

# The messages SQLite's tokenizer and parser give; any other error comes from a later stage.
_SYNTAX_MESSAGES = ("syntax error", "incomplete input", "unrecognized token", "parser stack overflow")

_local = threading.local()


def _connection() -> sqlite3.Connection:
    conn = getattr(_local, "conn", None)
    if conn is None:
        conn = sqlite3.connect(":memory:")
        conn.set_authorizer(lambda *_: sqlite3.SQLITE_DENY)
        _local.conn = conn
    return conn


def sqlite_syntax_error(sql: str) -> str | None:
    """SQLite's syntax error message for this one statement, or None when its parser accepts it.

    The last answer is kept per thread: an evaluation asks about the same prediction once per metric.
    """
    body = statement_body(sql)  # the text the SQL analyses read
    if not body:
        return "empty query"
    last = getattr(_local, "last", None)
    if last is not None and last[0] == body:
        return last[1]
    found = _compile_error(body)
    _local.last = (body, found)
    return found


def _compile_error(body: str) -> str | None:
    try:
        _connection().execute("EXPLAIN " + body).close()
    except sqlite3.Warning:  # more than one statement: not a syntax matter, the SQL parser decides that
        return None
    except sqlite3.Error as exc:
        message = str(exc)
        return message if any(m in message for m in _SYNTAX_MESSAGES) else None
    except (ValueError, OverflowError, MemoryError):  # NUL characters, absurd sizes
        return None
    return None
