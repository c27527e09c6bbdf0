"""Type-aware random values for one column of one neighbour database.

Seeded with the column's real values and the gold literals compared with it, then perturbed (integers
±1/±2, reals by small steps, strings with prefixes, suffixes, truncation, case), sometimes drawn from the
type's whole range; a share of NULLs where allowed, and sometimes only a few distinct values so that
duplicates and ties appear. A column's mined rule (`column_rule.ColumnRule`) bounds all of it: a categorical
column draws only from its domain, a numeric one stays in its range, a never-NULL one gets no NULL. Every choice comes from the `random.Random` passed in: same seed, same values.
"""

from __future__ import annotations

import random
import re
import string
from collections import Counter
from collections.abc import Sequence

from sqltriage.core.verdicts.testsuite.column_rule import ColumnRule
from sqltriage.core.verdicts.testsuite.schema import ColumnInfo

_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(.*)$")
_NUMERIC_TEXT = re.compile(r"^-?\d+(\.\d+)?$")
MAX_POOL = 400  # distinct real values kept per column


def profile_of(column: ColumnInfo) -> tuple[str, list, bool]:
    """(kind, the distinct real values sorted, whether there are NULLs): once per column, not per database."""
    if column.profile is None:
        distinct = sorted({v for v in column.values if v is not None}, key=_sort_key)
        column.profile = (_kind(column), distinct, any(v is None for v in column.values))
    return column.profile


def kind_of(column: ColumnInfo) -> str:
    """int | real | text | blob: what most real values are, else what the declared type's affinity says."""
    return profile_of(column)[0]


def _kind(column: ColumnInfo) -> str:
    counts = Counter(_value_kind(v) for v in column.values if v is not None)
    if counts:
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    declared = column.declared.upper()
    if "INT" in declared or "BOOL" in declared:
        return "int"
    if any(t in declared for t in ("CHAR", "CLOB", "TEXT", "DATE", "TIME")):
        return "text"
    if any(t in declared for t in ("REAL", "FLOA", "DOUB", "NUM", "DEC")):
        return "real"
    return "text"


def _value_kind(v: object) -> str:
    if isinstance(v, bool | int):
        return "int"
    if isinstance(v, float):
        return "real"
    if isinstance(v, bytes):
        return "blob"
    return "text"


def _sort_key(v: object) -> tuple[str, str]:
    return (type(v).__name__, repr(v))


class ColumnValues:
    """Draws values for one column of one database; its mode (nulls, few values) is chosen once."""

    def __init__(
        self,
        column: ColumnInfo,
        literals: Sequence[object],
        patterns: Sequence[str],
        rng: random.Random,
        rule: ColumnRule | None = None,
    ) -> None:
        self.rng = rng
        self.rule = rule = rule or ColumnRule()
        self.domain = rule.domain
        self.kind, real, has_nulls = profile_of(column)
        if len(real) > MAX_POOL:
            real = sorted(rng.sample(real, MAX_POOL), key=_sort_key)
        self.real = real
        self._texts: list[str] | None = None
        self.literals = list(literals) + [self._from_pattern(p) for p in patterns]
        if self.domain is not None:
            self.literals = [v for v in self.literals if v in self.domain]
        self.literals = list(dict.fromkeys(self.fit(v) for v in self.literals))  # other columns' too
        self.both = self.real + self.literals
        self.unique = column.unique or rule.unique
        self.nullable = nullable = not column.not_null and not column.pk and not rule.never_null
        self.null_share = 0.0
        if nullable and rng.random() < (0.7 if has_nulls else 0.35):
            self.null_share = rng.uniform(0.03, 0.3)
        numbers = [v for v in real if isinstance(v, int | float) and not isinstance(v, bool)]
        self.low = min(numbers) if numbers else 0
        self.high = max(numbers) if numbers else 100
        texts = [v for v in real if isinstance(v, str)]
        self.text_len = max(3, round(sum(map(len, texts)) / len(texts))) if texts else 8
        self.few: list | None = None
        if not self.unique and rng.random() < 0.3:
            base = self.both
            if base:
                self.few = [self.rng.choice(base) for _ in range(rng.randint(1, 4))]
                self.few += [self.perturb(v) for v in self.few[: rng.randint(0, 1)]]

    # -------------------------------------------------------------- drawing

    def draw(self) -> object:
        rng = self.rng
        if self.null_share and rng.random() < self.null_share:
            return None
        if self.few is not None:
            return rng.choice(self.few)
        return self.fresh()

    def fresh(self) -> object:
        """A value from the mixture: gold literal, real value, perturbed value, or random of the type."""
        if self.domain is not None:
            if self.literals and self.rng.random() < 0.25:
                return self.rng.choice(self.literals)
            return self.rng.choice(self.domain)
        return self.fit(self._mixture())

    def fit(self, value: object) -> object:
        """`value` moved into the mined range (to its nearest end) where it lies outside."""
        low, high = self.rule.low, self.rule.high
        if low is None or high is None or isinstance(value, bool):
            return value
        number = value
        if isinstance(value, str) and _NUMERIC_TEXT.match(value):  # SQLite stores it as a number
            number = float(value)
        if not isinstance(number, int | float):
            return value
        if number < low:
            return low
        if number > high:
            return high
        return value

    def _mixture(self) -> object:
        rng = self.rng
        r = rng.random()
        if self.literals and r < 0.25:
            value = rng.choice(self.literals)
            return self.perturb(value) if rng.random() < 0.3 else value
        if self.real and r < 0.7:
            value = rng.choice(self.real)
            return self.perturb(value) if rng.random() < 0.2 else value
        if self.both and r < 0.88:
            return self.perturb(rng.choice(self.both))
        return self.random_of_type()

    def random_of_type(self) -> object:
        rng = self.rng
        if self.domain is not None:
            return rng.choice(self.domain)
        if self.rule.low is not None and self.kind in ("int", "real"):
            low, high = self.rule.low, self.rule.high
            if self.kind == "int":
                return rng.randint(int(low), int(high))  # type: ignore[arg-type]
            return round(rng.uniform(low, high), 2)  # type: ignore[arg-type]
        if self.kind == "int":
            lo, hi = int(self.low), int(self.high)
            pad = max(2, (hi - lo) // 5)
            return rng.randint(lo - pad, hi + pad)
        if self.kind == "real":
            return round(rng.uniform(self.low - 1, self.high + 1), 2)
        if self.kind == "blob":
            return bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        n = max(1, int(rng.uniform(0.5, 1.5) * self.text_len))
        return "".join(rng.choice(string.ascii_letters + " ") for _ in range(n)).strip() or "x"

    def perturb(self, value: object) -> object:
        """A value near `value`: within the domain or range where the column has one."""
        if self.domain is not None:
            others = [v for v in self.domain if v != value]
            return self.rng.choice(others) if others else value
        return self.fit(self._perturb(value))

    def _perturb(self, value: object) -> object:
        rng = self.rng
        if isinstance(value, bool):
            return not value
        if isinstance(value, int):
            return value + rng.choice((-2, -1, 1, 2))
        if isinstance(value, float):
            step = rng.choice((0.01, 0.1, 0.5, 1.0))
            return round(value + rng.choice((-1, 1)) * step, 6)
        if isinstance(value, bytes):
            return value + bytes([rng.randrange(256)])
        if not isinstance(value, str):
            return value
        if _NUMERIC_TEXT.match(value):
            number = float(value) if "." in value else int(value)
            moved = self._perturb(number)
            return str(moved)
        m = _DATE.match(value)
        if m:
            day = max(1, min(28, int(m.group(3)) + rng.choice((-1, 1))))
            return f"{m.group(1)}-{m.group(2)}-{day:02d}{m.group(4)}"
        op = rng.randrange(5)
        if op == 0 and value:
            return value.upper() if value != value.upper() else value.lower()
        if op == 1 and len(value) > 1:
            return value[: rng.randint(1, len(value) - 1)]
        if op == 2:
            return self._word() + " " + value
        if op == 3:
            return value + " " + self._word()
        return value + rng.choice(string.ascii_lowercase)

    def _word(self) -> str:
        if self._texts is None:
            self._texts = [v for v in self.real if isinstance(v, str) and v.strip()]
        texts = self._texts
        if texts and self.rng.random() < 0.7:
            return self.rng.choice(texts).split()[0]
        return "".join(self.rng.choice(string.ascii_lowercase) for _ in range(self.rng.randint(2, 6)))

    def _from_pattern(self, pattern: str) -> str:
        """A string a LIKE pattern matches: `%` becomes a word or nothing, `_` a letter."""
        out = []
        for ch in pattern:
            if ch == "%":
                out.append(self.rng.choice(("", self._word(), " " + self._word() + " ")))
            elif ch == "_":
                out.append(self.rng.choice(string.ascii_lowercase))
            else:
                out.append(ch)
        return "".join(out).strip() or pattern.replace("%", "")

    def unique_fallback(self, used: set, attempt: int) -> object:
        """A value not in `used` when random draws keep colliding (keys of large tables)."""
        if self.kind in ("int", "real"):
            numbers = [v for v in used if isinstance(v, int | float)]
            return (int(max(numbers)) if numbers else 0) + 1 + attempt
        return f"{self.random_of_type()}{attempt}"
