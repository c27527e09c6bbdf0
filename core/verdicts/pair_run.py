"""A (gold, prediction) pair run on its database and scored in every EX mode, with the official verdict.

Above the three modules it joins: execution runs the queries, exec_compare compares their results and
official_ex reads them as the official evaluator does (with exec_compare's comparison). The comparison
never runs a query and execution imports neither.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqltriage.core.verdicts.ex_modes import DEFAULT_MODE, EX_MODES
from sqltriage.core.verdicts.exec_compare import compare, order_matters, spider_sql
from sqltriage.core.verdicts.exec_result import DB_FAULTS, DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT, ExecResult
from sqltriage.core.verdicts.execution import GoldResultCache, execute
from sqltriage.core.verdicts.official_ex import (
    OfficialVerdict,
    official_gold_text,
    official_outcome,
    official_pred_text,
)


@dataclass(frozen=True, slots=True)
class PairRun:
    """Everything one (gold, prediction) pair produced on its database."""

    gold: ExecResult  # the gold as written
    pred: ExecResult  # the prediction as written (va, ex_bird, ex_archer)
    gold_spider: ExecResult  # spider_sql(gold): what ex_spider compares; `gold` when unchanged
    pred_spider: ExecResult  # spider_sql(pred); `pred` when unchanged
    outcomes: dict[str, int | None]  # va, ex, ex_spider, ex_bird, ex_archer
    official: OfficialVerdict | None = None  # ex_official and the quirk that sets it apart from ex_spider


def run_pair(
    db_path: Path | None,
    gold_sql: str,
    pred_sql: str,
    *,
    cache: GoldResultCache | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_rows: int = DEFAULT_MAX_ROWS,
    float_tol: float | None = None,
) -> PairRun:
    """Execute a pair (and its Spider rewriting only where it differs) and score every EX mode."""

    def run_gold(sql: str) -> ExecResult:
        if cache is not None:
            return cache.get(db_path, sql, timeout, max_rows)
        return execute(db_path, sql, timeout=timeout, max_rows=max_rows)

    gold = run_gold(gold_sql)
    pred = execute(db_path, pred_sql, timeout=timeout, max_rows=max_rows)
    g_text, p_text = spider_sql(gold_sql), spider_sql(pred_sql)
    gold_spider = gold if g_text == gold_sql else run_gold(g_text)
    pred_spider = pred if p_text == pred_sql else execute(db_path, p_text, timeout=timeout, max_rows=max_rows)
    outcomes = execution_outcomes(
        gold, pred, gold_sql, float_tol=float_tol, gold_spider=gold_spider, pred_spider=pred_spider
    )
    go_text, po_text = official_gold_text(gold_sql), official_pred_text(pred_sql)
    gold_official = gold_spider if go_text == g_text else run_gold(go_text)
    pred_official = (
        pred_spider if po_text == p_text else execute(db_path, po_text, timeout=timeout, max_rows=max_rows)
    )
    official = official_outcome(gold_official, pred_official, gold_sql, pred_sql, outcomes["ex_spider"])
    return PairRun(gold, pred, gold_spider, pred_spider, outcomes, official)


def execution_outcomes(
    gold: ExecResult,
    pred: ExecResult,
    gold_sql: str,
    *,
    float_tol: float | None = None,
    gold_spider: ExecResult | None = None,
    pred_spider: ExecResult | None = None,
) -> dict[str, int | None]:
    """`va`, `ex` (= `ex_spider`), `ex_spider`, `ex_bird`, `ex_archer` for one example.

    `ex_spider` compares the results of `spider_sql()` of each query, as the official evaluator does:
    pass them as `gold_spider` / `pred_spider` (`run_pair` does), else they are run here
    from the results' own query and database whenever the rewriting changes the text.
    All None when the database is missing: such rows are left out of execution averages.
    """
    keys = ("va", "ex", *(f"ex_{m}" for m in EX_MODES))
    if gold.error_kind in DB_FAULTS or pred.error_kind in DB_FAULTS:
        return dict.fromkeys(keys)  # the database, not the query, failed: no verdict either way
    gold_spider = gold_spider or _spider_rerun(gold)
    pred_spider = pred_spider or _spider_rerun(pred)
    out: dict[str, int | None] = {"va": int(pred.ok)}
    ordered = order_matters(gold_sql)
    for m in EX_MODES:
        g, p = (gold_spider or gold, pred_spider or pred) if m == "spider" else (gold, pred)
        out[f"ex_{m}"] = compare(g, p, m, order_matters=ordered, float_tol=float_tol)
    out["ex"] = out[f"ex_{DEFAULT_MODE}"]
    return {k: out[k] for k in keys}


def _spider_rerun(result: ExecResult) -> ExecResult:
    """The result of `spider_sql()` of the query behind `result` (itself when the text is unchanged)."""
    if result.sql is None or result.db_path is None:
        return result
    text = spider_sql(result.sql)
    if text == result.sql:
        return result
    return execute(result.db_path, text, timeout=result.timeout, max_rows=result.max_rows)
