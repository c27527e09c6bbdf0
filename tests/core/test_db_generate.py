"""`sqltriage db generate`: BIRD dev's 11 databases from the schema, the golds and the evidence alone."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from sqltriage.core.datasets import load_dataset
from sqltriage.core.verdicts.testsuite.generated import evidence_queries
from sqltriage.tui.cli import main


@pytest.fixture(scope="module")
def bird_dev(shared_data: Path) -> Path:
    return shared_data / "bird_dev" / "dev.json"


def generate(bird_dev: Path, out: Path, *extra: str, capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["db", "generate", str(bird_dev), "--out", str(out), "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_every_database_is_written_and_every_gold_runs_on_it(
    bird_dev: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = generate(bird_dev, tmp_path / "gen", capsys=capsys)
    dataset = load_dataset(bird_dev)
    assert sorted(d["db_id"] for d in doc["databases"]) == sorted(dataset.schemas)
    for d in doc["databases"]:
        path = tmp_path / "gen" / d["db_id"] / f"{d['db_id']}.sqlite"
        assert d["path"] == str(path) and path.is_file()
        with sqlite3.connect(path) as db:
            tables = {r[0].lower() for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert tables == {t.name.lower() for t in dataset.schemas[d["db_id"]].tables}
    ran = found = 0
    for example in dataset.examples:
        path = tmp_path / "gen" / example.db_id / f"{example.db_id}.sqlite"
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            rows = db.execute(example.gold_sql).fetchmany(1)  # every gold runs: no error on any
        ran += 1
        found += bool(rows and any(v is not None for v in rows[0]))
    assert ran == len(dataset.examples)
    assert found / ran >= 0.8  # planted: most golds find something


def test_same_seed_same_bytes_and_rows_scale(
    bird_dev: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = generate(bird_dev, tmp_path / "a", capsys=capsys)
    again = generate(bird_dev, tmp_path / "b", capsys=capsys)
    generate(bird_dev, tmp_path / "c", "--seed", "7", capsys=capsys)
    bigger = generate(bird_dev, tmp_path / "d", "--rows", "200", capsys=capsys)
    name = "toxicology/toxicology.sqlite"
    assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert (tmp_path / "a" / name).read_bytes() != (tmp_path / "c" / name).read_bytes()
    rows = {d["db_id"]: d["rows"] for d in first["databases"]}
    assert rows == {d["db_id"]: d["rows"] for d in again["databases"]}
    assert sum(d["rows"] for d in bigger["databases"]) > 1.3 * sum(rows.values())  # beside the planted rows


def test_the_evidence_names_values_that_are_planted(
    bird_dev: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = load_dataset(bird_dev)
    schema = dataset.schemas["california_schools"]
    assert evidence_queries(["Exclusively virtual refers to Virtual = 'F'"], schema) == [
        """SELECT * FROM "schools" WHERE "Virtual" = 'F'"""
    ]
    assert evidence_queries(["no comparison here"], schema) == []
    # a column two tables hold: only where the evidence names the table
    assert evidence_queries(["CDSCode = '01100170109835'"], schema) == []
    assert evidence_queries(["frpm.CDSCode = '01100170109835'"], schema) == [
        """SELECT * FROM "frpm" WHERE "CDSCode" = '01100170109835'"""
    ]
    generate(bird_dev, tmp_path / "gen", capsys=capsys)
    with sqlite3.connect(tmp_path / "gen" / "california_schools" / "california_schools.sqlite") as db:
        assert db.execute("SELECT count(*) FROM schools WHERE Virtual = 'F'").fetchone()[0] > 0


def test_a_bad_rows_value_is_refused(
    bird_dev: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["db", "generate", str(bird_dev), "--out", str(tmp_path), "--rows", "0"]) == 2
    assert "--rows must be at least 1" in capsys.readouterr().err
