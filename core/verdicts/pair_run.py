"""The one way a (gold, prediction) pair is run and scored: eval, `diff` and the app's live results call it.

`run_gold` runs an example's gold once (as written, as Spider's evaluator runs it, as its official line
reads) with its alternative and accepted golds and its audit (the tie at its LIMIT); `run_prediction`
runs one prediction against that and scores every EX mode, the official verdict, which gold matched and
whether the prediction sits in the gold's tie. So the Results tab of a row says what the stored row says,
whatever golds the person accepted. Above the three modules it joins: execution runs the queries,
exec_compare compares their results and official_ex reads them as the official evaluator does (with
exec_compare's comparison). The comparison never runs a query and execution imports neither.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sqltriage.core.datasets.alternatives import OFFICIAL_QUIRK
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

if TYPE_CHECKING:
    from sqltriage.core.verdicts.gold_audit import GoldAudit, Tie

Runner = Callable[[str], ExecResult]  # runs one text of the gold's side on its database


@dataclass(frozen=True, slots=True)
class Limits:
    """How every query of a pair runs and how results compare: the same for eval, `diff` and the app."""

    timeout: float = DEFAULT_TIMEOUT
    max_rows: int = DEFAULT_MAX_ROWS
    float_tol: float | None = None  # numbers this close compare equal (never in `ex_official`)


@dataclass(frozen=True, slots=True)
class OtherGold:
    """An alternative gold of an example (the dataset's, or accepted in the app) and its results."""

    label: str  # "alternative N" (dataset) or "accepted N" (app): what `gold_match` names
    sql: str
    result: ExecResult
    spider_result: ExecResult  # of spider_sql(sql)


@dataclass(frozen=True, slots=True)
class GoldRun:
    """An example's gold side on its database, run once for every prediction of it."""

    sql: str
    db_path: Path | None
    result: ExecResult | None  # None when the database is missing
    spider_result: ExecResult | None  # of spider_sql(sql): what ex_spider compares
    official_result: ExecResult | None  # of the gold's line as the official evaluator reads it
    others: tuple[OtherGold, ...] = ()
    audit: GoldAudit | None = None

    @property
    def tie(self) -> Tie | None:
        return self.audit.tie if self.audit is not None else None


@dataclass(frozen=True, slots=True)
class PairRun:
    """Everything one (gold, prediction) pair produced on its database."""

    gold: ExecResult  # the gold as written
    pred: ExecResult  # the prediction as written (va, ex_bird, ex_archer)
    gold_spider: ExecResult  # spider_sql(gold): what ex_spider compares; `gold` when unchanged
    pred_spider: ExecResult  # spider_sql(pred); `pred` when unchanged
    # va, ex, ex_spider, ex_bird, ex_archer, and with `run_prediction` ex_official, official_quirk,
    # gold_match, tie_sensitive, pred_elapsed, truncated: the execution columns of a stored row
    outcomes: dict[str, int | float | str | None]
    official: OfficialVerdict | None = None  # ex_official and the quirk that sets it apart from ex_spider


def run_gold(
    db_path: Path | None,
    gold_sql: str,
    *,
    limits: Limits = Limits(),
    others: Sequence[tuple[str, str]] = (),
    cache: GoldResultCache | None = None,
    audit: Callable[[ExecResult, Runner], GoldAudit] | None = None,
) -> GoldRun:
    """Run the gold side once. `others`: (label, sql) of its alternative and accepted golds
    (`datasets.alternatives.labelled`). `audit`: how the caller audits the gold (the pipeline keeps it on
    the gold's parse); by default `gold_audit.audit_gold` on the text."""
    if db_path is None:
        return GoldRun(gold_sql, None, None, None, None)

    def run(sql: str) -> ExecResult:
        if cache is not None:
            return cache.get(db_path, sql, limits.timeout, limits.max_rows)
        return execute(db_path, sql, timeout=limits.timeout, max_rows=limits.max_rows)

    result = spider = run(gold_sql)
    if (text := spider_sql(gold_sql)) != gold_sql:
        spider = run(text)
    official = spider if (official_text := official_gold_text(gold_sql)) == text else run(official_text)
    if audit is None:
        from sqltriage.core.verdicts.gold_audit import audit_gold

        found = audit_gold(gold_sql, result, run)
    else:
        found = audit(result, run)
    alternatives = []
    for label, alt_sql in others:
        alt = run(alt_sql)
        alt_text = spider_sql(alt_sql)
        alternatives.append(OtherGold(label, alt_sql, alt, alt if alt_text == alt_sql else run(alt_text)))
    return GoldRun(gold_sql, db_path, result, spider, official, tuple(alternatives), found)


def run_prediction(gold: GoldRun, pred_sql: str, *, limits: Limits = Limits()) -> PairRun:
    """Run one prediction against the gold side and score it as a stored row is scored: every EX mode (a
    pass on any alternative or accepted gold counts), the official verdict on the gold alone, which gold
    matched, and whether it sits in the gold's tie at its LIMIT."""
    db = gold.db_path

    def run(sql: str) -> ExecResult:
        return execute(db, sql, timeout=limits.timeout, max_rows=limits.max_rows)

    pred = run(pred_sql)
    pred_spider = pred if (text := spider_sql(pred_sql)) == pred_sql else run(text)
    gold_result = gold.result or pred  # no database: both sides carry its fault, no verdict
    gold_spider = gold.spider_result or gold_result
    outcomes: dict[str, int | float | str | None] = dict(
        execution_outcomes(
            gold_result,
            pred,
            gold.sql,
            float_tol=limits.float_tol,
            gold_spider=gold_spider,
            pred_spider=pred_spider,
        )
    )
    pred_official = (
        pred_spider if (official_text := official_pred_text(pred_sql)) == text else run(official_text)
    )
    official = official_outcome(
        gold.official_result or gold_spider, pred_official, gold.sql, pred_sql, outcomes["ex_spider"]
    )
    outcomes["ex_official"], outcomes["official_quirk"] = official.ex, official.quirk
    outcomes["gold_match"] = "gold" if outcomes["ex_spider"] == 1 else None
    if gold.others and pred.ok:
        _match_others(outcomes, gold.others, pred, pred_spider, limits)
    outcomes["tie_sensitive"] = None
    if gold.tie is not None and gold.result is not None and gold.result.ok and pred.ok:
        from sqltriage.core.verdicts.gold_audit import tie_sensitive

        outcomes["tie_sensitive"] = int(tie_sensitive(gold.tie, gold.result.rows, pred.rows))
    outcomes["pred_elapsed"] = pred.elapsed
    outcomes["truncated"] = int(pred.truncated)
    return PairRun(gold_result, pred, gold_spider, pred_spider, outcomes, official)


def run_pair(
    db_path: Path | None,
    gold_sql: str,
    pred_sql: str,
    *,
    cache: GoldResultCache | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_rows: int = DEFAULT_MAX_ROWS,
    float_tol: float | None = None,
    others: Sequence[tuple[str, str]] = (),
) -> PairRun:
    """`run_gold` then `run_prediction`: one pair on its own (`diff`, a live run, a witness database)."""
    limits = Limits(timeout, max_rows, float_tol)
    gold = run_gold(db_path, gold_sql, limits=limits, others=others, cache=cache)
    return run_prediction(gold, pred_sql, limits=limits)


def _match_others(
    outcomes: dict[str, int | float | str | None],
    others: Sequence[OtherGold],
    pred: ExecResult,
    pred_spider: ExecResult,
    limits: Limits,
) -> None:
    """EX passes when any other gold matches: each mode not passed yet is tried on each of them.

    `gold_match` names the gold the default mode (`ex`) matched. `ex_official` keeps the official
    single-gold verdict, as the official evaluator has no alternatives.
    """
    for alt in others:
        if all(outcomes[f"ex_{m}"] == 1 for m in EX_MODES):
            break
        if not alt.result.ok:
            continue
        found = execution_outcomes(
            alt.result,
            pred,
            alt.sql,
            float_tol=limits.float_tol,
            gold_spider=alt.spider_result,
            pred_spider=pred_spider,
        )
        for m in EX_MODES:
            if outcomes[f"ex_{m}"] != 1 and found[f"ex_{m}"] == 1:
                outcomes[f"ex_{m}"] = 1
                if m == DEFAULT_MODE:
                    outcomes["ex"], outcomes["gold_match"] = 1, alt.label
                    if outcomes.get("ex_official") != 1:
                        outcomes["official_quirk"] = OFFICIAL_QUIRK


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
