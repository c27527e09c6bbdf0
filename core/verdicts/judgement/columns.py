"""The judgement's columns of one row that need the databases, computed where the row is evaluated.

`refutation_assumption`, `refutation_detail` and `fragile_side` for a refuted EX pass (its witness held
against the original data), `difference` (a difference a reader may forgive: on the original for an EX
failure, on the witness for a realistic refutation) and `result_digest` (to see models failing an example
the same way). `judgement` itself waits for every model's row of the example (pipeline/judging.py).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqltriage.core.verdicts.exec_result import ExecResult

KEYS = (
    "refutation_assumption",
    "refutation_detail",
    "fragile_side",
    "refutation_witness",
    "difference",
    "result_digest",
)
ORIGINAL = "original"


def judgement_columns(
    gold_sql: str,
    pred_sql: str,
    db_path: Path | None,
    row: dict[str, Any],
    gold_result: ExecResult | None,
    pred_result: ExecResult | None,
    *,
    mode: str = "spider",
    timeout: float,
    max_rows: int,
    others: Callable[[], Iterable[Path]] | None = None,
) -> dict[str, Any]:
    """The columns to add to `row` (whose EX, `ex_ts`, `ts_witness` and `equivalence` are set); `others`
    gives the other neighbours' witnesses, tried when the row's own needs an assumption (realistic.py)."""
    from sqltriage.core.verdicts.judgement.difference import forgivable, result_digest

    out: dict[str, Any] = dict.fromkeys(KEYS)
    out["result_digest"] = result_digest(pred_result)
    ex = row.get(f"ex_{mode}")
    if ex == 0 and gold_result is not None and pred_result is not None:
        out["difference"] = forgivable(gold_result, pred_result)
        return out
    witness = row.get("ts_witness")
    refuted = row.get("ex_ts") == 0 or row.get("equivalence") == "refuted"
    if ex != 1 or not refuted or db_path is None or not witness or witness == ORIGINAL:
        return out
    key = (gold_sql, pred_sql, witness, str(db_path), mode, timeout, max_rows)
    if key not in _REFUTED:  # models often predict the same text: one refutation, read once per process
        _REFUTED[key] = _refutation(
            gold_sql, pred_sql, Path(witness), db_path, mode, timeout, max_rows, others
        )
        if len(_REFUTED) > _MEMO_SIZE:
            _REFUTED.popitem(last=False)
    out.update(_REFUTED[key])
    return out


_MEMO_SIZE = 256
_REFUTED: OrderedDict[tuple, dict[str, Any]] = OrderedDict()


def _refutation(
    gold_sql: str,
    pred_sql: str,
    witness: Path,
    db_path: Path,
    mode: str,
    timeout: float,
    max_rows: int,
    others: Callable[[], Iterable[Path]] | None,
) -> dict[str, Any]:
    """The columns of a refuted EX pass: its assumption, kept from the most realistic witness."""
    from sqltriage.core.verdicts.judgement.assumption import NONE, classify

    out: dict[str, Any] = {}
    found = classify(witness, db_path, gold_sql, pred_sql, mode=mode, timeout=timeout, max_rows=max_rows)
    if found is not None and found.kind != NONE and others is not None:
        for path in others():
            other = classify(path, db_path, gold_sql, pred_sql, mode=mode, timeout=timeout, max_rows=max_rows)
            if other is not None and other.kind == NONE:
                out["refutation_witness"] = str(path)
                found = replace(
                    other, detail=f"{other.detail} (another neighbour's; the first needed: {found.kind})"
                )
                break
    if found is not None:
        out.update(
            refutation_assumption=found.kind,
            refutation_detail=found.detail,
            fragile_side=found.fragile or None,
            difference=found.difference,
        )
        if found.world is not None:  # realistic once repaired: the repaired database is the one to show
            out["refutation_witness"] = str(found.world)
    return out
