"""Alternative gold queries accepted in the app: kept in the workspace, never in the dataset file.

core/datasets/alternatives.py reads the dataset's own alternatives and labels both kinds;
core/workspace/gold_records.py stores them; core/triage/accepted_gold.py accepts, withdraws and re-scores.
"""

from __future__ import annotations

from sqltriage.core.datasets.alternatives import labelled
from sqltriage.core.model import Dataset
from sqltriage.core.workspace.gold_records import TABLE_SQL
from sqltriage.core.workspace.store import Workspace

__all__ = ["TABLE_SQL", "accepted", "with_accepted"]


def accepted(ws: Workspace) -> dict[int, tuple[str, ...]]:
    """Alternatives accepted in the app, per example index, in the order they were accepted."""
    return ws.accepted_golds()


def with_accepted(dataset: Dataset, ws: Workspace) -> dict[int, tuple[tuple[str, str], ...]]:
    """Every example's labelled alternatives (dataset and workspace), for the evaluation."""
    taken = accepted(ws)
    return {
        e.index: alts for e in dataset.examples if (alts := labelled(e.alternatives, taken.get(e.index, ())))
    }
