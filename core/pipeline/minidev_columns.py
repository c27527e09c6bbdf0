"""Mini-Dev's per-row metrics of a pair (verdicts/minidev.py): `soft_f1`, and with `eval --ves N` the
R-VES reward with the time ratio and its spread over the N runs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqltriage.core.verdicts.execution import execute
from sqltriage.core.verdicts.minidev import r_ves, soft_f1

if TYPE_CHECKING:
    from pathlib import Path

    from sqltriage.core.pipeline.options import EvalOptions
    from sqltriage.core.verdicts.exec_result import ExecResult, ServerDatabase

KEYS = ("soft_f1", "r_ves", "ves_ratio", "ves_ratio_sd")


def minidev_columns(
    db: Path | ServerDatabase | None,
    gold_sql: str,
    gold: ExecResult | None,
    pred_sql: str,
    pred: ExecResult | None,
    options: EvalOptions,
) -> dict[str, Any]:
    """The columns of one pair: `gold` and `pred` as written, on `db`."""
    row: dict[str, Any] = dict.fromkeys(KEYS)
    if gold is None or pred is None:
        return row
    row["soft_f1"] = soft_f1(gold, pred)
    if options.ves > 0:
        sql = gold_sql

        def again(text: str) -> ExecResult:
            return execute(db, text, timeout=options.timeout, max_rows=options.max_rows)

        found = r_ves(gold, pred, options.ves, lambda: again(sql), lambda: again(pred_sql))
        if found is not None:
            row.update(r_ves=found.reward, ves_ratio=found.ratio, ves_ratio_sd=found.ratio_sd)
    return row
