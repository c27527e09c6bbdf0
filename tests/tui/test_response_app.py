"""The Response tab: a row read from raw responses shows how its SQL was found, its candidates grouped by
execution result (counts, which cluster is right, the majority, the scored one) and the response itself."""

from __future__ import annotations

import json

import polars as pl
import pytest

from sqltriage.core.datasets.predictions import load_predictions
from sqltriage.core.pipeline.evaluate import evaluate
from sqltriage.core.reporting.report import load_frame
from sqltriage.core.workspace.store import Workspace
from sqltriage.samples import SAMPLE_DIR
from sqltriage.tui.widgets.detail_pane import DetailPane

from .conftest import OPTIONS, Evaluated, running, sample_inputs, settle
from .test_browse import toggle


@pytest.fixture(scope="module")
def responses_ws(tmp_path_factory: pytest.TempPathFactory) -> Evaluated:
    inputs = sample_inputs()
    files = sorted((SAMPLE_DIR / "predictions").glob("*.sql"))
    systems = [f.read_text(encoding="utf-8").split("\n") for f in files]
    root = tmp_path_factory.mktemp("responses")
    path = root / "k3.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for e in inputs.dataset.examples:
            a, b = (s[e.index].strip() for s in systems)
            responses = [
                f"<think>Which table?</think>\n```sql\n{a}\n```",
                f"SQL: {b}",
                f"<answer>{b}</answer>",
            ]
            out.write(json.dumps({"id": e.index, "responses": responses, "latency": 2.5}) + "\n")
    preds = (*inputs.predictions, load_predictions(path, inputs.dataset, name="k3"))
    workspace = root / "w.db"
    with Workspace.open(workspace) as ws:
        evaluate(inputs.dataset, preds, ws, OPTIONS)
        frame = load_frame(ws)
    return Evaluated(type(inputs)(inputs.dataset, preds), workspace, frame)


async def test_the_response_tab_groups_candidates(responses_ws: Evaluated) -> None:
    async with running(responses_ws) as (app, pilot, screen):
        detail = app.screen.query_one(DetailPane)
        detail.active = "tab-response"
        await settle(app, pilot)
        first = screen._current_row()
        assert first is not None and first["model"] != "k3"
        assert "bare SQL: no response to show" in detail.text("response")
        await toggle(app, pilot, "model", "k3")
        row = screen._current_row()
        assert row is not None and row["model"] == "k3"
        await settle(app, pilot)
        text = detail.text("response", 160)
    assert "SQL found by fence-sql · 3 candidates" in text and "candidate 1 scored" in text
    assert "latency 2.5" in text
    assert "<think>Which table?</think>" in text  # the response as given, reasoning included
    clusters = json.loads(row["candidate_clusters"])
    lines = text.splitlines()
    for i, cluster in enumerate(clusters):
        members = ", ".join(map(str, cluster["members"]))
        line = next(line for line in lines if f" {members} " in line)
        assert line.split()[0] == str(len(cluster["members"]))
        assert ("majority" in line) == (i == 0)
        assert ("scored" in line) == (1 in cluster["members"])
        verdict = "right" if cluster["ex"] == 1 else "wrong" if cluster["ex"] == 0 else None
        if verdict and not cluster["error"]:
            assert verdict in line


def test_candidates_that_disagree_cluster_with_the_majority_first(responses_ws: Evaluated) -> None:
    k3 = responses_ws.frame.filter(pl.col("model") == "k3")
    split = k3.filter(pl.col("candidate_clusters").str.contains('"members": [1]', literal=True))
    assert split.height > 0, "the sample's two systems differ in their results somewhere"
    for row in split.iter_rows(named=True):
        clusters = json.loads(row["candidate_clusters"])
        if not clusters[0]["error"] and not clusters[-1]["error"]:
            assert clusters[0]["members"] == [2, 3]  # two candidates beat one
        assert row["ex_majority"] == clusters[0]["ex"]
