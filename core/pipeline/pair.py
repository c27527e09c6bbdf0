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
    from sqltriage.core.pipeline.options import EvalOptions
    from sqltriage.core.pipeline.shared_analyses import QueryAnalysis, RecentAnalyses
    from sqltriage.core.questions.reasoning import Reasoning
    from sqltriage.core.sql.categories import QueryCategories, Subquery
    from sqltriage.core.sql.parse import ParsedQuery
    from sqltriage.core.verdicts.exec_result import ExecResult
    from sqltriage.core.verdicts.execution import GoldResultCache
    from sqltriage.core.verdicts.gold_audit import GoldAudit
    from sqltriage.core.verdicts.pair_run import GoldRun, Limits, Runner
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
    run: GoldRun  # the gold, its alternative and accepted golds and its audit, run once (verdicts/pair_run)
    neighbours: tuple[NeighbourGold, ...] = ()  # one per neighbour database, for `ex_ts`
    ts_problem: str | None = None  # why this example's database has no neighbours
    ex_mode: str = "spider"  # the dataset's own EX: what its suggestions must respect
    schema_dbs: tuple[Path, ...] = ()  # databases generated from the schema when the file is missing
    db_golds: tuple[str, ...] = ()  # every gold query of the example's database: `--verify` mines its keys

    @property
    def result(self) -> ExecResult | None:
        """The gold's result as written; None when the database is missing."""
        return self.run.result

    @property
    def audit(self) -> GoldAudit | None:
        """Why this gold is suspect, and the tie at its LIMIT if any."""
        return self.run.audit


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
    from sqltriage.core.verdicts.pair_run import run_gold

    schema = dataset.schemas.get(example.db_id)
    db_path = dataset.db_path(example.db_id)
    memo: RecentAnalyses = analyses if analyses is not None else RecentAnalyses()
    known: QueryAnalysis = memo.analysis(
        (example.gold_sql, example.db_id), lambda: _analyse_gold(example.gold_sql, schema)
    )
    parsed, subs = known.parsed, known.subs

    def audit(result: ExecResult, run: Runner) -> GoldAudit:
        from sqltriage.core.verdicts.gold_audit import audit_gold

        # kept on the parse: an example asking the same text of the same file gets the same audit
        return parsed.derived(
            ("gold_audit", str(db_path), options.timeout, options.max_rows),
            lambda: audit_gold(example.gold_sql, result, run, parsed),
        )

    others: list[tuple[str, str]] = []
    if example.alternatives or example.accepted:
        from sqltriage.core.datasets.alternatives import labelled

        others = labelled(example.alternatives, example.accepted)
    gold = run_gold(
        db_path, example.gold_sql, limits=limits_of(options), others=others, cache=cache, audit=audit
    )
    return GoldContext(
        example,
        schema,
        db_path,
        parsed,
        subs,
        gold,
        ex_mode=dataset.format if dataset.format in EX_MODES else DEFAULT_MODE,
        schema_dbs=schema_databases(example.db_id, dataset, options) if db_path is None else (),
    )


_SCHEMA_DBS: dict[tuple[str, ...], tuple[Path, ...]] = {}


def schema_databases(db_id: str, dataset: Dataset, options: EvalOptions) -> tuple[Path, ...]:
    """Databases generated from the schema of a database whose file is missing, planted from the golds of
    its examples: built once into the cache folder, read once per process. Empty when there is no schema or
    generation fails (the suggestions then rest on structure alone)."""
    from sqltriage.core.verdicts.testsuite.cache import default_cache_root

    root = Path(options.neighbour_cache) if options.neighbour_cache else None
    schema = dataset.schemas.get(db_id)
    # Everything the databases depend on, the cache folder as it is now included: a process that evaluates
    # another dataset at the same path, or under another cache, never reads earlier paths.
    key = (str(dataset.path), db_id, _inputs_digest(dataset, db_id), str(root or default_cache_root()))
    if key not in _SCHEMA_DBS:
        golds = [e.gold_sql for e in dataset.examples if e.db_id == db_id]
        paths: tuple[Path, ...] = ()
        if schema is not None and schema.tables:
            from sqltriage.core.verdicts.testsuite.from_schema import schema_neighbours

            try:
                paths = tuple(schema_neighbours(schema, golds, cache_root=root))
            except Exception:  # advisory evidence: a schema that cannot be imitated leaves structure alone
                paths = ()
        _SCHEMA_DBS[key] = paths
    return _SCHEMA_DBS[key]


# A database's golds and schema digested once per dataset object (kept alive with its digests, so its id
# stays its own): the schema databases are looked up for every example of a database without a file.
_DIGESTS: dict[int, tuple[Dataset, dict[str, str]]] = {}


def _inputs_digest(dataset: Dataset, db_id: str) -> str:
    from sqltriage.core.verdicts.testsuite.cache import gold_digest

    kept = _DIGESTS.get(id(dataset))
    if kept is None:
        if len(_DIGESTS) >= 8:
            _DIGESTS.clear()
        kept = _DIGESTS[id(dataset)] = (dataset, {})
    digests = kept[1]
    if db_id not in digests:
        golds = [e.gold_sql for e in dataset.examples if e.db_id == db_id]
        digests[db_id] = f"{gold_digest(golds)}:{hash(repr(dataset.schemas.get(db_id)))}"
    return digests[db_id]


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
        "gold_lints": _lints(gold.parsed, gold.schema, gold.example.question),
    }


def _lints(parsed: ParsedQuery | None, schema: Schema | None, question: str) -> str | None:
    """The query's lint ids (docs/lints.md) read off its parse, once per parse and question (paraphrases
    share a gold's parse); None when it has no tree to read."""
    if parsed is None or parsed.tree is None:
        return None
    from sqltriage.core.sql.lints import format_lints, lint_query

    tree = parsed.tree
    return parsed.derived(
        ("lints", schema, question), lambda: format_lints(lint_query(tree, schema, question))
    )


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


def limits_of(options: EvalOptions) -> Limits:
    """How the run's queries run and compare: the one record every executor of a pair takes."""
    from sqltriage.core.verdicts.pair_run import Limits

    return Limits(options.timeout, options.max_rows)


def _execute_pair(
    gold: GoldContext, pred_sql: str, options: EvalOptions
) -> tuple[dict[str, Any], ExecResult]:
    from sqltriage.core.verdicts.pair_run import run_prediction

    run = run_prediction(gold.run, pred_sql, limits=limits_of(options))
    return dict(run.outcomes), run.pred


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
    row["pred_lints"] = _lints(row.get("_pred_parsed"), gold.schema, gold.example.question)
    error, kind = None, None
    if not pred_sql.strip():
        error, kind = "empty prediction", "empty"
    if gold.db_path is not None and gold.result is not None:
        outcomes, pred_result = _execute_pair(gold, pred_sql, options)
        row.update(outcomes)
        from sqltriage.core.pipeline.minidev_columns import minidev_columns

        row.update(
            minidev_columns(gold.db_path, gold.example.gold_sql, gold.result, pred_sql, pred_result, options)
        )
        if pred_result.error and error is None:
            error, kind = pred_result.error, pred_result.error_kind
    else:
        row.update(va=None, ex=None, ex_spider=None, ex_bird=None, ex_archer=None, ex_official=None)
    if options.neighbours > 0:
        from sqltriage.core.verdicts.testsuite.match import ts_columns

        row.update(ts_columns(gold, pred_sql, options, row))
        if gold.db_path is None and gold.schema_dbs:  # no file: the databases generated from the schema
            from sqltriage.core.verdicts.judgement.schema_only import schema_columns

            row.update(
                schema_columns(
                    gold.example.gold_sql,
                    pred_sql,
                    (gold.parsed, row.get("_pred_parsed")),
                    gold.schema,
                    gold.schema_dbs,
                    mode=gold.ex_mode,
                    timeout=options.timeout,
                    max_rows=options.max_rows,
                )
            )
    if options.verify:
        from sqltriage.core.verdicts.verify.columns import verify_columns

        row.update(
            verify_columns(
                gold.example.gold_sql,
                pred_sql,
                _file(gold.db_path) if gold.result is not None and gold.result.ok else None,
                row,
                bound=options.verify_bound,
                timeout=options.verify_timeout,
                foreign_keys=gold.schema.foreign_keys if gold.schema is not None else (),
                primary_keys=gold.schema.primary_keys if gold.schema is not None else (),
                golds=gold.db_golds,
                neighbour_cache=options.neighbour_cache,
            )
        )
    # no file: what the generated databases could not tell apart, from the declared schema alone
    if options.verify and gold.db_path is None and gold.schema_dbs:
        from sqltriage.core.verdicts.judgement.schema_only import schema_proof

        row.update(
            schema_proof(
                gold.example.gold_sql,
                pred_sql,
                gold.schema,
                gold.schema_dbs,
                row,
                mode=gold.ex_mode,
                bound=options.verify_bound,
                timeout=options.verify_timeout,
                exec_timeout=options.timeout,
                max_rows=options.max_rows,
                neighbour_cache=options.neighbour_cache,
            )
        )
    parse_error = row.pop("parse_error")
    if error is None and parse_error is not None:
        error, kind = f"does not parse: {parse_error}", "parse"
    row["error"], row["error_kind"] = error, kind
    row.update(_judgement_inputs(gold, pred_sql, row, pred_result, options))
    row.update(_suggestions(gold, row.pop("_pred_parsed", None) or pred_sql, row, pred_result))
    return row


def _judgement_inputs(
    gold: GoldContext,
    pred_sql: str,
    row: dict[str, Any],
    pred_result: ExecResult | None,
    options: EvalOptions,
) -> dict[str, Any]:
    """What the judgement reads of this row's databases (verdicts/judgement/columns.py); the judgement
    itself is made once every model's row of the example is in (pipeline/judging.py)."""
    from functools import partial

    from sqltriage.core.verdicts.judgement.columns import judgement_columns
    from sqltriage.core.verdicts.judgement.realistic import other_witnesses

    others = partial(
        other_witnesses,
        gold.example.gold_sql,
        pred_sql,
        gold.neighbours,
        skip=str(row.get("ts_witness")),
        timeout=options.timeout,
        max_rows=options.max_rows,
        extra_foreign_keys=gold.schema.foreign_keys if gold.schema is not None else (),
    )
    found = judgement_columns(
        gold.example.gold_sql,
        pred_sql,
        _file(gold.db_path),
        row,
        gold.result,
        pred_result,
        mode=gold.ex_mode,
        timeout=options.timeout,
        max_rows=options.max_rows,
        others=others if gold.neighbours and _file(gold.db_path) is not None else None,
    )
    # what the databases generated from the schema found (no file: schema_only.py) is kept
    return {k: v for k, v in found.items() if v is not None or row.get(k) is None}


def _file(db: Path | None) -> Path | None:
    """The SQLite file, None for a database on a server (`--db-url`): the solver and the judgement's
    witnesses keep SQLite semantics and run on SQLite files only (`ex_ts` runs on the server's copies of
    the neighbours: engines/replay.py)."""
    return db if isinstance(db, Path) else None


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
    witness = _refuting_witness(row, ex)
    key = (gold.parsed.sql, *where, pred_text, ex, error, tie, em, witness)
    found = _SUGGESTED.get(key)
    if found is None:
        found = _suggest(gold, pred, pred_result, ex, error, tie, em, witness)
        if len(_SUGGESTED) >= _SUGGESTED_KEPT:
            del _SUGGESTED[next(iter(_SUGGESTED))]
        _SUGGESTED[key] = found
    return dict(found)


def _refuting_witness(row: dict[str, Any], ex: int | None) -> Path | None:
    """The realistic database the judgement found telling an EX pass (or a row without a database file)
    apart from its gold, for the suggestions to read; None when there is none or it needs an assumption."""
    if ex == 0:
        return None  # the dataset's own database already tells them apart: its results are read
    if row.get("refutation_witness"):
        return Path(row["refutation_witness"])
    if row.get("refutation_assumption") == "none" and row.get("ts_witness"):
        return Path(row["ts_witness"])
    return None


def _suggest(
    gold: GoldContext,
    pred: str | ParsedQuery,
    pred_result: ExecResult | None,
    ex: int | None,
    error: str | None,
    tie: bool,
    em: int | None,
    witness: Path | None = None,
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
            witness=witness,
            question=gold.example.question,
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
