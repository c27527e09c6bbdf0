"""`ex_ts`: an EX pass must survive every neighbour database, compared exactly as `ex_spider` compares.

Only rows that pass `ex_spider` on the original are run on the neighbours (a fail stays a fail), in the
neighbours' order (most telling first), stopping at the first neighbour whose results differ: that one
is the witness. A neighbour where the gold itself fails, times out or is cut at the row cap is skipped
for that example and not counted in `ts_databases`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ORIGINAL = "original"  # the witness of a row that already fails on the original database
_MEMO_SIZE = 4096  # recent (gold, prediction, neighbours) verdicts kept per process
_memo: OrderedDict[tuple, dict[str, Any]] = OrderedDict()


class NeighbourGold:
    """The result of the gold (as Spider's evaluator rewrites it) on one neighbour: run on first use (a row
    that fails on the original, or on an earlier neighbour, never needs it), then shared by every model."""

    __slots__ = ("_result", "_run", "gold_sql", "path")

    def __init__(self, path: Path, gold_sql: str, run: Callable[[Path, str], Any]) -> None:
        self.path = path
        self.gold_sql = gold_sql
        self._run = run
        self._result: Any = None

    @property
    def spider_result(self) -> Any:
        """ExecResult of spider_sql(gold) on this neighbour."""
        if self._result is None:
            from sqltriage.core.verdicts.execution import spider_sql

            self._result = self._run(self.path, spider_sql(self.gold_sql))
        return self._result

    @property
    def usable(self) -> bool:
        r = self.spider_result
        return bool(r.ok and not r.truncated)


def neighbour_golds(
    gold_sql: str, paths: Sequence[Path], cache: Any, timeout: float, max_rows: int
) -> tuple[NeighbourGold, ...]:
    from sqltriage.core.verdicts.execution import execute

    def run(path: Path, sql: str) -> Any:
        if cache is not None:
            return cache.get(path, sql, timeout, max_rows)
        return execute(path, sql, timeout=timeout, max_rows=max_rows)

    return tuple(NeighbourGold(p, gold_sql, run) for p in paths)


def ts_columns(gold: Any, pred_sql: str, options: Any, ex_spider: int | None) -> dict[str, Any]:
    """`ex_ts`, `ts_databases`, `ts_witness` of one (example, prediction); `gold` is a GoldContext."""
    if options.neighbours <= 0:
        return {"ex_ts": None, "ts_databases": None, "ts_witness": None}
    if ex_spider is None:
        return {"ex_ts": None, "ts_databases": None, "ts_witness": None}
    if ex_spider == 0:
        return {"ex_ts": 0, "ts_databases": 0, "ts_witness": ORIGINAL}
    if gold.ts_problem:
        return {"ex_ts": None, "ts_databases": 0, "ts_witness": f"no neighbours: {gold.ts_problem}"}
    if _same_text(pred_sql, gold.example.gold_sql):  # the gold itself: the same rows on every neighbour
        return {"ex_ts": 1, "ts_databases": sum(nb.usable for nb in gold.neighbours), "ts_witness": None}
    # Models often predict the same text for an example: it is run on the neighbours once per process.
    key = (
        gold.example.gold_sql,
        pred_sql,
        tuple(nb.path for nb in gold.neighbours),
        options.timeout,
        options.max_rows,
    )
    if key in _memo:
        _memo.move_to_end(key)
        return dict(_memo[key])
    out = _run_on_neighbours(gold, pred_sql, options)
    _memo[key] = out
    if len(_memo) > _MEMO_SIZE:
        _memo.popitem(last=False)
    return dict(out)


def _same_text(pred_sql: str, gold_sql: str) -> bool:
    """True when the texts Spider's evaluator runs are the same (so are their results, on any database)."""
    from sqltriage.core.verdicts.execution import spider_sql

    def bare(sql: str) -> str:
        return spider_sql(sql.strip()).strip().rstrip(";").strip()

    return bare(pred_sql) == bare(gold_sql)


def _run_on_neighbours(gold: Any, pred_sql: str, options: Any) -> dict[str, Any]:
    """Spider's rewriting of the prediction on each neighbour, compared with `compare(..., "spider")`: the
    comparison `ex_spider` makes (only the spider texts are run: `ex_spider` reads nothing else)."""
    from sqltriage.core.verdicts.exec_compare import compare, order_matters
    from sqltriage.core.verdicts.execution import execute, spider_sql

    text = spider_sql(pred_sql)
    ordered = order_matters(gold.example.gold_sql)
    used = 0
    for nb in gold.neighbours:
        if not nb.usable:
            continue
        pred = execute(nb.path, text, timeout=options.timeout, max_rows=options.max_rows)
        verdict = compare(nb.spider_result, pred, "spider", order_matters=ordered)
        if verdict is None:
            continue  # cannot be told on this neighbour (e.g. the prediction hit the row cap)
        used += 1
        if verdict == 0:
            return {"ex_ts": 0, "ts_databases": used, "ts_witness": str(nb.path)}
    return {"ex_ts": 1, "ts_databases": used, "ts_witness": None}
