"""The Results tab's second half: the minimal witness that told gold and prediction apart.

A refuted EX pass names a small database (`ts_witness`): its tables are shown in full, then one line that
reads the difference, then gold | prediction run on it, as on the original.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from sqltriage.core.verdicts.pair_run import PairRun
from sqltriage.core.verdicts.testsuite.reading import WitnessTable

_REBUILD = "`sqltriage diff GOLD PRED --db DB --neighbours K` finds a witness again (from neighbours of this gold alone)"


def witness_path(witness: str | None) -> Path | None:
    """The witness file a stored `ts_witness` names, when it names one (not `original`, not a reason).

    A workspace evaluated elsewhere (a cluster worker, another machine) names that machine's cache: the
    same file in this machine's cache (same folder name, same bytes) is used instead when it is there.
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


def render_tables(tables: Sequence[WitnessTable]) -> RenderableType:
    """Each table that has rows, in full (a witness has a few); the empty ones named on one line."""
    parts: list[RenderableType] = []
    for t in tables:
        if not t.count:
            continue
        table = Table(
            title=f"{t.name} ({t.count} row{'s' if t.count != 1 else ''})",
            title_justify="left",
            show_edge=False,
            pad_edge=False,
        )
        for col in t.columns:
            table.add_column(str(col), overflow="fold")
        for row in t.rows:
            table.add_row(*("NULL" if v is None else str(v) for v in row))
        if t.count > len(t.rows):
            table.caption = f"… {t.count - len(t.rows)} more row(s)"
        parts.append(table)
    empty = [t.name for t in tables if not t.count]
    if empty:
        parts.append(Text("empty: " + ", ".join(empty), style="dim"))
    return Group(*parts)


def render_witness(
    path: Path,
    run: PairRun | None,
    tables: Sequence[WitnessTable] = (),
    reading: str | None = None,
    assumes: str | None = None,
) -> RenderableType:
    """A heading naming the witness, what it assumes of the world (`refutation_detail`), its tables, the
    line that reads the difference, then gold | prediction."""
    from sqltriage.tui.widgets.detail_render import render_results

    rows = sum(t.count for t in tables)
    size = f" ({rows} row{'s' if rows != 1 else ''} in all)" if tables else ""
    head = Rule(f"on the witness that told them apart: {path.parent.name}/{path.name}{size}", style="yellow")
    if run is None:
        return Group(
            head,
            Text(
                f"{path} is not there any more (cache cleared, or a workspace from another machine): {_REBUILD}.",
                style="red",
            ),
        )
    parts: list[RenderableType] = [head]
    if assumes:
        parts += [Text(assumes, style="bold yellow"), Text("")]
    if reading:
        parts += [Text(reading, style="bold"), Text("")]
    if tables:
        parts += [render_tables(tables), Text("")]
    return Group(*parts, render_results(run))
