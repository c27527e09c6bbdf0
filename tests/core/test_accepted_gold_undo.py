"""Withdrawing an accepted alternative gold, and undoing an acceptance from a later session, on real Spider dev
examples and their real databases: the rows are scored exactly as before, export byte for byte."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from sqltriage.core.datasets import load_dataset
from sqltriage.core.datasets.predictions import load_predictions
from sqltriage.core.errors import WorkspaceError
from sqltriage.core.model import Dataset
from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
from sqltriage.core.reporting.export_formats import write_export
from sqltriage.core.reporting.report import load_frame
from sqltriage.core.triage import accepted_gold, history
from sqltriage.core.workspace.accepted import accepted
from sqltriage.core.workspace.store import Workspace

TIE = 788  # world_1: seven countries have population 0 and the gold's LIMIT 1 keeps one of them
TIED = [  # two of the tied rows gold does not keep (it keeps Antarctica)
    f"SELECT Name, SurfaceArea, IndepYear FROM country WHERE Population = 0 ORDER BY Name {order}"
    for order in ("DESC LIMIT 1", "LIMIT 1 OFFSET 1")
]
LIMITS = {"timeout": 5.0, "max_rows": 100_000}
LOGS = ("tag_log", "note_log", "undo_log", "alternative_log", "sqlite_sequence")


@pytest.fixture
def evaluated(tmp_path: Path, spider_dev: Path) -> tuple[Dataset, Path]:
    """A workspace of three real dev examples (the tie first) and two models, one of which predicts a tied row."""
    dev = json.loads((spider_dev / "dev.json").read_text(encoding="utf-8"))
    folder = tmp_path / "spider_small"
    folder.mkdir()
    (folder / "dev.json").write_text(json.dumps([dev[TIE], dev[0], dev[1]]), encoding="utf-8")
    (folder / "tables.json").symlink_to(spider_dev / "tables.json")
    (folder / "database").symlink_to(spider_dev / "database")
    ds = load_dataset(folder)
    preds = []
    for name, first in (("a", TIED[0]), ("b", TIED[1])):
        path = tmp_path / f"{name}.sql"
        path.write_text(f"{first}\n{dev[0]['query']}\nSELECT 1\n", encoding="utf-8")
        preds.append(load_predictions(path, ds, name=name))
    workspace = tmp_path / "w.sqltriage.db"
    with Workspace.open(workspace) as ws:
        evaluate(ds, preds, ws, EvalOptions(features=False, jobs=1))
        accepted_gold.ensure_tables(ws)
    return ds, workspace


def snapshot(workspace: Path, out: Path) -> tuple[bytes, list[str]]:
    """The CSV export's bytes and the workspace's SQL dump without its log tables."""
    with Workspace.open(workspace) as ws:
        write_export(load_frame(ws), out)
    with sqlite3.connect(workspace) as db:
        dump = [
            line
            for line in db.iterdump()
            if not any(f'"{t}"' in line or f" {t} " in line or f" {t}(" in line for t in LOGS)
        ]
    return out.read_bytes(), dump


def ex_of(ws: Workspace, model: str) -> tuple[int, int, int, int, str | None, str | None]:
    return ws.db.execute(
        "SELECT ex, ex_spider, ex_bird, ex_archer, gold_match, official_quirk FROM results "
        "WHERE idx = 0 AND model = ?",
        [model],
    ).fetchone()


def test_an_acceptance_undone_in_a_later_session_leaves_the_workspace_as_before(
    evaluated: tuple[Dataset, Path], tmp_path: Path
) -> None:
    ds, workspace = evaluated
    before = snapshot(workspace, tmp_path / "before.csv")
    with Workspace.open(workspace) as ws:
        assert ex_of(ws, "a")[:5] == (0, 0, 0, 0, None)
        done = accepted_gold.accept(ws, ds, 0, TIED[0], model="a", **LIMITS)
        assert done.describe() == "accepted alternative gold for #0 from model a"
        assert ex_of(ws, "a") == (1, 1, 1, 1, "accepted 1", "alternative gold")
        assert ex_of(ws, "b")[0] == 0  # the other tied row is not this alternative
    assert snapshot(workspace, tmp_path / "accepted.csv")[0] != before[0]

    with Workspace.open(workspace) as ws:  # a new session: the acceptance is the change `u` offers
        change = history.last_change(ws)
        assert change is not None and change.kind == "accept_gold"
        assert history.describe(change).startswith("accepted alternative gold for #0 from model a by ")
        with pytest.raises(WorkspaceError, match="dataset"):
            history.undo(ws, change)  # re-scoring needs the dataset
        done = history.undo(ws, change, dataset=ds, **LIMITS)
        assert done.describe() == "withdrew alternative gold for #0 from model a"
        assert accepted(ws) == {} and history.last_change(ws) is None
    assert snapshot(workspace, tmp_path / "after.csv") == before


def test_withdrawing_one_of_two_relabels_the_other_and_its_undo_restores_both(
    evaluated: tuple[Dataset, Path], tmp_path: Path
) -> None:
    ds, workspace = evaluated
    with Workspace.open(workspace) as ws:
        accepted_gold.accept(ws, ds, 0, TIED[0], model="a", **LIMITS)
        accepted_gold.accept(ws, ds, 0, TIED[1], model="b", **LIMITS)
        assert (ex_of(ws, "a")[4], ex_of(ws, "b")[4]) == ("accepted 1", "accepted 2")
    both = snapshot(workspace, tmp_path / "both.csv")
    with Workspace.open(workspace) as ws:
        gone = accepted_gold.withdraw(ws, ds, 0, TIED[0], **LIMITS)
        assert (gone.model, gone.changed) == ("a", (("a", "spider"), ("a", "bird"), ("a", "archer")))
        assert ex_of(ws, "a")[:5] == (0, 0, 0, 0, None)
        assert ex_of(ws, "b")[4] == "accepted 1"  # the remaining alternative is now the first accepted
        with pytest.raises(WorkspaceError, match="not an accepted alternative"):
            accepted_gold.withdraw(ws, ds, 0, TIED[0], **LIMITS)
        change = history.last_change(ws)  # the withdrawal, undone: accepted again at its old place
        assert change is not None and history.describe(change).startswith("withdrew alternative gold for #0")
        history.undo(ws, change, dataset=ds, **LIMITS)
        assert accepted(ws) == {0: tuple(TIED)}
        actions = ws.db.execute("SELECT action, model FROM alternative_log ORDER BY seq").fetchall()
    assert actions == [("accept", "a"), ("accept", "b"), ("withdraw", "a"), ("accept", "a")]
    again = snapshot(workspace, tmp_path / "again.csv")
    assert again[0] == both[0] and sorted(again[1]) == sorted(both[1])  # the row stored anew, same content
