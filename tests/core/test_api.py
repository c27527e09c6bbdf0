"""The notebook API gives what the commands give: `evaluate` is `eval`, `load` is the CSV export, `diff` is `diff --json`.

On the bundled sample and its real SQLite databases; the commands are run as a user runs them.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from sqltriage.core import api
from sqltriage.core.errors import UsageError, WorkspaceError
from sqltriage.samples import SAMPLE_DIR
from sqltriage.tui.cli import main
from tests.conftest import REPO, modules_loaded_by

SQLTRIAGE = [sys.executable, "-m", "sqltriage.tui.cli"]
PREDICTIONS = {p.stem: p for p in sorted((SAMPLE_DIR / "predictions").glob("*.sql"))}
LIBRARY = SAMPLE_DIR / "database" / "library" / "library.sqlite"
N_EXAMPLES = len(json.loads((SAMPLE_DIR / "dev.json").read_text(encoding="utf-8")))


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    out = subprocess.run([*SQLTRIAGE, *args], capture_output=True, text=True, cwd=cwd, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return out


def cli_eval(cwd: Path, *extra: str) -> dict[str, Any]:
    """`sqltriage eval` on the sample with both models; its --json report."""
    preds = [a for name, file in PREDICTIONS.items() for a in ("--pred", f"{name}={file}")]
    return json.loads(cli("eval", str(SAMPLE_DIR), *preds, *extra, "--json", cwd=cwd).stdout)


def exported_csv(workspace: Path, cwd: Path) -> Path:
    out = cwd / "export.csv"
    cli("export", "--workspace", str(workspace), "--out", str(out), cwd=cwd)
    return out


def test_evaluate_is_sqltriage_eval_and_load_is_the_csv_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    ws = api.evaluate(SAMPLE_DIR, PREDICTIONS)
    assert ws.parent == tmp_path and ws.is_file()

    # The command, run afterwards in the same folder, picks the same default workspace and finds every
    # pair done: same loaders, same dataset fingerprint, same options.
    report = cli_eval(tmp_path)
    assert Path(report["workspace"]) == ws
    assert (report["run"]["computed"], report["run"]["reused"]) == (0, N_EXAMPLES * len(PREDICTIONS))

    frame = api.load(ws)
    csv = exported_csv(ws, tmp_path)
    assert csv.read_text(encoding="utf-8").splitlines()[0].split(",") == frame.columns
    assert_frame_equal(pl.read_csv(csv, schema=frame.schema), frame)

    assert frame.height == N_EXAMPLES * len(PREDICTIONS)
    assert frame.get_column("model").unique(maintain_order=True).to_list() == list(PREDICTIONS)
    assert set(frame.get_column("ex").drop_nulls().to_list()) <= {0, 1}
    assert frame.schema["pm"] == pl.Float64 and frame.schema["ex"] == pl.Int64
    means = frame.group_by("model").agg(pl.mean("ex")).sort("model").get_column("ex").to_list()
    assert means == pytest.approx(
        [m["ex"] for m in sorted(report["models"], key=lambda m: m["model"])], abs=1e-3
    )


def test_options_reach_the_run_as_the_flags_do(tmp_path: Path) -> None:
    # short timeouts: the sample's #37 of atlas-7b runs until the timeout in each run
    ws = api.evaluate(SAMPLE_DIR, PREDICTIONS, tmp_path / "w.db", timeout=0.5, jobs=1)
    again = cli_eval(tmp_path, "--workspace", str(ws), "--timeout", "0.5")
    assert again["run"]["computed"] == 0  # the same options: nothing to redo
    other = cli_eval(tmp_path, "--workspace", str(ws), "--timeout", "0.75")
    assert other["run"]["computed"] == N_EXAMPLES * len(PREDICTIONS)  # another timeout is another run


def test_an_unknown_option_or_bad_predictions_fail_before_any_work(tmp_path: Path) -> None:
    ws = tmp_path / "w.db"
    with pytest.raises(UsageError) as err:
        api.evaluate(SAMPLE_DIR, PREDICTIONS, ws, timout=2)
    assert "unknown option 'timout'" in str(err.value)
    assert "did you mean 'timeout'?" in str(err.value)
    assert "max_rows" in str(err.value) and "neighbours" in str(err.value)
    with pytest.raises(UsageError, match="jobs must be at least 1"):
        api.evaluate(SAMPLE_DIR, PREDICTIONS, ws, jobs=0)
    with pytest.raises(UsageError, match="maps each model's name to its predictions file"):
        api.evaluate(SAMPLE_DIR, str(PREDICTIONS["atlas-7b"]), ws)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="at least one model"):
        api.evaluate(SAMPLE_DIR, {}, ws)
    assert not ws.exists()


def test_load_of_a_missing_or_foreign_file_says_what_it_is(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.sqltriage.db"
    with pytest.raises(WorkspaceError) as err:
        api.load(missing)
    assert str(missing) in str(err.value) and "does not exist" in str(err.value)
    assert "api.evaluate" in str(err.value)
    assert not missing.exists()
    with pytest.raises(WorkspaceError, match="is not a workspace"):
        api.load(SAMPLE_DIR / "dev.json")


def _without_timings(doc: dict[str, Any]) -> dict[str, Any]:
    """The document with the two queries' run times taken out (they differ from one run to the next)."""
    for side in ("gold", "pred"):
        elapsed = doc.get("execution", {}).get(side, {}).pop("elapsed", None)
        assert elapsed is None or elapsed >= 0
    return doc


@pytest.mark.parametrize(
    ("gold", "pred", "db"),
    [
        ("SELECT title FROM books WHERE year > 1990 ORDER BY title", "SELECT title FROM books", None),
        (
            "SELECT T1.name FROM a AS T1 JOIN b AS T2 ON T1.id = T2.a_id",
            "SELECT T1.name FROM a AS T1 JOIN b AS T2 ON T1.id = T2.other_id",
            None,
        ),
        ("SELECT title FROM books", "SELECT * FROM books", LIBRARY),
        ("SELECT count(*) FROM books", "SELECT count(title) FROM books WHERE year > 2000", LIBRARY),
    ],
)
def test_diff_is_what_diff_json_prints(
    gold: str, pred: str, db: Path | None, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["diff", gold, pred, "--json", *(["--db", str(db)] if db else [])]
    assert main(args) == 0
    printed = json.loads(capsys.readouterr().out)
    doc = api.diff(gold, pred, db=db)
    assert ("execution" in doc) == (db is not None)
    assert _without_timings(doc) == _without_timings(printed)


def test_diff_refuses_a_missing_database(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="database file does not exist"):
        api.diff("SELECT 1", "SELECT 1", db=tmp_path / "none.sqlite")
    assert not (tmp_path / "none.sqlite").exists()


def test_importing_the_api_loads_neither_the_app_nor_spacy() -> None:
    heavy = ("textual", "rich", "spacy", "polars", "sqlglot")
    assert modules_loaded_by("import sqltriage.core.api", heavy) == []
    assert modules_loaded_by("from sqltriage.core import api", heavy) == []


def test_calling_it_loads_no_ui_either(tmp_path: Path) -> None:
    """A notebook that evaluates, loads and diffs never pulls in the app's libraries (nor spaCy)."""
    code = (
        "from sqltriage.core import api\n"
        "from sqltriage.samples import SAMPLE_DIR\n"
        f"ws = api.evaluate(SAMPLE_DIR, {{'a': SAMPLE_DIR / 'predictions' / 'atlas-7b.sql'}}, {str(tmp_path / 'w.db')!r}, timeout=1.0)\n"
        "assert api.load(ws).height > 0\n"
        f"api.diff('SELECT 1', 'SELECT 2', db={str(LIBRARY)!r})\n"
    )
    assert modules_loaded_by(code, ("textual", "rich", "spacy", "sqltriage.tui")) == []


PYTHON_DOC = REPO / "docs" / "python.md"


def doc_blocks() -> list[str]:
    """The ```python blocks of docs/python.md ("From Python (notebooks)"), in order."""
    text = PYTHON_DOC.read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


def run_cells(blocks: list[str], namespace: dict[str, Any]) -> list[Any]:
    """Each block run as a notebook cell: its statements, then the value of its last expression."""
    shown = []
    for block in blocks:
        tree = ast.parse(block)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, "docs/python.md", "exec"), namespace)
        if last is not None:
            expr = ast.Expression(last.value)
            shown.append(eval(compile(expr, "docs/python.md", "eval"), namespace))
    return shown


def test_the_documented_example_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/python.md's examples, run as notebook cells, show what the text says."""
    blocks = doc_blocks()
    assert blocks and len([line for line in blocks[0].splitlines() if line.strip()]) == 5
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {}
    table, (ex, first_cause) = run_cells(blocks, namespace)
    assert namespace["ws"].parent == tmp_path and namespace["ws"].is_file()
    assert table.columns == ["model", "ex", "em", "pm"]
    assert table.get_column("model").to_list() == list(PREDICTIONS)
    assert all(0 <= v <= 1 for v in table.get_column("ex").to_list())
    assert (ex, first_cause) == (0, "Attribute: redundant")
