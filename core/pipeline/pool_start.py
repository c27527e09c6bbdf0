"""How the evaluation's worker processes start: forked from a ready parent where that is safe, else spawned.

A spawned worker starts a new interpreter and imports the whole evaluation stack (sqlglot, the SQL
analyses, the suggestion rules) before its first chunk: on one system of Spider dev that start-up is
about as long as the evaluation itself. A forked worker inherits the parent's imported modules and
starts at once. Fork is only safe from a process with a single thread (a lock held by another thread
at the moment of the fork stays held forever in the child), so the app, whose evaluation runs in a
worker thread beside the terminal driver, always spawns; so does a parent whose stderr is a capture.
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import sys
import threading
from multiprocessing.context import BaseContext

from sqltriage.core.pipeline.options import START_METHODS

SPAWN_MIN_PAIRS = 400  # a spawned worker imports the evaluation stack first: worth it for many pairs only
FORK_MIN_PAIRS = 100  # a forked one starts at once

# What a worker imports to evaluate chunks (with neighbour databases off): imported once in the parent
# before it forks, and by each Dask worker as it starts (cluster.dask_setup). Importing these gives
# exactly the modules a chunk uses, no more: tests/core/test_worker_modules.py measures it.
WORKER_MODULES = (
    "sqltriage.core.pipeline.evaluate",  # the module tasks are unpickled from: pair, execution
    "sqltriage.core.pipeline.gc_budget",
    "sqltriage.core.pipeline.minidev_columns",
    "sqltriage.core.pipeline.shared_analyses",
    "sqltriage.core.datasets.alternatives",
    "sqltriage.core.questions.reasoning",
    "sqltriage.core.sql.authors_match",
    "sqltriage.core.sql.categories",
    "sqltriage.core.sql.exact_match",
    "sqltriage.core.sql.lints",
    "sqltriage.core.sql.partial_match",
    "sqltriage.core.suggest",
    "sqltriage.core.verdicts.gold_audit",
    "sqltriage.core.verdicts.minidev",
    "sqltriage.core.verdicts.judgement.columns",
    "sqltriage.core.verdicts.judgement.difference",
    "sqltriage.core.verdicts.judgement.realistic",
    "sqltriage.core.verdicts.pair_run",  # a pair's EX modes: exec_compare and official EX with it
)


def fork_is_safe() -> bool:
    """True in a single-threaded process with a real stderr, on a platform that can fork.

    Threads started by native code count too (importing polars starts some): where the system lists a
    process's threads (/proc/self/task), there must be one.
    """
    if "fork" not in multiprocessing.get_all_start_methods():
        return False
    if threading.active_count() != 1 or os_thread_count() not in (None, 1):
        return False
    try:
        return sys.stderr is not None and sys.stderr.fileno() >= 0
    except (AttributeError, OSError, ValueError):
        return False


def os_thread_count() -> int | None:
    """The threads of this process as the system sees them, or None where it does not say."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return None


def start_method(asked: str | None = None) -> str:
    """ "fork" or "spawn": `asked` when given (fork only where safe), else fork where safe.

    `SQLTRIAGE_START_METHOD=spawn` in the environment has the same effect as asking for spawn.
    """
    asked = asked or os.environ.get("SQLTRIAGE_START_METHOD") or None
    if asked is not None and asked not in START_METHODS:
        raise ValueError(f"unknown start method {asked!r}: use one of {', '.join(START_METHODS)}")
    return "fork" if asked != "spawn" and fork_is_safe() else "spawn"


def pool_min_pairs(method: str) -> int:
    """Below this many pairs one process beats a pool of two started this way (measured on Spider dev)."""
    return FORK_MIN_PAIRS if method == "fork" else SPAWN_MIN_PAIRS


def pool_context(asked: str | None = None) -> BaseContext:
    """The context for a process pool (see `start_method`); before a fork, the workers' modules are loaded."""
    method = start_method(asked)
    if method == "fork":
        preload_worker_modules()
        _plain_streams_after_fork()
    return multiprocessing.get_context(method)


_STREAM_HOOK: list[bool] = []


def _plain_streams_after_fork() -> None:
    """A forked worker writes (a warning, say) to the real stdout and stderr, not through the wrappers a
    progress display put in the parent's sys.stdout/sys.stderr (a spawned worker starts with the real ones)."""
    if not _STREAM_HOOK:
        _STREAM_HOOK.append(True)
        os.register_at_fork(after_in_child=_restore_streams)


def _restore_streams() -> None:
    if sys.__stdout__ is not None:
        sys.stdout = sys.__stdout__
    if sys.__stderr__ is not None:
        sys.stderr = sys.__stderr__


def preload_worker_modules() -> None:
    """Import what the workers use, so every forked worker has it without importing it again."""
    for name in WORKER_MODULES:
        importlib.import_module(name)
