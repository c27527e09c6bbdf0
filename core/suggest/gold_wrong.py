"""Gold judged wrong from the dataset's own database: the labelling guide's rule 5 ("a difference that only
follows gold's error is not tagged"), where it is cheap and clear.

The one case read here: gold and the prediction differ only in the case of one text value, gold's written
all in lower case (`continent = "north america"`), and the results on the dataset's database show that
gold's value is the one that matches nothing: with `=` (or LIKE, IN) gold's result is empty or a lone
NULL / zero while the prediction's is not; with `!=` (or NOT IN) the prediction drops rows gold keeps. The
prediction wrote the stored form, so the row is "Evaluation: gold SQL wrong", not "Value: data format".
"""

from __future__ import annotations

from sqltriage.core.suggest.exec_signals import ExecSignals
from sqltriage.core.suggest.facts import Conjunct, QueryFacts
from sqltriage.core.suggest.reason import Reason
from sqltriage.core.suggest.suggestion import GATE, Suggestion
from sqltriage.core.verdicts.exec_result import ExecResult

_KEEPS = {"=", "like", "in"}  # a value that matches nothing keeps nothing
_DROPS = {"!=", "not in", "not like"}  # … and drops nothing


def gold_value_wrong(
    found: list[Suggestion],
    signals: ExecSignals | None,
    g: QueryFacts,
    p: QueryFacts,
    gold_result: ExecResult | None = None,
) -> Suggestion | None:
    """ "Evaluation: gold SQL wrong" when the only difference shown is the case of a value gold writes in lower
    case and the results say gold's form matches nothing (see the module's docstring)."""
    if signals is None or signals.gold_cols != signals.pred_cols:
        return None
    shown = {s.tag for s in found if s.confidence >= GATE}
    if shown != {"Value: data format"}:
        return None
    pair = _lower_case_pair(g, p)
    if pair is None:
        return None
    c, x = pair
    if c.op in _KEEPS:
        matched_nothing = _nothing(signals, gold_result) and signals.pred_rows > 0
    else:
        matched_nothing = signals.gold_has_all_pred and signals.pred_rows < signals.gold_rows
    if not matched_nothing:
        return None
    why = Reason(
        "gold tests {}, the prediction {}: on the database gold's lower-case value matches nothing",
        c.node,
        x.node,
    )
    return Suggestion("Evaluation: gold SQL wrong", why, 0.85)


def _nothing(signals: ExecSignals, gold_result: ExecResult | None) -> bool:
    """Gold's result is what a filter that keeps no row gives: no row, a lone zero, or aggregates all NULL."""
    if signals.gold_rows == 0 or signals.trivial:
        return True
    rows = gold_result.rows if gold_result is not None else ()
    return len(rows) == 1 and all(v is None for v in rows[0])


def _lower_case_pair(g: QueryFacts, p: QueryFacts) -> tuple[Conjunct, Conjunct] | None:
    for c in g.conjuncts:
        if c.kind != "str" or c.op not in _KEEPS | _DROPS or c.value != c.value.lower():
            continue
        for x in p.conjuncts:
            if x.column == c.column and x.op == c.op and x.value != c.value and x.value.lower() == c.value:
                return c, x
    return None
