"""The cyclic collector's full passes, moved to moments when nobody is waiting for a key.

Every redraw leaves cyclic garbage (textual's render caches), and a full collection then walks every
long-lived object the screen holds: 50-300 ms on a 100k-row browse screen, paid by whichever key
happened to trigger it. While the browse screen is up, young collections stay automatic (they are
cheap), automatic full passes are off, and a full pass runs once the app has had no input for a moment
and young collections have happened since the last one. Typing bursts never pause; the garbage goes
while the user reads.
"""

from __future__ import annotations

import gc
import time
from typing import Any

QUIET_S = 1.0  # no input for this long: the user is reading, a full pass is safe
CHECK_EVERY_S = 0.25
STARTUP_GRACE_S = 3.0  # a new screen's first seconds belong to loading (which ends with its own full pass)
NO_AUTOMATIC_FULL_PASS = 1_000_000  # gen-1 collections before an automatic full pass: never, in practice


class IdleCollector:
    """Owned by the app (which reports input through `touch`), switched on by the screen that needs it."""

    def __init__(self) -> None:
        self.last_input = time.monotonic()
        self.full_passes = 0  # run by this collector (for the benchmarks and tests)
        self._saved: tuple[int, int, int] | None = None
        self._timer: Any = None
        self._owner: Any = None

    def touch(self) -> None:
        self.last_input = time.monotonic()

    def start(self, node: Any) -> None:
        """Take over full passes while `node` (a screen) is mounted; its timer dies with it."""
        if self._saved is None:
            self._saved = gc.get_threshold()
            young, middle, _ = self._saved
            gc.set_threshold(young, middle, NO_AUTOMATIC_FULL_PASS)
        if self._timer is not None:
            self._timer.stop()
        self.last_input = time.monotonic() + STARTUP_GRACE_S
        self._owner = node
        self._timer = node.set_interval(CHECK_EVERY_S, self._tick)

    def stop(self, node: Any = None) -> None:
        """Give full passes back to the interpreter: the app is closing (no node) or the owner went away."""
        if node is not None and node is not self._owner:
            return  # a screen replaced by a newer one that already took over
        self._owner = None
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None

    def _tick(self) -> None:
        if time.monotonic() - self.last_input < QUIET_S:
            return
        if gc.get_count()[2] > 0:  # young collections happened since the last full pass: garbage may wait
            gc.collect()
            self.full_passes += 1


_paused_at_start = False


def pause_during_start() -> None:
    """No cyclic collection while the app starts: its imports and first screen make some 10^5 objects
    that live as long as the app, and collecting young generations as they pile up costs about a tenth
    of the start's CPU. `resume_after_start` turns it back on (the first rows drawn, or an evaluation to
    wait for); a process that never gets there exits anyway."""
    global _paused_at_start
    if gc.isenabled():
        gc.disable()
        _paused_at_start = True


def resume_after_start() -> bool:
    """Undo `pause_during_start`; True when it had paused (a collector turned off elsewhere stays off)."""
    global _paused_at_start
    if not _paused_at_start:
        return False
    _paused_at_start = False
    gc.enable()
    return True
