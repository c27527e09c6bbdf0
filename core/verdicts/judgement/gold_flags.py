"""`gold_flags`: every reason to doubt an example's gold, read off the gold and every model's row.

Ids, '; '-separated in a fixed order (docs/judgement.md):

- `audit:<code>`: the gold audit (`gold_suspect`): `tie`, `limit_without_order`, `fails`, `times_out` (an
  empty or all-NULL result stays in `gold_suspect` only: it makes a pass cheap, not the gold doubtful);
- `lint:<id>`: a semantic lint that doubts its query fires on the gold (docs/lints.md; advisory lints,
  such as grouping by a name, are listed in `gold_lints` only);
- `models-agree`: at least `AGREE_MIN` models, and at least half of those whose prediction runs, fail EX
  with one and the same other result: a gold every model "fails" in the same way.

A gold that is the fragile side of a refutation (`fragile_side`: it merges two rows sharing a name, keeps
one of the rows tied at a cut) breaks only in a world the question never meant: on the hand-judged set
such golds were right 20 times in 21 (docs/judgement.md), so fragility is shown on the row, not flagged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

SEPARATOR = "; "
AGREE_MIN = 3
# an empty or all-NULL gold result: it makes a pass cheap (decide.py reads them in `gold_suspect`), it does
# not make a failure doubtful, so it is no flag
WEAK_AUDIT = frozenset({"empty result", "only NULLs"})
# gold_suspect's labels (gold_audit.REASONS) back to their codes
_AUDIT = {
    "empty result": "empty",
    "only NULLs": "nulls",
    "LIMIT cuts a tie": "tie",
    "LIMIT without ORDER BY": "limit_without_order",
    "gold fails": "fails",
    "gold times out": "times_out",
}


def gold_flags(
    gold_suspect: str | None, gold_lints: str | None, rows: Iterable[Mapping[str, Any]], mode: str
) -> str:
    """The example's flags from its audit labels, its lints and its rows (each with `ex_<mode>`,
    `result_digest`, `refutation_assumption`, `fragile_side`)."""
    flags: list[str] = []
    for label in (gold_suspect or "").split(SEPARATOR):
        if label in _AUDIT and label not in WEAK_AUDIT:
            flags.append(f"audit:{_AUDIT[label]}")
    from sqltriage.core.sql.lints import DOUBTING

    flags.extend(f"lint:{i}" for i in (gold_lints or "").split(SEPARATOR) if i in DOUBTING)
    rows = list(rows)
    if consensus(rows, mode):
        flags.append("models-agree")
    return SEPARATOR.join(flags)


def consensus(rows: Iterable[Mapping[str, Any]], mode: str) -> str | None:
    """The result (its digest) that enough models return instead of the gold's for `models-agree`, if any:
    only a prediction returning that very result is doubted along with the gold."""
    ran = [r for r in rows if r.get(f"ex_{mode}") is not None and r.get("result_digest")]
    failing = Counter(r["result_digest"] for r in ran if r.get(f"ex_{mode}") == 0)
    if not failing:
        return None
    digest, most = failing.most_common(1)[0]
    return digest if most >= AGREE_MIN and 2 * most >= len(ran) else None


def strong(flags: str | None, row: Mapping[str, Any] | None = None) -> list[str]:
    """The flags that make a failure against the gold doubtful; for a `row`, `models-agree` only when it
    returns the models' shared result (a prediction that differs from both gold and crowd is not excused)."""
    kept = [f for f in (flags or "").split(SEPARATOR) if f]
    if row is not None and "models-agree" in kept and row.get("result_digest") != row.get("consensus"):
        kept.remove("models-agree")
    return kept
