"""Execution evidence from databases generated from the schema alone, when the dataset has no file.

Gold and prediction run (read-only, through `execution.execute`) on each generated database and are
compared in the dataset's own EX sense. Agreement on every database where gold returns something that
could not be a coincidence (not empty, not a lone 0 or NULL) clears the prediction: no error is suggested.
The first database where they differ gives the results the ranking reads (an extra column, missing rows, the
same rows with other duplicates, …), and its minimal witness names the tables the difference needs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sqltriage.core.suggest.reason import Reason
from sqltriage.core.suggest.suggestion import GATE, Suggestion
from sqltriage.core.verdicts.exec_compare import compare, order_matters, spider_sql
from sqltriage.core.verdicts.exec_result import ExecResult
from sqltriage.core.verdicts.execution import execute, steps_for

TIMEOUT = 1.0  # seconds per query, as SQLite steps: the generated databases hold at most a few thousand rows
STEPS = steps_for(TIMEOUT)  # the same on a loaded machine; the wall clock guards at WALL_FACTOR × TIMEOUT
WALL_FACTOR = 10
MAX_ROWS = 10_000
WITNESS_STEPS = 40  # shrinking budget per differing pair: the witness ranks causes, it decides nothing


@dataclass(frozen=True, slots=True)
class Evidence:
    total: int  # generated databases given
    databases: int  # generated databases where gold ran (up to the first that tells them apart)
    telling: int  # of those, where gold's result is not a coincidence (not empty, not a lone 0 / NULL)
    differ: bool  # some database tells gold and prediction apart in the dataset's EX sense
    gold: ExecResult | None = None  # the results on the first database that tells them apart
    pred: ExecResult | None = None
    witness_tables: frozenset[str] = frozenset()  # tables with rows in that database's minimal witness
    witness_rows: int | None = None

    @property
    def agrees(self) -> bool:
        """The prediction returned gold's result everywhere, and somewhere that meant something."""
        return not self.differ and self.telling > 0

    @property
    def label(self) -> str:
        if self.differ:
            return f"on database {self.databases} of {self.total} generated from the schema"
        return f"on {self.databases} of {self.total} databases generated from the schema"


def _trivial(result: ExecResult) -> bool:
    return not result.rows or result.rows in (((0,),), ((None,),))


def schema_evidence(
    gold_sql: str,
    pred_sql: str,
    databases: Sequence[Path],
    *,
    mode: str = "spider",
    witness: bool = True,
) -> Evidence | None:
    """Gold and prediction on each generated database; None when gold runs on none of them."""
    ordered = order_matters(gold_sql)
    gold_sql, pred_sql = _as_compared(gold_sql, pred_sql, mode)
    ran = telling = 0
    for db in databases:
        g = _run(db, gold_sql)
        if not g.ok or g.truncated:
            continue
        ran += 1
        p = _run(db, pred_sql)
        trivial = _trivial(g)
        telling += not trivial
        if compare(g, p, mode, order_matters=ordered) == 0:
            tables, rows = _witness(db, gold_sql, pred_sql, mode, p.ok) if witness else (frozenset(), None)
            return Evidence(len(databases), ran, telling, True, g, p, tables, rows)
    return Evidence(len(databases), ran, telling, False) if ran else None


def _as_compared(gold_sql: str, pred_sql: str, mode: str) -> tuple[str, str]:
    """The texts the dataset's EX runs: Spider's evaluator drops DISTINCT and keeps the first statement."""
    return (spider_sql(gold_sql), spider_sql(pred_sql)) if mode == "spider" else (gold_sql, pred_sql)


def _run(db: Path, sql: str) -> ExecResult:
    return execute(db, sql, timeout=TIMEOUT * WALL_FACTOR, max_rows=MAX_ROWS, steps=STEPS)


def _witness(
    db: Path, gold_sql: str, pred_sql: str, mode: str, pred_ok: bool
) -> tuple[frozenset[str], int | None]:
    """The tables left with rows in the minimal witness (the rows that make the difference)."""
    from sqltriage.core.verdicts.testsuite.reading import witness_tables
    from sqltriage.core.verdicts.testsuite.witness import minimal_witness

    try:
        w = minimal_witness(
            db, gold_sql, pred_sql, mode=mode, timeout=TIMEOUT, max_rows=MAX_ROWS, pred_ok=pred_ok,
            max_steps=WITNESS_STEPS,
        )  # fmt: skip
        return frozenset(t.name.lower() for t in witness_tables(w.path) if t.count), w.rows
    except Exception:  # advisory: a witness that cannot be read leaves the ranking to the results
        return frozenset(), None


def witness_evidence(gold_sql: str, pred_sql: str, witness: Path, *, mode: str = "spider") -> Evidence | None:
    """The results on the row's refuting witness (a neighbour's, the solver's or a generated database's,
    already shrunk): the rows and columns that make the difference, and the tables holding them. None when
    the two do not differ there (a witness of another reading) or it cannot be read."""
    from sqltriage.core.verdicts.testsuite.reading import witness_tables

    ordered = order_matters(gold_sql)
    gold_sql, pred_sql = _as_compared(gold_sql, pred_sql, mode)
    try:
        g, p = _run(witness, gold_sql), _run(witness, pred_sql)
        if not g.ok or compare(g, p, mode, order_matters=ordered) != 0:
            return None
        held = [t for t in witness_tables(witness) if t.count]
    except Exception:  # advisory: an unreadable witness leaves the ranking to the parses
        return None
    tables = frozenset(t.name.lower() for t in held)
    return Evidence(1, 1, 1, True, g, p, tables, sum(t.count for t in held))


ROW_CAUSES = ("Condition:", "Value:", "Operator:")  # causes that change which rows come back
COLUMN_CAUSES = ("Attribute: mismatch", "Function:")  # causes that change what a column holds


def localise(found: list[Suggestion], ev: Evidence) -> list[Suggestion]:
    """Candidates re-weighed by where the results on the telling database differ.

    When the prediction returns gold's values in some columns and other values in the rest, the rows are
    right and a column is wrong: column causes gain, row causes lose. When the minimal witness keeps rows
    in a table a candidate names, that table takes part in the difference.
    """
    g, p = ev.gold, ev.pred
    if g is None or p is None or not p.ok or not g.rows or not p.rows or len(g.columns) != len(p.columns):
        return found
    n = len(g.columns)
    differing = [i for i in range(n) if {r[i] for r in g.rows} != {r[i] for r in p.rows}]
    out = []
    for s in found:
        conf, why = s.confidence, ""
        if n > 1 and 0 < len(differing) < n:
            cols = ", ".join(str(i + 1) for i in differing)
            if s.tag.startswith(COLUMN_CAUSES):
                conf, why = conf + 0.1, f"only result column {cols} differs"
            elif s.tag.startswith(ROW_CAUSES):
                conf, why = conf - 0.15, f"the rows agree but for column {cols}"
        shown = s.confidence >= GATE  # the witness re-ranks what is shown; it lifts nothing over the gate
        if (
            shown
            and ev.witness_tables
            and s.tag.startswith("Table:")
            and _names_any(str(s.reason), ev.witness_tables)
        ):
            conf, why = conf + 0.05, why or "the minimal witness needs rows of that table"
        out.append(
            s if not why else Suggestion(s.tag, Reason("{}; {}", s.reason, why), min(0.99, conf), s.basis)
        )
    return out


def _names_any(text: str, tables: frozenset[str]) -> bool:
    words = set(re.findall(r"\w+", text.lower()))
    return bool(words & tables)
