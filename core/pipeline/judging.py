"""The judgement of every row, made once every model's row of an example is in.

A row's call depends on the example's other rows (`gold_flags`' `models-agree`, a gold shown fragile by
another model's refutation), so it is made after the evaluation, over the examples as stored: whichever
models were evaluated when, and in whatever order, the same rows give the same calls.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqltriage.core.workspace.store import Workspace


def judge_examples(workspace: Workspace, mode: str, idxs: Iterable[int] | None = None) -> int:
    """Write `gold_flags` of the examples `idxs` (all when None) and the judgement of their rows; returns
    the number of rows judged. `mode` is the dataset's EX mode."""
    from sqltriage.core.verdicts.judgement.decide import judge
    from sqltriage.core.verdicts.judgement.gold_flags import consensus, gold_flags

    flags: dict[int, str] = {}
    calls: list[tuple[str, int, str, str]] = []
    judged = 0
    for example, rows in workspace.judgement_inputs(idxs):
        idx = example["idx"]
        flagged = gold_flags(example["gold_suspect"], example["gold_lints"], rows, mode)
        if flagged != (example["gold_flags"] or ""):
            flags[idx] = flagged
        shared = consensus(rows, mode)
        for row in rows:
            verdict, why = judge({**example, **row, "consensus": shared}, flagged, mode)
            judged += 1
            if (verdict, why) != (row["judgement"], row["judgement_why"]):
                calls.append((row["model"], idx, verdict, why))
    if calls or flags:  # nothing changed, nothing written
        workspace.write_judgements(flags, calls)
    return judged
