"""One line that reads how gold and prediction differ on a witness, and the witness's tables to show.

The line names what a person checks first: how many rows each side returns, then which rows one side has
and the other lacks ("gold returns 3 rows, the prediction 2: it misses (7, 'Oslo')"). Rows are compared
as bags, as `ex_spider` does; when the bags agree, it says the order or the column layout differs.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from sqltriage.core.verdicts.testsuite.constraints import quoted, table_names

if TYPE_CHECKING:
    from sqltriage.core.verdicts.exec_result import ExecResult

SHOWN_ROWS = 2  # rows quoted in the line
SHOWN_TEXT = 24  # characters of a text value quoted in the line
TABLE_ROWS = 50  # rows of one table shown (a witness has a few; a neighbour kept whole has up to 2,000)


def _rows(n: int) -> str:
    return "none" if n == 0 else f"{n} row" if n == 1 else f"{n} rows"


def _value(v: Any) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, str):
        return repr(v if len(v) <= SHOWN_TEXT else v[: SHOWN_TEXT - 1] + "…")
    if isinstance(v, bytes):
        return f"<{len(v)} bytes>"
    return repr(v)


def _quote_rows(rows: Counter) -> str:
    listed = list(rows.elements())
    shown = ", ".join("(" + ", ".join(_value(v) for v in r) + ")" for r in listed[:SHOWN_ROWS])
    more = len(listed) - SHOWN_ROWS
    return shown + (f" and {more} more" if more > 0 else "")


def read_difference(gold: ExecResult, pred: ExecResult, *, ordered: bool = False) -> str:
    """`gold returns 1 row, the prediction none`, and the like: the difference in one line."""
    if not gold.ok:
        return f"gold fails: {gold.error}"
    if not pred.ok:
        if pred.error_kind == "timeout":
            return f"gold returns {_rows(len(gold.rows))}, the prediction times out"
        return f"gold returns {_rows(len(gold.rows))}, the prediction fails: {pred.error}"
    g, p = Counter(gold.rows), Counter(pred.rows)
    ng, np_ = len(gold.rows), len(pred.rows)
    if gold.rows and pred.rows and len(gold.columns) != len(pred.columns):
        return f"gold returns {len(gold.columns)} column(s), the prediction {len(pred.columns)}"
    missing, extra = g - p, p - g
    if ng != np_:
        second = _rows(np_) if ng == 0 or np_ == 0 else str(np_)  # "gold returns 3 rows, the prediction 2"
        head = f"gold returns {_rows(ng)}, the prediction {second}"
        if np_ == 0 or ng == 0:
            return head if ng else f"{head}: {_quote_rows(extra)}"
        parts = []
        if missing:
            parts.append(f"it misses {_quote_rows(missing)}")
        if extra:
            parts.append(f"it adds {_quote_rows(extra)}")
        return head + (": " + " and ".join(parts) if parts else "")
    if missing or extra:
        if _as_bags(gold.rows) == _as_bags(pred.rows):
            return f"both return {_rows(ng)}, with the columns in another order"
        return (
            f"both return {_rows(ng)}: gold has {_quote_rows(missing)}, the prediction {_quote_rows(extra)}"
        )
    if ordered and list(gold.rows) != list(pred.rows):
        return f"both return the same {_rows(ng)}, in another order (gold sorts them)"
    return f"both return {_rows(ng)}; they differ only in how values compare"


def _as_bags(rows: tuple) -> Counter:
    return Counter(tuple(sorted(map(repr, r))) for r in rows)


@dataclass(frozen=True, slots=True)
class WitnessTable:
    name: str
    columns: tuple[str, ...]
    rows: tuple[tuple, ...]  # at most TABLE_ROWS
    count: int  # rows in the table


def witness_tables(path: Path) -> list[WitnessTable]:
    """Every table of a witness with its rows (in rowid order), read-only; empty tables included."""
    conn = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True)
    conn.text_factory = lambda raw: raw.decode("utf-8", errors="replace")
    try:
        out = []
        for t in table_names(conn):
            try:
                cur = conn.execute(f"SELECT * FROM {quoted(t)} ORDER BY rowid LIMIT {TABLE_ROWS}")
            except sqlite3.OperationalError:  # WITHOUT ROWID: its key's order
                cur = conn.execute(f"SELECT * FROM {quoted(t)} LIMIT {TABLE_ROWS}")
            rows = tuple(cur.fetchall())
            columns = tuple(d[0] for d in cur.description)
            count = conn.execute(f"SELECT count(*) FROM {quoted(t)}").fetchone()[0]
            out.append(WitnessTable(t, columns, rows, count))
        return out
    finally:
        conn.close()
