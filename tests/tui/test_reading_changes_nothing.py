"""Reading changes nothing: opening, browsing and exporting a workspace leave its bytes as they were, and
no file beside it; a workspace that cannot be written (a read-only mount) opens for browsing and export,
its triage keys off with one message saying why."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sqltriage.core.errors import WorkspaceError
from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
from sqltriage.core.workspace.store import Workspace
from sqltriage.tui.app import create_app
from sqltriage.tui.cli import main
from sqltriage.tui.opening import Preload
from tests.tui.conftest import OPTIONS, Evaluated, settle, wait_ready

REPO = Path(__file__).resolve().parents[2]


def folder_state(folder: Path) -> dict[str, str]:
    """Every file in the folder with its bytes' digest: equal states mean nothing changed or appeared."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()
    }


@pytest.fixture
def ws_copy(sample_ws: Evaluated, tmp_path: Path) -> Path:
    folder = tmp_path / "workspace"
    folder.mkdir()
    path = folder / "sample.sqltriage.db"
    shutil.copyfile(sample_ws.workspace, path)
    return path


async def _browse(app, pilot) -> None:  # type: ignore[no-untyped-def]
    screen = await wait_ready(app, pilot)
    for key in ("j", "j", "2", "3", "4", "5", "1", "k", "m", "escape"):
        await pilot.press(key)
        await settle(app, pilot)
    assert screen.current is not None


async def test_opening_browsing_and_exporting_write_nothing(
    sample_ws: Evaluated, ws_copy: Path, tmp_path: Path
) -> None:
    before = folder_state(ws_copy.parent)
    # the workspace alone, as `sqltriage open --workspace FILE` opens it
    from argparse import Namespace

    from sqltriage.tui.commands.open_cmd import workspace_inputs

    inputs, _ = workspace_inputs(ws_copy, Namespace(db_dir=None))
    app = create_app(ws_copy, inputs.dataset, (), OPTIONS)
    async with app.run_test(size=(160, 50)) as pilot:
        await _browse(app, pilot)
    # the same, its first screen read ahead as `sqltriage open` does (tui.opening.Preload)
    app = create_app(ws_copy, inputs.dataset, (), OPTIONS, preload=Preload(ws_copy, "spider"))
    async with app.run_test(size=(160, 50)) as pilot:
        await _browse(app, pilot)
    # with the same models given again: nothing to evaluate, so nothing is written either
    ev = sample_ws.inputs
    app = create_app(ws_copy, ev.dataset, ev.predictions, EvalOptions(timeout=1.0, jobs=1))
    async with app.run_test(size=(160, 50)) as pilot:
        await _browse(app, pilot)
    for fmt in ("csv", "parquet", "sqlite"):
        assert main(["export", "--workspace", str(ws_copy), "--out", str(tmp_path / f"all.{fmt}")]) == 0
    assert (
        main(["export", "--workspace", str(ws_copy), "--out", str(tmp_path / "x.csv"), "--where", "ex=0"])
        == 0
    )
    assert main(["slices", "--workspace", str(ws_copy), "--json"]) == 0
    assert main(["compare", "atlas-7b", "beacon-gpt4", "--workspace", str(ws_copy), "--json"]) == 0
    assert folder_state(ws_copy.parent) == before


def test_an_unchanged_eval_writes_nothing_and_models_keep_when_they_were_added(
    sample_ws: Evaluated, ws_copy: Path
) -> None:
    with Workspace.open_for_reading(ws_copy) as ws:
        added = dict(ws.db.execute("SELECT name, added FROM models").fetchall())
    before = folder_state(ws_copy.parent)
    with Workspace.open_for_reading(ws_copy, writes_later=True) as ws:
        summary = evaluate(sample_ws.inputs.dataset, sample_ws.inputs.predictions, ws, OPTIONS)
        assert summary.computed == 0 and ws.reading
    assert folder_state(ws_copy.parent) == before
    with Workspace.open(ws_copy) as ws:  # a change: tags are written, the models are as they were
        ws.add_tags([(0, sample_ws.inputs.predictions[0].name)], "seen")
        evaluate(sample_ws.inputs.dataset, sample_ws.inputs.predictions, ws, OPTIONS)
        assert dict(ws.db.execute("SELECT name, added FROM models").fetchall()) == added


def test_a_workspace_opened_for_reading_refuses_writes_unless_it_may_write_later(ws_copy: Path) -> None:
    with Workspace.open_for_reading(ws_copy) as ws, pytest.raises(WorkspaceError, match="for reading"):
        ws.add_tags([(0, "atlas-7b")], "x")
    with Workspace.open_for_reading(ws_copy, writes_later=True) as ws:
        assert ws.reading
        ws.add_tags([(0, "atlas-7b")], "x")  # the user's change: now it writes
        assert not ws.reading and "x" in ws.tags_of(0, "atlas-7b")


# --- a read-only mount ---------------------------------------------------------------------------------

BROWSE_READ_ONLY = """
import asyncio, sys
from argparse import Namespace
from pathlib import Path
from sqltriage.tui.app import create_app
from sqltriage.tui.commands.open_cmd import workspace_inputs
from sqltriage.tui.opening import Preload
from tests.tui.conftest import OPTIONS, wait_ready, settle

async def run(path):
    inputs, _ = workspace_inputs(path, Namespace(db_dir=None))
    app = create_app(path, inputs.dataset, (), OPTIONS, preload=Preload(path, "spider"))
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await wait_ready(app, pilot)
        assert not app.workspace.writable, "a read-only mount must not be writable"
        said = [n.message for n in app._notifications]
        for key in ("j", "t", "n", "4", "1"):
            await pilot.press(key)
            await settle(app, pilot)
        assert type(app.screen).__name__ == "BrowseScreen", f"a triage key opened {app.screen!r}"
        print("MESSAGES", [m for m in said if "cannot be changed" in m])

asyncio.run(run(Path(sys.argv[1])))
"""


def _can_unshare() -> bool:
    if shutil.which("unshare") is None or os.geteuid() != 0:
        return False
    return subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(
    not _can_unshare(), reason="needs root and `unshare -m` (a mount namespace) for a read-only bind mount"
)
def test_a_workspace_on_a_read_only_mount_browses_and_exports(ws_copy: Path, tmp_path: Path) -> None:
    folder = ws_copy.parent
    before = folder_state(folder)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    script = tmp_path / "browse.py"
    script.write_text(BROWSE_READ_ONLY)
    python = sys.executable
    inner = (
        f"mount --bind {folder} {folder} && mount -o remount,bind,ro {folder} && "
        f"touch {folder}/probe 2>/dev/null && echo WRITABLE; "
        f"{python} -m sqltriage.tui.cli export --workspace {ws_copy} --out {out_dir}/all.csv && "
        f"{python} {script} {ws_copy}"
    )
    run = subprocess.run(
        ["unshare", "-m", "sh", "-c", inner],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert "WRITABLE" not in run.stdout, "the bind mount is not read-only"
    assert run.returncode == 0, run.stderr[-3000:]
    assert (out_dir / "all.csv").read_text().count("\n") == 135  # header + 134 rows
    messages = run.stdout.split("MESSAGES", 1)[1]
    assert messages.count("cannot be changed") == 1 and "read-only file system" in messages
    assert folder_state(folder) == before
