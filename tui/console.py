"""Rich consoles for the commands: the terminal's width, or a roomy fixed width when piped to a file."""

from __future__ import annotations

import sys

from rich.console import Console

PIPED_WIDTH = 140


def make_console(*, stderr: bool = False) -> Console:
    stream = sys.stderr if stderr else sys.stdout
    width = None if stream.isatty() else PIPED_WIDTH
    return Console(stderr=stderr, width=width)
