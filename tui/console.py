"""Rich consoles for the commands: the terminal's width, or a roomy fixed width when piped to a file.

A message is printed as one line however long it is (`soft_wrap`): Rich does not break it at the
console's width, the terminal wraps it if it must. So a message naming a path reads the same whatever
the path's length, and what a user or a script greps for ("no tables", the path itself) is never cut
by a line break. Tables still fit the width: their columns wrap their own cells.
"""

from __future__ import annotations

import sys

from rich.console import Console

PIPED_WIDTH = 140


def make_console(*, stderr: bool = False) -> Console:
    stream = sys.stderr if stderr else sys.stdout
    width = None if stream.isatty() else PIPED_WIDTH
    return Console(stderr=stderr, width=width, soft_wrap=True)
