"""Rendering a rich renderable to plain text, as a terminal of a given width would draw it (for tests and copy)."""

from __future__ import annotations

import io

from rich.console import Console, RenderableType


def plain_text(renderable: RenderableType | None, width: int) -> str:
    if renderable is None:
        return ""
    out = io.StringIO()
    Console(file=out, width=width, color_system=None, force_terminal=False).print(renderable)
    return out.getvalue()
