"""`sqltriage eval` and `export` as a user runs them: a killed run resumes, exports hold every column."""

from __future__ import annotations

import csv
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sqltriage.core.reporting.report import EXPORT_COLUMNS
from sqltriage.samples import SAMPLE_DIR
from sqltriage.tui.cli import main

SQLTRIAGE = [sys.executable, "-m", "sqltriage.tui.cli"]


def sample_args() -> list[str]:
    args = [str(SAMPLE_DIR)]
    for p in sorted((SAMPLE_DIR / "predictions").glob("*.sql")):
        args += ["--pred", f"{p.stem}={p}"]
    return args


def enlarged_sample(tmp_path: Path, times: int) -> tuple[Path, Path]:
    """The sample's questions repeated, on the sample's databases, with one model's predictions repeated."""
    records = json.loads((SAMPLE_DIR / "dev.json").read_text())
    (tmp_path / "big.json").write_text(json.dumps(records * times))
    pred_file = sorted((SAMPLE_DIR / "predictions").glob("*.sql"))[0]
    lines = pred_file.read_text().splitlines()
    (tmp_path / "big.sql").write_text("\n".join(lines * times) + "\n")
    return tmp_path / "big.json", tmp_path / "big.sql"


def results_count(ws: Path) -> int:
    try:
        conn = sqlite3.connect(f"file:{ws}?mode=ro", uri=True, timeout=1)
        try:
            return conn.execute("SELECT count(*) FROM results").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def test_killed_eval_resumes_without_redoing(tmp_path: Path) -> None:
    data, preds = enlarged_sample(tmp_path, 6)
    total = len(json.loads(data.read_text()))
    ws = tmp_path / "w.db"
    base = [
        *SQLTRIAGE,
        "eval",
        str(data),
        "--db-dir",
        str(SAMPLE_DIR / "database"),
        "--tables",
        str(SAMPLE_DIR / "tables.json"),
        "--pred",
        f"m={preds}",
        "--workspace",
        str(ws),
        "--timeout",
        "0.3",
        "--jobs",
        "1",
        "--json",
    ]
    proc = subprocess.Popen(base, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    deadline = time.monotonic() + 120
    while results_count(ws) < 30 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the run finished before it could be interrupted; enlarge the input"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = results_count(ws)
    assert 0 < done_before < total
    out = subprocess.run(base, capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["run"]["computed"] == total - done_before
    assert doc["run"]["reused"] == done_before
    assert doc["models"][0]["n"] == total


def test_eval_then_export_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = tmp_path / "w.db"
    assert main(["eval", *sample_args(), "--workspace", str(ws), "--timeout", "0.5", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    models = [m["model"] for m in doc["models"]]
    n = doc["models"][0]["n"]
    for key in ("va", "ex", "ex_spider", "ex_bird", "ex_archer", "em", "em_spider", "sm", "om", "vm", "pm"):
        assert key in doc["models"][0]
    out = tmp_path / "all.csv"
    assert main(["export", "--workspace", str(ws), "--out", str(out)]) == 0
    assert f"wrote {n * len(models)} rows" in capsys.readouterr().err
    with out.open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == n * len(models)
    assert list(rows[0])[: len(EXPORT_COLUMNS)] == list(EXPORT_COLUMNS)
    assert {r["ex"] for r in rows} <= {"0", "1", ""}
    assert all(0.0 <= float(r["pm"]) <= 1.0 for r in rows if r["pm"])
    failing = [r for r in rows if r["model"] == models[0] and r["ex"] == "0"]
    out2 = tmp_path / "fail.csv"
    assert (
        main(["export", "--workspace", str(ws), "--out", str(out2), "--model", models[0], "--where", "ex=0"])
        == 0
    )
    with out2.open() as f:
        assert [r["index"] for r in csv.DictReader(f)] == [r["index"] for r in failing]


def test_the_authors_partial_match_is_stored_exported_and_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "w.db"
    assert main(["eval", *sample_args(), "--workspace", str(ws), "--timeout", "0.5"]) == 0
    report = capsys.readouterr().out
    assert "Partial match as the paper's code computes it" in report
    out = tmp_path / "all.csv"
    assert main(["export", "--workspace", str(ws), "--out", str(out), "--where", "pm_authors>=0"]) == 0
    capsys.readouterr()
    with out.open() as f:
        scored = list(csv.DictReader(f))
    assert scored and all(0.0 <= float(r["pm_authors"]) <= 1.0 and not r["authors_note"] for r in scored)
    assert main(["export", "--workspace", str(ws), "--out", str(out)]) == 0
    capsys.readouterr()
    with out.open() as f:
        rows = list(csv.DictReader(f))
    unscored = [r for r in rows if r["pm_authors"] == ""]
    assert all(r["authors_note"] for r in unscored)
    assert len(scored) + len(unscored) == len(rows)


def test_export_bad_filter_and_missing_workspace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "--workspace", str(tmp_path / "none.db"), "--out", str(tmp_path / "x.csv")]) == 2
    assert "does not exist" in capsys.readouterr().err
    ws = tmp_path / "w.db"
    assert main(["eval", *sample_args(), "--workspace", str(ws), "--timeout", "0.5", "--json"]) == 0
    capsys.readouterr()
    assert (
        main(["export", "--workspace", str(ws), "--out", str(tmp_path / "x.csv"), "--where", "colour=red"])
        == 2
    )
    assert "unknown column 'colour'" in capsys.readouterr().err
    assert not (tmp_path / "x.csv").exists()


def test_a_message_naming_a_path_reads_the_same_whatever_the_paths_length(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`eval` says why ex_ts stayed empty, naming the database: "<path> has no tables to generate". Piped,
    the console is PIPED_WIDTH columns wide; the message is still one line, so what a user greps for is
    intact whatever the path's length. The 10 path lengths put each word of the message's end at the
    console's edge in turn: wrapped at 140 columns, the message had its path on a line of its own for all
    10, and "no tables" cut in two for paths of 127 to 133 characters."""
    from sqltriage.tui.console import PIPED_WIDTH

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    (tmp_path / "dev.json").write_text(json.dumps([{"db_id": "empty", "question": "q", "query": "SELECT 1"}]))
    (tmp_path / "p.sql").write_text("SELECT 1\n")
    tail = "/empty/empty.sqlite"
    cut: list[int] = []
    for length in range(PIPED_WIDTH - 15, PIPED_WIDTH - 5):
        pad = length - len(f"{tmp_path}/db") - len(tail)
        assert pad >= 0, f"the temporary folder {tmp_path} is too long to build a path of {length} characters"
        db_dir = tmp_path / f"db{'x' * pad}"
        db = db_dir / "empty" / "empty.sqlite"
        assert len(str(db)) == length
        db.parent.mkdir(parents=True)
        sqlite3.connect(db).execute("PRAGMA user_version = 1").close()
        args = [
            "eval",
            str(tmp_path / "dev.json"),
            "--db-dir",
            str(db_dir),
            "--pred",
            f"m={tmp_path / 'p.sql'}",
        ]
        ws = tmp_path / f"w{length}.db"
        assert main([*args, "--workspace", str(ws), "--neighbours", "2", "--json"]) == 0
        said = capsys.readouterr().err
        assert f"workspace: {ws}\n" in said
        if f"ex_ts left empty on 1 EX-passing row(s): {db} has no tables to generate\n" not in said:
            cut.append(length)
    assert not cut, f"the message was broken across lines for paths of {cut} characters"
