"""The Python front door for notebooks: evaluate models into a workspace, load the evaluations, diff two queries.

Each function is a command, run by the command's own code, so a notebook and the shell never disagree:

- `evaluate` is `sqltriage eval DATASET --pred NAME=FILE …`: same loaders, same option checks and
  defaults, same default workspace (`./<dataset>.sqltriage.db`), resumes what is already there;
- `load` is `sqltriage export --out x.csv` as a polars DataFrame: the same rows, columns and values;
- `diff` is `sqltriage diff GOLD PRED [--db DB] --json` as a dict.

Nothing heavy is imported until a function is called: importing this module loads neither the app
(textual, rich) nor spaCy, nor even polars. README.md ("From Python (notebooks)") has an example.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqltriage.core.errors import UsageError, WorkspaceError

if TYPE_CHECKING:
    import polars as pl

__all__ = ["diff", "evaluate", "load"]


def evaluate(
    dataset: str | Path,
    predictions: Mapping[str, str | Path],
    workspace: str | Path | None = None,
    *,
    db_dir: str | Path | None = None,
    tables: str | Path | None = None,
    alternatives: str | Path | None = None,
    format: str = "auto",
    pred_format: str = "auto",
    sql_column: str | None = None,
    question_column: str | None = None,
    gold_column: str | None = None,
    db_column: str | None = None,
    id_column: str | None = None,
    **options: Any,
) -> Path:
    """Evaluate each model's predictions on `dataset` into `workspace`, as `sqltriage eval` does; its path.

    `dataset` is anything `sqltriage eval DATASET` accepts; `predictions` maps a model's name to its
    predictions file. The keyword arguments before `**options` are the command's loading flags
    (`db_dir` is `--db-dir`, `format` is `--format`, …). `**options` are `EvalOptions` fields
    (`timeout`, `max_rows`, `jobs`, `neighbours`, `seed`, …; None keeps the default); an unknown one
    raises a UsageError that lists the valid ones. Without `workspace`, the command's default:
    `<dataset name>.sqltriage.db` in the current folder. Pairs already evaluated there are reused, and
    without `neighbours` a workspace keeps the neighbour databases it was last evaluated with.
    """
    from contextlib import AbstractContextManager, nullcontext

    from sqltriage.core.datasets.inputs import load_inputs
    from sqltriage.core.pipeline.cluster import prestarted_cluster
    from sqltriage.core.pipeline.evaluate import evaluate as run_evaluation
    from sqltriage.core.pipeline.run_options import eval_options, with_remembered_neighbours
    from sqltriage.core.reporting.views import ensure_views
    from sqltriage.core.workspace.store import Workspace, default_workspace

    models = _models(predictions)
    eval_options(options)  # a bad option fails before any file is read
    cluster = options.get("cluster")
    early: AbstractContextManager[None] = (
        prestarted_cluster(cluster) if cluster is not None else nullcontext()
    )
    with early:  # as on the command line, a local:N cluster starts while the inputs load
        inputs = load_inputs(
            dataset,
            models,
            fmt=format,
            db_dir=db_dir,
            tables=tables,
            question_column=question_column,
            gold_column=gold_column,
            db_column=db_column,
            id_column=id_column,
            alternatives=alternatives,
            pred_format=pred_format,
            sql_column=sql_column,
        )
        path = Path(workspace) if workspace else default_workspace(inputs.dataset)
        run_options = eval_options(with_remembered_neighbours(options, path))
        with Workspace.open(path) as ws:
            run_evaluation(inputs.dataset, inputs.predictions, ws, run_options)
            ensure_views(ws)  # the `evaluations` view, as `sqltriage eval` leaves it for sqlite3 users
    return path


def _models(predictions: Mapping[str, str | Path]) -> list[tuple[str, Path]]:
    """The model names and files, or a UsageError saying what `predictions` should look like."""
    example = "e.g. {'gpt4': 'preds/gpt4.sql'}"
    if not isinstance(predictions, Mapping):
        raise UsageError(
            f"predictions maps each model's name to its predictions file, not {type(predictions).__name__}",
            hint=example,
        )
    if not predictions:
        raise UsageError("evaluate needs at least one model's predictions", hint=example)
    models: list[tuple[str, Path]] = []
    for name, file in predictions.items():
        if not isinstance(name, str) or not name.strip():
            raise UsageError(f"a model's name must be non-empty text, not {name!r}", hint=example)
        models.append((name.strip(), Path(file)))  # as --pred strips it (two names alike are refused)
    return models


def load(workspace: str | Path) -> pl.DataFrame:
    """The workspace's evaluations, one row per (example, model): what `sqltriage export --out x.csv` writes.

    The same columns in the same order, with the same values (tags joined by ", ", `ex_reviewed` from
    the tags as they are now), typed: metrics are numbers, a missing value is null.
    """
    from sqltriage.core.reporting.export import exported
    from sqltriage.core.reporting.report import export_frame

    path = Path(workspace)
    if not path.exists():
        raise WorkspaceError(
            "workspace does not exist",
            path=path,
            hint="evaluate into it first: api.evaluate(dataset, {name: predictions_file}, workspace)",
        )
    return export_frame(exported(path))


def diff(
    gold_sql: str,
    pred_sql: str,
    db: str | Path | None = None,
    *,
    timeout: float | None = None,
    neighbours: int = 0,
    seed: int = 0,
) -> dict[str, Any]:
    """Everything `sqltriage diff GOLD PRED [--db DB] [--neighbours K] --json` prints about two queries.

    Categories, EM both ways, partial match with its breakdown, the clause diff and suggested causes;
    with `db` (a .sqlite file, opened read-only) also both results and every execution verdict; with
    `neighbours` K also `ex_ts` in every mode and, when a neighbour refutes the pass, the minimal witness.
    """
    import json

    from sqltriage.core.pipeline.compare_queries import as_json, checked_db, compare_queries
    from sqltriage.core.verdicts.exec_result import DEFAULT_TIMEOUT

    doc = compare_queries(
        gold_sql,
        pred_sql,
        db=checked_db(db or None, name="db="),
        timeout=timeout or DEFAULT_TIMEOUT,
        neighbours=neighbours,
        seed=seed,
    )
    return json.loads(as_json(doc))
