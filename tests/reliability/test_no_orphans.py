"""No orphans: every process sqltriage starts ends within 2 s of its parent's death, SIGKILL included,
and the killed run then resumes to the same export as an uninterrupted one.

Each test starts the real command (or the real app, headless, in its own process), waits until its
children exist and work, SIGKILLs the parent alone, and watches the children it had through /proc.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO

from .conftest import SQLTRIAGE, copy_sample_to, read_csv, read_only, run_cli

# one worker runs the module: the uninterrupted reference run is made once, not once per worker
pytestmark = [
    pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux's /proc"),
    pytest.mark.xdist_group("test_no_orphans"),
]
GRACE = 2.0  # seconds a child may outlive its parent
SYSTEMS = ("dailsql_gpt4",)  # Spider dev × 1 system: 1,034 pairs in about 43 chunks, several seconds of work
# the sample's runs that only make a workspace to open: its #37 of atlas-7b runs until the timeout
QUICK_EVAL = ("--timeout", "1", "--json")
MEASURED: dict[str, float] = {}  # process kind → seconds until its last child was gone (printed with -s)


# --- watching processes through /proc ------------------------------------------------------------------


def descendants(pid: int) -> set[int]:
    """Every process below `pid` now (children of any of its threads, and theirs)."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        current = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                text = Path(f"/proc/{current}/task/{task}/children").read_text()
            except OSError:
                continue
            for child in map(int, text.split()):
                if child not in found:
                    found.add(child)
                    todo.append(child)
    return found


def alive(pid: int) -> bool:
    """Running, not a zombie (an orphan that exited may wait to be reaped by whoever adopted it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def wait_for(what: str, ready: Callable[[], object], proc: subprocess.Popen, limit: float = 180) -> None:  # type: ignore[type-arg]
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if ready():
            return
        if proc.poll() is not None:
            out, err = proc.communicate()
            raise AssertionError(f"the process ended before {what}: {err[-3000:] if err else out[-3000:]}")
        time.sleep(0.05)
    raise AssertionError(f"{what} did not happen within {limit:.0f} s")


def kill_and_time(proc: subprocess.Popen, children: set[int], kind: str) -> float:  # type: ignore[type-arg]
    """SIGKILL the parent alone; seconds until none of `children` runs (fails past GRACE)."""
    assert children, "nothing to watch: the parent had no child"
    names = {pid: cmdline(pid)[:70] for pid in children}
    os.kill(proc.pid, signal.SIGKILL)
    killed = time.monotonic()
    proc.wait(30)
    gone_at: dict[int, float] = {}
    while True:
        left = {pid for pid in children if alive(pid)}
        elapsed = time.monotonic() - killed
        for pid in children - left:
            gone_at.setdefault(pid, elapsed)
        if not left:
            break
        if elapsed > GRACE + 3:  # past the limit: end them for the next tests, then fail
            for pid in left:
                os.kill(pid, signal.SIGKILL)
            raise AssertionError(
                f"{kind}: {len(left)} child process(es) still ran {elapsed:.1f} s after the parent was "
                f"killed: {[cmdline(p)[:120] for p in left]}"
            )
        time.sleep(0.02)
    MEASURED[kind] = elapsed
    print(f"\n{kind}: {len(children)} child process(es) gone {elapsed:.2f} s after SIGKILL")
    for pid, at in sorted(gone_at.items(), key=lambda item: item[1]):
        print(f"  {at:.2f} s  {names[pid]}")
    assert elapsed <= GRACE, f"{kind}: children outlived the parent by {elapsed:.2f} s"
    return elapsed


def results_in(workspace: Path) -> int:
    try:
        conn = read_only(workspace)
        try:
            return conn.execute("SELECT count(*) FROM results").fetchone()[0]
        finally:
            conn.close()
    except Exception:
        return 0


def started(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        args,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
    )


def maps(pid: int) -> str:
    """The files a process has mapped (its loaded native libraries)."""
    try:
        return Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return ""


def python_children(pid: int, marker: str = "python") -> set[int]:
    return {c for c in descendants(pid) if marker in cmdline(c)}


# --- a reference run of Spider dev × 1 system ----------------------------------------------------------


def spider_args(spider_dev: Path) -> list[str]:
    preds = [a for s in SYSTEMS for a in ("--pred", f"{s}={spider_dev / 'predictions' / f'{s}.sql'}")]
    return [str(spider_dev), *preds, "--timeout", "2"]


@pytest.fixture(scope="module")
def reference(spider_dev: Path, tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, str]]:
    """The export of an uninterrupted eval: what every killed and resumed run must give."""
    tmp = tmp_path_factory.mktemp("reference")
    out = run_cli(["eval", *spider_args(spider_dev), "--workspace", str(tmp / "ref.db"), "--json"], tmp, 600)
    assert out.returncode == 0, out.stderr[-2000:]
    return exported(tmp / "ref.db", tmp)


def exported(workspace: Path, cwd: Path) -> list[dict[str, str]]:
    out = run_cli(["export", "--workspace", str(workspace), "--out", str(cwd / "out.csv")], cwd)
    assert out.returncode == 0, out.stderr[-2000:]
    return read_csv(cwd / "out.csv")


def resume(spider_dev: Path, workspace: Path, cwd: Path) -> list[dict[str, str]]:
    """Run the same eval again into the killed run's workspace: it finishes what was left."""
    assert 0 < results_in(workspace) < len(SYSTEMS) * 1034, "the kill did not land mid-run"
    out = run_cli(["eval", *spider_args(spider_dev), "--workspace", str(workspace), "--json"], cwd, 600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout)["run"]["reused"] > 0
    conn = read_only(workspace)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    return exported(workspace, cwd)


# --- eval's pool, the Dask cluster, the app's pool ------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_eval_pool_workers_end_with_a_killed_eval_and_the_run_resumes(
    method: str, spider_dev: Path, reference: list[dict[str, str]], tmp_path: Path
) -> None:
    workspace = tmp_path / "killed.db"
    cmd = [*SQLTRIAGE, "eval", *spider_args(spider_dev), "--workspace", str(workspace), "--jobs", "2"]
    proc = started(cmd, tmp_path, {"SQLTRIAGE_START_METHOD": method})
    workers: set[int] = set()

    def working() -> bool:
        workers.update(python_children(proc.pid, "python"))
        return len(workers) >= 2 and results_in(workspace) > 0

    wait_for("two pool workers and a first result", working, proc)
    kill_and_time(proc, descendants(proc.pid) | workers, f"eval pool ({method})")
    assert resume(spider_dev, workspace, tmp_path) == reference


@pytest.mark.slow
def test_local_cluster_workers_end_with_a_killed_eval_and_the_run_resumes(
    spider_dev: Path, reference: list[dict[str, str]], tmp_path: Path
) -> None:
    pytest.importorskip("distributed", reason="the cluster extra is not installed")
    workspace = tmp_path / "killed.db"
    cmd = [
        *SQLTRIAGE,
        "eval",
        *spider_args(spider_dev),
        "--workspace",
        str(workspace),
        "--cluster",
        "local:2",
    ]
    proc = started(cmd, tmp_path)
    wait_for("the cluster's first result", lambda: results_in(workspace) > 0, proc)
    children = descendants(proc.pid)
    assert sum("spawn_main" in cmdline(c) for c in children) >= 2, [cmdline(c)[:100] for c in children]
    kill_and_time(proc, children, "Dask local:2 cluster")
    assert resume(spider_dev, workspace, tmp_path) == reference


@pytest.mark.slow
def test_the_apps_evaluation_pool_ends_with_a_killed_app_and_the_run_resumes(
    spider_dev: Path, reference: list[dict[str, str]], tmp_path: Path
) -> None:
    workspace = tmp_path / "app.db"
    preds = [f"{s}={spider_dev / 'predictions' / f'{s}.sql'}" for s in SYSTEMS]
    driver = [sys.executable, "-m", "tests.reliability.orphan_driver", "eval", str(workspace)]
    proc = started([*driver, str(spider_dev), *preds], REPO)
    workers: set[int] = set()

    def working() -> bool:
        workers.update(c for c in descendants(proc.pid) if "spawn_main" in cmdline(c))
        return len(workers) >= 2 and results_in(workspace) > 0

    wait_for("the app's two spawned workers and a first result", working, proc)
    kill_and_time(proc, descendants(proc.pid) | workers, "app evaluation pool")
    assert resume(spider_dev, workspace, tmp_path) == reference


# --- the app's question-feature process --------------------------------------------------------------


@pytest.mark.slow
def test_the_question_feature_process_ends_with_a_killed_app(tmp_path: Path) -> None:
    from sqltriage.core.questions import feature_cache
    from sqltriage.tui.commands.open_cmd import workspace_inputs

    dataset = copy_sample_to(tmp_path / "dataset")
    workspace = tmp_path / "sample.db"
    cache = tmp_path / "cache"  # nothing cached: the Question tab starts the feature process
    preds = [a for p in sorted((dataset / "predictions").glob("*.sql")) for a in ("--pred", f"{p.stem}={p}")]
    env = {"XDG_CACHE_HOME": str(cache)}
    # the eval too: from the run's shared cache it would copy the sample's features into the workspace
    # whenever an earlier test had shown the app's Question tab, and the app would start no process
    out = run_cli(
        ["eval", str(dataset), *preds, "--workspace", str(workspace), *QUICK_EVAL], tmp_path, env=env
    )
    assert out.returncode == 0, out.stderr[-2000:]
    driver = [sys.executable, "-m", "tests.reliability.orphan_driver", "features", str(workspace)]
    proc = started(driver, REPO, env)
    child: set[int] = set()

    def computing() -> bool:  # started, and at work: loading spaCy
        child.update(c for c in descendants(proc.pid) if "spawn_main" in cmdline(c))
        return any("spacy" in maps(c) for c in child)

    wait_for("the feature process at work", computing, proc)
    kill_and_time(proc, descendants(proc.pid) | child, "app question-feature process")
    inputs, _ = workspace_inputs(workspace, __import__("argparse").Namespace(db_dir=None))
    os.environ["XDG_CACHE_HOME"], saved = str(cache), os.environ.get("XDG_CACHE_HOME", "")
    try:  # resuming: the features are computed (and cached) as if nothing had happened
        found, how = feature_cache.ensure_apart(inputs.dataset, None)
    finally:
        os.environ["XDG_CACHE_HOME"] = saved
    assert how == "computed" and len(found.rows) == len(inputs.dataset.examples)


# --- serve's sessions ----------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def browser_session() -> Iterator[Callable[[str], None]]:
    """Open a session of a textual-serve server as a browser does (its websocket), in the background."""
    stop = threading.Event()
    threads: list[threading.Thread] = []

    async def hold(url: str) -> None:
        import aiohttp

        async with aiohttp.ClientSession() as http, http.ws_connect(url) as ws:
            while not stop.is_set() and not ws.closed:
                with contextlib.suppress(TimeoutError):
                    await ws.receive(timeout=0.2)

    def open_session(url: str) -> None:
        thread = threading.Thread(target=lambda: asyncio.run(hold(url)), daemon=True)
        thread.start()
        threads.append(thread)

    yield open_session
    stop.set()
    for thread in threads:
        thread.join(10)


@pytest.mark.slow
def test_serve_sessions_end_with_a_killed_server(
    tmp_path: Path, browser_session: Callable[[str], None]
) -> None:
    dataset = copy_sample_to(tmp_path / "dataset")
    workspace = tmp_path / "served.db"
    preds = [a for p in sorted((dataset / "predictions").glob("*.sql")) for a in ("--pred", f"{p.stem}={p}")]
    out = run_cli(["eval", str(dataset), *preds, "--workspace", str(workspace), *QUICK_EVAL], tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    port = _free_port()
    proc = started([*SQLTRIAGE, "serve", "--workspace", str(workspace), "--port", str(port)], tmp_path)
    wait_for("the server listening", lambda: _listening(port), proc, 60)
    for _ in range(2):  # two browsers, two sessions
        browser_session(f"ws://127.0.0.1:{port}/ws?width=120&height=40")
    wait_for(
        "two app sessions",
        lambda: len({c for c in descendants(proc.pid) if "sqltriage.tui.cli open" in cmdline(c)}) >= 2,
        proc,
        60,
    )
    time.sleep(1.0)  # the sessions open the workspace and draw
    kill_and_time(proc, descendants(proc.pid), "serve sessions")
    conn = read_only(workspace)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


# --- `neighbours` ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_killed_neighbours_build_leaves_no_process_and_resumes_to_the_same_files(tmp_path: Path) -> None:
    dataset = copy_sample_to(tmp_path / "dataset")
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    out = run_cli(["neighbours", str(dataset), "-K", "4", "--out", str(clean), "--json"], tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    proc = started([*SQLTRIAGE, "neighbours", str(dataset), "-K", "4", "--out", str(killed)], tmp_path)
    wait_for(
        "a set being built",
        lambda: killed.is_dir() and any(p.name.startswith(".") for p in killed.iterdir()),
        proc,
    )
    children = descendants(proc.pid)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(30)
    time.sleep(GRACE)
    assert not [c for c in children if alive(c)], "neighbours left a process behind"
    print(f"\nneighbours: {len(children)} child process(es) (it builds in its own process)")
    out = run_cli(["neighbours", str(dataset), "-K", "4", "--out", str(killed), "--json"], tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert _sets(killed) == _sets(clean)


def _sets(root: Path) -> dict[str, str]:
    """Each finished set's neighbour files with their bytes' digest (temporaries and locks aside)."""
    import hashlib

    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.glob("*/n*.sqlite"))
        if not p.parent.name.startswith(".")
    }


# --- the guards themselves -----------------------------------------------------------------------------

WATCHED_CHILD = """
import multiprocessing, sys, threading, time
from sqltriage.core.processes import die_with_parent

def child(parent):
    die_with_parent(parent, thread_safe=False)
    time.sleep(600)

def start():
    import os
    p = multiprocessing.get_context("spawn").Process(target=child, args=(os.getpid(),))
    p.start()
    print(p.pid, flush=True)

if __name__ == "__main__":
    t = threading.Thread(target=start)  # the thread that starts the child ends at once
    t.start(); t.join()
    time.sleep(600)
"""


def test_a_child_started_from_a_thread_outlives_the_thread_and_ends_with_the_process(
    tmp_path: Path,
) -> None:
    """The watchdog alone (no parent-death signal, which would fire when the starting thread ends)."""
    script = tmp_path / "parent.py"
    script.write_text(WATCHED_CHILD)
    proc = started([sys.executable, str(script)], tmp_path)
    assert proc.stdout is not None
    child = int(proc.stdout.readline())
    time.sleep(1.0)
    assert alive(child), "the child ended with the thread that started it"
    kill_and_time(proc, {child}, "watchdog alone")


@pytest.fixture(scope="module", autouse=True)
def _print_measurements() -> Iterator[None]:
    yield
    if MEASURED:
        print("\nseconds from SIGKILL to the last child gone: " + json.dumps(MEASURED))
