"""The evaluation pipeline: dataset × models → one evaluation per (example, model), streamed into a workspace.

Work is split into chunks of examples; each gold query is parsed and executed once per chunk for every
model; chunks run in worker processes (both cores) and each finished chunk is written in one transaction,
so an interrupted run keeps what it finished and the next run does only the rest.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqltriage.core.model import Dataset, Prediction, PredictionSet
from sqltriage.core.pipeline.options import (
    NEIGHBOURS_META,
    VERIFY_META,
    EvalOptions,
)  # (also found here by callers)
from sqltriage.core.pipeline.pair import (
    GoldContext,
    base_example_rows,
    evaluate_pair,
    gold_context,
    gold_row,
)
from sqltriage.core.processes import die_with_parent, ensure_resource_tracker, quiet_worker, stderr_captured
from sqltriage.core.verdicts.ex_modes import DEFAULT_MODE, EX_MODES
from sqltriage.core.verdicts.execution import file_digest
from sqltriage.core.workspace.store import Workspace, dataset_fingerprint

if TYPE_CHECKING:  # types only: the engines are imported where a run is on a server
    from sqltriage.core.engines.registry import Database

Progress = Callable[[str, int, int], None]  # (stage, done, total)


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


def run_key(dataset: Dataset, options: EvalOptions) -> str:
    """What every model's results depend on besides its own file: the dataset, the databases, the options."""
    h = hashlib.sha256(dataset_fingerprint(dataset).encode())
    h.update(options.result_key().encode())
    for db_id in sorted(dataset.databases):
        path = dataset.databases[db_id]
        digest = "-" if path is None else file_digest(path) if isinstance(path, Path) else path.fingerprint
        h.update(f"{db_id}={digest};".encode())
    return h.hexdigest()


def _with_accepted_alternatives(dataset: Dataset, workspace: Workspace) -> Dataset:
    """The dataset with the alternatives accepted in the app (kept in the workspace) on its examples."""
    from sqltriage.core.workspace.accepted import accepted

    taken = accepted(workspace)
    if not taken:
        return dataset
    examples = tuple(replace(e, accepted=taken[e.index]) if e.index in taken else e for e in dataset.examples)
    return replace(dataset, examples=examples)


# --- worker side ---------------------------------------------------------------------------------------

_STATE: dict[str, Any] = {}


Predicted = str | Prediction  # a bare SQL text, or a prediction read from responses (pipeline/candidates.py)


def _init_worker(
    dataset: Dataset,
    predictions: dict[str, tuple[Predicted, ...]],
    options: EvalOptions,
    quiet: bool = False,
    parent_pid: int | None = None,
) -> None:
    from sqltriage.core.verdicts.execution import GoldResultCache

    if parent_pid is not None:  # a pool worker of this machine (a Dask worker has its own parent)
        die_with_parent(parent_pid, thread_safe=True)  # the pool lives within one call of `evaluate`
    if quiet:
        quiet_worker()
    from sqltriage.core.sql.parse import use_dialect

    use_dialect(options.dialect)

    # What the last run memoised for its dataset and options (the neighbour sets, a database's golds) is
    # not this run's: a Dask worker lives on from one run to the next.
    for memo in ("neighbours", "replayed", "db_golds"):
        _STATE.pop(memo, None)
    _STATE.update(dataset=dataset, predictions=predictions, options=options, gold_cache=GoldResultCache())


def with_neighbours(gold: GoldContext, dataset: Dataset, options: EvalOptions) -> GoldContext:
    """The gold context with its results on the database's neighbours (built once per process and db)."""
    from sqltriage.core.verdicts.testsuite.match import neighbour_golds

    paths, problem = neighbours_of(gold.example.db_id, dataset, options)
    if problem is not None:
        return replace(gold, ts_problem=problem)
    places = None
    if not isinstance(dataset.db_path(gold.example.db_id), Path):  # on a server: its copies of them
        places, problem = replayed_neighbours(gold.example.db_id, dataset, options)
        if problem is not None:
            return replace(gold, ts_problem=problem)
    # No shared gold cache here: each neighbour's result is kept by its NeighbourGold, and hashing every
    # neighbour file for a cache key would cost more than the few duplicated gold queries it would save.
    golds = neighbour_golds(gold.example.gold_sql, paths, None, options.timeout, options.max_rows, places)
    return replace(gold, neighbours=golds)


def replayed_neighbours(
    db_id: str, dataset: Dataset, options: EvalOptions
) -> tuple[list[Database], str | None]:
    """The neighbours of a database on a server, loaded there (engines/replay.py; memoised for the run like
    `neighbours_of`), or the reason they cannot be."""
    from sqltriage.core.engines.refs import parse_url
    from sqltriage.core.engines.replay import ReplayError, replay

    paths, problem = neighbours_of(db_id, dataset, options)
    if problem is not None:
        return [], problem
    memo: dict[tuple, tuple[list[Database], str | None]] = _STATE.setdefault("replayed", {})
    key = (db_id, tuple(map(str, paths)), options.scratch_url)
    if key not in memo:
        loader = parse_url(options.scratch_url) if options.scratch_url else None
        try:
            db: Any = dataset.db_path(db_id)  # a server database (`registry.Database`) where a Path stood
            memo[key] = (replay(paths, db, loader), None)
        except ReplayError as exc:
            memo[key] = ([], str(exc))
    return memo[key]


def db_golds(db_id: str, dataset: Dataset) -> tuple[str, ...]:
    """The gold queries of one database (memoised for the run): the neighbours are built from them, and
    `--verify` keeps what they keep (verify/practice.py)."""
    memo: dict[str, tuple[str, ...]] = _STATE.setdefault("db_golds", {})
    if db_id not in memo:
        memo[db_id] = tuple(sorted({e.gold_sql for e in dataset.examples if e.db_id == db_id}))
    return memo[db_id]


def neighbours_of(db_id: str, dataset: Dataset, options: EvalOptions) -> tuple[list[Path], str | None]:
    """The neighbour files of one database (memoised for the run: `_init_worker` starts each run without
    the last one's), or the reason there are none. Keyed on the file, K, the seed and the cache folder as
    they are now, so a process that changes its cache between runs never reads an earlier set's paths."""
    from sqltriage.core.verdicts.testsuite import NeighbourError, ensure_neighbours
    from sqltriage.core.verdicts.testsuite.cache import default_cache_root

    db_path = dataset.db_path(db_id)
    root = Path(options.neighbour_cache) if options.neighbour_cache else None
    key = (db_id, str(db_path), options.neighbours, options.seed, str(root or default_cache_root()))
    memo: dict[tuple, tuple[list[Path], str | None]] = _STATE.setdefault("neighbours", {})
    if key not in memo:
        schema = dataset.schemas.get(db_id)
        golds = [e.gold_sql for e in dataset.examples if e.db_id == db_id]
        try:
            if db_path is None:
                raise NeighbourError("the database is missing")
            source = db_path if isinstance(db_path, Path) else _server_copy(db_id, db_path, dataset, root)
            paths = ensure_neighbours(
                source,
                golds,
                options.neighbours,
                options.seed,
                root,
                foreign_keys=schema.foreign_keys if schema is not None else (),
                primary_keys=schema.primary_keys if schema is not None else (),
            )
            memo[key] = (paths, None)
            if paths:  # while this process reads the set, pruning the cache passes it over
                from sqltriage.core.cache.use import in_use

                _STATE.setdefault("in_use", []).append(in_use(paths[0].parent))
        except NeighbourError as exc:
            memo[key] = ([], str(exc))
        except Exception as exc:  # a database we cannot imitate is a reason on its rows
            memo[key] = ([], f"generation failed ({type(exc).__name__}: {exc})")
    return memo[key]


def _server_copy(db_id: str, db: Database, dataset: Dataset, root: Path | None) -> Path:
    """The server database as a SQLite file to generate neighbours from (engines/replay.py): the tables
    of `db_id`'s schema only when one server database holds every db_id's."""
    from sqltriage.core.engines.replay import ReplayError, server_copy
    from sqltriage.core.verdicts.testsuite import NeighbourError
    from sqltriage.core.verdicts.testsuite.cache import default_cache_root

    server = db.ref.server
    schema = dataset.schemas.get(db_id)
    tables = None
    if server is not None and not server.per_db_id and schema is not None:
        tables = {t.name.lower() for t in schema.tables}
    try:
        return server_copy(db, root or default_cache_root(), tables)
    except ReplayError as exc:
        raise NeighbourError(str(exc)) from None


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
    try:
        for done, db_id in enumerate(db_ids):
            report("neighbours", done, len(db_ids))
            if cancel is not None and cancel.is_set():
                return
            if isinstance(dataset.db_path(db_id), Path):
                neighbours_of(db_id, dataset, options)
            else:  # loaded into the server once, here, before the workers look for them
                replayed_neighbours(db_id, dataset, options)
        report("neighbours", len(db_ids), len(db_ids))
    finally:
        for memo in ("neighbours", "replayed"):  # the parent's, finished or cancelled: workers keep their own
            _STATE.pop(memo, None)


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


Task = tuple[int, bool, tuple[str, ...]]  # (example index, gold still to analyse, models still to evaluate)
ChunkResult = tuple[list[dict], list[dict]]  # example rows, result rows


def chunked(tasks: Sequence[Task], dataset: Dataset, size: int) -> list[list[Task]]:
    """The tasks grouped by chunks of the dataset's examples (`example_chunks`), in order, empty ones left out.

    The boundaries are drawn over every example, whatever is pending: a chunk holds the same examples in
    every run, resumed or not, on any number of workers. What a process keeps from one pair for the next
    (the verifier's refutations, tried on the next predictions) is forgotten between chunks, so every row
    depends on its chunk's inputs alone, never on which chunks a worker ran before."""
    by_index = {task[0]: task for task in tasks}
    chunks = [[by_index[i] for i in group if i in by_index] for group in example_chunks(dataset, size)]
    return [chunk for chunk in chunks if chunk]


def example_chunks(dataset: Dataset, size: int) -> list[list[int]]:
    """Chunks of `size` example indices, a chunk running on past its size while the next example has the
    same gold on the same database: paraphrased questions sit side by side and share gold and often
    predictions, and what a process keeps of a pair (analyses, verdicts, a gold's encodings and
    refutations) is then kept where the next example needs it. Split, the second of the two redid it in
    another process (25 of Spider dev's 43 chunk boundaries fell between two such examples). At most
    4 × `size`, so that one gold asked a hundred ways still gives chunks to share out and progress to report."""
    chunks: list[list[int]] = []
    previous: tuple[str, str] | None = None
    for e in dataset.examples:
        gold = (e.db_id, e.gold_sql)
        last = chunks[-1] if chunks else []
        if last and (len(last) < size or (len(last) < 4 * size and previous == gold)):
            last.append(e.index)
        else:
            chunks.append([e.index])
        previous = gold
    return chunks


def _run_chunk(tasks: Sequence[Task]) -> ChunkResult:
    """Evaluate a chunk: for each example, its gold once, then every pending model's prediction."""
    from sqltriage.core.pipeline.gc_budget import batch_collections

    # Parse trees are cyclic garbage: collected in fewer, larger passes. No parse outlives its chunk
    # (the shared analyses are the chunk's own, and what is read off a parse is kept on it).
    with batch_collections():
        return _evaluate_chunk(tasks)


def _evaluate_chunk(tasks: Sequence[Task]) -> ChunkResult:
    from sqltriage.core.pipeline.shared_analyses import RecentAnalyses

    dataset: Dataset = _STATE["dataset"]
    options: EvalOptions = _STATE["options"]
    preds: dict[str, tuple[Predicted, ...]] = _STATE["predictions"]
    if options.verify:  # refutations are tried on the next pairs within a chunk only (see `chunked`)
        from sqltriage.core.verdicts.verify.columns import forget_reuse

        forget_reuse()
    example_rows: list[dict] = []
    result_rows: list[dict] = []
    gold_memo, pred_memo = RecentAnalyses(), RecentAnalyses()  # repeats are neighbours: one chunk's
    runs: dict = {}  # candidates' runs by text (pipeline/candidates.py): one chunk's
    for idx, need_gold, models in tasks:
        gold = gold_context(dataset.examples[idx], dataset, options, _STATE["gold_cache"], gold_memo)
        if options.neighbours > 0 and models and gold.result is not None:
            gold = with_neighbours(gold, dataset, options)
        if options.verify and models:
            gold = replace(gold, db_golds=db_golds(gold.example.db_id, dataset))
        if need_gold:
            example_rows.append(gold_row(gold))
        for model in models:
            pred = preds[model][idx]
            if isinstance(pred, str):
                row = evaluate_pair(gold, pred, options, pred_memo)
            else:
                from sqltriage.core.pipeline.candidates import evaluate_response

                row = evaluate_response(gold, pred, options, pred_memo, runs)
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
    from sqltriage.core.questions import feature_cache

    if feature_cache.none_anywhere(workspace):
        return "not computed"
    key = feature_cache.feature_key(dataset, pipeline)
    if feature_cache.workspace_has(workspace, key):
        return "cached"
    rows = feature_cache.load_cached(key)
    if rows is None:
        return "not computed"
    if workspace.reading:  # nothing else was written: they stay in the user cache, read from there
        return "cached"
    feature_cache.write_to_workspace(workspace, feature_cache.FeatureRows(key, rows))
    return "cached"


# --- parent side ---------------------------------------------------------------------------------------


def _chunk_executor(options: EvalOptions, jobs: int, dataset: Dataset, initargs: tuple) -> Executor:
    """Where chunks run: this machine's process pool, or a Dask cluster when `options.cluster` names one.

    Both are `concurrent.futures` executors whose workers run `_init_worker(dataset, *initargs)` before
    their first chunk, so the loop that submits chunks and writes their results is the same for both.
    """
    if options.cluster:
        from sqltriage.core.pipeline.cluster import open_cluster, with_absolute_paths

        shared = with_absolute_paths(dataset)  # workers open the databases at the paths they are sent
        return open_cluster(options.cluster, _init_worker, (shared, *initargs), shared.databases)
    from sqltriage.core.pipeline.pool_start import pool_context

    under_app = stderr_captured()
    context = pool_context(options.start_method)
    if context.get_start_method() == "spawn":
        ensure_resource_tracker()
    return ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=context,
        initializer=_init_worker,
        initargs=(dataset, *initargs, under_app, os.getpid()),
    )


def _pool_min_pairs(options: EvalOptions) -> int:
    """Fewer pairs than this run in this process: a pool's start-up would cost more than it saves."""
    if options.pool_min_pairs is not None:
        return options.pool_min_pairs
    from sqltriage.core.pipeline.pool_start import pool_min_pairs, start_method

    return pool_min_pairs(start_method(options.start_method))


def _workers_text(pool: Executor, jobs: int, options: EvalOptions) -> str:
    """How the run's chunks were executed, for the report (e.g. "2 forked processes")."""
    if options.cluster:
        return f"Dask cluster {options.cluster}"
    context = getattr(pool, "_mp_context", None)
    method = context.get_start_method() if context is not None else "?"
    return f"{jobs} {'forked' if method == 'fork' else 'spawned'} processes"


def _predicted(pred: Prediction) -> Predicted:
    """What a worker evaluates: the SQL text, or the whole prediction when it came from responses."""
    return pred if pred.raw is not None or pred.problem or pred.candidates else pred.sql


def _too_slow_note() -> str:
    from sqltriage.core.verdicts.verify.budget import TOO_SLOW

    return TOO_SLOW


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
    from sqltriage.core.sql.parse import use_dialect

    use_dialect(options.dialect)
    if options.db_url is not None:  # every database on the server: gold and predictions run there
        from sqltriage.core.engines.refs import parse_url
        from sqltriage.core.engines.registry import on_server

        dataset = on_server(dataset, options.db_url)
        workspace.set_meta("engine", parse_url(options.db_url).engine)
        workspace.set_meta("db_url", parse_url(options.db_url).redacted())
    else:
        workspace.set_meta("engine", "sqlite")
    workspace.set_meta("dialect", options.dialect)
    workspace.sync_examples(dataset, base_example_rows)
    if dataset.alternatives_file is not None:  # so that the workspace opened alone reads them again
        workspace.set_meta("alternatives_path", str(dataset.alternatives_file.resolve()))
    key = run_key(dataset, options)
    for position, p in enumerate(predictions):
        # a row of responses depends on more than its scored text (its other candidates, the response):
        # when such a file changes, all of its rows are redone
        responses = any(not isinstance(_predicted(x), str) for x in p.predictions)
        texts = None if responses else [x.sql for x in p.predictions]
        if workspace.register_model(
            p.name, str(p.path), p.format, p.sha256, f"{p.sha256}:{key}", position, texts
        ):
            summary.stale_models.append(p.name)
    done = workspace.done_pairs(_too_slow_note() if options.verify else None)
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

    preds = {p.name: tuple(_predicted(x) for x in p.predictions) for p in predictions}
    jobs = max(1, options.jobs or os.cpu_count() or 1)
    in_process = jobs == 1 or not tasks or total_pairs + len(pending_gold) < _pool_min_pairs(options)
    if options.cluster:  # asked for by name: used whenever there is work, however little
        in_process = not tasks
    chunks = chunked(tasks, dataset, options.chunk_size)
    report = progress or (lambda stage, d, t: None)
    neighbour_dbs: list[str] = []
    if options.neighbours > 0 and total_pairs:
        needed = {dataset.examples[i].db_id for i, _, models in tasks if models}
        neighbour_dbs = [d for d in dataset.db_ids if d in needed]
        if not options.cluster:  # on a cluster the workers build them (prepare_neighbours_on)
            prepare_neighbours(dataset, neighbour_dbs, options, report, cancel)
            if options.db_url is not None:
                from sqltriage.core.engines.registry import close_all

                # the connections the copies were read through: kept open, they would count against the
                # server's connection limit beside every worker's own for the whole run
                close_all()
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
    for mark in _STATE.pop("in_use", []):  # the neighbour sets this process read: free to prune again
        mark.release()
    if not workspace.reading:
        from sqltriage.core.pipeline.judging import judge_examples

        judge_examples(workspace, dataset.format if dataset.format in EX_MODES else DEFAULT_MODE)
    if not summary.cancelled:
        workspace.set_meta(NEIGHBOURS_META, f"{options.neighbours}:{options.seed}")
        workspace.set_meta(
            VERIFY_META, f"{options.verify_bound}:{options.verify_timeout}" if options.verify else ""
        )
    summary.elapsed = time.perf_counter() - started
    return summary
