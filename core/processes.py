"""Child processes that behave: quiet under a terminal app, a resource tracker that can start, and an end
when their parent ends.

Shared by the evaluation pool (core/pipeline), the Dask workers of `local:N`, the question-feature child
(core/questions) and serve's sessions: a process started from inside the app must not write on the
screen the app draws, spawning must not trip over the app's captured stderr, and no child may outlive
its parent by more than a moment, however the parent died (`die_with_parent`).
"""

from __future__ import annotations

import os
import sys


def ensure_resource_tracker() -> None:
    """Start multiprocessing's resource tracker with a real stderr.

    The tracker hands `sys.stderr.fileno()` to its process; inside a terminal app `sys.stderr` is a
    capture whose fileno() is -1, and spawning then fails with "bad value(s) in fds_to_keep".
    """
    from multiprocessing import resource_tracker

    saved = sys.stderr
    if stderr_captured():
        sys.stderr = sys.__stderr__ if sys.__stderr__ is not None else open(os.devnull, "w")  # noqa: SIM115
    try:
        resource_tracker.ensure_running()
    finally:
        sys.stderr = saved


def stderr_captured() -> bool:
    """True inside a terminal app, which replaces sys.stderr with a capture that has no descriptor."""
    try:
        return sys.stderr is None or sys.stderr.fileno() < 0
    except (AttributeError, OSError, ValueError):
        return True


def quiet_worker() -> None:
    """A worker started under the app must not write to the terminal the app draws on."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    os.close(devnull)


# --- children that end with their parent ---------------------------------------------------------------

PARENT_ENV = "SQLTRIAGE_PARENT_PID"  # set for a child started through a shell (serve's sessions)
WATCH_INTERVAL = 0.25  # seconds between two looks at the parent: well inside the 2 s a child may outlive it
_PR_SET_PDEATHSIG = 1
_watching: list[int] = []  # the pid of the process whose watch is set up (a forked child starts again)


def die_with_parent(parent_pid: int | None = None, *, thread_safe: bool = False) -> None:
    """End this process as soon as `parent_pid` (default: the current parent) is gone, however it died.

    Call it first thing in a child. Two guards: on Linux the kernel's parent-death signal, which fires
    when the *thread* that started this process ends, so it is only asked for when the caller says that
    thread outlives its children (`thread_safe`: a pool created, used and shut down in one call); and
    everywhere a watchdog thread that looks at the parent every WATCH_INTERVAL seconds. A parent killed
    with SIGKILL closes no pipe a child would notice (forked siblings hold the pool's pipes open), so
    without these a pool's workers would sleep forever. Idempotent per process.
    """
    if parent_pid is None:
        parent_pid = os.getppid()
    if parent_pid <= 1 or os.getpid() in _watching:  # no parent to watch (already adopted), or set up
        return
    _watching[:] = [os.getpid()]
    is_parent = os.getppid() == parent_pid
    if thread_safe and is_parent:
        _parent_death_signal()
    if not _alive(parent_pid, is_parent):  # it died before the guards were in place
        os._exit(1)
    import threading

    threading.Thread(
        target=_watch, args=(parent_pid, is_parent), name="sqltriage-parent-watch", daemon=True
    ).start()


def _parent_death_signal() -> None:
    """Ask Linux to SIGKILL this process when the thread that started it ends (no-op elsewhere)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):  # no prctl: the watchdog alone
        pass


def _alive(pid: int, is_parent: bool) -> bool:
    """Whether `pid` still runs. Our own parent is gone once we have another (orphans are adopted);
    another process (a shell stood between us) is gone when its pid is free or a zombie."""
    if is_parent:
        return os.getppid() == pid
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[-1].split()
        return not fields or fields[0] != b"Z"
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the system whether the pid exists
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True


def _watch(pid: int, is_parent: bool) -> None:
    import time

    while _alive(pid, is_parent):
        time.sleep(WATCH_INTERVAL)
    os._exit(1)


def parent_from_environment() -> None:
    """A command started for a parent that named itself in PARENT_ENV ends with it (serve's sessions).

    The variable is removed, so this process's own children watch this process, not the grandparent.
    """
    value = os.environ.pop(PARENT_ENV, "")
    if value.isdigit():
        die_with_parent(int(value))
