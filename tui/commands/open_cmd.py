"""`sqltriage open` (and bare `sqltriage`): the app on a dataset, or on the bundled sample."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from sqltriage.core.taxonomy import load_taxonomy
from sqltriage.tui.config import load_config
from sqltriage.tui.inputs import default_workspace, load_inputs


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


def run(args: argparse.Namespace) -> int:
    from sqltriage.tui.app import create_app
    from sqltriage.tui.commands.eval_cmd import options_from, remember_neighbours

    sample = not args.dataset
    if sample:
        args = sample_args(args)
    inputs = load_inputs(args)
    if getattr(args, "workspace", None):
        workspace = Path(args.workspace)
    elif sample:
        workspace = data_home() / "sample.sqltriage.db"
    else:
        workspace = default_workspace(inputs.dataset)
    workspace.parent.mkdir(parents=True, exist_ok=True)
    remember_neighbours(args, workspace)
    config = load_config()
    app = create_app(
        workspace,
        inputs.dataset,
        inputs.predictions,
        options_from(args),
        keymap=config.keys,
        ex_mode=config.default_ex_mode,
        taxonomy=load_taxonomy(config.taxonomy),
        theme=config.theme,
    )
    app.run()
    return 1 if app.load_error else 0
