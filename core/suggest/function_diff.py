"""Function differences: a function SQLite lacks, and a function family only one side uses.

prediction `YEAR(d) = 2014`       → Other: other (SQLite has no YEAR), then Function: date/time
prediction `ROUND(x, 2)`, gold `x` → Function: math (only the prediction uses a math function)
"""

from __future__ import annotations

import re

from sqlglot import exp

from sqltriage.core.suggest.exec_signals import ARITHMETIC_FUNCTIONS
from sqltriage.core.suggest.facts import QueryFacts
from sqltriage.core.suggest.suggestion import Suggestion

DATE_WORDS = {"YEAR", "MONTH", "DAY", "DATEDIFF", "DATE_FORMAT", "NOW", "CURDATE", "DATEPART", "TO_DATE"}
_FLOAT = re.compile(r"^\d+\.\d+$")


def function_findings(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    out: list[Suggestion] = []
    for name in dict.fromkeys(p.unknown_functions):
        if name in DATE_WORDS:
            # the guide's reading of a function SQLite lacks is "Other: other"; the date function it stands
            # for is the neighbouring reading, shown after it
            out.append(Suggestion("Other: other", f"SQLite has no {name}() function", 0.9))
            out.append(Suggestion("Function: date/time", f"SQLite has no {name}() function", 0.85))
        else:
            if name.lower() in ARITHMETIC_FUNCTIONS:
                out.append(Suggestion("Function: math", f"{name}() stands for an arithmetic operator", 0.9))
            out.append(Suggestion("Other: other", f"SQLite has no {name}() function", 0.85))
    for fam in sorted(set(g.families) | set(p.families)):
        has_g, has_p = g.families[fam] > 0, p.families[fam] > 0
        if has_g == has_p or (fam == "conditional" and g.counts_condition and p.counts_condition):
            continue  # (CASE / IIF as one of two ways to count rows by a condition)
        side = "gold" if has_g else "the prediction"
        reason = f"only {side} uses a {fam} function"
        conf = {"window": 0.85, "string": 0.6, "math": 0.6, "conditional": 0.55, "date/time": 0.45}.get(
            fam, 0.4
        )
        rounding = one_sided_rounding(g, p) if fam == "math" else None
        if rounding is not None:  # the value returned changes: surer than another math function
            out.append(rounding)
            continue
        if fam == "conversion":
            float_literal = any(k == "num" and _FLOAT.match(v) for v, k in p.literals)
            conf = 0.55 if has_g and not float_literal else 0.3
        out.append(Suggestion(f"Function: {fam}", reason, conf))
    return out


def one_sided_rounding(g: QueryFacts, p: QueryFacts) -> Suggestion | None:
    """ROUND on one side's result only: "Function: math", whatever else the two compute."""
    gold, pred = (any(item.node.find(exp.Round) for item in f.select) for f in (g, p))
    if gold == pred:
        return None
    return Suggestion(
        "Function: math", f"only {'the prediction' if pred else 'gold'} rounds its result (ROUND)", 0.75
    )
