"""Realistic witnesses first: when the witness of a refutation needs a world the question never meant,
the other neighbours that tell gold and prediction apart are shrunk too, and the first whose witness keeps
the data's regularities replaces it in the judgement.

The neighbour verdict (`ex_ts`) stops at the first neighbour that differs and its witness (`ts_witness`)
stays what it is: the raw columns do not change. Only the judgement reads the realistic witness, stored as
`refutation_witness`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqltriage.core.verdicts.testsuite.match import NeighbourGold

TRIES = (
    1  # other refuting neighbours shrunk at most, per row: each costs a shrink (docs/judgement.md, "Cost")
)


def other_witnesses(
    gold_sql: str,
    pred_sql: str,
    neighbours: Sequence[NeighbourGold],
    *,
    skip: str,
    timeout: float,
    max_rows: int,
    extra_foreign_keys: tuple = (),
) -> Iterator[Path]:
    """Minimal witnesses of the neighbours that tell the pair apart as `ex_ts` compares them, in the
    neighbours' order, but `skip` (the row's own witness), at most `TRIES`."""
    from sqltriage.core.verdicts.exec_compare import compare, order_matters, spider_sql
    from sqltriage.core.verdicts.execution import execute
    from sqltriage.core.verdicts.testsuite.witness import minimal_witness

    text, ordered = spider_sql(pred_sql), order_matters(gold_sql)
    tried = 0
    for nb in neighbours:
        if not nb.usable:
            continue
        ran = execute(nb.path, text, timeout=timeout, max_rows=max_rows)
        if compare(nb.spider_result, ran, "spider", order_matters=ordered) != 0:
            continue
        found = minimal_witness(
            nb.path,
            gold_sql,
            pred_sql,
            mode="spider",
            timeout=timeout,
            max_rows=max_rows,
            extra_foreign_keys=extra_foreign_keys,
            pred_ok=ran.ok,
        )
        if str(found.path) == skip:
            continue
        yield found.path
        tried += 1
        if tried >= TRIES:
            return
