"""Several annotators on one workspace: who tagged what, the final tags, import, merge, and the old format."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import polars as pl
import pytest

from sqltriage.core.errors import UsageError, WorkspaceError
from sqltriage.core.reporting.report import export_frame, load_frame
from sqltriage.core.triage import history
from sqltriage.core.triage import tags as triage
from sqltriage.core.triage.adjudication import adjudicate
from sqltriage.core.triage.agreement import compute, read_labels
from sqltriage.core.triage.import_tags import import_tags
from sqltriage.core.triage.taxonomy import default_taxonomy
from sqltriage.core.workspace.merge import merge
from sqltriage.core.workspace.store import Workspace

X, Y, Z = "Table: missing", "Value: mismatch", "Evaluation: EX false negative (equivalent query)"
MODELS = ("a", "b")


def _study(path: Path, rows: int = 8, fingerprint: str = "f1", name: str = "toy") -> Path:
    """A small workspace: `rows` examples scored for two models (ex = 0 everywhere)."""
    with Workspace.open(path) as ws, ws.write():
        for key, value in (("dataset_fingerprint", fingerprint), ("dataset_name", name)):
            ws.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [key, value])
        for pos, m in enumerate(MODELS):
            ws.db.execute(
                "INSERT INTO models (name, path, format, sha256, result_key, position) VALUES (?, ?, ?, ?, ?, ?)",
                [m, f"{m}.sql", "lines", f"sha-{m}", "k", pos],
            )
        for i in range(rows):
            ws.db.execute(
                "INSERT INTO examples (idx, db_id, question, gold_sql) VALUES (?, 'd', ?, 'SELECT 1')",
                [i, f"q{i}"],
            )
            for m in MODELS:
                ws.db.execute(
                    "INSERT INTO results (model, idx, pred_sql, ex) VALUES (?, ?, 'SELECT 2', 0)", [m, i]
                )
    return path


def _csv(path: Path, lines: list[str]) -> Path:
    path.write_text("index,model,tags,note\n" + "".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def _state(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as db:
        return [
            tuple(db.execute(f"SELECT * FROM {t} ORDER BY 1, 2, 3").fetchall())
            for t in ("tags", "annotations", "annotated", "tag_log", "notes", "adjudications")
        ]


ANN = [
    "0,a,Table: missing,",
    "1,a,Table: missing; Value: mismatch,",
    "2,a,,",
    "3,b,Value: mismatch,",
]
BOB = [
    "0,a,Table: missing,",
    "1,a,Table: missing,checked",
    "2,a,Value: mismatch,",
    "4,b,Table: missing,",
]


def test_each_annotator_keeps_their_own_tags_and_the_final_tags_follow_the_rule(tmp_path: Path) -> None:
    with Workspace.open(_study(tmp_path / "w.db")) as ws:
        triage.add_tag(ws, [(0, "a"), (1, "a")], X, annotator="ann")
        triage.add_tag(ws, [(1, "a")], Y, annotator="ann")
        triage.add_tag(ws, [(0, "a"), (1, "a")], X, annotator="bob")
        triage.add_tag(ws, [(2, "a")], Y, annotator="bob")
        triage.add_tag(ws, [(2, "a")], Z, annotator="ann")
        assert ws.tags_of(0, "a") == [X]  # unanimous
        assert ws.tags_of(1, "a") == [X]  # the tag both gave (ann's extra Y is hers alone)
        assert ws.tags_of(2, "a") == sorted([Y, Z])  # nothing shared: the union
        adjudicate(ws, (2, "a"), [Z], annotator="judge")
        assert ws.tags_of(2, "a") == [Z]
        change = history.last_change(ws, "judge")  # an adjudication undoes like any change
        assert change is not None and history.describe(change).startswith(
            f"adjudicated #2 · a: {Z} by judge, "
        )
        history.undo(ws, change)
        assert ws.tags_of(2, "a") == sorted([Y, Z]) and history.last_change(ws, "judge") is None
        adjudicate(ws, (2, "a"), [Z], annotator="judge")
        frame = export_frame(load_frame(ws)).filter(pl.col("model") == "a").sort("index")
    rows = {r["index"]: r for r in frame.iter_rows(named=True)}
    assert rows[1]["tags"] == X
    assert rows[1]["tags_by"] == f"ann: {X}; ann: {Y}; bob: {X}"
    assert rows[2]["tags"] == Z and rows[2]["ex_reviewed"] == 1  # the adjudicated tag decides reviewed EX
    assert rows[2]["adjudicated_by"] == "judge" and rows[1]["adjudicated_by"] is None
    assert rows[5]["tags"] is None and rows[5]["tags_by"] is None


def test_undo_takes_your_own_change_unless_you_ask_for_anyones(tmp_path: Path) -> None:
    with Workspace.open(_study(tmp_path / "w.db")) as ws:
        ws.annotator = "ann"
        triage.add_tag(ws, [(0, "a")], X)
        ws.annotator = "bob"
        triage.add_tag(ws, [(1, "a")], Y)
        ws.annotator = "ann"
        mine = history.last_change(ws, "ann")
        assert mine is not None and (mine.tag, mine.annotator) == (X, "ann")
        anyone = history.last_change(ws)
        assert anyone is not None and (anyone.tag, anyone.annotator) == (Y, "bob")
        assert history.describe(anyone).startswith(f"tagged 1 row '{Y}' (#1 · a) by bob, ")
        history.undo(ws, anyone)  # ann undoes bob's change: bob's tag goes, not one of hers
        assert ws.tags_of(1, "a") == [] and ws.tags_of(0, "a") == [X]
        assert history.last_change(ws, "bob") is None


def _legacy(path: Path) -> Path:
    """A workspace as schema 1 wrote it: tags without annotators, no annotation tables."""
    _study(path)
    # closed here, not whenever the connection is collected: its close checkpoints the write-ahead log into the
    # file, which must happen before a test reads the file's bytes as "before"
    with closing(sqlite3.connect(path)) as db, db:
        db.executescript(
            "DROP TABLE annotations; DROP TABLE annotated; DROP TABLE adjudications; DROP TABLE adjudication_log;"
            "ALTER TABLE tag_log DROP COLUMN annotator; ALTER TABLE note_log DROP COLUMN annotator;"
            "ALTER TABLE notes DROP COLUMN annotator;"
            "UPDATE meta SET value = '1' WHERE key = 'schema_version';"
            "DELETE FROM meta WHERE key = 'annotations_from_tags';"
            "INSERT INTO tags VALUES (0, 'a', 'Table: missing', 1.0), (3, 'b', 'Value: mismatch', 2.0);"
            "INSERT INTO tag_log (action, idx, model, tag, created) VALUES ('add', 0, 'a', 'Table: missing', 1.0),"
            " ('add', 3, 'b', 'Value: mismatch', 2.0);"
            "INSERT INTO notes VALUES (0, 'a', 'old note', 1.0);"
        )
    return path


def test_an_old_workspace_reads_as_unknown_and_migrates_without_loss(tmp_path: Path) -> None:
    path = _legacy(tmp_path / "old.db")
    before = path.read_bytes()
    with Workspace.open_for_reading(path) as ws:
        assert read_labels(ws) == {"unknown": {(0, "a"): frozenset({X}), (3, "b"): frozenset({Y})}}
        frame = load_frame(ws)
        assert history.last_change(ws).annotator == "unknown"  # type: ignore[union-attr]
    assert path.read_bytes() == before  # reading wrote nothing
    assert frame.filter(pl.col("index") == 0).filter(pl.col("model") == "a")["tags_by"][0] == f"unknown: {X}"
    with Workspace.open(path) as ws:  # upgraded on the first write
        assert ws.get_meta("schema_version") == "2"
        assert ws.tags_of(0, "a") == [X] and ws.tags_of(3, "b") == [Y] and ws.note_of(0, "a") == "old note"
        ws.annotator = "ann"
        triage.add_tag(ws, [(0, "a")], Y)
        assert ws.tags_of(0, "a") == [X, Y]  # unknown's X and ann's Y share nothing: the union
        undone = history.undo(ws, history.last_change(ws, "unknown"))  # type: ignore[arg-type]
        assert undone.kind == "untag" and ws.tags_of(3, "b") == []
    with Workspace.open(path) as ws:  # a second open migrates nothing twice
        assert (
            ws.db.execute("SELECT count(*) FROM annotations WHERE annotator = 'unknown'").fetchone()[0] == 1
        )


def test_import_is_all_or_nothing_and_reports_each_bad_line(tmp_path: Path) -> None:
    path = _study(tmp_path / "w.db")
    with Workspace.open(path) as ws:
        import_tags(ws, _csv(tmp_path / "ok.csv", ANN), default_taxonomy(), "ann")
    state = _state(path)
    bad = _csv(tmp_path / "bad.csv", ["0,a,Table: missing,", "1,a,Not: a tag,", "99,a,,", "0,a,,", "x,a,,"])
    with Workspace.open(path) as ws, pytest.raises(UsageError) as info:
        import_tags(ws, bad, default_taxonomy(), "bob")
    text = str(info.value)
    assert "line 3: unknown tag 'Not: a tag'" in text
    assert "line 4: row #99 · a is not in the workspace" in text
    assert "line 5: row #0 · a is on line 2 already" in text
    assert "line 6: index 'x' is not a whole number" in text and "nothing was written" in text
    assert _state(path) == state  # the workspace is unchanged
    ragged = _csv(tmp_path / "ragged.csv", ["0,a,Table: missing,,extra"])
    no_tags = tmp_path / "no_tags.csv"
    no_tags.write_text("index,model,note\n0,a,x\n", encoding="utf-8")
    with Workspace.open(path) as ws:
        with pytest.raises(UsageError, match="line 2: 4 columns expected"):
            import_tags(ws, ragged, default_taxonomy(), "bob")
        with pytest.raises(UsageError, match=r"has no column 'tags' \(line 1: index, model, note\)"):
            import_tags(ws, no_tags, default_taxonomy(), "bob")
    assert _state(path) == state


def test_import_agreement_and_merge_through_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sqltriage.tui.cli import main

    path = _study(tmp_path / "w.db")
    for name, lines in (("ann", ANN), ("bob", BOB)):
        csv = str(_csv(tmp_path / f"{name}.csv", lines))
        assert main(["tags", "import", csv, "--workspace", str(path), "--annotator", name]) == 0
    capsys.readouterr()
    assert main(["agreement", "--workspace", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    with Workspace.open_for_reading(path) as ws:
        assert doc == compute(read_labels(ws)).to_json()
    pair = doc["pairs"][0]
    assert pair["annotators"] == ["ann", "bob"] and pair["items"] == 3  # rows 0, 1, 2 of model a
    assert pair["per_tag"] == {X: pytest.approx(1.0), Y: pytest.approx(-0.5)} and doc["fleiss_pooled"] is None
    assert pair["kappa_pooled"] == pytest.approx(1 / 3) and pair["agreement_pooled"] == pytest.approx(4 / 6)
    other = _study(tmp_path / "other.db", fingerprint="f2", name="another")
    assert main(["merge", str(path), str(other), "--out", str(tmp_path / "c.db")]) == 2
    assert "holds another dataset than" in capsys.readouterr().err and not (tmp_path / "c.db").exists()


def test_merge_gives_the_agreement_of_one_shared_workspace(tmp_path: Path) -> None:
    shared = _study(tmp_path / "shared.db")
    one, two = _study(tmp_path / "one.db"), _study(tmp_path / "two.db")
    for target, name, lines in (
        (one, "ann", ANN),
        (two, "bob", BOB),
        (shared, "ann", ANN),
        (shared, "bob", BOB),
    ):
        with Workspace.open(target) as ws:
            import_tags(ws, _csv(tmp_path / f"{name}.csv", lines), default_taxonomy(), name)
    added = merge(one, two, tmp_path / "merged.db")
    assert added["annotations"] == 4
    with Workspace.open_for_reading(shared) as a, Workspace.open_for_reading(tmp_path / "merged.db") as b:
        assert compute(read_labels(b)).to_json() == compute(read_labels(a)).to_json()
        assert load_frame(b)["tags"].to_list() == load_frame(a)["tags"].to_list()
        assert b.note_of(1, "a") == "checked"
    with Workspace.open(tmp_path / "merged.db") as ws:  # bob's import can be undone in the merged copy
        change = history.last_change(ws, "bob")
        assert change is not None and change.annotator == "bob"


def test_merge_refuses_another_dataset_or_other_models(tmp_path: Path) -> None:
    one = _study(tmp_path / "one.db")
    other = _study(tmp_path / "other.db", fingerprint="f2", name="another")
    before = _state(one), _state(other)
    with pytest.raises(WorkspaceError, match=r"holds another dataset.*'toy' vs 'another'"):
        merge(one, other, tmp_path / "out.db")
    assert not (tmp_path / "out.db").exists() and (_state(one), _state(other)) == before
    fewer = _study(tmp_path / "fewer.db")
    with sqlite3.connect(fewer) as db:
        db.execute("UPDATE models SET sha256 = 'changed' WHERE name = 'b'")
    with pytest.raises(WorkspaceError, match="other predictions for b"):
        merge(one, fewer, tmp_path / "out.db")
    assert not (tmp_path / "out.db").exists()


def test_the_annotators_facet_and_the_disagreement_outcome(tmp_path: Path) -> None:
    from sqltriage.core.reporting import facets

    with Workspace.open(_study(tmp_path / "w.db")) as ws:
        import_tags(ws, _csv(tmp_path / "ann.csv", ANN), default_taxonomy(), "ann")
        import_tags(ws, _csv(tmp_path / "bob.csv", BOB), default_taxonomy(), "bob")
        prepared = facets.prepare(load_frame(ws))
    index = facets.FacetIndex(prepared)

    def rows(facet: str, value: str) -> set[tuple[int, str]]:
        chosen = prepared[index.rows(facets.Filters().toggled(facet, value)).tolist()]
        return {(r["index"], r["model"]) for r in chosen.iter_rows(named=True)}

    # ann and bob both decided rows 0-2 of model a; they differ on 1 (Value) and 2 (none vs Value)
    assert rows("outcome", "annotators disagree") == {(1, "a"), (2, "a")}
    assert rows("annotators", "has bob") == {(0, "a"), (1, "a"), (2, "a"), (4, "b")}
    assert rows("annotators", "ann bob") == {(0, "a"), (1, "a"), (2, "a")}
    assert dict(index.counts(facets.Filters())["annotators:membership"]) == {"has ann": 4, "has bob": 4}


def test_a_tag_change_moves_the_annotators_facet_and_the_disagreement_at_once(tmp_path: Path) -> None:
    """What the browse screen does after a tag (patch the loaded frame, re-index the same rows) counts the
    annotators facet and "annotators disagree" as a fresh read of the workspace does."""
    from sqltriage.core.reporting import facets, patches

    with Workspace.open(_study(tmp_path / "w.db")) as ws:
        import_tags(ws, _csv(tmp_path / "ann.csv", ANN), default_taxonomy(), "ann")
        import_tags(ws, _csv(tmp_path / "bob.csv", BOB), default_taxonomy(), "bob")
        prepared = facets.prepare(load_frame(ws))
        index = facets.FacetIndex(prepared)
        before = index.counts(facets.Filters())
        touched = [(3, "b"), (4, "b")]  # carl differs from ann on 3 and agrees with bob on 4
        triage.add_tag(ws, touched, "Table: missing", annotator="carl")
        rows = patches.rows_as_stored(ws, touched)
        fresh = facets.FacetIndex(facets.prepare(load_frame(ws)))
    patched = index.retagged(patches.with_row_tags(prepared, rows))
    for facet in ("annotators", "annotators:membership", "outcome", "tag"):
        assert dict(patched.counts(facets.Filters())[facet]) == dict(fresh.counts(facets.Filters())[facet])
    after = dict(patched.counts(facets.Filters())["annotators:membership"])
    assert after["has carl"] == 2 and "has carl" not in dict(before["annotators:membership"])
    assert dict(patched.counts(facets.Filters())["outcome"])["annotators disagree"] == 3  # 1, 2 and now 3
    assert dict(before["outcome"])["annotators disagree"] == 2  # the index it was made from is unchanged
