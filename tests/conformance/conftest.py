"""Spider dev as the conformance checks read it: its examples and its schemas, loaded once per module."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sqltriage.core.datasets.schema import load_tables_json
from sqltriage.core.model import Schema

from .systems import SYSTEMS


@pytest.fixture(scope="module")
def dev(spider_dev: Path) -> list[dict]:
    return json.loads((spider_dev / "dev.json").read_text())


@pytest.fixture(scope="module")
def schemas(spider_dev: Path) -> dict[str, Schema]:
    return load_tables_json(spider_dev / "tables.json")


@pytest.fixture(scope="session")
def spider_dev_ts(spider_dev: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Spider dev with the 8 systems evaluated once with K = 10 neighbours (seed 0), for every test that
    reads neighbours or witnesses: (the neighbour cache, the workspace)."""
    from sqltriage.core.datasets import load_dataset
    from sqltriage.core.datasets.predictions import load_predictions
    from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
    from sqltriage.core.workspace.store import Workspace

    root = tmp_path_factory.mktemp("spider-dev-ts")
    dataset = load_dataset(spider_dev / "dev.json")
    sets = [load_predictions(spider_dev / "predictions" / f"{s}.sql", dataset, name=s) for s in SYSTEMS]
    options = EvalOptions(features=False, neighbours=10, seed=0, neighbour_cache=str(root / "cache"))
    with Workspace.open(root / "w.db") as ws:
        evaluate(dataset, sets, ws, options)
    return root / "cache", root / "w.db"
