"""`gold_flags`: every reason to doubt an example's gold, read off the gold and every model's row.

Ids, '; '-separated in a fixed order (docs/judgement.md):

- `audit:<code>`: the gold audit (`gold_suspect`): `empty`, `nulls`, `tie`, `limit_without_order`, `fails`,
  `times_out`;
- `lint:<id>`: a semantic lint fires on the gold (docs/lints.md);
- `fragile:duplicate`: a refutation needs two rows to share a name, and the gold is the query that merges
  them (it goes by the name where a prediction goes by the key);
- `models-agree`: at least `AGREE_MIN` models, and at least half of those whose prediction runs, fail EX
  with one and the same other result: a gold every model "fails" in the same way.

`empty` and `nulls` make a pass cheap, not a failure doubtful: they are `WEAK`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

SEPARATOR = "; "
AGREE_MIN = 3
WEAK = frozenset({"audit:empty", "audit:nulls"})
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
        if label in _AUDIT:
            flags.append(f"audit:{_AUDIT[label]}")
    flags.extend(f"lint:{i}" for i in (gold_lints or "").split(SEPARATOR) if i)
    rows = list(rows)
    if any(r.get("refutation_assumption") == "duplicate" and r.get("fragile_side") == "gold" for r in rows):
        flags.append("fragile:duplicate")
    if _models_agree(rows, mode):
        flags.append("models-agree")
    return SEPARATOR.join(flags)


def _models_agree(rows: list[Mapping[str, Any]], mode: str) -> bool:
    ran = [r for r in rows if r.get(f"ex_{mode}") is not None and r.get("result_digest")]
    failing = Counter(r["result_digest"] for r in ran if r.get(f"ex_{mode}") == 0)
    if not failing:
        return False
    most = failing.most_common(1)[0][1]
    return most >= AGREE_MIN and 2 * most >= len(ran)


def strong(flags: str | None) -> list[str]:
    """The flags that make a failure against the gold doubtful."""
    return [f for f in (flags or "").split(SEPARATOR) if f and f not in WEAK]
