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
from sqltriage.core.verdicts.ex_modes import EX_MODES  # imports nothing: no sqlglot here
from sqltriage.core.workspace.gold_records import ACCEPT, WITHDRAW
from sqltriage.core.workspace.store import Workspace

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
    ws.ensure_gold_tables()


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
    return ws.gold_log_entry(seq)


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
    before = ws.accepted_of(idx)
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
        model = ws.accepted_from(idx, sql)
    # the queries run before the transaction, so the write lock is held only for the writes
    updates, changed = _rescored(ws, dataset, idx, tuple(s for s, _ in after), timeout, max_rows)
    with ws.write():
        if ws.accepted_of(idx) != before:
            raise WorkspaceError(
                f"the accepted alternatives of #{idx} changed meanwhile (another window?): try again",
                path=ws.path,
            )
        seq = ws.record_gold_change(action, idx, sql, model or "", when)
        if within is not None:
            within(seq)
        ws.update_results(idx, updates)
    if updates:  # the judgement reads EX: the example's rows are judged again against the golds as they are
        from sqltriage.core.pipeline.judging import judge_examples
        from sqltriage.core.verdicts.ex_modes import DEFAULT_MODE, EX_MODES

        judge_examples(ws, dataset.format if dataset.format in EX_MODES else DEFAULT_MODE, [idx])
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
    updates: list[tuple[str, dict[str, Any]]] = []
    changed: list[tuple[str, str]] = []
    for model, pred_sql, old in ws.results_of_example(idx, RESCORED):
        verdicts = execution_verdicts(gold, pred_sql or "", options)
        new = {c: verdicts.get(c) for c in RESCORED}
        if new != old:
            updates.append((str(model), new))
            changed += [(str(model), m) for m in EX_MODES if new[f"ex_{m}"] != old[f"ex_{m}"]]
    return updates, changed
