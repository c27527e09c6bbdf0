"""One evaluation of a BIRD-shaped folder without database files, as the schema-only judgement's tests and
bench run it: 3 databases generated from the schema per example, the solver on (unless told), one job."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def judged_rows(
    dev: Path, predictions: Path, root: Path, *, name: str = "m", verify: bool = True
) -> list[dict[str, Any]]:
    """The frame's rows, in the workspace `root / "w.db"`; generated databases go to `root / "cache"`."""
    from sqltriage.core.datasets import load_dataset
    from sqltriage.core.datasets.predictions import load_predictions
    from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
    from sqltriage.core.reporting.report import load_frame
    from sqltriage.core.workspace.store import Workspace

    dataset = load_dataset(dev)
    sets = [load_predictions(predictions, dataset, name=name)]
    options = EvalOptions(
        features=False, jobs=1, neighbours=3, verify=verify, neighbour_cache=str(root / "cache")
    )
    with Workspace.open(root / "w.db") as ws:
        evaluate(dataset, sets, ws, options)
        return list(load_frame(ws).iter_rows(named=True))
