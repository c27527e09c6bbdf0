"""Text as integers: an order-preserving code for text that is only compared, sorted, grouped and returned.

z3's string theory is the slow part of solving. A pair whose queries use text only through `=`, `<>`,
`<`, `>`, `IN`, ORDER BY, GROUP BY, DISTINCT, MIN/MAX and the result itself needs no string operation:
any database's texts, together with the queries' own constants, can be renamed to integers that keep their
order and equalities (each constant gets a fixed code, `GAP` apart, and there is room between two codes for
every other text a database of the bound holds), so the answers over integers are the answers over text.
Sound for `verified`: every text database is one of the integer ones. The way back, for a counterexample,
maps each integer to a text in the same place among the constants (`decode`); SQLite then confirms it as
any counterexample. A construct that needs real strings (LIKE, `||`, CAST to text, text read as a number)
raises `NeedsStrings` while encoding, and the pair is encoded again with z3's strings.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

GAP = 1 << 20  # integers between two constants' codes: far more than the texts of a bounded database


class NeedsStrings(Exception):
    """The pair uses text in a way the integer code cannot express: encode it with strings."""


class TextCodes:
    """The constants of a pair (and the empty text, below every other) in code point order, SQLite's
    BINARY collation on UTF-8; the i-th has the code i × GAP."""

    def __init__(self, constants: Iterable[str]) -> None:
        self.book = sorted({"", *constants})
        self._code = {t: i * GAP for i, t in enumerate(self.book)}

    def code(self, text: str) -> int:
        found = self._code.get(text)
        if found is None:
            raise NeedsStrings(f"text {text!r} is no constant of the pair")
        return found

    def text(self, code: int) -> str:
        """The constant behind a code (of a literal)."""
        index, rest = divmod(code, GAP)
        if rest or not 0 <= index < len(self.book):
            raise NeedsStrings(f"code {code} is no constant")
        return self.book[index]

    def decode(self, codes: Iterable[int]) -> dict[int, str] | None:
        """Texts for a model's codes, in the same order and with the same equalities, each constant's code
        mapped to the constant itself. None when some gap holds no text (as between 'a' and 'a\\0')."""
        out: dict[int, str] = {}
        gaps: dict[int, list[int]] = {}
        for c in sorted(set(codes)):
            index, rest = divmod(c, GAP)
            if c < 0:
                return None  # below the empty text: the tables' rules exclude it
            if rest == 0 and index < len(self.book):
                out[c] = self.book[index]
            else:
                gaps.setdefault(min(index, len(self.book) - 1), []).append(c)
        for index, members in gaps.items():
            high = self.book[index + 1] if index + 1 < len(self.book) else None
            texts = between(self.book[index], high, len(members))
            if texts is None:
                return None
            out.update(zip(members, texts, strict=True))
        return out


def between(low: str, high: str | None, n: int) -> list[str] | None:
    """`n` increasing texts strictly between `low` and `high` (None: no upper end), readable when it can:
    `low 1`, `low 2`, … (or `text 1`, … above the empty text)."""
    width = len(str(n))
    for stem in (f"{low} " if low else "text ", f"{low} ", f"{low}!"):
        out = [f"{stem}{i:0{width}d}" for i in range(1, n + 1)]
        if _inside(out, low, high):
            return out
    if high is not None and high.startswith(low):
        # `low` is a prefix of `high`: a text just below `high`'s next character, then anything
        rest = high[len(low) :]
        if not rest:
            return None  # nothing lies strictly between a text and itself
        if rest[0] == "\0":
            return between(low + "\0", high, n)
        out = [f"{low}{chr(ord(rest[0]) - 1)}{i:0{width}d}" for i in range(1, n + 1)]
        return out if _inside(out, low, high) else None
    return None


def _inside(texts: list[str], low: str, high: str | None) -> bool:
    bounds = [low, *texts, *([high] if high is not None else [])]
    if any(0xD800 <= ord(ch) <= 0xDFFF for t in texts for ch in t):
        return False  # no UTF-8 for a lone surrogate: SQLite could not hold it
    return all(a < b for a, b in itertools.pairwise(bounds))
