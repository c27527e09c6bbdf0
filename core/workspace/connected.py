"""What the workspace's concern modules share: the store's connection, its transactions and its annotator.

`Workspace` (store.py) is made of one class per concern — tags, notes and their undo log
(triage_records.py), the team's annotations and adjudications (team_records.py), accepted alternative
golds (gold_records.py) — each written against this base, which store.py fills in. The connection is
theirs alone: every other room asks these methods (tests/core/test_architecture.py checks it), so each
write keeps its one transaction and each read sees what the store's own writes left.
"""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from pathlib import Path

Pair = tuple[int, str]  # (example index, model): one row of the evaluation


class Connected:
    """The store's part the concern classes use; `Workspace` provides each of them."""

    db: sqlite3.Connection  # the store's own: never handed to code outside core/workspace/
    path: Path
    annotator: str  # who the changes made through this workspace are by

    def write(self) -> AbstractContextManager[None]:
        """One transaction (nested ones join it): see `Workspace.write`."""
        raise NotImplementedError

    def define(self, create_sql: str) -> None:
        """A table kept beside the schema: see `Workspace.define`."""
        raise NotImplementedError
