"""What a pair may spend, counted in work done rather than seconds, so a verdict does not depend on load.

A pair's time limit (`--verify-timeout`, seconds) is turned once into z3's resource units (its `rlimit`,
which counts the solver's own steps) at a rate calibrated on these machines (docs/verification.md,
"Budgets"). Encoding charges a fixed number of units per step of the encoder, solving what z3 reports it
used. Every question is solved in a context of its own, so the units a formula costs do not depend on what
the process built before. The wall clock is only a safety net, far above the budget: a pair it stops is
`unknown` with TOO_SLOW, and the run counts such rows.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

# z3 resource units per CPU second of solving on the machines the project runs on: the median rate over
# the questions of Spider dev × 8 (tests/bench/verify_calibrate.py measures it again).
UNITS_PER_SECOND = 5_200_000
# Units one step of the encoder stands for (a query, a FROM row, a group row): the median CPU of a step
# over the same run, at UNITS_PER_SECOND.
UNITS_PER_STEP = 200
# The wall clock allowed a pair, as a multiple of its time limit (plus a floor for a process's first pair,
# which loads z3): only a machine many times slower than the calibration, or starved, reaches it.
SAFETY_FACTOR = 20
SAFETY_FLOOR = 5.0
TOO_SLOW = "machine too slow for the budget"


class OutOfBudget(Exception):
    """The encoding spent the units it was given."""


class TooSlow(Exception):
    """The safety net: the wall clock ran out before the budget did."""


# What the calibration reads (tests/bench/verify_calibrate.py): when a list, every encoding appends
# ("encode", steps, CPU seconds) and every solver call ("solve", units, CPU seconds). None in a run.
measured: list[tuple[str, int, float]] | None = None


def record(kind: str, amount: int, seconds: float) -> None:
    if measured is not None:
        measured.append((kind, amount, seconds))


def units_for(seconds: float) -> int:
    return max(1, int(seconds * UNITS_PER_SECOND))


@dataclass(slots=True)
class Budget:
    """A pair's units, and the wall-clock safety net over all of its questions."""

    units: int
    used: int = 0
    wall_deadline: float = field(default=0.0)
    too_slow: bool = False

    @classmethod
    def for_seconds(cls, seconds: float) -> Budget:
        wall = time.monotonic() + seconds * SAFETY_FACTOR + SAFETY_FLOOR
        return cls(units_for(seconds), 0, wall)

    def left(self) -> int:
        return max(0, self.units - self.used)

    def part(self, share: float, *, fixed: bool = False) -> Allowance:
        """`share` of the pair's units, but no more than it has left; `fixed`: exactly that share, whatever
        was spent before (a question whose answer is kept for other pairs must get the same units in each)."""
        cap = int(self.units * share)
        return Allowance(self, cap if fixed else min(cap, self.left()))

    def rest(self) -> Allowance:
        return Allowance(self, self.left())

    def wall_left(self) -> float:
        return self.wall_deadline - time.monotonic()


@dataclass(slots=True)
class Allowance:
    """The units one question (its encoding and its solving) may spend, charged to the pair's budget."""

    budget: Budget
    units: int
    used: int = 0

    def left(self) -> int:
        return max(0, self.units - self.used)

    def charge(self, units: int) -> None:
        self.used += units
        self.budget.used += units

    def step(self) -> None:
        """One step of the encoder: its units, and a look at the safety net."""
        self.charge(UNITS_PER_STEP)
        if self.used > self.units:
            raise OutOfBudget
        if self.budget.wall_left() <= 0:
            self.budget.too_slow = True
            raise TooSlow


def unlimited() -> Allowance:
    """For a question asked outside any pair (is the pair inside the fragment?): a minute's units."""
    return Budget.for_seconds(60.0).rest()
