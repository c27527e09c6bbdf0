"""`sqltriage export` in every format, and the workspace's `evaluations` view: each equal to the CSV."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from sqltriage.core.reporting.views import ensure_views, view_columns
from sqltriage.core.verdicts.review import FALSE_NEGATIVE, FALSE_POSITIVE, GOLD_WRONG
from sqltriage.core.workspace.store import Workspace
from sqltriage.tui.cli import main

from .conftest import Evaluated


def _csv(path: Path, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    return pl.read_csv(path, schema_overrides=schema, infer_schema_length=0)


def _sql_rows(db: Path, sql: str) -> tuple[list[str], list[tuple]]:
    with sqlite3.connect(db) as conn:
        cur = conn.execute(sql)
        return [d[0] for d in cur.description], cur.fetchall()


def _exported(ws: Path, out: Path, *extra: str) -> None:
    assert main(["export", "--workspace", str(ws), "--out", str(out), *extra]) == 0


@pytest.fixture
def ws(sample_ws: Evaluated, tmp_path: Path) -> Path:
    path = tmp_path / "ws.sqltriage.db"
    shutil.copyfile(sample_ws.workspace, path)
    return path


def test_every_format_holds_the_csv_rows(ws: Path, tmp_path: Path) -> None:
    where = ["--where", "ex=0"]
    _exported(ws, tmp_path / "subset.csv", *where)
    parquet = pl.read_parquet(_export(ws, tmp_path / "subset.parquet", *where))
    schema = dict(parquet.schema)  # the export's own column types
    csv = _csv(tmp_path / "subset.csv", schema)
    assert csv.height > 0 and set(csv.get_column("ex").to_list()) == {0}
    assert_frame_equal(parquet, csv)
    jsonl = pl.read_ndjson(_export(ws, tmp_path / "subset.jsonl", *where), schema=schema)
    assert_frame_equal(jsonl, csv)

    db = _export(ws, tmp_path / "subset.out", "--format", "sqlite", *where)
    names, rows = _sql_rows(db, "SELECT * FROM evaluations")
    assert names == csv.columns
    assert_frame_equal(pl.DataFrame(rows, schema=schema, orient="row"), csv)
    with sqlite3.connect(db) as conn:
        types = {
            name: (kind, pk) for _, name, kind, _, _, pk in conn.execute("PRAGMA table_info(evaluations)")
        }
    assert types["index"] == ("INTEGER", 1) and types["model"] == ("TEXT", 2)
    assert types["pm"][0] == "REAL" and types["ex"][0] == "INTEGER" and types["question"][0] == "TEXT"


def _export(ws: Path, out: Path, *extra: str) -> Path:
    _exported(ws, out, *extra)
    return out


def test_unknown_format_is_refused_before_any_work(ws: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["export", "--workspace", str(ws), "--out", str(tmp_path / "x.xlsx")]) == 2
    assert "cannot tell the format from the file name 'x.xlsx'" in capsys.readouterr().err
    assert not list(tmp_path.glob("x.xlsx*"))


def test_evaluations_view_equals_the_csv_export(ws: Path, tmp_path: Path) -> None:
    with Workspace.open(ws) as w:  # review tags, so that ex_reviewed differs from ex on some rows
        w.add_tags([(0, "atlas-7b"), (1, "atlas-7b")], f"Evaluation: {FALSE_POSITIVE}")
        w.add_tags([(4, "atlas-7b")], FALSE_NEGATIVE)
        w.add_tags([(5, "beacon-gpt4")], GOLD_WRONG)
        ensure_views(w)  # as an evaluation leaves it (loading the frame writes nothing, the view included)
    _exported(ws, tmp_path / "all.csv")
    _exported(ws, tmp_path / "all.parquet")
    schema = dict(pl.read_parquet_schema(tmp_path / "all.parquet"))
    names, rows = _sql_rows(ws, "SELECT * FROM evaluations")
    assert names == view_columns() == list(schema)  # every exported column is stored: the view has them all
    view = pl.DataFrame(rows, orient="row", schema=schema)
    csv = _csv(tmp_path / "all.csv", schema)
    assert view.height == csv.height > 0
    assert view.filter(pl.col("tags").is_not_null()).height > 0  # tags joined as the export joins them
    assert view.filter(pl.col("ex_reviewed").ne_missing(pl.col("ex"))).height >= 3
    assert_frame_equal(view, csv)
