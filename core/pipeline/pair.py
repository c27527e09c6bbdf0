"""One example against one prediction: the gold's context (parse, results, audit) and every metric of the pair.

Pure of any run state: the evaluation (core/pipeline/evaluate.py) calls these in its workers, and
re-scoring one example after its accepted golds change (core/triage/accepted_gold.py) calls
`execution_verdicts`, so a re-score and an evaluation can never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqltriage.core.model import Dataset, Example, Schema
from sqltriage.core.verdicts.ex_modes import DEFAULT_MODE, EX_MODES

if TYPE_CHECKING:  # types only: a pair imports what it uses where it uses it (no sqlglot for nothing to do)
    from collections.abc import Sequence

    from sqltriage.core.pipeline.options import EvalOptions
    from sqltriage.core.pipeline.shared_analyses import QueryAnalysis, RecentAnalyses
    from sqltriage.core.questions.reasoning import Reasoning
    from sqltriage.core.sql.categories import QueryCategories, Subquery
    from sqltriage.core.sql.parse import ParsedQuery
    from sqltriage.core.verdicts.exec_result import ExecResult
    from sqltriage.core.verdicts.execution import GoldResultCache
    from sqltriage.core.verdicts.gold_audit import GoldAudit
    from sqltriage.core.verdicts.testsuite.match import NeighbourGold


# --- example rows ----------------------------------------------------------------------------------------------


def base_example_rows(dataset: Dataset) -> list[dict[str, Any]]:
    from sqltriage.core.questions.reasoning import reasoning_label

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


def annotated_reasoning(example: Example) -> Reasoning:
    """The reasoning that needs no SQL parse (annotations, evidence); inference waits for the gold parse."""
    from sqltriage.core.questions.reasoning import Reasoning, reasoning_for

    if example.reasoning:
        return reasoning_for(example)
    return Reasoning((), False, bool(example.evidence), example.commonsense)


@dataclass(frozen=True, slots=True)
class GoldContext:
    """What every model's row needs from one example's gold query, computed once."""

    example: Example
    schema: Schema | None
    db_path: Path | None
    parsed: ParsedQuery
    subs: tuple[Subquery, ...]  # categories.subqueries() of the gold
    result: ExecResult | None  # None when the database is missing
    spider_result: ExecResult | None  # of the text the official Spider evaluator runs (DISTINCT removed, ...)
    official_result: ExecResult | None = None  # for `ex_official`: the gold's line as its evaluator reads it
    audit: GoldAudit | None = None  # why this gold is suspect, and the tie at its LIMIT if any
    alternatives: tuple[AlternativeGold, ...] = ()  # one per alternative gold query of the example
    neighbours: tuple[NeighbourGold, ...] = ()  # one per neighbour database, for `ex_ts`
    ts_problem: str | None = None  # why this example's database has no neighbours
    ex_mode: str = "spider"  # the dataset's own EX: what its suggestions must respect
    schema_dbs: tuple[Path, ...] = ()  # databases generated from the schema when the file is missing
    db_golds: tuple[str, ...] = ()  # every gold query of the example's database: `--verify` mines its keys


@dataclass(frozen=True, slots=True)
class AlternativeGold:
    """One alternative gold query of an example and its results (as written, and as Spider runs it)."""

    label: str  # "alternative N" (dataset) or "accepted N" (app)
    sql: str
    result: ExecResult
    spider_result: ExecResult  # of spider_sql(sql)


def gold_context(
    example: Example,
    dataset: Dataset,
    options: EvalOptions,
    cache: GoldResultCache | None = None,
    analyses: RecentAnalyses | None = None,
) -> GoldContext:
    """`analyses`, when given, shares the parse of a gold query (and what
    is read off it: audit, categories) between the examples that ask it of the same database."""
    from sqltriage.core.pipeline.shared_analyses import RecentAnalyses
    from sqltriage.core.verdicts.exec_compare import spider_sql
    from sqltriage.core.verdicts.execution import execute
    from sqltriage.core.verdicts.official_ex import official_gold_text

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
        from sqltriage.core.verdicts.gold_audit import audit_gold

        # kept on the parse: an example asking the same text of the same file gets the same audit
        audit = parsed.derived(
            ("gold_audit", str(db_path), options.timeout, options.max_rows),
            lambda: audit_gold(
                example.gold_sql, result, lambda q: run(db_path, q, options.timeout, options.max_rows), parsed
            ),
        )
    alternatives: list[AlternativeGold] = []
    if db_path is not None and (example.alternatives or example.accepted):
        from sqltriage.core.datasets.alternatives import labelled

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
        ex_mode=dataset.format if dataset.format in EX_MODES else DEFAULT_MODE,
        schema_dbs=schema_databases(example.db_id, dataset, options) if db_path is None else (),
    )


_SCHEMA_DBS: dict[tuple[str, ...], tuple[Path, ...]] = {}


def schema_databases(db_id: str, dataset: Dataset, options: EvalOptions) -> tuple[Path, ...]:
    """Databases generated from the schema of a database whose file is missing, planted from the golds of
    its examples: built once into the cache folder, read once per process. Empty when there is no schema or
    generation fails (the suggestions then rest on structure alone)."""
    from sqltriage.core.verdicts.testsuite.cache import default_cache_root, gold_digest

    golds = [e.gold_sql for e in dataset.examples if e.db_id == db_id]
    root = Path(options.neighbour_cache) if options.neighbour_cache else None
    schema = dataset.schemas.get(db_id)
    # Everything the databases depend on, the cache folder as resolved now included: a process that
    # evaluates another dataset at the same path, or under another cache, never reads earlier paths.
    key = (str(dataset.path), db_id, gold_digest(golds), repr(schema), str(root or default_cache_root()))
    if key not in _SCHEMA_DBS:
        paths: tuple[Path, ...] = ()
        if schema is not None and schema.tables:
            from sqltriage.core.verdicts.testsuite.from_schema import schema_neighbours

            try:
                paths = tuple(schema_neighbours(schema, golds, cache_root=root))
            except Exception:  # advisory evidence: a schema that cannot be imitated leaves structure alone
                paths = ()
        _SCHEMA_DBS[key] = paths
    return _SCHEMA_DBS[key]


def _analyse_gold(gold_sql: str, schema: Schema | None) -> QueryAnalysis:
    """A gold query's parse and subqueries; one too deep or large to walk is unparsed, not fatal."""
    from sqltriage.core.pipeline.shared_analyses import QueryAnalysis
    from sqltriage.core.sql.parse import ParsedQuery

    try:
        return _analyse_query(gold_sql, schema)
    except (RecursionError, MemoryError, ValueError) as exc:
        return QueryAnalysis(ParsedQuery(gold_sql, None, f"cannot be analysed ({type(exc).__name__})"), ())


def _analyse_query(sql: str, schema: Schema | None) -> QueryAnalysis:
    """A query's parse and subqueries; raises where the walk cannot go."""
    from sqltriage.core.pipeline.shared_analyses import QueryAnalysis
    from sqltriage.core.sql.categories import subqueries
    from sqltriage.core.sql.parse import parse_sql

    parsed = parse_sql(sql, schema)
    return QueryAnalysis(parsed, subqueries(parsed, schema) if parsed.ok else ())


def gold_row(gold: GoldContext) -> dict[str, Any]:
    from sqltriage.core.questions.reasoning import reasoning_for, reasoning_label

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


def _categories(parsed: ParsedQuery, schema: Schema | None, subs: tuple[Subquery, ...]) -> QueryCategories:
    """A query's categories, read once per parse (`subs` are the parse's own subqueries)."""
    from sqltriage.core.sql.categories import categorize

    return parsed.derived(("categories", schema), lambda: categorize(parsed, schema, subs=subs))


def _analyse_pair(gold: GoldContext, pred_sql: str, analyses: RecentAnalyses | None = None) -> dict[str, Any]:
    """Parse-based metrics: categories, exact match, partial match.

    `analyses` shares a prediction's parse (and what is read off it)
    with the neighbouring examples that predict the same text on the same database.
    """
    from sqltriage.core.pipeline.shared_analyses import RecentAnalyses
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


def _execute_pair(
    gold: GoldContext, pred_sql: str, options: EvalOptions
) -> tuple[dict[str, Any], ExecResult]:
    from sqltriage.core.verdicts.exec_compare import spider_sql
    from sqltriage.core.verdicts.execution import execute
    from sqltriage.core.verdicts.official_ex import official_outcome, official_pred_text
    from sqltriage.core.verdicts.pair_run import execution_outcomes

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
        from sqltriage.core.verdicts.gold_audit import tie_sensitive

        outcomes["tie_sensitive"] = int(tie_sensitive(tie, gold.result.rows, pred_result.rows))
    outcomes["pred_elapsed"] = pred_result.elapsed
    outcomes["truncated"] = int(pred_result.truncated)
    return outcomes, pred_result


def _match_alternatives(
    outcomes: dict[str, Any],
    alternatives: Sequence[AlternativeGold],
    pred: ExecResult,
    pred_spider: ExecResult,
) -> None:
    """EX passes when any alternative gold matches: each mode not passed yet is tried on each alternative.

    `gold_match` names the gold the default mode (`ex`) matched. `ex_official` keeps the official
    single-gold verdict, as the official evaluator has no alternatives.
    """
    from sqltriage.core.datasets.alternatives import OFFICIAL_QUIRK
    from sqltriage.core.verdicts.pair_run import execution_outcomes

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
    gold: GoldContext, pred_sql: str, options: EvalOptions, analyses: RecentAnalyses | None = None
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
        from sqltriage.core.verdicts.testsuite.match import ts_columns

        row.update(ts_columns(gold, pred_sql, options, row))
    if options.verify:
        from sqltriage.core.verdicts.verify.columns import verify_columns

        row.update(
            verify_columns(
                gold.example.gold_sql,
                pred_sql,
                gold.db_path if gold.result is not None and gold.result.ok else None,
                row,
                bound=options.verify_bound,
                timeout=options.verify_timeout,
                foreign_keys=gold.schema.foreign_keys if gold.schema is not None else (),
                primary_keys=gold.schema.primary_keys if gold.schema is not None else (),
                golds=gold.db_golds,
                neighbour_cache=options.neighbour_cache,
            )
        )
    parse_error = row.pop("parse_error")
    if error is None and parse_error is not None:
        error, kind = f"does not parse: {parse_error}", "parse"
    row["error"], row["error_kind"] = error, kind
    row.update(_suggestions(gold, row.pop("_pred_parsed", None) or pred_sql, row, pred_result))
    return row


# Suggestions of the latest (gold, prediction) pairs: systems often predict the same text for an example,
# and paraphrased neighbours share gold and predictions (8272 Spider dev × 8 rows hold 5796 distinct pairs).
# The same texts on the same database give the same results, verdict and error, so the same suggestions.
_SUGGESTED: dict[tuple, dict[str, Any]] = {}
_SUGGESTED_KEPT = 64


def _suggestions(
    gold: GoldContext, pred: str | ParsedQuery, row: dict[str, Any], pred_result: ExecResult | None
) -> dict[str, Any]:
    """Suggested causes from the parses and results at hand (no extra parse of gold, no extra run), once per
    distinct pair among the latest."""
    if not gold.parsed.ok:
        return {"suggested": None, "suggested_why": None}
    ex = row.get(f"ex_{gold.ex_mode}")
    tie, error = bool(row.get("tie_sensitive")), row.get("error")
    pred_text = pred if isinstance(pred, str) else pred.sql
    where = (gold.example.db_id, gold.db_path, gold.schema_dbs, gold.example.evidence, gold.ex_mode)
    em = row.get("em")
    key = (gold.parsed.sql, *where, pred_text, ex, error, tie, em)
    found = _SUGGESTED.get(key)
    if found is None:
        found = _suggest(gold, pred, pred_result, ex, error, tie, em)
        if len(_SUGGESTED) >= _SUGGESTED_KEPT:
            del _SUGGESTED[next(iter(_SUGGESTED))]
        _SUGGESTED[key] = found
    return dict(found)


def _suggest(
    gold: GoldContext,
    pred: str | ParsedQuery,
    pred_result: ExecResult | None,
    ex: int | None,
    error: str | None,
    tie: bool,
    em: int | None,
) -> dict[str, Any]:
    import json

    from sqltriage.core.suggest import format_suggested, suggest_causes

    try:
        found = suggest_causes(
            gold.parsed,
            pred,
            schema=gold.schema,
            evidence=gold.example.evidence,
            gold_result=gold.result,
            pred_result=pred_result,
            ex=ex,
            error=error,
            tie_sensitive=tie,
            ex_mode=gold.ex_mode,
            databases=gold.schema_dbs,
            exact_match=em == 1,
        )
    except Exception:  # advisory only: a query too odd to compare is left unsuggested, the run goes on
        return {"suggested": None, "suggested_why": None}
    if not found:  # most rows: nothing to encode
        return {"suggested": "", "suggested_why": "[]"}
    return {"suggested": format_suggested(found), "suggested_why": json.dumps([s.as_dict() for s in found])}


def execution_verdicts(gold: GoldContext, pred_sql: str, options: EvalOptions) -> dict[str, Any]:
    """The execution columns of one prediction exactly as an evaluation stores them.

    Public for re-scoring one example when its accepted alternatives change (core/triage/accepted_gold.py), so
    that a re-score and an evaluation can never disagree.
    """
    return _execute_pair(gold, pred_sql, options)[0]
