"""Every dataset and prediction format, built as real files in a temporary folder."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from sqltriage.core.datasets import load_dataset
from sqltriage.core.datasets.predictions import load_predictions, parse_pred_arg
from sqltriage.core.errors import DatasetError, PredictionsError

RECORDS = [
    {"db_id": "shop", "question": "How many products?", "query": "SELECT count(*) FROM product"},
    {"db_id": "shop", "question": "Names of products.", "query": "SELECT name FROM product"},
    {"db_id": "zoo", "question": "How many animals?", "query": "SELECT count(*) FROM animal"},
]


def make_release(root: Path, records: list[dict] = RECORDS, *, with_zoo: bool = False) -> Path:
    """A Spider-style folder: dev.json, tables.json, database/shop/shop.sqlite (zoo missing)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "dev.json").write_text(json.dumps(records))
    dbs = ["shop", "zoo"] if with_zoo else ["shop"]
    for db in dbs:
        (root / "database" / db).mkdir(parents=True)
        conn = sqlite3.connect(root / "database" / db / f"{db}.sqlite")
        conn.execute("CREATE TABLE product (id INTEGER PRIMARY KEY, name TEXT, price REAL)")
        conn.execute("CREATE TABLE animal (id INTEGER PRIMARY KEY, kind TEXT)")
        conn.commit()
        conn.close()
    tables = [
        {
            "db_id": db,
            "table_names_original": ["product"] if db == "shop" else ["animal"],
            "table_names": ["product"] if db == "shop" else ["animal"],
            "column_names_original": [[-1, "*"], [0, "id"], [0, "name"]],
            "column_names": [[-1, "*"], [0, "id"], [0, "name"]],
            "column_types": ["text", "number", "text"],
            "primary_keys": [1],
            "foreign_keys": [],
        }
        for db in ("shop", "zoo")
    ]
    (root / "tables.json").write_text(json.dumps(tables))
    return root


def test_spider_folder_loads_with_missing_database_marked(tmp_path: Path) -> None:
    ds = load_dataset(make_release(tmp_path / "mini"))
    assert ds.format == "spider"
    assert [e.question for e in ds.examples] == [r["question"] for r in RECORDS]
    assert [e.index for e in ds.examples] == [0, 1, 2]
    assert ds.db_path("shop") == tmp_path / "mini" / "database" / "shop" / "shop.sqlite"
    assert ds.db_missing("zoo") and ds.missing_dbs == ("zoo",)
    assert set(ds.schemas) == {"shop", "zoo"}  # zoo's schema still comes from tables.json
    assert ds.schemas["shop"].tables[0].column_names() == ("id", "name")


def test_json_file_with_db_dir_elsewhere(tmp_path: Path) -> None:
    root = make_release(tmp_path / "mini", with_zoo=True)
    moved = tmp_path / "questions.json"
    moved.write_text((root / "dev.json").read_text())
    ds = load_dataset(moved, db_dir=root / "database", tables=root / "tables.json")
    assert ds.missing_dbs == ()
    assert ds.name == "questions"


def test_schema_read_from_database_when_no_tables_json(tmp_path: Path) -> None:
    root = make_release(tmp_path / "mini")
    (root / "tables.json").unlink()
    ds = load_dataset(root)
    assert ds.schemas["shop"].table("PRODUCT") is not None
    assert "zoo" not in ds.schemas  # neither tables.json nor the file: unknown, not an error


def test_bird_records(tmp_path: Path) -> None:
    records = [
        {
            "question_id": 7,
            "db_id": "shop",
            "question": "q?",
            "evidence": "price is in cents",
            "SQL": "SELECT 1",
            "difficulty": "simple",
        },
        {
            "question_id": 9,
            "db_id": "shop",
            "question": "r?",
            "evidence": "",
            "SQL": "SELECT 2",
            "difficulty": "challenging",
        },
    ]
    (tmp_path / "dev.json").write_text(json.dumps(records))
    ds = load_dataset(tmp_path)
    assert ds.format == "bird"
    assert [e.example_id for e in ds.examples] == ["7", "9"]
    assert ds.examples[0].evidence == "price is in cents" and ds.examples[1].evidence is None
    assert ds.examples[1].difficulty == "challenging"
    assert ds.missing_dbs == ("shop",)


def test_archer_reasoning_tokens(tmp_path: Path) -> None:
    records = [
        {
            "db_id": "shop",
            "question": "q",
            "query": "SELECT 1",
            "reasoning_type": "- C",
            "commonsense_knowledge": "a dozen is twelve",
        }
    ]
    (tmp_path / "train.json").write_text(json.dumps(records))
    ds = load_dataset(tmp_path / "train.json")
    assert ds.format == "archer"
    assert ds.examples[0].reasoning == ("-", "C")
    assert ds.examples[0].commonsense == "a dozen is twelve"


def test_jsonl_and_csv_with_recognised_and_named_columns(tmp_path: Path) -> None:
    jl = tmp_path / "d.jsonl"
    jl.write_text(
        "\n".join(
            json.dumps({"id": f"x{i}", "nl": r["question"], "sql": r["query"], "db": r["db_id"]})
            for i, r in enumerate(RECORDS)
        )
        + "\n"
    )
    ds = load_dataset(jl)
    assert ds.format == "jsonl" and [e.example_id for e in ds.examples] == ["x0", "x1", "x2"]
    assert ds.examples[2].db_id == "zoo"
    csv_file = tmp_path / "d.csv"
    csv_file.write_text(
        "utt,target,database\n" + "\n".join(f'"{r["question"]}","{r["query"]}",{r["db_id"]}' for r in RECORDS)
    )
    with pytest.raises(DatasetError, match="no question field"):
        load_dataset(csv_file)
    ds = load_dataset(csv_file, columns={"question": "utt", "sql": "target"})
    assert ds.examples[1].gold_sql == "SELECT name FROM product"


def test_gold_file(tmp_path: Path) -> None:
    gold = tmp_path / "gold.sql"
    gold.write_text("SELECT 1\tshop\nSELECT 2\tzoo\n")
    ds = load_dataset(gold)
    assert ds.format == "gold" and [e.db_id for e in ds.examples] == ["shop", "zoo"]


# --- predictions ---------------------------------------------------------------------------------------


@pytest.fixture
def ds(tmp_path: Path):
    return load_dataset(make_release(tmp_path / "mini"))


def test_lines_with_empty_line_and_db_ids(ds, tmp_path: Path) -> None:
    f = tmp_path / "p.sql"
    f.write_text("SELECT count(*) FROM product\tshop\n\nSELECT 1\tzoo\n")
    ps = load_predictions(f, ds, name="m")
    assert [p.sql for p in ps.predictions] == ["SELECT count(*) FROM product", "", "SELECT 1"]
    assert ps.predictions[2].db_id == "zoo" and ps.predictions[2].line == 3
    assert ps.format == "lines" and len(ps.sha256) == 64


def test_lines_wrong_db_id_names_the_line(ds, tmp_path: Path) -> None:
    f = tmp_path / "p.sql"
    f.write_text("SELECT 1\tshop\nSELECT 2\tshop\nSELECT 3\tshop\n")
    with pytest.raises(PredictionsError) as err:
        load_predictions(f, ds)
    assert "line 3" in str(err.value) and "'zoo'" in str(err.value) and str(f) in str(err.value)


def test_count_mismatch_gives_both_counts(ds, tmp_path: Path) -> None:
    f = tmp_path / "p.sql"
    f.write_text("SELECT 1\nSELECT 2\n")
    with pytest.raises(PredictionsError, match="has 2 lines but the dataset mini_dev has 3 examples"):
        load_predictions(f, ds)


def test_bird_json_keyed_predictions(ds, tmp_path: Path) -> None:
    f = tmp_path / "predict_dev.json"
    f.write_text(
        json.dumps({"2": "SELECT 3\t----- bird -----\tzoo", "0": "SELECT 1\t----- bird -----\tshop", "1": 0})
    )
    ps = load_predictions(f, ds)
    assert ps.format == "bird"
    assert [p.sql for p in ps.predictions] == ["SELECT 1", "", "SELECT 3"]
    f.write_text(json.dumps({"0": "SELECT 1"}))
    with pytest.raises(PredictionsError, match="missing keys: 1, 2"):
        load_predictions(f, ds)


def test_csv_with_prediction_column_among_others_and_ids(ds, tmp_path: Path) -> None:
    f = tmp_path / "results.csv"
    f.write_text(
        'NLQ,PREDICTED SQL,GOLD SQL,index\n"c","SELECT 3","SELECT x",2\n"a","SELECT 1","SELECT y",0\n'
        '"b","SELECT 2","SELECT z",1\n'
    )
    ps = load_predictions(f, ds)
    assert [p.sql for p in ps.predictions] == ["SELECT 1", "SELECT 2", "SELECT 3"]
    f.write_text('NLQ,PREDICTED SQL,index\n"a","SELECT 1",0\n"b","SELECT 2",0\n"c","SELECT 3",2\n')
    with pytest.raises(PredictionsError, match="appears twice"):
        load_predictions(f, ds)


def test_jsonl_predictions_by_order(ds, tmp_path: Path) -> None:
    f = tmp_path / "p.jsonl"
    f.write_text("\n".join(json.dumps({"prediction": f"SELECT {i}"}) for i in range(3)))
    assert [p.sql for p in load_predictions(f, ds).predictions] == ["SELECT 0", "SELECT 1", "SELECT 2"]


def test_pred_arg() -> None:
    assert parse_pred_arg("gpt=out/a.sql") == ("gpt", Path("out/a.sql"))
    assert parse_pred_arg("out/a.sql") == ("a", Path("out/a.sql"))
    with pytest.raises(PredictionsError):
        parse_pred_arg("=x.sql")


# --- bad input: each says what, where and what to do -------------------------------------------------


def test_path_does_not_exist(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="path does not exist"):
        load_dataset(tmp_path / "nope.json")


def test_json_syntax_error_has_line_and_column(tmp_path: Path) -> None:
    f = tmp_path / "dev.json"
    f.write_text('[\n {"db_id": "a",\n  "question" "x"}\n]')
    with pytest.raises(DatasetError) as err:
        load_dataset(f)
    assert "line 3, column 14" in str(err.value) and str(f) in str(err.value)


def test_record_missing_field_names_field_and_record(tmp_path: Path) -> None:
    f = tmp_path / "dev.json"
    f.write_text(json.dumps([RECORDS[0], {"db_id": "shop", "question": "no sql here"}]))
    with pytest.raises(DatasetError) as err:
        load_dataset(f)
    assert "record 1" in str(err.value) and "gold SQL" in str(err.value)


def test_unknown_format(tmp_path: Path) -> None:
    f = tmp_path / "data.parquet"
    f.write_bytes(b"PAR1")
    with pytest.raises(DatasetError, match="--format"):
        load_dataset(f)
    with pytest.raises(DatasetError, match="unknown format 'xml'"):
        load_dataset(f, fmt="xml")


def test_non_utf8_file_names_the_line(tmp_path: Path, ds) -> None:
    f = tmp_path / "p.sql"
    f.write_bytes(b"SELECT 1\nSELECT 'caf\xe9'\nSELECT 3\n")
    with pytest.raises(PredictionsError) as err:
        load_predictions(f, ds)
    assert "not UTF-8" in str(err.value) and "line 2" in str(err.value)


def test_empty_files(tmp_path: Path, ds) -> None:
    f = tmp_path / "dev.json"
    f.write_text("  \n")
    with pytest.raises(DatasetError, match="file is empty"):
        load_dataset(f)
    p = tmp_path / "p.sql"
    p.write_text("")
    with pytest.raises(PredictionsError, match="file is empty"):
        load_predictions(p, ds)


def test_missing_db_dir_is_reported(tmp_path: Path) -> None:
    root = make_release(tmp_path / "mini")
    with pytest.raises(DatasetError, match="database folder does not exist"):
        load_dataset(root, db_dir=tmp_path / "elsewhere")
