"""Accepting and withdrawing alternative golds in a workspace: one code path, logged, undoable.

Accepting a prediction as an alternative gold of an example and withdrawing one are the same
operation: the example's set of accepted alternatives changes, and every model's row of the example
is re-scored by the evaluator's own execution step (core.evaluate.execution_verdicts) against the
dataset's gold and alternatives plus the accepted set as it is after the change. So a withdrawal
leaves the rows exactly as an evaluation without that alternative leaves them (EX in every mode,
`gold_match`, `official_quirk`), and an acceptance withdrawn again leaves them as they were.

Each change is one transaction: the `alternatives` table, the re-scored rows and one entry of
`alternative_log` (`accept` or `withdraw`). core.history reads that log as one more source of
undoable changes; undoing an entry applies its inverse through this module again.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from sqltriage.core.errors import WorkspaceError
from sqltriage.core.model import Dataset
from sqltriage.core.workspace.accepted import TABLE_SQL
from sqltriage.core.workspace.store import Workspace

LOG_SQL = (
    "CREATE TABLE IF NOT EXISTS alternative_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
    "action TEXT NOT NULL, idx INTEGER NOT NULL, sql TEXT NOT NULL, model TEXT, "
    "accepted_at REAL, created REAL NOT NULL, annotator TEXT)"
)
ACCEPT, WITHDRAW = "accept", "withdraw"
EX_MODES = ("spider", "bird", "archer")  # as core.exec_compare.EX_MODES (not imported: it loads sqlglot)
RESCORED = ("ex", "ex_spider", "ex_bird", "ex_archer", "gold_match", "official_quirk")


@dataclass(frozen=True, slots=True)
class GoldChange:
    """One acceptance or withdrawal, as written: what it was and which verdicts it changed."""

    action: str  # ACCEPT | WITHDRAW
    index: int
    sql: str
    model: str  # whose prediction was accepted ("" when not known)
    changed: tuple[tuple[str, str], ...]  # (model, EX mode) whose verdict changed
    seq: int  # its entry in alternative_log

    def describe(self) -> str:
        return describe(self.action, self.index, self.model)


def describe(action: str, index: int, model: str) -> str:
    verb = "accepted" if action == ACCEPT else "withdrew"
    return f"{verb} alternative gold for #{index}" + (f" from model {model}" if model else "")


def ensure_tables(ws: Workspace) -> None:
    ws.define(TABLE_SQL)
    ws.define(LOG_SQL)


def accept(
    ws: Workspace,
    dataset: Dataset,
    idx: int,
    sql: str,
    *,
    model: str = "",
    timeout: float,
    max_rows: int,
    accepted_at: float | None = None,
    within: Callable[[int], None] | None = None,
) -> GoldChange:
    """Store `sql` as an accepted alternative gold of example `idx` and re-score the example's rows.

    `accepted_at` puts it back at its old place among the example's accepted alternatives (an undone
    withdrawal), so their labels (`accepted N`) are the same as before. `within` runs inside the
    transaction with the log entry's seq (core.history records an undo there).
    """
    return _change(ws, dataset, idx, sql, ACCEPT, model, accepted_at, timeout, max_rows, within)


def withdraw(
    ws: Workspace,
    dataset: Dataset,
    idx: int,
    sql: str,
    *,
    timeout: float,
    max_rows: int,
    within: Callable[[int], None] | None = None,
) -> GoldChange:
    """Remove an accepted alternative gold of example `idx` and re-score the example's rows without it."""
    return _change(ws, dataset, idx, sql, WITHDRAW, None, None, timeout, max_rows, within)


def log_entry(ws: Workspace, seq: int) -> dict[str, Any] | None:
    ensure_tables(ws)
    row = ws.db.execute(
        "SELECT seq, action, idx, sql, model, accepted_at, created FROM alternative_log WHERE seq = ?", [seq]
    ).fetchone()
    keys = ("seq", "action", "idx", "sql", "model", "accepted_at", "created")
    return dict(zip(keys, row, strict=True)) if row else None


def undo_entry(
    ws: Workspace,
    dataset: Dataset,
    seq: int,
    *,
    timeout: float,
    max_rows: int,
    within: Callable[[int], None] | None = None,
) -> GoldChange:
    """Apply the inverse of log entry `seq`: withdraw what it accepted, or accept again what it withdrew."""
    entry = log_entry(ws, seq)
    if entry is None:
        raise WorkspaceError(f"the workspace's alternative log has no entry {seq}", path=ws.path)
    if entry["action"] == ACCEPT:
        return withdraw(
            ws, dataset, entry["idx"], entry["sql"], timeout=timeout, max_rows=max_rows, within=within
        )
    return accept(
        ws,
        dataset,
        entry["idx"],
        entry["sql"],
        model=entry["model"] or "",
        accepted_at=entry["accepted_at"],
        timeout=timeout,
        max_rows=max_rows,
        within=within,
    )


def _stored(ws: Workspace, idx: int) -> list[tuple[str, float]]:
    """(sql, when accepted) of the example's accepted alternatives, in the order they count."""
    rows = ws.db.execute("SELECT sql, created FROM alternatives WHERE idx = ? ORDER BY created, rowid", [idx])
    return [(str(s), float(c)) for s, c in rows]


def _accepted_from(ws: Workspace, idx: int, sql: str) -> str:
    """The model whose prediction `sql` was, from the newest acceptance of it ("" when not logged)."""
    row = ws.db.execute(
        "SELECT model FROM alternative_log WHERE idx = ? AND sql = ? AND action = ? ORDER BY seq DESC LIMIT 1",
        [idx, sql, ACCEPT],
    ).fetchone()
    return str(row[0] or "") if row else ""


def _change(
    ws: Workspace,
    dataset: Dataset,
    idx: int,
    sql: str,
    action: str,
    model: str | None,
    accepted_at: float | None,
    timeout: float,
    max_rows: int,
    within: Callable[[int], None] | None,
) -> GoldChange:
    sql = sql.strip()
    if not sql:
        raise ValueError("an empty query cannot be a gold")
    if not 0 <= idx < len(dataset.examples):
        raise WorkspaceError(f"example #{idx} is not in the dataset ({len(dataset.examples)} examples)")
    ensure_tables(ws)
    before = _stored(ws, idx)
    known = [s for s, _ in before]
    if action == ACCEPT:
        if sql in known:
            raise WorkspaceError(f"this query is already an accepted alternative gold of #{idx}")
        when = accepted_at if accepted_at is not None else time.time()
        after = sorted([*before, (sql, when)], key=lambda p: p[1])
    else:
        if sql not in known:
            raise WorkspaceError(
                f"this query is not an accepted alternative gold of #{idx} (withdrawn already?)"
            )
        when = dict(before)[sql]
        after = [p for p in before if p[0] != sql]
        model = _accepted_from(ws, idx, sql)
    # the queries run before the transaction, so the write lock is held only for the writes
    updates, changed = _rescored(ws, dataset, idx, tuple(s for s, _ in after), timeout, max_rows)
    with ws.write():
        if _stored(ws, idx) != before:
            raise WorkspaceError(
                f"the accepted alternatives of #{idx} changed meanwhile (another window?): try again",
                path=ws.path,
            )
        if action == ACCEPT:
            ws.db.execute("INSERT INTO alternatives (idx, sql, created) VALUES (?, ?, ?)", [idx, sql, when])
        else:
            ws.db.execute("DELETE FROM alternatives WHERE idx = ? AND sql = ?", [idx, sql])
        seq = ws.db.execute(
            "INSERT INTO alternative_log (action, idx, sql, model, accepted_at, created, annotator) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [action, idx, sql, model or "", when, time.time(), ws.annotator],
        ).lastrowid
        assert seq is not None
        if within is not None:
            within(seq)
        for row_model, new in updates:
            sets = ", ".join(f"[{k}] = ?" for k in new)
            ws.db.execute(
                f"UPDATE results SET {sets} WHERE model = ? AND idx = ?", [*new.values(), row_model, idx]
            )
    return GoldChange(action, idx, sql, model or "", tuple(changed), seq)


def _rescored(
    ws: Workspace, dataset: Dataset, idx: int, accepted: tuple[str, ...], timeout: float, max_rows: int
) -> tuple[list[tuple[str, dict[str, Any]]], list[tuple[str, str]]]:
    """The example's rows whose EX columns differ when scored against these accepted alternatives."""
    from sqltriage.core.pipeline.evaluate import EvalOptions
    from sqltriage.core.pipeline.pair import execution_verdicts, gold_context

    options = EvalOptions(timeout=timeout, max_rows=max_rows)
    gold = gold_context(replace(dataset.examples[idx], accepted=accepted), dataset, options)
    if gold.db_path is None or gold.result is None:  # no database: EX was never computed for this example
        return [], []
    columns = ", ".join(f"[{c}]" for c in RESCORED)
    rows = ws.db.execute(
        f"SELECT model, pred_sql, {columns} FROM results WHERE idx = ? ORDER BY rowid", [idx]
    ).fetchall()
    updates: list[tuple[str, dict[str, Any]]] = []
    changed: list[tuple[str, str]] = []
    for model, pred_sql, *stored in rows:
        verdicts = execution_verdicts(gold, pred_sql or "", options)
        new = {c: verdicts.get(c) for c in RESCORED}
        old = dict(zip(RESCORED, stored, strict=True))
        if new != old:
            updates.append((str(model), new))
            changed += [(str(model), m) for m in EX_MODES if new[f"ex_{m}"] != old[f"ex_{m}"]]
    return updates, changed
