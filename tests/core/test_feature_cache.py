"""Question features are computed once per dataset, apart from the metrics, and shared by every workspace."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sqlite3
from pathlib import Path

import pytest

from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
from sqltriage.core.questions import feature_cache
from sqltriage.core.questions.nl import load_pipeline, question_features
from sqltriage.core.sql.parse import parse_sql
from sqltriage.core.workspace.store import Workspace
from sqltriage.samples import SAMPLE_DIR
from sqltriage.tui.cli import main
from sqltriage.tui.inputs import Inputs, load_inputs

OPTIONS = EvalOptions(timeout=1.0, jobs=1)


def sample_inputs() -> Inputs:
    preds = [f"{p.stem}={p}" for p in sorted((SAMPLE_DIR / "predictions").glob("*.sql"))]
    return load_inputs(argparse.Namespace(dataset=str(SAMPLE_DIR), pred=preds))


def stored_features(ws: Path) -> list[tuple]:
    with sqlite3.connect(ws) as conn:
        cols = ", ".join(["idx", *feature_cache.FEATURE_COLUMNS])
        return conn.execute(f"SELECT {cols} FROM examples ORDER BY idx").fetchall()


@pytest.fixture
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_metrics_first_then_features_once_for_every_workspace(tmp_path: Path, own_cache: Path) -> None:
    inputs = sample_inputs()
    ds = inputs.dataset
    with Workspace.open(tmp_path / "a.db") as ws:
        summary = evaluate(ds, inputs.predictions, ws, OPTIONS)
    assert summary.computed == len(ds.examples) * len(inputs.predictions)
    assert summary.features == "not computed"
    assert all(row[1:] == (None,) * 6 for row in stored_features(tmp_path / "a.db"))

    found, how = feature_cache.ensure(ds, None)
    assert how == "computed"
    assert feature_cache.cache_path(found.key).is_relative_to(own_cache / "sqltriage" / "features")

    # the same numbers as the features computed directly from the questions and their gold parses
    direct = question_features(
        [e.question for e in ds.examples],
        gold_sqls=[parse_sql(e.gold_sql, ds.schemas.get(e.db_id)) for e in ds.examples],
        schemas=[ds.schemas.get(e.db_id) for e in ds.examples],
        nlp=load_pipeline(),
    )
    assert found.rows == feature_cache.rows_of(ds, direct)
    assert any(r["q_rarity"] is not None for r in found.rows)

    # a new workspace, and the old one evaluated again: features come from the cache, nothing recomputed
    for name in ("b.db", "a.db"):
        with Workspace.open(tmp_path / name) as ws:
            summary = evaluate(ds, inputs.predictions, ws, OPTIONS)
        assert summary.features == "cached"
        assert stored_features(tmp_path / name) == [
            (r["idx"], *(r[c] for c in feature_cache.FEATURE_COLUMNS)) for r in found.rows
        ]
    assert feature_cache.ensure(ds, None)[1] == "cached"


def test_key_follows_dataset_pipeline_and_definitions(own_cache: Path) -> None:
    ds = sample_inputs().dataset
    key = feature_cache.feature_key(ds, None)
    assert key == feature_cache.feature_key(ds, feature_cache_default_pipeline())
    assert key != feature_cache.feature_key(ds, "another_pipeline")
    edited = dataclasses.replace(ds.examples[0], question=ds.examples[0].question + " please")
    other = dataclasses.replace(ds, examples=[edited, *ds.examples[1:]])
    assert key != feature_cache.feature_key(other, None)


def feature_cache_default_pipeline() -> str:
    from sqltriage.core.questions.nl import DEFAULT_PIPELINE

    return DEFAULT_PIPELINE


def test_unreadable_cache_file_is_recomputed_not_trusted(own_cache: Path) -> None:
    ds = sample_inputs().dataset
    key = feature_cache.feature_key(ds, None)
    path = feature_cache.cache_path(key)
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    assert feature_cache.cached(ds) is None
    path.write_text(json.dumps({"key": "another key", "rows": []}))
    assert feature_cache.cached(ds) is None


def test_eval_reports_missing_features_and_computes_them_after_the_tables(
    tmp_path: Path, own_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    preds = [
        a for p in sorted((SAMPLE_DIR / "predictions").glob("*.sql")) for a in ("--pred", f"{p.stem}={p}")
    ]
    args = ["eval", str(SAMPLE_DIR), *preds, "--timeout", "1", "--jobs", "1", "--json"]

    assert main([*args, "--workspace", str(tmp_path / "a.db")]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["run"]["features"] == "not computed"
    assert "question features: not computed yet" in " ".join(err.split())

    assert main([*args, "--workspace", str(tmp_path / "b.db"), "--features"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["run"]["features"] == "not computed"  # the tables did not wait for them
    assert "question features: computed in" in err
    assert all(row[1] is not None for row in stored_features(tmp_path / "b.db"))

    assert main([*args, "--workspace", str(tmp_path / "c.db")]) == 0
    out, _ = capsys.readouterr()
    assert json.loads(out)["run"]["features"] == "cached"
    assert stored_features(tmp_path / "c.db") == stored_features(tmp_path / "b.db")


def test_no_key_is_computed_when_nothing_is_cached_anywhere(own_cache: Path, tmp_path: Path) -> None:
    """A cold eval skips the key (package versions, the definitions' digest): no key could match."""
    with Workspace.open(tmp_path / "ws.sqltriage.db") as ws:
        assert feature_cache.none_anywhere(ws)
        (own_cache / "sqltriage" / "features").mkdir(parents=True)
        assert feature_cache.none_anywhere(ws)  # an empty folder holds nothing either
        (own_cache / "sqltriage" / "features" / "some-key.json").write_text("{}", encoding="utf-8")
        assert not feature_cache.none_anywhere(ws)
    with Workspace.open(tmp_path / "other.sqltriage.db") as ws:
        ws.set_meta(feature_cache.WORKSPACE_META_KEY, "some-key")
        (own_cache / "sqltriage" / "features" / "some-key.json").unlink()
        assert not feature_cache.none_anywhere(ws)  # the workspace holds features itself
