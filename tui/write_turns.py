"""Workspace writes from worker threads, committed one at a time in the order the user made them."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class WriteTurns:
    """Tickets taken on the app's thread, in the order the keys were typed; each write waits for its turn."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._issued = 0
        self._next = 0

    def take(self) -> int:
        with self._cond:
            self._issued += 1
            return self._issued - 1

    @contextmanager
    def turn(self, ticket: int) -> Iterator[None]:
        with self._cond:
            self._cond.wait_for(lambda: self._next == ticket)
        try:
            yield
        finally:
            with self._cond:
                self._next += 1
                self._cond.notify_all()
