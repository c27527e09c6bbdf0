"""Gold-directed neighbours: planted rows make golds return something; mined constraints keep them realistic."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from sqltriage.core.datasets import load_dataset
from sqltriage.core.datasets.predictions import load_predictions
from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
from sqltriage.core.verdicts.execution import execute
from sqltriage.core.verdicts.testsuite import ensure_neighbours
from sqltriage.core.verdicts.testsuite.cache import read_manifest
from sqltriage.core.workspace.store import Workspace
from tests.core.neighbour_checks import link_violations, mined_violations, violations

# An airline database whose flights name their airline by uid, with no key saying so; the original
# holds no flight of the airline the question asks about, so the gold counts 0 there.
AIRLINE_DDL = """
CREATE TABLE airlines (uid INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT);
CREATE TABLE airports (code TEXT PRIMARY KEY, city TEXT NOT NULL);
CREATE TABLE flights (
    airline INTEGER, flightno INTEGER, source TEXT NOT NULL REFERENCES airports(code),
    seats INTEGER, PRIMARY KEY (airline, flightno)
);
"""


def make_airline_db(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(AIRLINE_DDL)
    countries = ["USA", "USA", "UK", "USA", "France", "UK"]
    for i in range(1, 13):
        conn.execute("INSERT INTO airlines VALUES (?, ?, ?)", (i, f"Airline {i}", countries[i % 6]))
    for i, city in enumerate(["Aberdeen", "Boston", "Chicago", "Denver", "Erie", "Fargo"]):
        conn.execute("INSERT INTO airports VALUES (?, ?)", (f"A{i}", city))
    for n in range(60):  # United Airlines (uid 13) does not exist: the gold's answer is 0 here
        conn.execute("INSERT INTO flights VALUES (?, ?, ?, ?)", (n % 12 + 1, n, f"A{n % 6}", 100 + n % 50))
    conn.commit()
    conn.close()


GOLD = (
    "SELECT count(*) FROM airlines AS T1 JOIN flights AS T2 ON T2.airline = T1.uid "
    "WHERE T1.name = 'United Airlines' AND T2.seats > 120"
)
WRONG = "SELECT count(*) FROM flights WHERE airline = 'United Airlines' AND seats > 120"  # 0 everywhere
RIGHT = (
    "SELECT count(*) FROM flights WHERE seats > 120 AND airline IN "
    "(SELECT uid FROM airlines WHERE name = 'United Airlines')"
)


def airline_inputs(tmp_path: Path) -> tuple[Path, object, list]:
    (tmp_path / "db" / "air").mkdir(parents=True)
    db = tmp_path / "db" / "air" / "air.sqlite"
    make_airline_db(db)
    (tmp_path / "dev.json").write_text(json.dumps([{"db_id": "air", "question": "q", "query": GOLD}]))
    dataset = load_dataset(tmp_path / "dev.json", db_dir=tmp_path / "db")
    sets = []
    for name, sql in (("wrong", WRONG), ("right", RIGHT)):
        (tmp_path / f"{name}.sql").write_text(sql + "\n")
        sets.append(load_predictions(tmp_path / f"{name}.sql", dataset, name=name))
    return db, dataset, sets


def test_an_undeclared_join_is_planted_and_refutes_a_prediction_that_is_zero_everywhere(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    db, dataset, sets = airline_inputs(tmp_path)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    assert execute(db, GOLD).rows == ((0,),) == execute(db, WRONG).rows
    with Workspace.open(tmp_path / "w.db") as ws:
        evaluate(dataset, sets, ws, EvalOptions(jobs=1, features=False, neighbours=5, seed=0))
        rows = dict(
            ws.db.execute(
                "SELECT model, ex_spider || ':' || ex_ts || ':' || coalesce(ts_witness, '') FROM results"
            )
        )
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    ex, ts, witness = rows["wrong"].split(":", 2)
    assert (ex, ts) == ("1", "0"), "the wrong prediction passes EX but a planted neighbour refutes it"
    gold_there = execute(Path(witness), GOLD).rows
    assert gold_there[0][0] > 0, "on the witness the gold counts planted flights of United Airlines"
    assert violations(Path(witness)) == []
    assert rows["right"].split(":")[:2] == ["1", "1"], "the equivalent prediction survives every neighbour"
    (manifest_file,) = (tmp_path / "xdg" / "sqltriage" / "neighbours").glob("*/manifest.json")
    manifest = json.loads(manifest_file.read_text())  # the witness is shrunk from a neighbour of this set
    assert Path(witness).parent.name == "witnesses" and link_violations(Path(witness), manifest) == []
    assert manifest["coverage"]["covered"] == manifest["coverage"]["can_return_rows"] == 1
    assert ["flights", "airline", "airlines", "uid", True] in [
        [a.lower() if isinstance(a, str) else a for a in lk] for lk in manifest["mined"]["links"]
    ], "the gold's join is read as a link, and the original's values are an inclusion dependency"


def test_mined_constraints_hold_on_every_neighbour(tmp_path: Path) -> None:
    db = tmp_path / "air.sqlite"
    make_airline_db(db)
    golds = [
        GOLD,
        "SELECT city FROM airports WHERE code = 'A9'",
        "SELECT name FROM airlines WHERE country = 'Peru'",
    ]
    paths = ensure_neighbours(db, golds, 4, 3, tmp_path / "cache")
    manifest = read_manifest(paths[0].parent)
    mined = manifest["mined"]
    assert "airlines.country" in mined["categorical"], "3 countries over 12 airlines: a categorical domain"
    assert "flights.seats" in mined["ranges"]
    text = " ".join(golds)
    for p in paths:
        assert violations(p) == [], p.name
        assert mined_violations(p, db, manifest, text) == [], p.name
        conn = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
        countries = {r[0] for r in conn.execute("SELECT country FROM airlines")}
        assert countries <= {"USA", "UK", "France", "Peru", None}, (
            "a gold literal joins the domain, nothing else"
        )
        orphans = conn.execute(
            "SELECT count(*) FROM flights WHERE airline IS NOT NULL AND airline NOT IN (SELECT uid FROM airlines)"
        ).fetchone()[0]
        assert orphans == 0, "an inclusion link is kept like a foreign key"
        conn.close()
    covered = manifest["coverage"]
    assert covered["covered"] == covered["can_return_rows"] == 3, covered["uncovered"]


def test_contradictory_filters_are_excluded_from_coverage_with_the_reason(tmp_path: Path) -> None:
    db = tmp_path / "air.sqlite"
    make_airline_db(db)
    golds = ["SELECT name FROM airlines WHERE uid = 1 LIMIT 0", GOLD]
    paths = ensure_neighbours(db, golds, 2, 0, tmp_path / "cache")
    cover = read_manifest(paths[0].parent)["coverage"]
    assert cover["can_return_rows"] == 1 and cover["covered"] == 1
    assert [e["reason"] for e in cover["excluded"]] == ["gold returns no rows on any database: LIMIT 0"]


def _build_in(folder: Path, hash_seed: str) -> list[str]:
    code = (
        "import sys, hashlib; from pathlib import Path\n"
        "from tests.core.test_testsuite_planting import make_airline_db, GOLD\n"
        "from sqltriage.core.verdicts.testsuite import ensure_neighbours\n"
        f"root = Path({str(folder)!r}); root.mkdir(parents=True, exist_ok=True); db = root / 'air.sqlite'\n"
        "make_airline_db(db)\n"
        "for p in ensure_neighbours(db, [GOLD, 'SELECT name FROM airlines WHERE country = \"UK\"'], 3, 1, root / 'c'):\n"
        "    print(hashlib.sha256(p.read_bytes()).hexdigest())\n"
    )
    env = {"PYTHONHASHSEED": hash_seed, "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=Path(__file__).parents[2]
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_planted_neighbours_are_byte_identical_whatever_the_string_hashing(tmp_path: Path) -> None:
    first = _build_in(tmp_path / "a", "1")
    second = _build_in(tmp_path / "b", "2")
    assert len(first) == 3 and first == second
