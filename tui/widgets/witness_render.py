"""The Results tab's second half: gold and prediction on the neighbour database that told them apart."""

from __future__ import annotations

from pathlib import Path

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.text import Text

from sqltriage.core.verdicts.execution import PairRun


def witness_path(witness: str | None) -> Path | None:
    """The neighbour file a stored `ts_witness` names, when it names one (not `original`, not a reason).

    A workspace evaluated elsewhere (a cluster worker, another machine) names that machine's cache: the
    same set in this machine's cache (same folder name, same bytes) is used instead when it is there.
    """
    if not witness or witness == "original" or witness.startswith("no neighbours"):
        return None
    path = Path(witness)
    if not path.is_file():
        from sqltriage.core.verdicts.testsuite import default_cache_root

        local = default_cache_root() / path.parent.name / path.name
        if local.is_file():
            return local
    return path


def render_witness(path: Path, run: PairRun | None) -> RenderableType:
    """A heading naming the neighbour, then the same gold | prediction view as on the original."""
    from sqltriage.tui.widgets.detail_render import render_results

    head = Rule(f"on the neighbour that told them apart: {path.parent.name}/{path.name}", style="yellow")
    if run is None:
        return Group(
            head,
            Text(
                f"{path} is not there any more (cache cleared, or a workspace from another machine): "
                "`sqltriage neighbours DATASET -K K --seed N` rebuilds it, byte for byte.",
                style="red",
            ),
        )
    return Group(head, render_results(run))
