"""Fewer cyclic garbage collections while a batch of (example, prediction) pairs is evaluated.

Every parse builds a tree whose nodes point to their parents, so an evaluation allocates container
objects at a high rate: at CPython's default first-generation threshold (700) the collector runs
several hundred times per thousand pairs, re-scanning the long-lived objects (modules, the dataset,
the schemas) again and again, close to a tenth of the evaluation's CPU. A larger threshold lets it
run a few dozen times instead, and freezing what exists before the batch keeps that out of every
scan. When the batch ends, its garbage is collected while the rest is still frozen, so it does not
pile up in the oldest generation (an evaluation lets go of its parses at the end of each batch for
the same reason). The results do not depend on any of it.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

BATCH_THRESHOLD = (50_000, 20, 20)  # allocations before a young collection; then as CPython counts

_lock = threading.Lock()
_depth = 0
_saved: tuple[int, int, int] | None = None
_was_frozen = False  # something (the app, once its screen is up) had frozen the heap before the batch


@contextmanager
def batch_collections() -> Iterator[None]:
    """The batch setting for the duration of the block, then the process's own again.

    Nested or concurrent blocks (an app may evaluate in a worker thread) share one setting: the first
    to enter saves the process's, the last to leave restores it.
    """
    global _depth, _saved, _was_frozen
    with _lock:
        if _depth == 0:
            _saved = gc.get_threshold()
            _was_frozen = gc.get_freeze_count() > 0
            gc.freeze()
            gc.set_threshold(*BATCH_THRESHOLD)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _saved is not None:
                # The batch's garbage is young (at most one generation up): collect it while the rest is
                # still frozen, so the scan is the batch's objects only. Unfrozen first, the garbage
                # would sit in the oldest generation until a full collection (or the process's exit).
                gc.collect(1)
                if gc.get_threshold() == BATCH_THRESHOLD:  # else the process chose another meanwhile
                    gc.set_threshold(*_saved)
                if not _was_frozen:  # unfreezing would also thaw what the process itself had frozen
                    gc.unfreeze()
                _saved = None
