"""(L) Opening the app, timed from outside the process: `sqltriage open` in a real 160x45 terminal.

The figure a user feels: from starting `sqltriage open DATASET --workspace W` in a terminal until the
browse screen shows its row count ("N of N (example, model) rows"). The terminal is a tmux window of
160x45; the benchmark talks to tmux over one control-mode connection and reads the window's screen every
10 ms (one command on an open pipe, no process per look), so that looking costs the app almost nothing.

Workspaces: Spider dev x 8 (the 8 public systems) and a study-scale one of 130 systems (134,420 rows),
the same 8 systems' predictions repeated under new names. The 8 files are evaluated once by
`sqltriage eval --features`; the 130-system workspace copies each file's stored rows under the new
names, which is what `eval` would store for an identical file under another name (every stored column
is computed from the prediction text and the example, none from the model's name; only the measured
run times would differ). Both are kept in a cache folder (`$SQLTRIAGE_BENCH_CACHE`, default
`<tmp>/sqltriage-bench-cache`), keyed by the input files and the workspace schema, so reruns are fast.

A minimal Textual app (`tests.bench.minimal_app`, one line in the same form) is started as often,
interleaved with them: the floor any Textual app pays on this machine under the load of the moment.
Each size gets one untimed start first (page cache, the workspace's views), then `runs` timed ones:
wall time to the row count (median, min), the app's CPU until then (user + system, from /proc), and
its peak resident memory (the kernel's high-water mark, VmHWM) once the app has gone idle after the
first screen, so that work deferred past the first screen counts too. The project's bytecode is
compiled beforehand (`compileall`, removed afterwards): PYTHONDONTWRITEBYTECODE would otherwise make
every start compile the project again, which an installed copy never does.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import queue
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.bench.harness import PYTHON, REPO, SPIDER_DEV, Figure, pred_args, run_process, spider_predictions

SIZE = (160, 45)
SYSTEMS = (8, 130)
TARGETS = {8: 1.0, 130: 2.0}  # seconds, median wall time to the row count
MEMORY_TARGET = 600  # MB, peak RSS of the app
POLL = 0.01  # seconds between two looks at the screen
TIMEOUT = 60.0  # seconds: a start slower than this is reported as a failure, with the screen
IDLE = 0.5  # seconds without CPU use after which the app counts as settled (for its peak memory)
ROW_COUNT = re.compile(r"(\d[\d,]*) of (\d[\d,]*) \(example, model\) rows")
TMUX_MISSING = "tmux not found: the launch benchmark needs it (apt-get install -y tmux)"


def cache_dir() -> Path:
    return Path(
        os.environ.get("SQLTRIAGE_BENCH_CACHE") or Path(tempfile.gettempdir()) / "sqltriage-bench-cache"
    )


# --- the workspaces ----------------------------------------------------------------------------------


def _inputs_key() -> str:
    """Changes when the dataset, a prediction file or the workspace's columns change."""
    from sqltriage.core.workspace.store import EXAMPLE_COLUMNS, RESULT_COLUMNS, SCHEMA_VERSION

    h = hashlib.sha256(f"{SCHEMA_VERSION}:{sorted(EXAMPLE_COLUMNS)}:{sorted(RESULT_COLUMNS)}".encode())
    for f in [SPIDER_DEV / "dev.json", SPIDER_DEV / "tables.json", *spider_predictions()]:
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def copy_name(stem: str, k: int) -> str:
    """The k-th model of the large workspace: the real systems first, then copies named after a sweep."""
    return stem if k < len(spider_predictions()) else f"{stem}@sweep{k:03d}"


def build_workspaces(folder: Path | None = None) -> dict[int, Path]:
    """Spider dev x 8 and x 130 (cached): evaluated once, the large one by copying the stored rows."""
    folder = (folder or cache_dir()) / f"launch-{_inputs_key()}"
    folder.mkdir(parents=True, exist_ok=True)
    out = {n: folder / f"spider_dev_x{n}.sqltriage.db" for n in SYSTEMS}
    base = out[8]
    if not base.exists():
        print("launch benchmark: evaluating Spider dev x 8 with question features (once)…", file=sys.stderr)
        partial = base.with_suffix(".partial")
        partial.unlink(missing_ok=True)
        cmd = [PYTHON, "-m", "sqltriage.tui.cli", "eval", str(SPIDER_DEV), *pred_args(spider_predictions())]
        env_cache = folder / "user-cache"  # the question features' cache: the benchmark's own
        old = os.environ.get("XDG_CACHE_HOME")
        os.environ["XDG_CACHE_HOME"] = str(env_cache)
        try:
            run_process([*cmd, "--workspace", str(partial), "--features", "--json"])
        finally:
            if old is None:
                os.environ.pop("XDG_CACHE_HOME", None)
            else:
                os.environ["XDG_CACHE_HOME"] = old
        partial.rename(base)
    for n in SYSTEMS:
        if n != 8 and not out[n].exists():
            print(
                f"launch benchmark: building Spider dev x {n} from the 8 systems' rows (once)…",
                file=sys.stderr,
            )
            replicate(base, out[n], n)
    return out


def replicate(base: Path, target: Path, n_models: int) -> None:
    """`base` (the 8 systems) with its models repeated under new names up to `n_models`, as `eval` stores them.

    Each new model gets the original's record (file, digest, result key) at its own position and a copy
    of the original's result rows with its own name in `model`.
    """
    partial = target.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    shutil.copyfile(base, partial)
    db = sqlite3.connect(partial)
    try:
        models = [r[0] for r in db.execute("SELECT name FROM models ORDER BY position, name")]
        result_cols = [r[1] for r in db.execute("PRAGMA table_info(results)")]
        model_cols = [r[1] for r in db.execute("PRAGMA table_info(models)")]
        pick_results = ", ".join("?" if c == "model" else f"[{c}]" for c in result_cols)
        pick_model = ", ".join("?" if c in ("name", "position") else f"[{c}]" for c in model_cols)
        with db:
            for k in range(len(models), n_models):
                original = models[k % len(models)]
                name = copy_name(original, k)
                params = [name if c == "name" else k for c in model_cols if c in ("name", "position")]
                db.execute(
                    f"INSERT INTO models ({', '.join(model_cols)}) SELECT {pick_model} FROM models WHERE name = ?",
                    [*params, original],
                )
                db.execute(
                    f"INSERT INTO results ({', '.join(result_cols)}) SELECT {pick_results} FROM results "
                    "WHERE model = ?",
                    [name, original],
                )
        db.execute("VACUUM")
    finally:
        db.close()
    partial.rename(target)


# --- tmux ----------------------------------------------------------------------------------------------


class Tmux:
    """A private tmux server driven over one control-mode connection (no process spawned per command)."""

    def __init__(self, size: tuple[int, int] = SIZE) -> None:
        if shutil.which("tmux") is None:
            raise RuntimeError(TMUX_MISSING)
        self.socket = f"sqltriage-bench-{os.getpid()}"
        width, height = size
        self.proc = subprocess.Popen(
            [
                *("tmux", "-L", self.socket, "-f", "/dev/null", "-C", "new-session", "-s", "bench"),
                *("-x", str(width), "-y", str(height), "sleep 100000"),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            bufsize=0,
        )
        self._blocks: queue.Queue[tuple[str, list[str]]] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._blocks.get(timeout=10)  # the reply to new-session itself
        self.command("refresh-client -f no-output")  # the app's output is not copied to this pipe
        self.command(f"refresh-client -C {width}x{height}")  # windows follow this client's size
        self.command("set-option -g remain-on-exit on")  # a crashed app leaves its last screen to show
        self.socket_path = Path(self.command("display-message -p '#{socket_path}'")[0])

    def _read(self) -> None:
        assert self.proc.stdout is not None
        block: list[str] | None = None
        for raw in self.proc.stdout:
            line = raw.decode(errors="replace").rstrip("\n")
            if block is None:
                if line.startswith("%begin"):
                    block = []
                continue  # notifications between replies
            if line.startswith(("%end", "%error")) and len(line.split()) == 4:
                self._blocks.put((line.split()[0], block))
                block = None
            else:
                block.append(line)
        self._blocks.put(("%exit", []))

    def command(self, text: str) -> list[str]:
        """Run one tmux command; its output lines (an error raises)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(text.encode() + b"\n")
        kind, lines = self._blocks.get(timeout=30)
        if kind != "%end":
            raise RuntimeError(f"tmux {text.split()[0]}: {' '.join(lines) or kind}")
        return lines

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, OSError, queue.Empty):
            self.command("kill-server")
        self.proc.wait(timeout=10)
        self.socket_path.unlink(missing_ok=True)  # the private server's socket is not left behind


def _quote(arg: str) -> str:
    return "'" + arg.replace("'", "'\\''") + "'"


def _proc_cpu(pid: int) -> float:
    """User + system seconds of a running process so far (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().decode().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _proc_status_mb(pid: int, key: str) -> float:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


@dataclass
class Launch:
    wall: float  # seconds from starting the command to the row count on screen
    cpu: float  # the app's user + system seconds at that moment
    peak_mb: float  # VmHWM once the app went idle after the first screen
    peak_at_ready_mb: float  # VmHWM when the row count showed
    settled: float  # seconds from the start until the app went idle
    rows: str
    screen: list[str] = field(default_factory=list)


def launch_once(tmux: Tmux, command: list[str], env: dict[str, str]) -> Launch:
    """Start `command` in a new 160x45 window, wait for the row count, let it settle, quit it."""
    setenv = " ".join(f"-e {_quote(f'{k}={v}')}" for k, v in env.items())
    shell = "exec " + " ".join(_quote(a) for a in command)
    started = time.perf_counter()
    pane, pid_text = tmux.command(
        f"new-window -d -P -F '#{{pane_id}} #{{pane_pid}}' -c {_quote(str(REPO))} {setenv} {_quote(shell)}"
    )[0].split()
    pid = int(pid_text)
    try:
        deadline = started + TIMEOUT
        while True:
            screen = tmux.command(f"capture-pane -p -t {pane}")
            now = time.perf_counter()
            found = ROW_COUNT.search("\n".join(screen))
            if found and found.group(1) == found.group(2):
                break
            if now > deadline or tmux.command(f"display -p -t {pane} '#{{pane_dead}}'") == ["1"]:
                raise RuntimeError("the row count never showed; the screen was:\n" + "\n".join(screen))
            time.sleep(POLL)
        wall, cpu = now - started, _proc_cpu(pid)
        at_ready = _proc_status_mb(pid, "VmHWM")
        last, still = cpu, time.perf_counter()
        while time.perf_counter() - still < IDLE and time.perf_counter() - started < TIMEOUT:
            time.sleep(0.1)
            used = _proc_cpu(pid)
            if used - last > 0.02:  # still working (a worker, a deferred load)
                last, still = used, time.perf_counter()
        settled = still - started
        peak = _proc_status_mb(pid, "VmHWM")
        tmux.command(f"send-keys -t {pane} q")
        for _ in range(50):
            if tmux.command(f"display -p -t {pane} '#{{pane_dead}}'") == ["1"]:
                break
            time.sleep(0.1)
        return Launch(wall, cpu, peak, at_ready, settled, found.group(1), screen)
    finally:
        tmux.command(f"kill-window -t {pane}")


def open_command(workspace: Path) -> list[str]:
    """`sqltriage open DATASET --workspace W` through the installed command (else the module)."""
    script = Path(PYTHON).parent / "sqltriage"
    head = [str(script)] if script.exists() else [PYTHON, "-m", "sqltriage.tui.cli"]
    return [*head, "open", str(SPIDER_DEV), "--workspace", str(workspace)]


MINIMAL = 0  # the key of the minimal Textual app's starts among the workspaces' (tests.bench.minimal_app)


def measure(workspaces: dict[int, Path], runs: int, home: Path) -> dict[int, list[Launch]]:
    """`runs` timed starts per workspace (after one untimed one), sizes interleaved run by run, and as
    many of a minimal Textual app (under `MINIMAL`): the floor under the same load."""
    env = {
        "XDG_CONFIG_HOME": str(home / "config"),  # no user config: keys, theme and sidebar as shipped
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_DATA_HOME": str(home / "data"),
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
    }
    tmux = Tmux()
    try:
        commands = {MINIMAL: [PYTHON, "-m", "tests.bench.minimal_app"]}
        commands |= {n: open_command(ws) for n, ws in workspaces.items()}
        out: dict[int, list[Launch]] = {n: [] for n in commands}
        for command in commands.values():
            launch_once(tmux, command, env)  # untimed: page cache, views made on first open
        for _ in range(runs):
            for n, command in commands.items():
                out[n].append(launch_once(tmux, command, env))
        return out
    finally:
        tmux.close()


def _in_process(workspace: Path, preds: bool) -> float:
    """The old figure (4): `probe_launch` (the app headless, in its own process) until the browse screen is usable."""
    args = [PYTHON, "-m", "tests.bench.probe_launch", str(workspace), "--dataset", str(SPIDER_DEV)]
    return float(
        json.loads(run_process(args + (pred_args(spider_predictions()) if preds else [])).stdout)["ready"]
    )


def run(runs: int, home: Path, systems: tuple[int, ...] = SYSTEMS) -> list[Figure]:
    """The launch figures, for `systems` (8 and/or 130); `home` is a temporary folder of the benchmark's."""
    from tests.bench.tui_bench import project_bytecode

    if shutil.which("tmux") is None:
        print(TMUX_MISSING, file=sys.stderr)
        return [Figure("L", "launch from outside (sqltriage open, 160x45)", "s", note=TMUX_MISSING)]
    runs = max(runs, 3)
    workspaces = {n: p for n, p in build_workspaces().items() if n in systems}
    figures: list[Figure] = []
    with project_bytecode():
        results = measure(workspaces, runs, home)
        old = {n: [_in_process(ws, False) for _ in range(runs)] for n, ws in workspaces.items()}
        old_preds = [_in_process(workspaces[8], True) for _ in range(runs)] if 8 in workspaces else []
    floor = results.pop(MINIMAL)
    minimal = Figure("L", "minimal Textual app, start to its line (floor)", "s", [x.wall for x in floor])
    minimal.note = (
        "under the same load, interleaved with the starts below; project bytecode compiled (compileall)"
    )
    figures.append(minimal)
    for n, launches in results.items():
        rows = launches[0].rows
        wall = Figure("L", f"open to row count, {n} systems ({rows} rows)", "s", [x.wall for x in launches])
        wall.target, wall.target_text = TARGETS.get(n), f"<= {TARGETS.get(n, 0):.1f} s"
        ratio = statistics.median(wall.samples) / max(statistics.median(minimal.samples), 1e-9)
        wall.note = f"160x45 tmux window; {ratio:.1f}x the minimal app's median"
        cpu = Figure("L", f"  app CPU until the row count, {n} systems", "s", [x.cpu for x in launches])
        settle = Figure("L", f"  until the app goes idle, {n} systems", "s", [x.settled for x in launches])
        settle.note = "deferred work (sort keys, the first row's analysis) included"
        mem = Figure(
            "L", f"  peak RSS of the app, {n} systems", "MB", [x.peak_mb for x in launches], stat="max"
        )
        mem.target, mem.target_text = MEMORY_TARGET, f"<= {MEMORY_TARGET} MB"
        ready = statistics.median(x.peak_at_ready_mb for x in launches)
        mem.note = f"VmHWM once idle; {ready:.0f} MB when the row count showed"
        inproc = Figure("L", f"  old figure (4) in-process probe, {n} systems, no --pred", "s", old[n])
        inproc.note = "headless run_test 160x50, until rows, facet counts and a highlighted row"
        figures += [wall, cpu, settle, mem, inproc]
        if n == 8 and old_preds:
            f = Figure("4", "  old figure (4) as defined: 8 systems with --pred", "s", old_preds)
            f.note = "evaluate() finds every pair stored, then the same start"
            figures.append(f)
    return figures


def main(argv: list[str] | None = None) -> int:
    """`python -m tests.bench launch [--runs N] [--systems 8,130]`: these figures alone."""
    import argparse

    from tests.bench.harness import load_average, table

    parser = argparse.ArgumentParser(prog="python -m tests.bench launch", description=__doc__)
    parser.add_argument("--runs", type=int, default=7, help="timed starts per workspace (default 7)")
    parser.add_argument("--systems", default="8,130", help="workspace sizes, comma-separated (8, 130)")
    args = parser.parse_args(argv)
    systems = tuple(int(s) for s in args.systems.split(",") if s)
    before = load_average()
    with tempfile.TemporaryDirectory(prefix="sqltriage-launch-") as tmp:
        figures = run(args.runs, Path(tmp), systems)
    print(f"launch benchmark — load before {before}, after {load_average()}; /proc/loadavg {_loadavg()}")
    print(table(figures))
    return 0


def _loadavg() -> str:
    try:
        return Path("/proc/loadavg").read_text().strip()
    except OSError:
        return "unknown"


if __name__ == "__main__":
    sys.exit(main())
