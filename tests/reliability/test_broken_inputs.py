"""Broken inputs: whatever bytes a dataset or predictions file holds, loading either succeeds or raises one
of our own errors naming the file; the SQL layer answers any text without raising; a failing `eval`
leaves its workspace exactly as it was."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sqltriage.core.datasets import load_dataset
from sqltriage.core.datasets.predictions import load_predictions
from sqltriage.core.datasets.schema import load_tables_json
from sqltriage.core.errors import DatasetError, PredictionsError, SqlTriageError
from sqltriage.core.model import Dataset
from sqltriage.core.sql.categories import categorize
from sqltriage.core.sql.exact_match import exact_match
from sqltriage.core.sql.parse import parse_sql
from sqltriage.core.sql.partial_match import partial_match
from sqltriage.samples import SAMPLE_DIR
from sqltriage.tui.cli import main

from .conftest import pred_args, tree_state

FUZZ = settings(
    max_examples=60,
    derandomize=True,  # the same examples on every run, so CI is repeatable
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
SAMPLE_RECORDS: list[dict] = json.loads((SAMPLE_DIR / "dev.json").read_text())
SAMPLE_PREDS = (SAMPLE_DIR / "predictions" / "atlas-7b.sql").read_bytes()

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the sample whose files the fuzzer overwrites, one example at a time."""
    dest = tmp_path_factory.mktemp("fuzz") / "dataset"
    shutil.copytree(SAMPLE_DIR, dest)
    return dest


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    return load_dataset(SAMPLE_DIR)


def assert_loads_or_names(path: Path, load: object, error: type[SqlTriageError]) -> None:
    """`load()` returns, or raises `error` whose message names `path`; anything else escapes and fails."""
    try:
        load()  # type: ignore[operator]
    except error as exc:
        assert str(path) in str(exc), f"the message does not name the file: {exc}"


# --- datasets ----------------------------------------------------------------------------------------


@FUZZ
@given(raw=st.binary(max_size=400), suffix=st.sampled_from([".json", ".jsonl", ".csv", ".sql"]))
def test_random_bytes_as_a_dataset(folder: Path, raw: bytes, suffix: str) -> None:
    path = folder / f"fuzzed{suffix}"
    path.write_bytes(raw)
    assert_loads_or_names(path, lambda: load_dataset(path), DatasetError)


@FUZZ
@given(cut=st.integers(min_value=0, max_value=len((SAMPLE_DIR / "dev.json").read_bytes()) - 2))
def test_a_truncated_dataset_is_refused_naming_the_file(folder: Path, cut: int) -> None:
    path = folder / "dev.json"
    path.write_bytes((SAMPLE_DIR / "dev.json").read_bytes()[:cut])
    with pytest.raises(DatasetError) as info:
        load_dataset(path)
    assert str(path) in str(info.value)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32", "latin-1", "cp1252"])
def test_a_mis_encoded_dataset_is_refused_naming_file_and_line(folder: Path, encoding: str) -> None:
    records = [dict(r) for r in SAMPLE_RECORDS]
    records[3]["question"] = "Which authors were born in Malmö or Zürich?"
    path = folder / "dev.json"
    path.write_text(json.dumps(records, ensure_ascii=False, indent=1), encoding=encoding)
    with pytest.raises(DatasetError) as info:
        load_dataset(path)
    assert str(path) in str(info.value) and "UTF-8" in str(info.value) and "line" in str(info.value)


@FUZZ
@given(
    record=st.integers(min_value=0, max_value=len(SAMPLE_RECORDS) - 1),
    key=st.sampled_from(["db_id", "question", "query", "question_id", "evidence", "extra"]),
    value=json_values,
)
def test_mistyped_values_in_a_dataset(folder: Path, record: int, key: str, value: object) -> None:
    records = [dict(r) for r in SAMPLE_RECORDS]
    records[record][key] = value
    path = folder / "dev.json"
    path.write_text(json.dumps(records))
    assert_loads_or_names(path, lambda: load_dataset(path), DatasetError)


@FUZZ
@given(doc=json_values)
def test_any_json_document_as_a_dataset(folder: Path, doc: object) -> None:
    path = folder / "dev.json"
    path.write_text(json.dumps(doc))
    assert_loads_or_names(path, lambda: load_dataset(path), DatasetError)


def test_a_truncated_tables_json_is_refused_naming_it(folder: Path) -> None:
    shutil.copy(SAMPLE_DIR / "dev.json", folder / "dev.json")
    tables = folder / "tables.json"
    tables.write_bytes((SAMPLE_DIR / "tables.json").read_bytes()[:500])
    try:
        with pytest.raises(DatasetError) as info:
            load_dataset(folder / "dev.json")
        assert str(tables) in str(info.value)
    finally:
        shutil.copy(SAMPLE_DIR / "tables.json", tables)


# --- predictions -------------------------------------------------------------------------------------


@FUZZ
@given(raw=st.binary(max_size=400), suffix=st.sampled_from([".sql", ".txt", ".json", ".jsonl", ".csv"]))
def test_random_bytes_as_predictions(folder: Path, dataset: Dataset, raw: bytes, suffix: str) -> None:
    path = folder / f"fuzzed-preds{suffix}"
    path.write_bytes(raw)
    assert_loads_or_names(path, lambda: load_predictions(path, dataset), PredictionsError)


@FUZZ
@given(cut=st.integers(min_value=0, max_value=len(SAMPLE_PREDS) - 200))
def test_truncated_predictions_are_refused_with_both_counts(folder: Path, dataset: Dataset, cut: int) -> None:
    path = folder / "truncated.sql"
    path.write_bytes(SAMPLE_PREDS[:cut])
    with pytest.raises(PredictionsError) as info:
        load_predictions(path, dataset)
    message = str(info.value)
    assert str(path) in message
    if "empty" not in message:
        assert f"has {len(dataset.examples)} examples" in message


@settings(FUZZ, max_examples=30)
@given(
    keys=st.lists(st.text(max_size=4) | st.integers(-3, 80).map(str), max_size=70),
    values=st.lists(json_values, min_size=70, max_size=70),
)
def test_mistyped_bird_style_predictions(
    folder: Path, dataset: Dataset, keys: list[str], values: list
) -> None:
    path = folder / "preds.json"
    path.write_text(json.dumps(dict(zip(keys, values, strict=False))))
    assert_loads_or_names(path, lambda: load_predictions(path, dataset), PredictionsError)


@settings(FUZZ, max_examples=30)
@given(items=st.lists(json_values, min_size=66, max_size=68))
def test_mistyped_list_predictions(folder: Path, dataset: Dataset, items: list) -> None:
    path = folder / "preds.json"
    path.write_text(json.dumps(items))
    assert_loads_or_names(path, lambda: load_predictions(path, dataset), PredictionsError)


@FUZZ
@given(
    rows=st.lists(st.dictionaries(st.sampled_from(["sql", "index", "db_id", "x"]), json_values), max_size=70)
)
def test_mistyped_jsonl_predictions(folder: Path, dataset: Dataset, rows: list[dict]) -> None:
    path = folder / "preds.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    assert_loads_or_names(path, lambda: load_predictions(path, dataset), PredictionsError)


# --- the SQL layer -----------------------------------------------------------------------------------

SQL_WORDS = [
    "SELECT", "FROM", "WHERE", "GROUP BY", "HAVING", "ORDER BY", "LIMIT", "UNION", "INTERSECT", "EXCEPT",
    "JOIN", "ON", "AS", "AND", "OR", "NOT", "IN", "LIKE", "BETWEEN", "IS NULL", "DISTINCT", "count(*)",
    "max(", "(", ")", ",", "*", "=", "<>", ">", "+", "-", "/", "'x'", '"y"', "`z`", "1", "2.5", "T1.", "T2",
    "books", "loans", "authors", "title", "book_id", "fine", "name", ";", "--", "/*", "*/", "\x00", "🙂",
    "WITH", "CASE WHEN", "THEN", "ELSE", "END", "CAST(", "NULL", "EXISTS", "ALL", "ANY", "IIF(", "?", ":a",
]  # fmt: skip
sqlish = st.lists(st.sampled_from(SQL_WORDS), max_size=30).map(" ".join)
any_text = st.text(max_size=200)
GOLD = "SELECT T2.name, count(*) FROM books AS T1 JOIN authors AS T2 ON T1.author_id = T2.author_id GROUP BY T2.name"


@pytest.fixture(scope="module")
def schema():  # type: ignore[no-untyped-def]
    return load_tables_json(SAMPLE_DIR / "tables.json")["library"]


@settings(FUZZ, max_examples=300)
@given(text=sqlish | any_text)
def test_the_sql_layer_never_raises(schema, text: str) -> None:  # type: ignore[no-untyped-def]
    parsed = parse_sql(text, schema)
    assert parsed.ok or parsed.error
    categorize(parsed, schema)
    categorize(text, None)
    partial_match(GOLD, text, schema)
    partial_match(text, GOLD, None)
    exact_match(GOLD, text, schema)
    exact_match(text, GOLD, schema)


# --- nothing half-written ----------------------------------------------------------------------------


def test_a_failing_eval_leaves_the_workspace_as_it_was(
    sample_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wsdir = tmp_path / "ws"
    wsdir.mkdir()
    workspace = wsdir / "w.db"
    good = ["eval", str(sample_copy), *pred_args(sample_copy), "--workspace", str(workspace)]
    good += ["--timeout", "0.5", "--json"]  # the sample's #37 of atlas-7b runs until the timeout
    assert main(good) == 0
    before = tree_state(wsdir)
    short = tmp_path / "short.sql"
    short.write_text("SELECT 1\n" * 10)
    bad_file = tmp_path / "bad.sql"
    bad_file.write_bytes(b"SELECT '\xff'\n" * 67)
    failing = [
        [*good, "--pred", f"short={short}"],  # wrong count
        [*good, "--pred", f"bad={bad_file}"],  # not UTF-8
        [*good, "--pred", f"atlas-7b={short}"],  # a second model with a taken name
        [*good, "--timeout", "-1"],  # unusable option
        ["eval", str(tmp_path / "nowhere"), *pred_args(sample_copy), "--workspace", str(workspace)],
    ]
    capsys.readouterr()
    for argv in failing:
        assert main(argv) == 2, argv
        assert capsys.readouterr().err.strip(), "no message for a failing eval"
        assert tree_state(wsdir) == before, f"the workspace changed after {argv[-2:]}"
