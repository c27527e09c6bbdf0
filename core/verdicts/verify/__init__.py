"""Bounded equivalence checking of a prediction against its gold with an SMT solver (z3, extra `verify`).

After VeriEQL (OOPSLA 2024) and its use for text-to-SQL evaluation in SpotIt (ICLR 2026), reimplemented:
both queries are encoded over symbolic tables of at most N rows each (tables.py, encode.py, aggregate.py),
the integrity constraints with them, and z3 is asked for a database on which their results differ in the
row's EX mode (results.py, check.py). None → `verified` up to N rows; one → re-run in SQLite before the
pair is `refuted` with it as witness (counterexample.py); else `unknown` with the reason. z3 is imported
only when a pair is checked, so an install without the extra runs everything else.
"""

from __future__ import annotations

from sqltriage.core.verdicts.verify.check import (
    DEFAULT_BOUND,
    DEFAULT_TIMEOUT,
    Verdict,
    check_pair,
    solver_version,
)

__all__ = ["DEFAULT_BOUND", "DEFAULT_TIMEOUT", "Verdict", "check_pair", "solver_version"]
