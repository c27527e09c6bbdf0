"""The last stage of a minimal witness: long generated values come out short, and the witness still tells
gold and prediction apart and keeps every constraint (re-checked with the plain sqlite3 module)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from sqltriage.core.verdicts.testsuite.witness import minimal_witness
from tests.core.test_witness import constraint_problems, differ_plainly

SCHEMA = """
CREATE TABLE team (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, city TEXT, motto TEXT, budget INTEGER,
    rating REAL, league TEXT
);
CREATE TABLE player (id INTEGER PRIMARY KEY, team_id INTEGER NOT NULL REFERENCES team(id), nickname TEXT);
CREATE TABLE shop (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
"""
LEAGUES = ("Premier Division North", "Second Division", "Cup")
CITY = "Springfield Heights East"
# gold asks for one city, the prediction for every city that starts with its name
GOLD = (
    "SELECT T1.name, T1.motto, T1.budget, T1.rating, T1.league, T2.nickname FROM team AS T1 "
    f"JOIN player AS T2 ON T1.id = T2.team_id WHERE T1.city = '{CITY}'"
)
PRED = GOLD.replace(f"T1.city = '{CITY}'", f"T1.city LIKE '{CITY}%'")


def _neighbour_set(root: Path) -> Path:
    """A neighbour (as the generator would write one: long random texts and numbers) and its manifest."""
    folder = root / "neighbours" / "teams-k1"
    folder.mkdir(parents=True)
    path = folder / "n01.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA)
    for i in range(1, 9):
        city = CITY + "wood" if i == 5 else f"Elsewhere Township No {i}"
        conn.execute(
            "INSERT INTO team VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                i,
                f"Northern Lights Athletic Club {i}",
                city,
                f"Victory through relentless perseverance {i}",
                1837462918 + i,
                3.14159265 + i / 7,
                LEAGUES[i % 3] if i != 5 else LEAGUES[0],
            ),
        )
        conn.execute("INSERT INTO player VALUES (?, ?, ?)", (i, i, f"The unstoppable midfielder {i}"))
        conn.execute("INSERT INTO shop VALUES (?, ?)", (i, f"General Provisions Store {i}"))
    conn.commit()
    conn.close()
    manifest = {
        "mined": {
            "links": [],
            "categorical": ["team.league"],
            "ranges": {"team.budget": [0, 2_000_000_000], "team.rating": [0.0, 5.0]},
            "never_null": ["team.motto"],
            "unique": ["player.nickname"],
        }
    }
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return path


@pytest.fixture(scope="module")
def witness(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("values")
    neighbour = _neighbour_set(root)
    assert differ_plainly(neighbour, GOLD, PRED)
    found = minimal_witness(neighbour, GOLD, PRED, timeout=5.0, max_rows=10_000)
    assert found.shrunk and found.rows == 2, "one team and its player"
    return neighbour, found.path


def _rows(path: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_long_values_come_out_simpler_and_the_witness_still_separates(witness: tuple[Path, Path]) -> None:
    _, path = witness
    ((name, motto, budget, rating, league),) = _rows(
        path, "SELECT name, motto, budget, rating, league FROM team"
    )
    ((nickname,),) = _rows(path, "SELECT nickname FROM player")
    assert len(name) <= 10 and "Northern Lights Athletic Club".startswith(name)
    assert len(motto) <= 10 and len(nickname) <= 10
    assert budget == 18, "a five-digit-or-more number becomes its leading digits, inside the mined range"
    assert rating == 4.0, "a real with many decimals becomes a whole number, inside the mined range"
    assert league == "Cup", "a categorical column takes the shortest value of its domain"
    assert differ_plainly(path, GOLD, PRED)
    assert constraint_problems(path) == []
    assert _rows(path, "PRAGMA foreign_key_check") == []


def test_the_value_that_separates_them_keeps_separating(witness: tuple[Path, Path]) -> None:
    _, path = witness
    ((city,),) = _rows(path, "SELECT city FROM team")
    # shortened, the city would match neither the literal nor the pattern: it stays one that only the
    # prediction's LIKE accepts
    assert city.startswith(CITY) and city != CITY
    ((team_id, team),) = _rows(path, "SELECT player.team_id, team.id FROM player, team")
    assert team_id == team, "a key column is never changed: the join still holds"
