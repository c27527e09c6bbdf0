"""Neighbours of Spider dev with the 8 systems: every neighbour and every witness is sound, golds are covered.

Soundness is re-checked with plain sqlite3 (tests/core/neighbour_checks.py): foreign keys, primary keys,
UNIQUE, NOT NULL, and the constraints mined from the original. Coverage: of the golds that can return
rows, the share with a non-empty, non-trivial result on at least one neighbour.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sqltriage.core.datasets import load_dataset
from sqltriage.core.datasets.predictions import load_predictions
from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
from sqltriage.core.workspace.store import Workspace
from tests.conformance.systems import SYSTEMS
from tests.core.neighbour_checks import manifest_of, mined_violations, violations

pytestmark = pytest.mark.slow
COVERAGE_GOAL = 0.95


@pytest.fixture(scope="module")
def evaluated(spider_dev: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list, dict]:
    root = tmp_path_factory.mktemp("neighbours")
    dataset = load_dataset(spider_dev / "dev.json")
    sets = [load_predictions(spider_dev / "predictions" / f"{s}.sql", dataset, name=s) for s in SYSTEMS]
    options = EvalOptions(features=False, neighbours=10, seed=0, neighbour_cache=str(root / "cache"))
    with Workspace.open(root / "w.db") as ws:
        evaluate(dataset, sets, ws, options)
        refuted = ws.db.execute(
            "SELECT model, idx, ts_witness FROM results WHERE ex_spider = 1 AND ex_ts = 0"
        ).fetchall()
    golds: dict[str, str] = {}
    for e in dataset.examples:
        golds[e.db_id] = golds.get(e.db_id, "") + " " + e.gold_sql
    return root / "cache", refuted, golds


def test_golds_that_can_return_rows_are_covered(evaluated) -> None:
    cache, _, _ = evaluated
    manifests = [json.loads(m.read_text()) for m in sorted(cache.glob("*/manifest.json"))]
    assert len(manifests) == 19, "one neighbour set per Spider dev database present"
    can = sum(m["coverage"]["can_return_rows"] for m in manifests)
    covered = sum(m["coverage"]["covered"] for m in manifests)
    left = [(m["source"], u) for m in manifests for u in m["coverage"]["uncovered"]]
    print(
        f"\ncoverage on Spider dev: {covered} of {can} distinct golds that can return rows ({covered / can:.1%})"
    )
    for source, u in left:
        print(f"  {Path(source).stem}: {u['reason']}: {u['sql']}")
    assert covered / can >= COVERAGE_GOAL, left


def test_every_neighbour_and_every_witness_respects_declared_and_mined_constraints(evaluated) -> None:
    cache, refuted, golds = evaluated
    assert refuted, "the 8 systems have EX passes that a neighbour refutes"
    files = sorted(cache.glob("*/n*.sqlite"))
    witnesses = sorted({Path(w) for _, _, w in refuted})
    assert set(witnesses) <= set(files), "every witness is one of the cached neighbours"
    problems = {}
    for path in files:
        manifest = manifest_of(path)
        original = Path(manifest["source"])
        found = violations(path) + mined_violations(path, original, manifest, golds[original.stem])
        if found:
            problems[str(path)] = found
    assert problems == {}
