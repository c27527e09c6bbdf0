"""The judgement's reads and writes: every row of the examples to judge, and their calls written back.

pipeline/judging.py decides; this module only moves the rows. The judgement of a row depends on the
example's other rows (a gold every model fails the same way), so examples are read and written whole.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqltriage.core.workspace.connected import Connected

# what the judgement reads of an example, and of each of its rows
EXAMPLE_INPUTS = ("idx", "db_missing", "gold_error", "gold_suspect", "gold_lints", "gold_flags")
ROW_INPUTS = (
    "model",
    "idx",
    "error",
    "em",
    "ex_spider",
    "ex_bird",
    "ex_archer",
    "ex_ts",
    "ex_ts_bird",
    "ex_ts_archer",
    "ts_databases",
    "equivalence",
    "equivalence_bound",
    "tie_sensitive",
    "pred_lints",
    "refutation_assumption",
    "refutation_detail",
    "fragile_side",
    "difference",
    "result_digest",
    "schema_verdict",
    "values_match",
    "judgement",
    "judgement_why",
)


class JudgementRecords(Connected):
    """The examples' rows as the judgement reads them, and its columns written back."""

    def judgement_inputs(
        self, idxs: Iterable[int] | None = None
    ) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
        """(example, its rows) for the examples `idxs` (all when None) that hold at least one row, in
        example order, rows in model order."""
        wanted = None if idxs is None else set(idxs)
        examples = {
            r[0]: dict(zip(EXAMPLE_INPUTS, r, strict=True))
            for r in self.db.execute(f"SELECT {', '.join(EXAMPLE_INPUTS)} FROM examples ORDER BY idx")
            if wanted is None or r[0] in wanted
        }
        rows: dict[int, list[dict[str, Any]]] = {}
        for r in self.db.execute(f"SELECT {', '.join(ROW_INPUTS)} FROM results ORDER BY idx, model"):
            row = dict(zip(ROW_INPUTS, r, strict=True))
            if row["idx"] in examples:
                rows.setdefault(row["idx"], []).append(row)
        return [(examples[i], rows[i]) for i in sorted(rows)]

    def write_judgements(self, flags: Mapping[int, str], calls: Sequence[tuple[str, int, str, str]]) -> None:
        """The examples' `gold_flags`, and (model, idx, judgement, why) of their rows, in one transaction (the
        caller passes only what changed)."""
        with self.write():
            self.db.executemany(
                "UPDATE examples SET gold_flags = ? WHERE idx = ?", [(f, i) for i, f in flags.items()]
            )
            self.db.executemany(
                "UPDATE results SET judgement = ?, judgement_why = ? WHERE model = ? AND idx = ?",
                [(j, why, m, i) for m, i, j, why in calls],
            )
