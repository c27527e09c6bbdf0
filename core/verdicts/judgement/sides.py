"""Which side breaks under an assumption: the query that answers robustly, and the fragile one.

Under a tie, the query that cuts inside the tie keeps an arbitrary row: it is fragile (both, when both
cut). Under a duplicated name, the query that uses the name as an identity (groups, joins, keeps distinct
or matches IN on it) merges two entities: it is fragile, the one that goes by the key is robust. Under a
NULL, the query whose result lets the NULL through where the other does not is fragile. Dangling
references, empty tables and values outside the domain break no side in particular.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from sqltriage.core.verdicts.judgement.breaches import Breach
from sqltriage.core.verdicts.judgement.reads import Reads


def fragile_side(
    kind: str,
    breach: Breach | None,
    ties: dict,
    gold: Reads,
    pred: Reads,
    differs: Any,
    conn: sqlite3.Connection,
) -> str:
    if kind == "tie":
        return _name(bool(ties.get("gold")), bool(ties.get("prediction")))
    if kind == "duplicate" and breach is not None:
        ref = (breach.table.lower(), breach.column.lower())
        return _name(ref in gold.grouped, ref in pred.grouped)
    if kind == "null":
        gold_result, pred_result = differs.results(conn)
        return _name(_has_null(gold_result), _has_null(pred_result))
    return ""


def _has_null(result: Any) -> bool:
    return bool(result.ok and any(v is None for row in result.rows for v in row))


def _name(gold: bool, pred: bool) -> str:
    if gold and pred:
        return "both"
    return "gold" if gold else "prediction" if pred else ""
