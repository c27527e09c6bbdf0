"""What every benchmark shares: where the data is, repeated timing, peak memory of a process tree, the table.

Figures are medians of several runs with their min and max, because one run on a shared 2-core machine
says little. Peak memory is the largest *sum* of resident memory over a process and all its descendants
(the evaluation's worker processes count), sampled from /proc.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHARED_DATA = Path(os.environ.get("SQLTRIAGE_SHARED_DATA", REPO.parent / "shared" / "data"))
SPIDER_DEV = SHARED_DATA / "spider_dev"
PYTHON = sys.executable


def spider_predictions() -> list[Path]:
    """The 8 real systems' prediction files, in name order (the first one is the 1-system case)."""
    return sorted((SPIDER_DEV / "predictions").glob("*.sql"))


def pred_args(files: Sequence[Path]) -> list[str]:
    out: list[str] = []
    for f in files:
        out += ["--pred", f"{f.stem}={f}"]
    return out


@dataclass
class Figure:
    """One line of the table: a measured quantity, its samples, and the target it is held to."""

    number: str  # the item: "1", "2", ...
    name: str
    unit: str  # "s", "ms" or "MB"
    samples: list[float] = field(default_factory=list)
    target: float | None = None  # the figure must be <= target (>= where higher_is_better)
    target_text: str = ""
    note: str = ""
    stat: str = "median"  # which statistic is held to the target: median | p95 | max
    higher_is_better: bool = False

    def value(self) -> float | None:
        if not self.samples:
            return None
        if self.stat == "p95":
            return percentile(self.samples, 95)
        if self.stat == "max":
            return max(self.samples)
        return statistics.median(self.samples)

    def verdict(self) -> str:
        v = self.value()
        if self.target is None or v is None:
            return ""
        if self.higher_is_better:
            return "met" if v >= self.target else "MISSED"
        return "met" if v <= self.target else "MISSED"


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile: the value below which p% of the samples fall (no interpolation)."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * p // 100))  # ceil
    return ordered[int(rank) - 1]


def _fmt(v: float | None, unit: str) -> str:
    if v is None:
        return "-"
    if unit == "ms" or unit == "MB":
        return f"{v:.0f}" if v >= 10 else f"{v:.1f}"
    return f"{v:.2f}"


def table(figures: Sequence[Figure]) -> str:
    """A plain-text table: median (or the held statistic) with min/max, the target and met/missed."""
    head = ("#", "figure", "value", "min", "max", "n", "target", "verdict", "note")
    rows = [head]
    for f in figures:
        lo = min(f.samples) if f.samples else None
        hi = max(f.samples) if f.samples else None
        label = f"{_fmt(f.value(), f.unit)} {f.unit}" + ("" if f.stat == "median" else f" ({f.stat})")
        rows.append(
            (
                f.number,
                f.name,
                label,
                _fmt(lo, f.unit),
                _fmt(hi, f.unit),
                str(len(f.samples)),
                f.target_text,
                f.verdict(),
                f.note,
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(head) - 1)]
    lines = []
    for i, r in enumerate(rows):
        cells = [c.ljust(w) for c, w in zip(r[:-1], widths, strict=True)]
        lines.append("  ".join(cells) + ("  " + r[-1] if r[-1] else ""))
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


# --- memory of a process tree ----------------------------------------------------------------------


def _children_map() -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read().decode(errors="replace")
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        out.setdefault(ppid, []).append(int(entry))
    return out


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_rss_mb(pid: int) -> float:
    """Resident memory of `pid` and every descendant, summed, in MB."""
    children = _children_map()
    todo, total = [pid], 0
    while todo:
        p = todo.pop()
        total += _rss_kb(p)
        todo.extend(children.get(p, ()))
    return total / 1024


class PeakRss:
    """Samples a process tree's summed RSS every `interval` seconds while it runs; `.peak` in MB."""

    def __init__(self, pid: int, interval: float = 0.05) -> None:
        self.pid, self.interval, self.peak = pid, interval, 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, tree_rss_mb(self.pid))
            self._stop.wait(self.interval)

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@dataclass
class Run:
    wall: float  # seconds from spawn to exit
    peak_mb: float
    stdout: str
    stderr: str
    cpu: float = 0.0  # user + system seconds of the process and the descendants it waited for


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_process(args: Sequence[str], *, cwd: Path | None = None, timeout: float = 900) -> Run:
    """Run a command to its end, timing it and sampling its tree's memory; a failure raises with stderr."""
    started = time.perf_counter()
    cpu_before = _children_cpu()
    proc = subprocess.Popen(
        list(args),
        cwd=cwd or REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "SQLTRIAGE_BENCH_T0": repr(time.time())},
    )
    with PeakRss(proc.pid) as mem:
        out, err = proc.communicate(timeout=timeout)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:4])}… exited {proc.returncode}:\n{err[-3000:]}")
    return Run(wall, mem.peak, out, err, _children_cpu() - cpu_before)


def load_average() -> str:
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return "unknown"
    return f"{one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


@contextmanager
def busy_machine(processes: int) -> Iterator[None]:
    """`processes` other programs spinning on the CPU for the time of the block: a busy machine on demand.

    A figure "with the machine busy" then means the same thing from one run to the next, instead of
    whatever else happened to run. The spinners are plain interpreters at normal priority, stopped at the end.
    """
    spinners = [
        subprocess.Popen([PYTHON, "-c", "while True: pass"], stdin=subprocess.DEVNULL)
        for _ in range(processes)
    ]
    try:
        time.sleep(0.5 if spinners else 0)  # let them take their share before anything is timed
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
        for spinner in spinners:
            spinner.wait()
