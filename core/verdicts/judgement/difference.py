"""A difference between two results that a reader may forgive, and a digest of a result to compare models by.

EX counts any difference as a failure. A person reading the two results forgives some: the prediction
returns the asked columns and more, repeats rows the gold lists once (or the reverse), rounds a number
otherwise, or joins into one column what the gold splits over several. Those leave the judgement
`unsure`, saying which. Column order is already forgiven by Spider's comparison and needs no name here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from itertools import permutations
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqltriage.core.verdicts.exec_result import ExecResult

REPEATS = "repeated rows"
EXTRA_COLUMNS = "extra columns"
ROUNDING = "rounding"
JOINED = "columns joined into one"
_MAX_COLUMNS = 6  # projections tried up to this many columns a side (720 orders at most)
_ROUND_DIGITS = 2


def forgivable(gold: ExecResult, pred: ExecResult) -> str | None:
    """Which forgivable difference separates the two results, or None (none, or not a forgivable one)."""
    if not (gold.ok and pred.ok) or gold.truncated or pred.truncated:
        return None
    g, p = [tuple(r) for r in gold.rows], [tuple(r) for r in pred.rows]
    if not g and not p:
        return None
    if _bags(g) != _bags(p) and {_bag(r) for r in g} == {_bag(r) for r in p}:
        return REPEATS
    gw, pw = len(gold.columns), len(pred.columns)
    by_name = _named_pick(list(gold.columns), list(pred.columns))
    if by_name is not None and _same_rows(g, [_pick(r, by_name) for r in p]):
        return EXTRA_COLUMNS  # the asked columns, found by name among more (a `SELECT *`)
    if 0 < gw < pw <= _MAX_COLUMNS and any(
        _same_rows(g, [_pick(r, cols) for r in p]) for cols in _picks(gw, pw)
    ):
        return EXTRA_COLUMNS
    if gw == pw and len(g) == len(p) and _bags(_rounded(g)) == _bags(_rounded(p)):
        return ROUNDING
    if gw != pw and _joined(g, p):
        return JOINED
    return None


def _joined(gold: list[tuple], pred: list[tuple]) -> bool:
    """The same words row by row, one side holding in one column what the other splits over several (a
    full name `first || ' ' || last` for first and last names)."""
    if not any(isinstance(v, str) and " " in v for r in gold + pred for v in r):
        return False
    return {_words(r) for r in gold} == {_words(r) for r in pred}


def _words(row: tuple) -> tuple:
    return tuple(sorted(w for v in row if v is not None for w in str(v).split()))


def _bag(row: tuple) -> tuple:
    return tuple(sorted(map(repr, row)))


def _bags(rows: list[tuple]) -> list[tuple]:
    return sorted(_bag(r) for r in rows)


def _same_rows(gold: list[tuple], pred: list[tuple]) -> bool:
    return _bags(gold) == _bags(pred) or {_bag(r) for r in gold} == {_bag(r) for r in pred}


def _named_pick(gold: list[str], pred: list[str]) -> tuple[int, ...] | None:
    """The prediction's columns named as the gold's, in the gold's order, when the prediction has more and
    every gold column's name occurs once among them; else None."""
    if not 0 < len(gold) < len(pred):
        return None
    names = [str(c).rsplit(".", 1)[-1].strip('"`[]').lower() for c in pred]
    out = []
    for c in gold:
        name = str(c).rsplit(".", 1)[-1].strip('"`[]').lower()
        if names.count(name) != 1:
            return None
        out.append(names.index(name))
    return tuple(out)


def _picks(width: int, among: int) -> Iterator[tuple[int, ...]]:
    yield from permutations(range(among), width)


def _pick(row: tuple, cols: tuple[int, ...]) -> tuple:
    return tuple(row[c] for c in cols)


def _rounded(rows: list[tuple]) -> list[tuple]:
    return [tuple(round(v, _ROUND_DIGITS) if isinstance(v, float) else v for v in r) for r in rows]


def result_digest(result: ExecResult | None) -> str | None:
    """The same for two results Spider's comparison cannot tell apart by their rows (columns in any order,
    rows in any order): models that fail an example the same way get the same digest."""
    if result is None or not result.ok or result.truncated:
        return None
    text = repr(_bags([tuple(r) for r in result.rows]))
    return hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=8).hexdigest()
