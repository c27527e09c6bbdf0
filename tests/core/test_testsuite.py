"""Neighbour databases and `ex_ts`, on real SQLite files: built once, deterministic, never touching originals."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import sqlite3
from pathlib import Path

import pytest

from sqltriage.core.datasets import load_dataset
from sqltriage.core.datasets.predictions import load_predictions
from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
from sqltriage.core.verdicts.execution import execute
from sqltriage.core.verdicts.testsuite import ensure_neighbours
from sqltriage.core.verdicts.testsuite.mutate import mutants
from sqltriage.core.workspace.store import Workspace
from sqltriage.samples import SAMPLE_DIR

# one worker runs the module: the library's neighbour set is built once, not once per worker
pytestmark = pytest.mark.xdist_group("test_testsuite")

LIBRARY = SAMPLE_DIR / "database" / "library" / "library.sqlite"


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def golds_of(db_id: str) -> list[str]:
    return [r["query"] for r in json.loads((SAMPLE_DIR / "dev.json").read_text()) if r["db_id"] == db_id]


def schema_sql(path: Path) -> list[tuple]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()
    finally:
        conn.close()


@pytest.fixture(scope="module")
def library_set(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path], str]:
    before = sha(LIBRARY)
    root = tmp_path_factory.mktemp("cache")
    return root, ensure_neighbours(LIBRARY, golds_of("library"), 3, 7, root), before


def test_neighbours_keep_the_schema_and_never_touch_the_original(library_set) -> None:
    root, paths, before = library_set
    assert sha(LIBRARY) == before
    assert len(paths) == 3 and all(p.parent.parent == root for p in paths)
    for p in paths:
        assert schema_sql(p) == schema_sql(LIBRARY)
        assert not (p.stat().st_mode & 0o222), "a neighbour is written read-only"
    # the same data would make them useless: every neighbour differs from the original and from the others
    assert len({sha(p) for p in paths} | {before}) == 4


def test_keys_stay_unique_and_foreign_keys_point_at_parent_rows(library_set) -> None:
    _, paths, _ = library_set
    conn = sqlite3.connect(f"file:{LIBRARY}?mode=ro", uri=True)
    fks = []
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    for t in tables:
        for r in conn.execute(f"PRAGMA foreign_key_list([{t}])"):
            fks.append((t, r[3], r[2], r[4]))
    pks = {t: [r[1] for r in conn.execute(f"PRAGMA table_info([{t}])") if r[5]] for t in tables}
    conn.close()
    assert fks, "the sample's library database declares foreign keys"
    for p in paths:
        db = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
        for t, cols in pks.items():
            if cols:
                keys = ", ".join(f"[{c}]" for c in cols)
                dup = db.execute(f"SELECT count(*) - count(DISTINCT ({keys})) FROM [{t}]").fetchone()[0]
                assert dup == 0, f"{p.name}: duplicate primary key in {t}"
        for child, col, parent, pcol in fks:
            orphans = db.execute(
                f"SELECT count(*) FROM [{child}] WHERE [{col}] IS NOT NULL AND [{col}] NOT IN "
                f"(SELECT [{pcol}] FROM [{parent}])"
            ).fetchone()[0]
            assert orphans == 0, f"{p.name}: {child}.{col} points at missing {parent}.{pcol}"
        assert db.execute("SELECT count(*) FROM books").fetchone()[0] >= 3
        db.close()


def test_same_seed_same_bytes_other_seed_other_data(library_set, tmp_path: Path) -> None:
    _, paths, _ = library_set
    again = ensure_neighbours(LIBRARY, golds_of("library"), 3, 7, tmp_path / "again")
    assert [sha(p) for p in again] == [sha(p) for p in paths]
    other = ensure_neighbours(LIBRARY, golds_of("library")[:3], 2, 8, tmp_path / "again")
    assert other[0].parent != again[0].parent
    assert {sha(p) for p in other}.isdisjoint({sha(p) for p in again})


def _build(root: str) -> list[str]:
    return [str(p) for p in ensure_neighbours(LIBRARY, golds_of("library")[:4], 3, 1, Path(root))]


def test_two_processes_building_the_same_set_get_one_complete_set(tmp_path: Path) -> None:
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        first, second = pool.map(_build, [str(tmp_path), str(tmp_path)])
    assert first == second
    folders = [p for p in tmp_path.iterdir() if p.is_dir()]
    assert len(folders) == 1, f"no half-built folder may stay behind: {folders}"
    assert len(list(folders[0].glob("n*.sqlite"))) == 3


def test_mutants_are_one_edit_away_and_run() -> None:
    gold = "SELECT title FROM books WHERE published_year < 1900 ORDER BY title"
    found = mutants(gold)
    assert "SELECT title FROM books WHERE published_year <= 1900 ORDER BY title" in found
    assert "SELECT title FROM books WHERE published_year < 1901 ORDER BY title" in found
    assert "SELECT title FROM books WHERE published_year < 1900 ORDER BY title DESC" in found
    assert all(execute(LIBRARY, m).ok for m in found)
    assert mutants("SELECT FROM WHERE (") == []


def make_db(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE shop (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT);
        CREATE TABLE sale (id INTEGER PRIMARY KEY, shop_id INTEGER REFERENCES shop(id), amount INTEGER);
        INSERT INTO shop VALUES (1, 'Alpha', 'Oslo'), (2, 'Beta', 'Rome'), (3, 'Gamma', 'Oslo');
        INSERT INTO sale VALUES (1, 1, 3), (2, 1, 8), (3, 2, 9), (4, 3, 1), (5, 3, 2);
        """
    )
    conn.commit()
    conn.close()


GOLDS = ["SELECT count(*) FROM sale WHERE amount > 5", "SELECT name FROM shop WHERE city = 'Oslo'"]
PREDS = {
    "coincidence": ["SELECT count(*) FROM sale WHERE amount > 6", "SELECT name FROM shop WHERE id <> 2"],
    "right": ["SELECT count(*) FROM sale WHERE amount >= 6", "SELECT name FROM shop WHERE city = 'Oslo'"],
}


def shops_inputs(tmp_path: Path) -> tuple[Path, object, list]:
    (tmp_path / "db" / "shops").mkdir(parents=True)
    db = tmp_path / "db" / "shops" / "shops.sqlite"
    make_db(db)
    records = [{"db_id": "shops", "question": f"q{i}", "query": g} for i, g in enumerate(GOLDS)]
    (tmp_path / "dev.json").write_text(json.dumps(records))
    dataset = load_dataset(tmp_path / "dev.json", db_dir=tmp_path / "db")
    sets = []
    for name, lines in PREDS.items():
        (tmp_path / f"{name}.sql").write_text("\n".join(lines) + "\n")
        sets.append(load_predictions(tmp_path / f"{name}.sql", dataset, name=name))
    return db, dataset, sets


def test_ex_ts_catches_a_coincidental_pass_and_keeps_a_true_one(tmp_path: Path, monkeypatch) -> None:
    """Gold `amount > 5`; `amount > 6` agrees on the original (no 6 there) but not on a neighbour with a 6."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    db, dataset, sets = shops_inputs(tmp_path)
    golds, preds = GOLDS, PREDS
    before = sha(db)
    with Workspace.open(tmp_path / "w.db") as ws:
        evaluate(dataset, sets, ws, EvalOptions(jobs=1, features=False, neighbours=10, seed=0))
        rows = ws.db.execute(
            "SELECT model, idx, ex_spider, ex_ts, ts_databases, ts_witness FROM results ORDER BY model, idx"
        ).fetchall()
        modes = ws.db.execute(
            "SELECT model, ex_bird, ex_archer, ex_ts_bird, ex_ts_archer, ts_witness_rows FROM results"
        ).fetchall()
    assert sha(db) == before
    for model, ex_bird, ex_archer, ts_bird, ts_archer, witness_rows in modes:
        assert ex_bird == ex_archer == 1
        # the coincidences differ in every mode's sense on some neighbour; the right queries in none
        expected = 0 if model == "coincidence" else 1
        assert (ts_bird, ts_archer) == (expected, expected), model
        assert (witness_rows is not None) == (model == "coincidence")
    by = {(m, i): (ex, ts, n, w) for m, i, ex, ts, n, w in rows}
    assert all(v[0] == 1 for v in by.values()), "every prediction passes plain EX on the original"
    for i in range(2):
        _ex, ts, _n, witness = by[("coincidence", i)]
        assert ts == 0 and witness and Path(witness).is_file(), f"coincidence {i} must fail on a neighbour"
        gold, pred = execute(Path(witness), golds[i]), execute(Path(witness), preds["coincidence"][i])
        assert sorted(gold.rows) != sorted(pred.rows), "the witness really tells them apart"
        assert Path(witness).parent.name == "witnesses", "a minimal witness, not the whole neighbour"
    for i in range(2):
        _ex, ts, n, witness = by[("right", i)]
        assert (ts, witness) == (1, None) and n == 10


def test_changing_k_or_the_seed_recomputes(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    _, dataset, preds = shops_inputs(tmp_path)
    n = len(dataset.examples) * len(preds)
    stages: list[tuple[str, int, int]] = []
    with Workspace.open(tmp_path / "w.db") as ws:
        first = evaluate(
            dataset,
            preds,
            ws,
            EvalOptions(jobs=1, features=False, neighbours=2),
            progress=lambda *s: stages.append(s),
        )
        assert first.computed == n
        assert ("neighbours", 1, 1) in stages, "the neighbours are built up front, with progress"
        assert evaluate(dataset, preds, ws, EvalOptions(jobs=1, features=False, neighbours=2)).computed == 0
        again = evaluate(dataset, preds, ws, EvalOptions(jobs=1, features=False, neighbours=2, seed=5))
        assert again.computed == n
        other_k = evaluate(dataset, preds, ws, EvalOptions(jobs=1, features=False, neighbours=3, seed=5))
        assert other_k.computed == n
        rows = ws.db.execute("SELECT ex_spider, ex_ts, ts_witness FROM results").fetchall()
    assert all(ts is None or (ex is not None and ts <= ex) for ex, ts, _ in rows)
    assert any(ts == 1 for _, ts, _ in rows)


def test_awkward_databases_still_get_neighbours(tmp_path: Path) -> None:
    """No declared keys, odd declared types, a view, 120 tables and a million-row table: sampled, not refused."""
    db = tmp_path / "odd.sqlite"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE big (k, v WEIRDTYPE(7), note BLOB)")
    conn.execute(
        "INSERT INTO big WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000) "
        "SELECT i, i % 97, CASE WHEN i % 3 = 0 THEN x'00ff' ELSE 'txt' || i END FROM n"
    )
    for i in range(120):
        conn.execute(f"CREATE TABLE t{i} (a DATETIME, b NUMERIC, c BOOLEAN)")
        conn.execute(f"INSERT INTO t{i} VALUES ('2020-01-0{i % 9 + 1}', {i}.5, {i % 2})")
    conn.execute("CREATE VIEW small_v AS SELECT k, v FROM big WHERE v < 3")
    conn.commit()
    conn.close()
    before = sha(db)
    golds = ["SELECT count(*) FROM big WHERE v = 5", "SELECT a FROM t7 WHERE b > 7", "SELECT * FROM small_v"]
    paths = ensure_neighbours(db, golds, 2, 0, tmp_path / "cache")
    assert sha(db) == before
    assert len(paths) == 2
    for p in paths:
        got = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
        assert got.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0] == 121
        assert 0 < got.execute("SELECT count(*) FROM big").fetchone()[0] <= 2_000
        assert execute(p, "SELECT * FROM small_v").ok
        got.close()


def test_a_database_that_cannot_be_read_is_a_reason_on_its_rows(tmp_path: Path, monkeypatch) -> None:
    from sqltriage.core.verdicts.testsuite import NeighbourError

    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"not a database at all" * 10)
    with pytest.raises(NeighbourError, match=r"bad\.sqlite"):
        ensure_neighbours(bad, ["SELECT 1"], 2, 0, tmp_path / "cache")


def test_cli_builds_neighbours_and_eval_exports_ex_ts(tmp_path: Path, monkeypatch, capsys) -> None:
    import csv

    from sqltriage.tui.cli import main

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    _, _, _ = shops_inputs(tmp_path)
    data = [str(tmp_path / "dev.json"), "--db-dir", str(tmp_path / "db")]
    out = tmp_path / "mine"
    assert main(["neighbours", *data, "-K", "3", "--out", str(out), "--json"]) == 0
    built = json.loads(capsys.readouterr().out)
    (entry,) = built["databases"]
    folder = Path(entry["folder"])
    assert entry["neighbours"] == 3 and folder.parent == out
    assert built["coverage"] == {"golds": 2, "can_return_rows": 2, "covered": 2, "share": 1.0}
    preds = [a for name in PREDS for a in ("--pred", f"{name}={tmp_path / (name + '.sql')}")]
    ws = tmp_path / "w.db"
    args = ["eval", *data, *preds, "--workspace", str(ws), "--neighbours", "3", "--neighbour-cache", str(out)]
    assert main([*args, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert not (tmp_path / "xdg" / "sqltriage" / "neighbours").exists(), "the named cache is used, no other"
    by_model = {m["model"]: m for m in report["models"]}
    assert by_model["coincidence"]["ex_spider"] == 1.0 and by_model["coincidence"]["ex_ts"] < 1.0
    assert (
        main(["export", "--workspace", str(ws), "--out", str(tmp_path / "o.csv"), "--where", "ex_ts=0"]) == 0
    )
    rows = list(csv.DictReader((tmp_path / "o.csv").open()))
    assert rows and {r["model"] for r in rows} == {"coincidence"}
    # the minimal witnesses are kept beside the sets of the named cache, small
    assert all(Path(r["ts_witness"]).parent == out / "witnesses" for r in rows)
    assert all(0 < int(r["ts_witness_rows"]) <= 6 for r in rows)


def test_outcome_facet_picks_the_rows_a_neighbour_refutes(tmp_path: Path, monkeypatch) -> None:
    from sqltriage.core.reporting import facets
    from sqltriage.core.reporting.report import load_frame

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    _, dataset, preds = shops_inputs(tmp_path)
    with Workspace.open(tmp_path / "w.db") as ws:
        evaluate(dataset, preds, ws, EvalOptions(jobs=1, features=False, neighbours=10))
        frame = load_frame(ws)
    picked = facets.apply(
        facets.prepare(frame), facets.Filters().toggled("outcome", facets.TS_FALSE_POSITIVE)
    )
    assert picked.height == 2
    assert set(picked.get_column("model")) == {"coincidence"}
    assert (picked.get_column("ex") == 1).all() and (picked.get_column("ex_ts") == 0).all()


def test_keys_from_tables_json_count_where_the_file_declares_none(tmp_path: Path) -> None:
    db = tmp_path / "bare.sqlite"
    conn = sqlite3.connect(db)
    conn.executescript(
        """
        CREATE TABLE people (id INTEGER, name TEXT);
        CREATE TABLE pets (pid INTEGER, owner INTEGER, kind TEXT);
        INSERT INTO people VALUES (1, 'Ann'), (2, 'Bo'), (3, 'Cy'), (4, 'Di');
        INSERT INTO pets VALUES (1, 1, 'dog'), (2, 1, 'cat'), (3, 4, 'dog');
        """
    )
    conn.close()
    golds = ["SELECT name FROM people JOIN pets ON people.id = pets.owner WHERE kind = 'dog'"]
    paths = ensure_neighbours(
        db,
        golds,
        3,
        0,
        tmp_path / "cache",
        foreign_keys=[(("pets", "owner"), ("people", "id"))],
        primary_keys=[("people", "id"), ("pets", "pid")],
    )
    for p in paths:
        got = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
        assert got.execute("SELECT count(*) - count(DISTINCT id) FROM people").fetchone()[0] == 0
        assert got.execute("SELECT count(*) FROM people WHERE id IS NULL").fetchone()[0] == 0
        orphans = "SELECT count(*) FROM pets WHERE owner IS NOT NULL AND owner NOT IN (SELECT id FROM people)"
        assert got.execute(orphans).fetchone()[0] == 0
        got.close()


def test_rows_of_a_database_that_cannot_be_imitated_say_why(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    (tmp_path / "db" / "empty").mkdir(parents=True)
    sqlite3.connect(tmp_path / "db" / "empty" / "empty.sqlite").execute("PRAGMA user_version = 1").close()
    (tmp_path / "dev.json").write_text(json.dumps([{"db_id": "empty", "question": "q", "query": "SELECT 1"}]))
    dataset = load_dataset(tmp_path / "dev.json", db_dir=tmp_path / "db")
    (tmp_path / "p.sql").write_text("SELECT 1\n")
    preds = [load_predictions(tmp_path / "p.sql", dataset, name="m")]
    with Workspace.open(tmp_path / "w.db") as ws:
        evaluate(dataset, preds, ws, EvalOptions(jobs=1, features=False, neighbours=2))
        ex, ts, witness = ws.db.execute("SELECT ex_spider, ex_ts, ts_witness FROM results").fetchone()
    assert (ex, ts) == (1, None)
    assert witness.startswith("no neighbours:") and "no tables" in witness
    from sqltriage.tui.cli import main

    args = [
        "eval",
        str(tmp_path / "dev.json"),
        "--db-dir",
        str(tmp_path / "db"),
        "--pred",
        f"m={tmp_path / 'p.sql'}",
    ]
    assert main([*args, "--workspace", str(tmp_path / "w2.db"), "--neighbours", "2", "--json"]) == 0
    said = capsys.readouterr().err
    assert "ex_ts left empty on 1 EX-passing row(s)" in said and "no tables" in said
