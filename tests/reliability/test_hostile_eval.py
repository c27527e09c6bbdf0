"""Hostile predictions through a whole `sqltriage eval`: nothing in the dataset folder changes or appears,
each hostile row ends with an error of the right kind, the run succeeds, and every other row gets the
same verdict as in a clean run."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from sqltriage.tui.cli import main

from .conftest import SQLTRIAGE, TIMING_COLUMNS, copy_sample_to, pred_args, read_csv, tree_state

# one worker runs the module: the hostile and the clean run are made once, not once per worker
pytestmark = pytest.mark.xdist_group("test_hostile_eval")

TIMEOUT = "0.5"
PWNED = "PWNED"  # replaced by a path inside the dataset folder, where no file may appear

# (name, one-line SQL on the sample's `library` database, expected error_kind)
CAPPED = "capped or timeout"
HOSTILE: list[tuple[str, str, str]] = [
    ("drop", "DROP TABLE loans", "forbidden"),
    ("delete", "DELETE FROM loans", "forbidden"),
    ("update", "UPDATE books SET title = 'x'", "forbidden"),
    ("insert", "INSERT INTO loans SELECT * FROM loans", "forbidden"),
    ("create table", "CREATE TABLE pwned AS SELECT * FROM books", "forbidden"),
    ("create index", "CREATE INDEX pwned ON loans (fine)", "forbidden"),
    ("create view", "CREATE VIEW pwned AS SELECT 1", "forbidden"),
    (
        "create trigger",
        "CREATE TRIGGER pwned AFTER INSERT ON loans BEGIN DELETE FROM books; END",
        "forbidden",
    ),
    ("attach a new file", f"ATTACH DATABASE '{PWNED}.sqlite' AS pwned", "forbidden"),
    ("detach", "DETACH DATABASE main", "forbidden"),
    ("pragma writable_schema", "PRAGMA writable_schema = 1", "forbidden"),
    ("pragma journal_mode", "PRAGMA journal_mode = WAL", "forbidden"),
    ("pragma user_version", "PRAGMA user_version = 7", "forbidden"),
    ("vacuum", "VACUUM", "forbidden"),
    ("vacuum into", f"VACUUM INTO '{PWNED}-copy.sqlite'", "forbidden"),
    ("load_extension", f"SELECT load_extension('{PWNED}.so')", "forbidden"),
    ("select then drop", "SELECT count(*) FROM books; DROP TABLE loans", "multiple_statements"),
    ("drop then select", "DROP TABLE loans; SELECT count(*) FROM books", "forbidden"),
    (
        "endless recursive cte",
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT max(n) FROM r",
        "timeout",
    ),
    ("cartesian product counted", "SELECT count(*) FROM loans a, loans b, loans c", "timeout"),
    ("cartesian product sorted", "SELECT * FROM loans a, loans b ORDER BY random()", "timeout"),
    ("cartesian product fetched", "SELECT * FROM loans a, loans b", CAPPED),
    ("randomblob of a gigabyte", "SELECT randomblob(1000000000)", "runtime"),
    ("zeroblob of a gigabyte", "SELECT zeroblob(1000000000)", "runtime"),
    ("megabyte-long query", "SELECT '" + "x" * 1_000_000 + "'", "syntax"),
    ("NUL byte", "SELECT count(*) FROM books\x00; DROP TABLE loans", "syntax"),
    ("deeply nested parentheses", "SELECT " + "(" * 30_000 + "1" + ")" * 30_000, "syntax"),
    ("deeply nested subqueries", "SELECT " + "(SELECT " * 1_500 + "1" + ")" * 1_500, "syntax"),
]


def hostile_predictions(dataset: Path, out: Path) -> dict[int, tuple[str, str]]:
    """atlas-7b's predictions with the hostile corpus put on `library` examples; {index: (name, kind)}."""
    records = json.loads((dataset / "dev.json").read_text())
    lines = (dataset / "predictions" / "atlas-7b.sql").read_text().splitlines()
    library = [i for i, r in enumerate(records) if r["db_id"] == "library"]
    assert len(library) >= len(HOSTILE), "the sample has too few library questions for the corpus"
    placed: dict[int, tuple[str, str]] = {}
    for i, (name, sql, kind) in zip(library, HOSTILE, strict=False):
        lines[i] = sql.replace(PWNED, str(dataset / "pwned"))
        placed[i] = (name, kind)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return placed


def eval_args(dataset: Path, hostile_file: Path, workspace: Path) -> list[str]:
    return [
        "eval",
        str(dataset),
        "--pred",
        f"hostile={hostile_file}",
        "--pred",
        f"beacon-gpt4={dataset / 'predictions' / 'beacon-gpt4.sql'}",
        "--workspace",
        str(workspace),
        "--timeout",
        TIMEOUT,
        "--jobs",
        "1",
        "--json",
    ]


def outcome(row: dict[str, str]) -> tuple[str, ...]:
    return tuple(v for k, v in row.items() if k not in TIMING_COLUMNS)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """One hostile run and one clean run of the same sample copy, both exported to CSV."""
    tmp = tmp_path_factory.mktemp("hostile")
    dataset = copy_sample_to(tmp / "dataset")
    hostile_file = tmp / "hostile.sql"
    placed = hostile_predictions(dataset, hostile_file)
    before = tree_state(dataset)
    code = main(eval_args(dataset, hostile_file, tmp / "hostile.db"))
    after = tree_state(dataset)
    assert main(["export", "--workspace", str(tmp / "hostile.db"), "--out", str(tmp / "hostile.csv")]) == 0
    clean = [
        "eval",
        str(dataset),
        *pred_args(dataset),
        "--workspace",
        str(tmp / "clean.db"),
        "--timeout",
        TIMEOUT,
        "--json",
    ]
    assert main(clean) == 0
    assert main(["export", "--workspace", str(tmp / "clean.db"), "--out", str(tmp / "clean.csv")]) == 0
    return {
        "tmp": tmp,
        "dataset": dataset,
        "hostile_file": hostile_file,
        "placed": placed,
        "code": code,
        "before": before,
        "after": after,
        "hostile": read_csv(tmp / "hostile.csv"),
        "clean": read_csv(tmp / "clean.csv"),
    }


def test_hostile_run_exits_0_and_leaves_the_dataset_folder_as_it_was(runs: dict) -> None:
    assert runs["code"] == 0
    assert runs["after"] == runs["before"], "a database file changed or a file appeared in the dataset folder"
    assert not list(runs["dataset"].rglob("pwned*"))


@pytest.mark.parametrize(("name", "kind"), [(h[0], h[2]) for h in HOSTILE], ids=[h[0] for h in HOSTILE])
def test_each_hostile_row_ends_with_a_clear_error(runs: dict, name: str, kind: str) -> None:
    index = next(i for i, (n, _) in runs["placed"].items() if n == name)
    row = next(r for r in runs["hostile"] if r["model"] == "hostile" and int(r["index"]) == index)
    if kind == CAPPED:  # a legal query with an enormous result: cut at the row cap, or timed out
        if row["error_kind"] == "timeout":
            return
        assert row["error"] == "" and row["va"] == "1", row
        # A cut result gets no verdict unless what was seen already rules a match out: here the gold
        # has one column and the prediction many, so the cut result is still wrong.
        assert row["gold_sql"].startswith("SELECT loan_id FROM loans"), "the premise: gold has one column"
        assert row["ex"] == "0" and row["ex_spider"] == "0" and row["ex_bird"] == "0", row
        return
    assert row["error_kind"] == kind, f"{name}: {row['error_kind']} ({row['error'][:200]})"
    assert row["error"], name
    assert row["va"] == "0" and row["ex"] == "0", f"{name}: a failed prediction is a model error"


def test_the_other_rows_get_the_same_verdicts_as_in_a_clean_run(runs: dict) -> None:
    clean = {(r["model"], r["index"]): r for r in runs["clean"]}
    hostile_rows = {str(i) for i in runs["placed"]}
    compared = 0
    for row in runs["hostile"]:
        model = "atlas-7b" if row["model"] == "hostile" else row["model"]
        if row["model"] == "hostile" and row["index"] in hostile_rows:
            continue
        ref = dict(clean[(model, row["index"])], model=row["model"])
        assert outcome(row) == outcome(ref), f"row {row['index']} of {row['model']} changed"
        compared += 1
    assert compared == len(runs["clean"]) - len(hostile_rows)


def one_model_run(dataset: Path, pred_file: Path, tmp: Path) -> tuple[int, list[dict[str, str]]]:
    workspace = tmp / "one.db"
    argv = ["eval", str(dataset), "--pred", f"m={pred_file}", "--workspace", str(workspace)]
    code = main([*argv, "--timeout", TIMEOUT, "--json"])
    if code != 0:
        return code, []
    assert main(["export", "--workspace", str(workspace), "--out", str(tmp / "one.csv")]) == 0
    return code, read_csv(tmp / "one.csv")


def test_invalid_unicode_in_json_predictions_is_a_row_outcome(sample_copy: Path, tmp_path: Path) -> None:
    """JSON may spell text that is not valid Unicode (a lone surrogate); it must not crash the run."""
    lines = (sample_copy / "predictions" / "atlas-7b.sql").read_text().splitlines()
    lines[0] = "SELECT count(*) FROM books WHERE title = '\udcff'"
    lines[1] = "\ud800SELECT 1"
    raw = json.dumps(lines)  # ASCII JSON: the surrogates are written as \\u escapes, as JSON allows
    assert "\\udcff" in raw and "\\\\udcff" not in raw
    pred_file = tmp_path / "preds.json"
    pred_file.write_text(raw, encoding="utf-8")
    code, rows = one_model_run(sample_copy, pred_file, tmp_path)
    assert code == 0
    assert "\ufffd" in rows[0]["pred_sql"] and rows[0]["va"] == "1" and rows[0]["ex"] == "0"
    assert rows[1]["va"] == "0" and rows[1]["error"]


def test_invalid_utf8_in_a_predictions_file_is_refused_naming_file_and_line(
    sample_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = (sample_copy / "predictions" / "atlas-7b.sql").read_bytes().split(b"\n")
    lines[4] = b"SELECT '\xff\xfe' FROM books"
    pred_file = tmp_path / "preds.sql"
    pred_file.write_bytes(b"\n".join(lines))
    code, _ = one_model_run(sample_copy, pred_file, tmp_path)
    err = capsys.readouterr().err
    assert code == 2
    assert str(pred_file) in err and "line 5" in err and "UTF-8" in err
    assert not (tmp_path / "one.db").exists()


def test_a_long_chain_of_conditions_is_a_row_outcome(sample_copy: Path, tmp_path: Path) -> None:
    lines = (sample_copy / "predictions" / "atlas-7b.sql").read_text().splitlines()
    lines[0] = "SELECT count(*) FROM books WHERE " + " AND ".join(f"book_id <> {i}" for i in range(3000))
    pred_file = tmp_path / "preds.sql"
    pred_file.write_text("\n".join(lines) + "\n")
    code, rows = one_model_run(sample_copy, pred_file, tmp_path)
    assert code == 0  # the analysis recursion limit is one row's problem, not the run's
    assert len(rows) == 67
    assert rows[0]["va"] == "0" and rows[0]["error"]  # SQLite itself refuses a tree that deep
    assert rows[0]["pm"] == "0.0"


@pytest.mark.slow
def test_a_hostile_run_stays_within_bounded_memory(tmp_path: Path) -> None:
    dataset = copy_sample_to(tmp_path / "dataset")
    hostile_file = tmp_path / "hostile.sql"
    hostile_predictions(dataset, hostile_file)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    out = subprocess.run(
        [*SQLTRIAGE, *eval_args(dataset, hostile_file, tmp_path / "w.db")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # Linux: KiB, max over children
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout)["models"][0]["n"] == 67
    assert peak_kib >= before
    assert peak_kib < 1_500 * 1024, f"peak RSS {peak_kib / 1024:.0f} MiB"
    print(f"peak RSS of the hostile eval: {peak_kib / 1024:.0f} MiB", file=sys.stderr)
