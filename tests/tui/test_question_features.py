"""The Question tab computes the dataset's question features when the workspace has none (metrics came first)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sqltriage.core.pipeline.evaluate import EvalOptions
from sqltriage.core.questions import feature_cache
from sqltriage.core.workspace.store import Workspace
from sqltriage.tui.app import create_app
from sqltriage.tui.widgets.detail_pane import DetailPane
from tests.tui.conftest import Evaluated, settle, wait_ready


async def test_question_tab_computes_missing_features_in_a_worker(
    sample_ws: Evaluated, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # nothing cached for this dataset
    path = tmp_path / "copy.sqltriage.db"
    shutil.copyfile(sample_ws.workspace, path)
    before = digest(path)
    options = EvalOptions(timeout=1.0, jobs=1)  # features on: taken from the cache, else computed on demand
    ev = sample_ws.inputs
    app = create_app(path, ev.dataset, ev.predictions, options)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await wait_ready(app, pilot)
        detail = screen.query_one(DetailPane)
        assert "words" not in detail.text("question")  # the metrics did not wait for spaCy
        await pilot.press("4")
        for _ in range(600):  # the worker's process loads spaCy: seconds, not minutes
            await settle(app, pilot)
            if screen.features_status != "computing":
                break
        assert screen.features_status == "computed"
        key = feature_cache.feature_key(ev.dataset, None)
        row = next(r for r in feature_cache.load_cached(key) or [] if r["idx"] == screen.current[0])
        question = detail.text("question")
        assert f"words {row['q_words']}" in " ".join(question.split())
    assert digest(path) == before  # browsing wrote nothing: the features are kept in the user cache
    app = create_app(path, ev.dataset, ev.predictions, options)
    async with app.run_test(size=(160, 50)) as pilot:  # the next launch takes them from there
        screen = await wait_ready(app, pilot)
        await pilot.press("4")
        for _ in range(600):
            await settle(app, pilot)
            if screen.features_status != "computing":
                break
        assert screen.features_status == "cached"
        assert f"words {row['q_words']}" in " ".join(screen.query_one(DetailPane).text("question").split())
    with Workspace.open_for_reading(path) as ws:
        assert not feature_cache.workspace_has(ws, key)  # still not written: nobody changed anything


def digest(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()
