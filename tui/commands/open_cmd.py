"""`sqltriage open` (and bare `sqltriage`): the app on a dataset, on a workspace alone, or on the sample."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from sqltriage.core.errors import UsageError
from sqltriage.core.model import Dataset
from sqltriage.core.triage.taxonomy import load_taxonomy
from sqltriage.tui.config import config_path, load_config, resolve_annotator
from sqltriage.tui.inputs import Inputs, default_workspace, load_inputs

if TYPE_CHECKING:
    from sqltriage.tui.opening import Preload


def data_home() -> Path:
    """Where the sample's workspace goes: the user's data folder, never the installed package."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "sqltriage"


def sample_args(args: argparse.Namespace) -> argparse.Namespace:
    """The bundled sample, with every file under its predictions/ as a model named after the file."""
    from sqltriage.samples import SAMPLE_DIR

    preds = [f"{p.stem}={p}" for p in sorted((SAMPLE_DIR / "predictions").glob("*.sql"))]
    out = argparse.Namespace(**vars(args))
    out.dataset = str(SAMPLE_DIR)
    out.pred = (args.pred or []) + preds
    return out


def workspace_inputs(workspace: Path, args: argparse.Namespace) -> tuple[Inputs, str]:
    """A workspace opened alone: the dataset it was evaluated on (from its own record), no new model.

    When that dataset is gone the stored evaluations are still browsable; only what needs the
    databases (live results, schemas) is off, and the returned note says so.
    """
    from sqltriage.core.datasets import load_dataset
    from sqltriage.core.errors import SqlTriageError
    from sqltriage.core.workspace.store import Workspace

    if not workspace.exists():
        raise UsageError(
            "workspace does not exist",
            where=str(workspace),
            hint="give the DATASET and --pred NAME=FILE to evaluate into it, or the path of an existing one",
        )
    with Workspace.open_for_reading(workspace) as ws:
        name = ws.get_meta("dataset_name") or workspace.stem
        where = ws.get_meta("dataset_path")
        fmt = ws.get_meta("dataset_format") or "auto"
        alternatives = ws.get_meta("alternatives_path")
    if where:
        try:
            dataset = load_dataset(
                where,
                fmt=fmt,
                db_dir=getattr(args, "db_dir", None),
                alternatives=alternatives if alternatives and Path(alternatives).is_file() else None,
            )
            return Inputs(dataset, ()), ""
        except SqlTriageError as exc:
            note = f"dataset {where} could not be loaded ({exc.what}): live results are off"
    else:
        note = "the workspace records no dataset: live results are off"
    empty = Dataset(name, Path(where or workspace), fmt, (), {}, {})
    return Inputs(empty, ()), note


def resolve(args: argparse.Namespace) -> tuple[Inputs, Path, str]:
    """What `open` (and `serve`) shows: inputs, the workspace file, and a note to say on opening."""
    workspace_given = getattr(args, "workspace", None)
    if not args.dataset and workspace_given and Path(workspace_given).exists():
        if args.pred:
            raise UsageError(
                "--pred needs the DATASET its predictions answer",
                hint="sqltriage open DATASET --pred NAME=FILE --workspace FILE",
            )
        workspace = Path(workspace_given)
        inputs, note = workspace_inputs(workspace, args)
        return inputs, workspace, note
    sample = not args.dataset  # (a new --workspace with no DATASET gets the sample, as a first try)
    if sample:
        args = sample_args(args)
    inputs = load_inputs(args)
    if workspace_given:
        workspace = Path(workspace_given)
    elif sample:
        workspace = data_home() / "sample.sqltriage.db"
    else:
        workspace = default_workspace(inputs.dataset)
    workspace.parent.mkdir(parents=True, exist_ok=True)
    return inputs, workspace, ""


def preload(args: argparse.Namespace) -> Preload | None:
    """Start reading the first screen of an existing workspace opened with nothing to evaluate (no
    --pred), in a thread, before the app is imported; None otherwise, or when the config is bad (then
    the error is reported where it always was)."""
    given = getattr(args, "workspace", None)
    if args.pred or not given or not Path(given).is_file():
        return None
    try:
        mode = load_config().default_ex_mode
    except UsageError:
        return None
    from sqltriage.tui.opening import Preload

    return Preload(Path(given), mode)


def run(args: argparse.Namespace) -> int:
    early = preload(args)  # reading the workspace overlaps importing the app
    from sqltriage.tui.app import create_app
    from sqltriage.tui.commands.eval_cmd import options_from, remember_neighbours

    inputs, workspace, note = resolve(args)
    remember_neighbours(args, workspace)
    config = load_config()
    if early is not None and (inputs.predictions or workspace != early.path):
        early = None  # not what is opened after all
    options = options_from(args)
    dataset = inputs.dataset
    if options.db_url is not None:  # the live results run where the evaluation ran, read in its dialect
        from sqltriage.core.engines.registry import on_server
        from sqltriage.core.sql.parse import use_dialect

        dataset = on_server(dataset, options.db_url)
        use_dialect(options.dialect)
    app = create_app(
        workspace,
        dataset,
        inputs.predictions,
        options,
        keymap=config.keys,
        ex_mode=config.default_ex_mode,
        taxonomy=load_taxonomy(config.taxonomy),
        theme=config.theme,
        config_file=config_path(),
        facets_open=config.facets_open,
        facets_closed=config.facets_closed,
        open_note=note,
        preload=early if early is not None and early.ex_mode == config.default_ex_mode else None,
        annotator=resolve_annotator(getattr(args, "annotator", None), config),
        blind=bool(getattr(args, "blind", False)),
        adjudicate=bool(getattr(args, "adjudicate", False)),
    )
    app.run()
    return 1 if app.load_error else 0
