"""Child processes that behave under a terminal app: quiet output, a resource tracker that can start.

Shared by the evaluation pool (core/pipeline) and the question-feature child (core/questions): a process
started from inside the app must not write on the screen the app draws, and spawning must not trip over
the app's captured stderr.
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
