"""The evaluation pipeline: dataset × models → one evaluation per (example, model), streamed into a workspace.

Work is split into chunks of examples; each gold query is parsed and executed once per chunk for every
model; chunks run in worker processes (both cores) and each finished chunk is written in one transaction,
so an interrupted run keeps what it finished and the next run does only the rest.
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqltriage.core.execution import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT, file_digest
from sqltriage.core.model import Dataset, Example, PredictionSet
from sqltriage.core.workspace import Workspace, dataset_fingerprint

METRICS_VERSION = "11"  # bump whenever a metric's definition changes: stored results are then recomputed

Progress = Callable[[str, int, int], None]  # (stage, done, total)
NEIGHBOURS_META = "neighbours"  # "K:seed" of the last finished run, so a later run keeps ex_ts unless told


@dataclass(frozen=True, slots=True)
class EvalOptions:
    timeout: float = DEFAULT_TIMEOUT
    max_rows: int = DEFAULT_MAX_ROWS
    jobs: int | None = None  # worker processes; None = one per core
    chunk_size: int = 24  # examples per task
    features: bool = True  # copy cached question features into the workspace (never computed here)
    pipeline: str | None = None  # spaCy pipeline name; None = the default
    pool_min_pairs: int | None = None  # fewer pairs run in this process; None = by start method (pool_start)
    cluster: str | None = None  # a Dask scheduler address, or local:N; None = this machine's processes
    neighbours: int = 0  # K neighbour databases per database for `ex_ts`; 0 = off
    seed: int = 0  # seed of the neighbour generation
    neighbour_cache: str | None = (
        None  # folder of the neighbour sets; None = $XDG_CACHE_HOME/sqltriage/neighbours
    )
    start_method: str | None = None  # "fork" | "spawn" for the pool; None = fork where safe (pool_start)

    def result_key(self) -> str:
        ts = f":n{self.neighbours}:s{self.seed}" if self.neighbours > 0 else ""
        return f"m{METRICS_VERSION}:t{self.timeout}:r{self.max_rows}{ts}"


@dataclass(slots=True)
class EvalSummary:
    workspace: Path
    models: list[str]
    computed: int = 0  # (example, model) pairs evaluated by this run
    reused: int = 0  # pairs found done in the workspace
    stale_models: list[str] = field(default_factory=list)  # models re-evaluated because an input changed
    features: str = "not computed"  # cached | not computed | off (computing them is feature_cache's job)
    elapsed: float = 0.0
    cancelled: bool = False
    workers: str = "none"  # where pairs ran: "this process", "2 forked processes", "Dask cluster ..."


# --- rows ----------------------------------------------------------------------------------------------


def base_example_rows(dataset: Dataset) -> list[dict[str, Any]]:
    from sqltriage.core.reasoning import reasoning_label

    rows = []
    for e in dataset.examples:
        r = annotated_reasoning(e)
        rows.append(
            {
                "idx": e.index,
                "example_id": e.example_id,
                "db_id": e.db_id,
                "question": e.question,
                "gold_sql": e.gold_sql,
                "evidence": e.evidence,
                "difficulty": e.difficulty,
                "reasoning": reasoning_label(r),
                "reasoning_inferred": int(r.inferred) if r.types else None,
                "external_knowledge": int(r.external_knowledge),
                "commonsense": e.commonsense,
                "db_missing": int(dataset.db_missing(e.db_id)),
                "gold_done": 0,
            }
        )
    return rows


def annotated_reasoning(example: Example) -> Any:
    """The reasoning that needs no SQL parse (annotations, evidence); inference waits for the gold parse."""
    from sqltriage.core.reasoning import Reasoning, reasoning_for

    if example.reasoning:
        return reasoning_for(example)
    return Reasoning((), False, bool(example.evidence), example.commonsense)


def run_key(dataset: Dataset, options: EvalOptions) -> str:
    """What every model's results depend on besides its own file: the dataset, the databases, the options."""
    h = hashlib.sha256(dataset_fingerprint(dataset).encode())
    h.update(options.result_key().encode())
    for db_id in sorted(dataset.databases):
        path = dataset.databases[db_id]
        h.update(f"{db_id}={file_digest(path) if path else '-'};".encode())
    return h.hexdigest()


# --- worker side ---------------------------------------------------------------------------------------

_STATE: dict[str, Any] = {}


def _ensure_resource_tracker() -> None:
    """Start multiprocessing's resource tracker with a real stderr.

    The tracker hands `sys.stderr.fileno()` to its process; inside a terminal app `sys.stderr` is a
    capture whose fileno() is -1, and spawning then fails with "bad value(s) in fds_to_keep".
    """
    from multiprocessing import resource_tracker

    saved = sys.stderr
    if _stderr_captured():
        sys.stderr = sys.__stderr__ if sys.__stderr__ is not None else open(os.devnull, "w")  # noqa: SIM115
    try:
        resource_tracker.ensure_running()
    finally:
        sys.stderr = saved


def _stderr_captured() -> bool:
    """True inside a terminal app, which replaces sys.stderr with a capture that has no descriptor."""
    try:
        return sys.stderr is None or sys.stderr.fileno() < 0
    except (AttributeError, OSError, ValueError):
        return True


def _quiet_worker() -> None:
    """A worker started under the app must not write to the terminal the app draws on."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    os.close(devnull)


def _init_worker(
    dataset: Dataset,
    predictions: dict[str, tuple[str, ...]],
    options: EvalOptions,
    quiet: bool = False,
) -> None:
    from sqltriage.core.execution import GoldResultCache

    if quiet:
        _quiet_worker()

    _STATE.update(dataset=dataset, predictions=predictions, options=options, gold_cache=GoldResultCache())


@dataclass(frozen=True, slots=True)
class GoldContext:
    """What every model's row needs from one example's gold query, computed once."""

    example: Example
    schema: Any
    db_path: Path | None
    parsed: Any  # ParsedQuery
    subs: tuple  # categories.subqueries() of the gold
    result: Any  # ExecResult, or None when the database is missing
    spider_result: Any  # the result of the text the official Spider evaluator runs (DISTINCT removed, ...)
    official_result: Any = None  # the same for `ex_official` (its gold file's line read as it reads it)
    audit: Any = None  # gold_audit.GoldAudit: why this gold is suspect, and the tie at its LIMIT if any
    alternatives: tuple = ()  # AlternativeGold per alternative gold query of the example
    neighbours: tuple = ()  # testsuite.match.NeighbourGold per neighbour database, for `ex_ts`
    ts_problem: str | None = None  # why this example's database has no neighbours


def _with_accepted_alternatives(dataset: Dataset, workspace: Workspace) -> Dataset:
    """The dataset with the alternatives accepted in the app (kept in the workspace) on its examples."""
    from dataclasses import replace

    from sqltriage.core.alternatives import accepted

    taken = accepted(workspace)
    if not taken:
        return dataset
    examples = tuple(replace(e, accepted=taken[e.index]) if e.index in taken else e for e in dataset.examples)
    return replace(dataset, examples=examples)


@dataclass(frozen=True, slots=True)
class AlternativeGold:
    """One alternative gold query of an example and its results (as written, and as Spider runs it)."""

    label: str  # "alternative N" (dataset) or "accepted N" (app)
    sql: str
    result: Any  # ExecResult
    spider_result: Any  # ExecResult of spider_sql(sql)


def gold_context(
    example: Example, dataset: Dataset, options: EvalOptions, cache: Any = None, analyses: Any = None
) -> GoldContext:
    """`analyses` (shared_analyses.RecentAnalyses), when given, shares the parse of a gold query (and what
    is read off it: audit, categories) between the examples that ask it of the same database."""
    from sqltriage.core.execution import execute, spider_sql
    from sqltriage.core.official_ex import official_gold_text
    from sqltriage.core.shared_analyses import QueryAnalysis, RecentAnalyses

    schema = dataset.schemas.get(example.db_id)
    db_path = dataset.db_path(example.db_id)
    memo: RecentAnalyses = analyses if analyses is not None else RecentAnalyses()
    known: QueryAnalysis = memo.analysis(
        (example.gold_sql, example.db_id), lambda: _analyse_gold(example.gold_sql, schema)
    )
    parsed, subs = known.parsed, known.subs
    result = spider_result = official_result = None
    if db_path is not None:
        run = cache.get if cache is not None else (lambda p, q, t, r: execute(p, q, timeout=t, max_rows=r))
        result = spider_result = run(db_path, example.gold_sql, options.timeout, options.max_rows)
        if (text := spider_sql(example.gold_sql)) != example.gold_sql:
            spider_result = run(db_path, text, options.timeout, options.max_rows)
        official_result = spider_result
        if (official := official_gold_text(example.gold_sql)) != text:
            official_result = run(db_path, official, options.timeout, options.max_rows)
    audit = None
    if db_path is not None:
        from sqltriage.core.gold_audit import audit_gold

        # kept on the parse: an example asking the same text of the same file gets the same audit
        audit = parsed.derived(
            ("gold_audit", str(db_path), options.timeout, options.max_rows),
            lambda: audit_gold(
                example.gold_sql, result, lambda q: run(db_path, q, options.timeout, options.max_rows), parsed
            ),
        )
    alternatives: list[AlternativeGold] = []
    if db_path is not None and (example.alternatives or example.accepted):
        from sqltriage.core.alternatives import labelled

        for label, alt_sql in labelled(example.alternatives, example.accepted):
            alt = run(db_path, alt_sql, options.timeout, options.max_rows)
            alt_text = spider_sql(alt_sql)
            alt_spider = (
                alt if alt_text == alt_sql else run(db_path, alt_text, options.timeout, options.max_rows)
            )
            alternatives.append(AlternativeGold(label, alt_sql, alt, alt_spider))
    return GoldContext(
        example,
        schema,
        db_path,
        parsed,
        subs,
        result,
        spider_result,
        official_result=official_result,
        audit=audit,
        alternatives=tuple(alternatives),
    )


def _analyse_gold(gold_sql: str, schema: Any) -> Any:
    """A gold query's parse and subqueries; one too deep or large to walk is unparsed, not fatal."""
    from sqltriage.core.shared_analyses import QueryAnalysis
    from sqltriage.core.sql.parse import ParsedQuery

    try:
        return _analyse_query(gold_sql, schema)
    except (RecursionError, MemoryError, ValueError) as exc:
        return QueryAnalysis(ParsedQuery(gold_sql, None, f"cannot be analysed ({type(exc).__name__})"), ())


def _analyse_query(sql: str, schema: Any) -> Any:
    """A query's parse and subqueries (shared_analyses.QueryAnalysis); raises where the walk cannot go."""
    from sqltriage.core.shared_analyses import QueryAnalysis
    from sqltriage.core.sql.categories import subqueries
    from sqltriage.core.sql.parse import parse_sql

    parsed = parse_sql(sql, schema)
    return QueryAnalysis(parsed, subqueries(parsed, schema) if parsed.ok else ())


def with_neighbours(gold: GoldContext, dataset: Dataset, options: EvalOptions) -> GoldContext:
    """The gold context with its results on the database's neighbours (built once per process and db)."""
    from dataclasses import replace

    from sqltriage.core.testsuite.match import neighbour_golds

    paths, problem = neighbours_of(gold.example.db_id, dataset, options)
    if problem is not None:
        return replace(gold, ts_problem=problem)
    # No shared gold cache here: each neighbour's result is kept by its NeighbourGold, and hashing every
    # neighbour file for a cache key would cost more than the few duplicated gold queries it would save.
    golds = neighbour_golds(gold.example.gold_sql, paths, None, options.timeout, options.max_rows)
    return replace(gold, neighbours=golds)


def neighbours_of(db_id: str, dataset: Dataset, options: EvalOptions) -> tuple[list[Path], str | None]:
    """The neighbour files of one database (memoised per process), or the reason there are none."""
    from sqltriage.core.testsuite import NeighbourError, ensure_neighbours

    memo: dict[str, tuple[list[Path], str | None]] = _STATE.setdefault("neighbours", {})
    if db_id not in memo:
        db_path = dataset.db_path(db_id)
        schema = dataset.schemas.get(db_id)
        golds = [e.gold_sql for e in dataset.examples if e.db_id == db_id]
        root = Path(options.neighbour_cache) if options.neighbour_cache else None
        try:
            if db_path is None:
                raise NeighbourError("the database is missing")
            paths = ensure_neighbours(
                db_path,
                golds,
                options.neighbours,
                options.seed,
                root,
                foreign_keys=schema.foreign_keys if schema is not None else (),
                primary_keys=schema.primary_keys if schema is not None else (),
            )
            memo[db_id] = (paths, None)
        except NeighbourError as exc:
            memo[db_id] = ([], str(exc))
        except Exception as exc:  # a database we cannot imitate is a reason on its rows
            memo[db_id] = ([], f"generation failed ({type(exc).__name__}: {exc})")
    return memo[db_id]


def prepare_neighbours(
    dataset: Dataset,
    db_ids: Sequence[str],
    options: EvalOptions,
    report: Progress,
    cancel: threading.Event | None = None,
) -> None:
    """Build the neighbours up front, one database after another with progress, so workers find them cached.

    A database that cannot be imitated is left for the workers, which record the reason on its rows.
    """
    for done, db_id in enumerate(db_ids):
        report("neighbours", done, len(db_ids))
        if cancel is not None and cancel.is_set():
            return
        neighbours_of(db_id, dataset, options)
    report("neighbours", len(db_ids), len(db_ids))
    _STATE.pop("neighbours", None)  # the parent's memo: workers keep their own


def prepare_neighbours_on(
    executor: Executor, db_ids: Sequence[str], report: Progress, cancel: threading.Event | None = None
) -> bool:
    """Build the neighbours on the executor's workers, one task per database; False when cancelled.

    Used on a cluster: each set is built once, by the worker that gets its task, into that worker's
    cache; the chunks that follow find it there (or, on another machine, build it once for that machine).
    """
    total = len(db_ids)
    report("neighbours", 0, total)
    built = 0

    def one_built(_: None) -> None:
        nonlocal built
        built += 1
        report("neighbours", built, total)

    return _wait_all({executor.submit(_neighbours_task, db_id) for db_id in db_ids}, one_built, cancel)


def _neighbours_task(db_id: str) -> None:
    """Worker side of prepare_neighbours_on: the reason a database has none stays in the worker's memo."""
    neighbours_of(db_id, _STATE["dataset"], _STATE["options"])


def _gold_row(gold: GoldContext) -> dict[str, Any]:
    from sqltriage.core.reasoning import reasoning_for, reasoning_label

    cats = _categories(gold.parsed, gold.schema, gold.subs)
    result = gold.result
    reasoning = reasoning_for(gold.example, gold.parsed)
    return {
        "idx": gold.example.index,
        "gold_done": 1,
        "reasoning": reasoning_label(reasoning),
        "reasoning_inferred": int(reasoning.inferred) if reasoning.types else None,
        "structural": cats.structural,
        "operators": cats.operators,
        "hardness": cats.hardness,
        "n_operators": cats.n_operators,
        "n_tables": cats.n_tables,
        "n_columns": cats.n_columns,
        "n_values": cats.n_values,
        "nesting_depth": cats.nesting_depth,
        "sql_length": cats.length,
        "gold_error": result.error if result is not None else cats.error,
        "gold_error_kind": result.error_kind if result is not None else None,
        "gold_elapsed": result.elapsed if result is not None else None,
        "gold_rows": len(result.rows) if result is not None and result.ok else None,
        "gold_suspect": gold.audit.labels if gold.audit is not None else None,
        "gold_suspect_detail": (gold.audit.detail or None) if gold.audit is not None else None,
    }


def _categories(parsed: Any, schema: Any, subs: tuple) -> Any:
    """A query's categories, read once per parse (`subs` are the parse's own subqueries)."""
    from sqltriage.core.sql.categories import categorize

    return parsed.derived(("categories", schema), lambda: categorize(parsed, schema, subs=subs))


def _analyse_pair(gold: GoldContext, pred_sql: str, analyses: Any = None) -> dict[str, Any]:
    """Parse-based metrics: categories, exact match, partial match.

    `analyses` (shared_analyses.RecentAnalyses) shares a prediction's parse (and what is read off it)
    with the neighbouring examples that predict the same text on the same database.
    """
    from sqltriage.core.shared_analyses import RecentAnalyses
    from sqltriage.core.sql.authors_match import authors_columns, authors_partial_match
    from sqltriage.core.sql.exact_match import exact_match
    from sqltriage.core.sql.partial_match import partial_match

    schema = gold.schema
    memo: RecentAnalyses = analyses if analyses is not None else RecentAnalyses()
    known = memo.analysis((pred_sql, gold.example.db_id), lambda: _analyse_query(pred_sql, schema))
    pred_parsed, pred_subs = known.parsed, known.subs
    cats = _categories(pred_parsed, schema, pred_subs)
    out: dict[str, Any] = {
        "parse_ok": int(pred_parsed.ok),
        "parse_error": pred_parsed.error,
        "pred_structural": cats.structural,
        "pred_operators": cats.operators,
        "em": None,
        "em_spider": None,
    }
    if schema is not None:
        em = exact_match(gold.parsed, pred_parsed, schema)
        out["em"], out["em_spider"] = em.em, em.em_spider
    pm = partial_match(gold.parsed, pred_parsed, schema, gold_subs=gold.subs, pred_subs=pred_subs)
    out.update(sm=pm.sm, om=pm.om, vm=pm.vm, pm=pm.pm, _pred_parsed=pred_parsed)
    out.update(authors_columns(authors_partial_match(gold.parsed, pred_parsed, schema)))
    return out


def _execute_pair(gold: GoldContext, pred_sql: str, options: EvalOptions) -> tuple[dict[str, Any], Any]:
    from sqltriage.core.execution import execute, execution_outcomes, spider_sql
    from sqltriage.core.official_ex import official_outcome, official_pred_text

    pred_result = execute(gold.db_path, pred_sql, timeout=options.timeout, max_rows=options.max_rows)
    pred_spider = pred_result
    if (text := spider_sql(pred_sql)) != pred_sql:
        pred_spider = execute(gold.db_path, text, timeout=options.timeout, max_rows=options.max_rows)
    outcomes: dict[str, Any] = execution_outcomes(
        gold.result,
        pred_result,
        gold.example.gold_sql,
        gold_spider=gold.spider_result,
        pred_spider=pred_spider,
    )
    pred_official = pred_spider
    if (official_text := official_pred_text(pred_sql)) != text:
        pred_official = execute(
            gold.db_path, official_text, timeout=options.timeout, max_rows=options.max_rows
        )
    official = official_outcome(
        gold.official_result or gold.spider_result,
        pred_official,
        gold.example.gold_sql,
        pred_sql,
        outcomes["ex_spider"],
    )
    outcomes["ex_official"], outcomes["official_quirk"] = official.ex, official.quirk
    outcomes["gold_match"] = "gold" if outcomes["ex_spider"] == 1 else None
    if gold.alternatives and pred_result.ok:
        _match_alternatives(outcomes, gold.alternatives, pred_result, pred_spider)
    tie = gold.audit.tie if gold.audit is not None else None
    if tie is not None and gold.result is not None and gold.result.ok and pred_result.ok:
        from sqltriage.core.gold_audit import tie_sensitive

        outcomes["tie_sensitive"] = int(tie_sensitive(tie, gold.result.rows, pred_result.rows))
    outcomes["pred_elapsed"] = pred_result.elapsed
    outcomes["truncated"] = int(pred_result.truncated)
    return outcomes, pred_result


def _match_alternatives(
    outcomes: dict[str, Any], alternatives: Sequence[AlternativeGold], pred: Any, pred_spider: Any
) -> None:
    """EX passes when any alternative gold matches: each mode not passed yet is tried on each alternative.

    `gold_match` names the gold the default mode (`ex`) matched. `ex_official` keeps the official
    single-gold verdict, as the official evaluator has no alternatives.
    """
    from sqltriage.core.alternatives import OFFICIAL_QUIRK
    from sqltriage.core.execution import EX_MODES, execution_outcomes

    for alt in alternatives:
        if all(outcomes[f"ex_{m}"] == 1 for m in EX_MODES):
            break
        if alt.result is None or not alt.result.ok:
            continue
        alt_outcomes = execution_outcomes(
            alt.result, pred, alt.sql, gold_spider=alt.spider_result, pred_spider=pred_spider
        )
        for m in EX_MODES:
            if outcomes[f"ex_{m}"] != 1 and alt_outcomes[f"ex_{m}"] == 1:
                outcomes[f"ex_{m}"] = 1
                if m == "spider":
                    outcomes["ex"], outcomes["gold_match"] = 1, alt.label
                    if outcomes.get("ex_official") != 1:  # the official evaluator knows one gold only
                        outcomes["official_quirk"] = OFFICIAL_QUIRK


def evaluate_pair(
    gold: GoldContext, pred_sql: str, options: EvalOptions, analyses: Any = None
) -> dict[str, Any]:
    """Every metric for one (example, prediction); never raises for a bad prediction.

    A prediction too deep or too large for the SQL analysis still runs: the analysis failure is its error,
    scored 0 on the parse-based metrics.
    """
    row: dict[str, Any] = {"idx": gold.example.index, "pred_sql": pred_sql}
    pred_result = None
    try:
        row.update(_analyse_pair(gold, pred_sql, analyses))
    except (RecursionError, MemoryError, ValueError) as exc:
        reason = f"cannot be analysed ({type(exc).__name__})"
        row.update(parse_ok=0, parse_error=reason, pred_structural="", pred_operators="")
        row.update(em=0 if gold.parsed.ok else None, em_spider=0 if gold.parsed.ok else None)
        row.update(dict.fromkeys(("sm", "om", "vm", "pm"), 0.0 if gold.parsed.ok else None))
        row.update(dict.fromkeys(("sm_authors", "om_authors", "vm_authors", "pm_authors"), None))
        row.update(authors_note=reason)
    error, kind = None, None
    if not pred_sql.strip():
        error, kind = "empty prediction", "empty"
    if gold.db_path is not None and gold.result is not None:
        outcomes, pred_result = _execute_pair(gold, pred_sql, options)
        row.update(outcomes)
        if pred_result.error and error is None:
            error, kind = pred_result.error, pred_result.error_kind
    else:
        row.update(va=None, ex=None, ex_spider=None, ex_bird=None, ex_archer=None, ex_official=None)
    if options.neighbours > 0:
        from sqltriage.core.testsuite.match import ts_columns

        row.update(ts_columns(gold, pred_sql, options, row.get("ex_spider")))
    parse_error = row.pop("parse_error")
    if error is None and parse_error is not None:
        error, kind = f"does not parse: {parse_error}", "parse"
    row["error"], row["error_kind"] = error, kind
    row.update(_suggestions(gold, row.pop("_pred_parsed", None) or pred_sql, row, pred_result))
    return row


def _suggestions(gold: GoldContext, pred: Any, row: dict[str, Any], pred_result: Any) -> dict[str, Any]:
    """Suggested causes from the parses and results at hand (no extra parse of gold, no extra run)."""
    import json

    from sqltriage.core.suggest import format_suggested, suggest_causes

    if not gold.parsed.ok:
        return {"suggested": None, "suggested_why": None}
    try:
        found = suggest_causes(
            gold.parsed,
            pred,
            schema=gold.schema,
            evidence=gold.example.evidence,
            gold_result=gold.result,
            pred_result=pred_result,
            ex=row.get("ex"),
            error=row.get("error"),
            tie_sensitive=bool(row.get("tie_sensitive")),
        )
    except Exception:  # advisory only: a query too odd to compare is left unsuggested, the run goes on
        return {"suggested": None, "suggested_why": None}
    return {"suggested": format_suggested(found), "suggested_why": json.dumps([s.as_dict() for s in found])}


Task = tuple[int, bool, tuple[str, ...]]  # (example index, gold still to analyse, models still to evaluate)
ChunkResult = tuple[list[dict], list[dict]]  # example rows, result rows


def _run_chunk(tasks: Sequence[Task]) -> ChunkResult:
    """Evaluate a chunk: for each example, its gold once, then every pending model's prediction."""
    from sqltriage.core.gc_budget import batch_collections

    # Parse trees are cyclic garbage: collected in fewer, larger passes. No parse outlives its chunk
    # (the shared analyses are the chunk's own, and what is read off a parse is kept on it).
    with batch_collections():
        return _evaluate_chunk(tasks)


def _evaluate_chunk(tasks: Sequence[Task]) -> ChunkResult:
    from sqltriage.core.shared_analyses import RecentAnalyses

    dataset: Dataset = _STATE["dataset"]
    options: EvalOptions = _STATE["options"]
    preds: dict[str, tuple[str, ...]] = _STATE["predictions"]
    example_rows: list[dict] = []
    result_rows: list[dict] = []
    gold_memo, pred_memo = RecentAnalyses(), RecentAnalyses()  # repeats are neighbours: one chunk's
    for idx, need_gold, models in tasks:
        gold = gold_context(dataset.examples[idx], dataset, options, _STATE["gold_cache"], gold_memo)
        if options.neighbours > 0 and models and gold.result is not None:
            gold = with_neighbours(gold, dataset, options)
        if need_gold:
            example_rows.append(_gold_row(gold))
        for model in models:
            row = evaluate_pair(gold, preds[model][idx], options, pred_memo)
            row["model"] = model
            result_rows.append(row)
    return example_rows, result_rows


def _drain(
    executor: Executor,
    chunks: Sequence[Sequence[Task]],
    absorb: Callable[[ChunkResult], None],
    cancel: threading.Event | None,
) -> bool:
    """Submit every chunk to `executor` and absorb results as they finish; False when cancelled.

    Any `concurrent.futures.Executor` whose workers ran `_init_worker` will do (see `_chunk_executor`).
    """
    return _wait_all({executor.submit(_run_chunk, chunk) for chunk in chunks}, absorb, cancel)


def _wait_all(futures: set[Future], on_result: Callable[[Any], None], cancel: threading.Event | None) -> bool:
    """Hand each result to `on_result` as it finishes; False (the rest cancelled) when `cancel` is set."""
    try:
        while futures:
            finished, futures = wait(futures, timeout=0.2, return_when=FIRST_COMPLETED)
            for fut in finished:
                on_result(fut.result())
            if cancel is not None and cancel.is_set():
                for fut in futures:
                    fut.cancel()
                return False
    except BaseException:
        for fut in futures:
            fut.cancel()
        raise
    return True


def fill_cached_features(dataset: Dataset, workspace: Workspace, pipeline: str | None) -> str:
    """Copy the dataset's cached question features into the workspace; never computes them.

    "cached" when the workspace holds them (now or already), else "not computed" (the reason for
    the eval report). Computing is `feature_cache.ensure`'s job, outside the metrics' path.
    """
    from sqltriage.core import feature_cache

    if feature_cache.none_anywhere(workspace):
        return "not computed"
    key = feature_cache.feature_key(dataset, pipeline)
    if feature_cache.workspace_has(workspace, key):
        return "cached"
    rows = feature_cache.load_cached(key)
    if rows is None:
        return "not computed"
    feature_cache.write_to_workspace(workspace, feature_cache.FeatureRows(key, rows))
    return "cached"


# --- parent side ---------------------------------------------------------------------------------------


def _chunk_executor(options: EvalOptions, jobs: int, dataset: Dataset, initargs: tuple) -> Executor:
    """Where chunks run: this machine's process pool, or a Dask cluster when `options.cluster` names one.

    Both are `concurrent.futures` executors whose workers run `_init_worker(dataset, *initargs)` before
    their first chunk, so the loop that submits chunks and writes their results is the same for both.
    """
    if options.cluster:
        from sqltriage.core.cluster import open_cluster, with_absolute_paths

        shared = with_absolute_paths(dataset)  # workers open the databases at the paths they are sent
        return open_cluster(options.cluster, _init_worker, (shared, *initargs), shared.databases)
    from sqltriage.core.pool_start import pool_context

    under_app = _stderr_captured()
    context = pool_context(options.start_method)
    if context.get_start_method() == "spawn":
        _ensure_resource_tracker()
    return ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=context,
        initializer=_init_worker,
        initargs=(dataset, *initargs, under_app),
    )


def _pool_min_pairs(options: EvalOptions) -> int:
    """Fewer pairs than this run in this process: a pool's start-up would cost more than it saves."""
    if options.pool_min_pairs is not None:
        return options.pool_min_pairs
    from sqltriage.core.pool_start import pool_min_pairs, start_method

    return pool_min_pairs(start_method(options.start_method))


def _workers_text(pool: Executor, jobs: int, options: EvalOptions) -> str:
    """How the run's chunks were executed, for the report (e.g. "2 forked processes")."""
    if options.cluster:
        return f"Dask cluster {options.cluster}"
    context = getattr(pool, "_mp_context", None)
    method = context.get_start_method() if context is not None else "?"
    return f"{jobs} {'forked' if method == 'fork' else 'spawned'} processes"


def evaluate(
    dataset: Dataset,
    predictions: Sequence[PredictionSet],
    workspace: Workspace,
    options: EvalOptions | None = None,
    *,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
) -> EvalSummary:
    """Bring the workspace up to date for these inputs, doing only the work that is missing."""
    options = options or EvalOptions()
    started = time.perf_counter()
    summary = EvalSummary(workspace.path, [p.name for p in predictions])
    workspace.sync_examples(dataset, base_example_rows)
    if dataset.alternatives_file is not None:  # so that the workspace opened alone reads them again
        workspace.set_meta("alternatives_path", str(dataset.alternatives_file.resolve()))
    key = run_key(dataset, options)
    for position, p in enumerate(predictions):
        texts = [x.sql for x in p.predictions]
        if workspace.register_model(
            p.name, str(p.path), p.format, p.sha256, f"{p.sha256}:{key}", position, texts
        ):
            summary.stale_models.append(p.name)
    done = workspace.done_pairs()
    pending_gold = workspace.pending_gold()
    summary.features = (
        fill_cached_features(dataset, workspace, options.pipeline) if options.features else "off"
    )
    dataset = _with_accepted_alternatives(dataset, workspace)
    tasks: list[Task] = []
    for e in dataset.examples:
        models = tuple(p.name for p in predictions if (p.name, e.index) not in done)
        summary.reused += len(predictions) - len(models)
        if models or e.index in pending_gold:
            tasks.append((e.index, e.index in pending_gold, models))
    total_pairs = sum(len(m) for _, _, m in tasks)

    preds = {p.name: tuple(x.sql for x in p.predictions) for p in predictions}
    jobs = max(1, options.jobs or os.cpu_count() or 1)
    in_process = jobs == 1 or not tasks or total_pairs + len(pending_gold) < _pool_min_pairs(options)
    if options.cluster:  # asked for by name: used whenever there is work, however little
        in_process = not tasks
    chunks = [tasks[i : i + options.chunk_size] for i in range(0, len(tasks), options.chunk_size)]
    report = progress or (lambda stage, d, t: None)
    neighbour_dbs: list[str] = []
    if options.neighbours > 0 and total_pairs:
        needed = {dataset.examples[i].db_id for i, _, models in tasks if models}
        neighbour_dbs = [d for d in dataset.db_ids if d in needed]
        if not options.cluster:  # on a cluster the workers build them (prepare_neighbours_on)
            prepare_neighbours(dataset, neighbour_dbs, options, report, cancel)
    report("evaluate", 0, total_pairs)
    done_pairs = 0

    def absorb(result: ChunkResult) -> None:
        nonlocal done_pairs
        example_rows, result_rows = result
        workspace.write_chunk(example_rows, result_rows)
        done_pairs += len(result_rows)
        summary.computed += len(result_rows)
        report("evaluate", done_pairs, total_pairs)

    if in_process:
        summary.workers = "this process" if tasks else "none"
        _init_worker(dataset, preds, options)
        try:
            for chunk in chunks:
                if cancel is not None and cancel.is_set():
                    summary.cancelled = True
                    break
                absorb(_run_chunk(chunk))
        finally:
            _STATE.clear()
    else:
        pool = _chunk_executor(options, jobs, dataset, (preds, options))
        summary.workers = _workers_text(pool, jobs, options)
        try:
            if options.cluster and neighbour_dbs:
                summary.cancelled = not prepare_neighbours_on(pool, neighbour_dbs, report, cancel)
            if not summary.cancelled:
                summary.cancelled = not _drain(pool, chunks, absorb, cancel)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True, cancel_futures=True)
    if not summary.cancelled:
        workspace.set_meta(NEIGHBOURS_META, f"{options.neighbours}:{options.seed}")
    summary.elapsed = time.perf_counter() - started
    return summary


def execution_verdicts(gold: GoldContext, pred_sql: str, options: EvalOptions) -> dict[str, Any]:
    """The execution columns of one prediction exactly as an evaluation stores them.

    Public for re-scoring one example when its accepted alternatives change (core/alternatives.py), so
    that a re-score and an evaluation can never disagree.
    """
    return _execute_pair(gold, pred_sql, options)[0]
