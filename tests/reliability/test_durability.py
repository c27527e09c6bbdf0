"""Durability of the workspace: a killed eval resumes to the same export, a concurrent writer loses no tag,
a corrupted or foreign file is refused and never written, an older workspace opens or says why not."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import threading
import time
from pathlib import Path

import pytest

from sqltriage.core.errors import WorkspaceError
from sqltriage.core.workspace.store import SCHEMA_VERSION, Workspace
from sqltriage.tui.cli import main

from .conftest import SQLTRIAGE, copy_sample_to, file_digest, read_csv, read_only, run_cli


def enlarged(tmp: Path, times: int) -> list[str]:
    """The sample's questions repeated `times` times on its databases, one model: a run that takes a while."""
    dataset = copy_sample_to(tmp / "dataset")
    records = json.loads((dataset / "dev.json").read_text())
    (dataset / "dev.json").write_text(json.dumps(records * times))
    lines = (dataset / "predictions" / "atlas-7b.sql").read_text().splitlines()
    (tmp / "big.sql").write_text("\n".join(lines * times) + "\n")
    return [str(dataset), "--pred", f"m={tmp / 'big.sql'}", "--timeout", "0.5", "--jobs", "1", "--json"]


def count(workspace: Path, table: str) -> int:
    try:
        conn = read_only(workspace)
        try:
            return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error:
        return -1


def start(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*SQLTRIAGE, "eval", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd
    )


def kill_when(proc: subprocess.Popen[str], ready: object, limit: float = 120) -> bool:
    """SIGKILL `proc` as soon as `ready()` holds; False when it finished first."""
    deadline = time.monotonic() + limit
    while proc.poll() is None and time.monotonic() < deadline:
        if ready():  # type: ignore[operator]
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            return True
        time.sleep(0.02)
    proc.communicate()
    return False


# --- SIGKILL during eval -----------------------------------------------------------------------------


@pytest.mark.slow
def test_eval_killed_at_several_points_resumes_to_the_same_export(tmp_path: Path) -> None:
    args = enlarged(tmp_path, 4)
    total = 67 * 4
    reference = tmp_path / "reference.db"
    assert main(["eval", *args, "--workspace", str(reference)]) == 0
    assert main(["export", "--workspace", str(reference), "--out", str(tmp_path / "reference.csv")]) == 0

    workspace = tmp_path / "killed.db"
    rng = random.Random(10)  # random points, the same on every run
    points = [
        ("examples stored, no result yet", lambda: count(workspace, "examples") == total),
        *(
            (f"{n} results stored", lambda n=n: count(workspace, "results") >= n)
            for n in sorted(rng.sample(range(1, total - 40), 3))
        ),
    ]
    killed = []
    for label, ready in points:
        before = count(workspace, "results")
        if kill_when(start([*args, "--workspace", str(workspace)], tmp_path), ready):
            killed.append(label)
            after = count(workspace, "results")
            assert after >= max(before, 0), f"results were lost by a kill at {label}"
            assert count(workspace, "examples") == total
    assert len(killed) >= 3, f"too few runs could be interrupted: {killed}"
    assert 0 < count(workspace, "results") < total

    out = run_cli(["eval", *args, "--workspace", str(workspace)], tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    doc = json.loads(out.stdout)
    assert doc["run"]["computed"] + doc["run"]["reused"] == total
    assert main(["export", "--workspace", str(workspace), "--out", str(tmp_path / "resumed.csv")]) == 0
    conn = read_only(workspace)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    assert read_csv(tmp_path / "resumed.csv") == read_csv(tmp_path / "reference.csv")


# --- two processes on one workspace ------------------------------------------------------------------


@pytest.mark.slow
def test_an_eval_and_a_tagging_process_share_a_workspace_without_loss(tmp_path: Path) -> None:
    args = enlarged(tmp_path, 3)
    workspace = tmp_path / "shared.db"
    Workspace.open(workspace).close()  # both processes then open an existing workspace
    proc = start([*args, "--workspace", str(workspace)], tmp_path)
    saved: list[tuple[int, str]] = []
    errors: list[BaseException] = []
    stop = threading.Event()

    def tagger() -> None:
        try:
            with Workspace.open(workspace, create=False) as ws:
                i = 0
                while not stop.is_set():
                    tag = f"cause-{i % 5}"
                    if ws.add_tags([(i % 201, "m")], tag):
                        saved.append((i % 201, tag))
                    i += 1
                    time.sleep(0.002)
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=tagger)
    thread.start()
    try:
        out, err = proc.communicate(timeout=240)
    finally:
        stop.set()
        thread.join()
    assert not errors, errors
    assert proc.returncode == 0, err[-2000:]
    assert json.loads(out)["models"][0]["n"] == 201
    assert len(saved) > 20, "the tagger barely ran alongside the eval"
    conn = read_only(workspace)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = set(conn.execute("SELECT idx, tag FROM tags WHERE model = 'm'"))
        assert set(saved) <= stored, f"lost tags: {sorted(set(saved) - stored)[:5]}"
        assert conn.execute("SELECT count(*) FROM results").fetchone()[0] == 201
    finally:
        conn.close()


# --- corrupted and foreign files ---------------------------------------------------------------------


@pytest.fixture
def real_workspace(tmp_path: Path) -> Path:
    path = tmp_path / "real.db"
    with Workspace.open(path) as ws:
        ws.add_tags([(0, "m"), (1, "m")], "wrong join")
        ws.set_note(0, "m", "look again")
    return path


CORRUPTIONS = {
    "truncated to half": lambda b: b[: len(b) // 2],
    "truncated to 100 bytes": lambda b: b[:100],
    "header overwritten": lambda b: b"\x00" * 16 + b[16:],
    "page size overwritten": lambda b: b[:16] + b"\x00\x07" + b[18:],
    "a page overwritten": lambda b: b[:4096] + b"\xab" * 4096 + b[8192:],
}


@pytest.mark.parametrize("how", list(CORRUPTIONS))
def test_a_corrupted_workspace_is_refused_and_never_written(
    real_workspace: Path, tmp_path: Path, how: str, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.db"
    broken.write_bytes(CORRUPTIONS[how](real_workspace.read_bytes()))
    digest = file_digest(broken)
    with pytest.raises(WorkspaceError) as info:
        Workspace.open(broken)
    assert str(broken) in str(info.value) and "untouched" in str(info.value)
    code = main(["export", "--workspace", str(broken), "--out", str(tmp_path / "x.csv")])
    assert code == 2 and str(broken) in capsys.readouterr().err
    assert file_digest(broken) == digest
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.db", "real.db"]


FOREIGN = {
    "a Spider database": lambda d: (d / "database" / "library" / "library.sqlite").read_bytes(),
    "a text file": lambda d: b"my notes\n" * 100,
    "an empty SQLite database of another program": None,
}


@pytest.mark.parametrize("what", list(FOREIGN))
def test_a_foreign_file_given_as_workspace_is_refused_and_never_written(
    sample_copy: Path, tmp_path: Path, what: str, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "foreign.db"
    make = FOREIGN[what]
    if make is None:
        conn = sqlite3.connect(target)
        conn.execute("CREATE TABLE settings (key TEXT, value TEXT)")
        conn.commit()
        conn.close()
    else:
        target.write_bytes(make(sample_copy))
    digest = file_digest(target)
    argv = ["eval", str(sample_copy), "--pred", f"m={sample_copy / 'predictions' / 'atlas-7b.sql'}"]
    assert main([*argv, "--workspace", str(target)]) == 2
    err = capsys.readouterr().err
    assert str(target) in err and "workspace" in err
    assert file_digest(target) == digest
    assert not list(tmp_path.glob("foreign.db-*"))


# --- workspaces of older (and newer) versions --------------------------------------------------------


def test_a_version_0_workspace_missing_tables_opens_and_keeps_its_tags(real_workspace: Path) -> None:
    conn = sqlite3.connect(real_workspace)
    conn.executescript(
        "UPDATE meta SET value = '0' WHERE key = 'schema_version';"
        "DROP TABLE tag_log; DROP TABLE notes; DROP INDEX tags_tag;"
    )
    conn.close()
    with Workspace.open(real_workspace) as ws:
        assert ws.tags_of(0, "m") == ["wrong join"]
        assert ws.add_tags([(2, "m")], "wrong join") == 1
        ws.set_note(2, "m", "notes work again")
        assert ws.note_of(2, "m") == "notes work again"


def test_a_workspace_without_a_version_opens(real_workspace: Path) -> None:
    conn = sqlite3.connect(real_workspace)
    conn.executescript("DELETE FROM meta WHERE key = 'schema_version';")
    conn.close()
    with Workspace.open(real_workspace) as ws:
        assert ws.get_meta("schema_version") == str(SCHEMA_VERSION)
        assert ws.tags_of(1, "m") == ["wrong join"]


def test_an_older_workspace_lacking_columns_is_migrated(
    sample_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A workspace whose tables predate some columns: eval adds them and keeps what the file held."""
    workspace = tmp_path / "old.db"
    with Workspace.open(workspace) as ws:
        ws.add_tags([(0, "m")], "kept")
    conn = sqlite3.connect(workspace)
    conn.executescript(
        "ALTER TABLE results DROP COLUMN truncated; ALTER TABLE examples DROP COLUMN q_flesch;"
        "UPDATE meta SET value = '0' WHERE key = 'schema_version';"
    )
    conn.close()
    argv = ["eval", str(sample_copy), "--pred", f"m={sample_copy / 'predictions' / 'atlas-7b.sql'}"]
    argv += ["--timeout", "0.5"]  # the sample's #37 runs until the timeout
    assert main([*argv, "--workspace", str(workspace), "--json"]) == 0, capsys.readouterr().err
    with Workspace.open(workspace) as ws:
        assert ws.count("results") == 67 and ws.tags_of(0, "m") == ["kept"]
        assert ws.db.execute("SELECT count(*) FROM results WHERE truncated IS NOT NULL").fetchone()[0] == 67


def test_a_newer_workspace_is_refused_with_both_versions_and_left_alone(real_workspace: Path) -> None:
    conn = sqlite3.connect(real_workspace)
    conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    digest = file_digest(real_workspace)
    with pytest.raises(WorkspaceError) as info:
        Workspace.open(real_workspace)
    assert "newer" in str(info.value) and "99" in str(info.value) and str(SCHEMA_VERSION) in str(info.value)
    assert file_digest(real_workspace) == digest
    assert not list(real_workspace.parent.glob("real.db-*"))
