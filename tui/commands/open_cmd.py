"""`sqltriage open` (and bare `sqltriage`): the app on a dataset, or on the bundled sample."""

from __future__ import annotations

import argparse
import os
import tomllib
from pathlib import Path

from sqltriage.core.errors import UsageError
from sqltriage.tui.inputs import default_workspace, load_inputs


def data_home() -> Path:
    """Where the sample's workspace goes: the user's data folder, never the installed package."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "sqltriage"


def keymap_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "sqltriage" / "keymap.toml"


def load_keymap(path: Path) -> dict[str, str]:
    """`[keymap]` table of binding id = keys (e.g. `"browse.search" = "ctrl+f"`); no file, no remapping."""
    if not path.exists():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(
            f"cannot read the keymap ({exc})", path=path, hint="fix or remove the file"
        ) from None
    table = data.get("keymap", {})
    if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
        raise UsageError("[keymap] must map binding ids to key strings", path=path)
    return {str(k): v for k, v in table.items()}


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
    from sqltriage.tui.commands.eval_cmd import options_from

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
    app = create_app(
        workspace, inputs.dataset, inputs.predictions, options_from(args), keymap=load_keymap(keymap_path())
    )
    app.run()
    return 1 if app.load_error else 0
