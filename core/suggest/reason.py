"""Reasons that write the SQL they quote only when someone reads them.

A comparison proposes many candidates, and most are merged, gated or ranked out before anyone reads their
reason; generating SQL from a tree (sqlglot copies the tree first) is the dearest step of writing one. A
`Reason` holds a constant template and what it quotes, and writes itself the first time it is read, with
the same text an f-string would have given then.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TypeAlias

from sqlglot import exp

from sqltriage.core.sql.parse import sqlite_dialect

# what a template quotes: a node (written as SQL), nodes (written comma-separated), text, another reason
Part: TypeAlias = "exp.Expression | tuple[exp.Expression, ...] | str | Reason"


class Reason:
    """`template.format(*parts)`, written on first reading; the template is constant, every varying piece
    (names, values, nodes) is a part, so no brace inside a value can be read as a placeholder."""

    __slots__ = ("_parts", "_template", "_text")

    def __init__(self, template: str, *parts: Part) -> None:
        self._template = template
        self._parts = parts
        self._text: str | None = None

    def __str__(self) -> str:
        if self._text is None:
            self._text = self._template.format(*map(_written, self._parts))
            self._parts = ()  # the nodes are no longer needed
        return self._text

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __repr__(self) -> str:
        return f"Reason({str(self)!r})"


def _written(part: Part) -> str:
    if isinstance(part, exp.Expression):
        return sql_text(part)
    if isinstance(part, tuple):
        return ", ".join(sql_text(node) for node in part)
    return str(part)


_TEXTS: OrderedDict[int, tuple[exp.Expression, str]] = OrderedDict()
_TEXTS_KEPT = 1024  # gold's conditions and items are quoted once per model: their SQL is generated once


def sql_text(node: exp.Expression) -> str:
    """`node` as SQLite SQL, remembered for the recent nodes (the entry holds the node, so its id stays its)."""
    hit = _TEXTS.get(id(node))
    if hit is not None and hit[0] is node:
        _TEXTS.move_to_end(id(node))
        return hit[1]
    text = sqlite_dialect().generate(node)  # what node.sql(dialect="sqlite") does, without a new dialect
    _TEXTS[id(node)] = (node, text)
    if len(_TEXTS) > _TEXTS_KEPT:
        _TEXTS.popitem(last=False)
    return text
