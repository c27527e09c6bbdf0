"""Database axes on real SQLite files built in the test."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from sqltriage.core.datasets.schema import schema_from_sqlite
from sqltriage.core.model import Column, Schema, Table
from sqltriage.core.questions.db_analysis import (
    ENGLISH_ZIPF,
    analyze_database,
    english_share,
    is_english_name,
)
from sqltriage.core.questions.nl import zipf


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "music.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, song_name TEXT, hadm_id INTEGER);
        CREATE TABLE "concert hall" ("Hall Name" TEXT, capacity INTEGER);
        CREATE VIEW big AS SELECT * FROM "concert hall" WHERE capacity > 100;
        """
    )
    conn.executemany("INSERT INTO singer (song_name) VALUES (?)", [("a",), ("b",), ("c",)])
    conn.executemany('INSERT INTO "concert hall" VALUES (?, ?)', [("x", 10), ("y", 200)])
    conn.commit()
    conn.close()
    return path


def test_counts_tables_columns_and_rows(db: Path) -> None:
    stats = analyze_database(schema_from_sqlite(db), db)
    assert (stats.db_id, stats.n_tables, stats.n_columns) == ("music", 2, 5)
    assert stats.n_rows == 5  # 3 singers + 2 halls; the view is not a table of the schema


def test_missing_file_still_gives_the_schema_axes(db: Path, tmp_path: Path) -> None:
    schema = schema_from_sqlite(db)
    for path in (None, tmp_path / "gone.sqlite"):
        stats = analyze_database(schema, path)
        assert stats.n_rows is None
        assert (stats.n_tables, stats.n_columns) == (2, 5)


def test_a_file_that_is_not_a_database_has_no_row_count(db: Path, tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_text("not a database")
    assert analyze_database(schema_from_sqlite(db), junk).n_rows is None


def test_english_share_counts_names_made_only_of_english_words(db: Path) -> None:
    assert zipf("hadm") < ENGLISH_ZIPF  # the paper's example of a non-word
    assert all(
        zipf(w) >= ENGLISH_ZIPF for w in ("singer", "song", "name", "id", "concert", "hall", "capacity")
    )
    # singer, concert hall, singer_id, song_name, Hall Name, capacity are English; hadm_id is not.
    assert english_share(schema_from_sqlite(db)) == pytest.approx(6 / 7)


@pytest.mark.parametrize(
    ("name", "english"),
    [
        ("SongName", True),
        ("year_2013", True),  # numbers neither count nor disqualify
        ("2013", False),  # no word at all
        ("hadm_id", False),
        ("Enrollment (K-12)", False),  # a lone letter is not a word
    ],
)
def test_is_english_name(name: str, english: bool) -> None:
    assert is_english_name(name) is english


def test_empty_schema_has_zero_share() -> None:
    assert english_share(Schema("x", ())) == 0.0
    assert analyze_database(Schema("x", (Table("t", (Column("a"),)),)), None).n_columns == 1
