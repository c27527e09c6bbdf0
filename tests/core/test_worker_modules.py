"""The modules a worker preloads are exactly what evaluating a chunk imports, so the list cannot go stale.

A forked pool preloads `WORKER_MODULES` in the parent and a Dask worker imports them as it starts: a
module missing from the list costs every worker its import on its first chunk, and a module listed but no
longer used (renamed, moved) costs start-up for nothing. Measured in fresh interpreters that hold only
what a worker holds: the module its tasks are unpickled from, the unpickled inputs, and real chunks run on
the bundled sample, one example with an alternative gold.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from sqltriage.core.datasets import load_dataset
from sqltriage.core.datasets.predictions import load_predictions
from sqltriage.core.pipeline import cluster, pool_start
from sqltriage.core.pipeline.evaluate import EvalOptions
from sqltriage.samples import SAMPLE_DIR

OURS = "sorted(m for m in sys.modules if m.startswith('sqltriage'))"
WORKER = f"""
import json, pickle, sys
from sqltriage.core.pipeline import evaluate as ev
with open(sys.argv[1], "rb") as f:
    dataset, preds, options = pickle.load(f)
ev._init_worker(dataset, preds, options)
ev._run_chunk([(e.index, True, tuple(preds)) for e in dataset.examples])
print(json.dumps({OURS}))
"""
PRELOAD = f"""
import json, sys
from sqltriage.core.pipeline.pool_start import WORKER_MODULES, preload_worker_modules
preload_worker_modules()
print(json.dumps({OURS}))
"""


def _modules(code: str, *args: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_worker_modules_are_what_a_chunk_imports(tmp_path: Path) -> None:
    dataset = load_dataset(SAMPLE_DIR / "dev.json")
    first = dataset.examples[0]
    with_alternative = replace(first, alternatives=(first.gold_sql + " ",))
    dataset = replace(dataset, examples=(with_alternative, *dataset.examples[1:]))
    preds = {
        p.stem: tuple(x.sql for x in load_predictions(p, dataset).predictions)
        for p in sorted((SAMPLE_DIR / "predictions").glob("*.sql"))
    }
    # neighbour databases off: their modules are imported when a run asks for them; a short timeout, as
    # the sample's #37 of atlas-7b runs until it (the same modules whatever its length)
    options = EvalOptions(timeout=1.0)
    inputs = tmp_path / "inputs.pickle"
    inputs.write_bytes(pickle.dumps((dataset, preds, options)))

    used = _modules(WORKER, str(inputs))
    preloaded = _modules(PRELOAD) - {"sqltriage.core.pipeline.pool_start"}  # the preloader itself
    assert used - preloaded == set(), "add to pool_start.WORKER_MODULES: a chunk imports them"
    assert preloaded - used == set(), "remove from pool_start.WORKER_MODULES: no chunk imports them"


def test_the_cluster_preloads_the_same_modules() -> None:
    assert cluster.WORKER_MODULES is pool_start.WORKER_MODULES
