"""What the browse screen uses of the app, built by the app and passed to `BrowseScreen`.

The screen reads these here, never as attributes of the app (which it uses only through Textual's API:
pushing screens, notifying, batching updates). Two of them change while the screen is up, each by one
concern (`CHANGED_BY`): the adjudication toggle (`J`, triage) and the sidebar's open sections
(filtering); the app reads the toggle from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # types only: the app has made them before the screen exists
    from sqltriage.core.model import Dataset
    from sqltriage.core.triage.taxonomy import Taxonomy
    from sqltriage.core.workspace.store import Workspace
    from sqltriage.tui.idle_gc import IdleCollector
    from sqltriage.tui.write_turns import WriteTurns

FacetSections = tuple[tuple[str, ...], tuple[str, ...]]  # the sidebar's sections (opened, closed)

CHANGED_BY: dict[str, str] = {  # the session's fields the screen changes, and the one concern that does
    "adjudicate": "triage",
    "facet_sections": "filtering",
}


@dataclass(slots=True, eq=False)
class BrowseSession:
    """The workspace browsed and how: who annotates, the tags offered, the dataset, write order and modes."""

    workspace: Workspace | None  # None: nothing to read the rest of the frame from, or to write to
    taxonomy: Taxonomy  # the tags the pickers offer
    annotator: str  # whose tags are "yours" (untag, undo): the workspace's annotator when opened
    dataset: Dataset | None  # alternatives, live re-scoring, question features; None: not loaded
    write_turns: WriteTurns  # the app's one order of workspace writes
    blind: bool = False  # others' tags hidden until this annotator tags the row (--blind)
    adjudicate: bool = False  # tag changes set the rows' final tags (--adjudicate, toggled by `J`: triage)
    features: bool = True  # question features may be computed on demand (EvalOptions.features)
    pipeline: str | None = None  # their spaCy pipeline (None: the default)
    config_file: Path | None = None  # where the sidebar's sections are remembered (None: not remembered)
    facet_sections: FacetSections = field(default=((), ()))  # as the sidebar opens: filtering keeps it
    idle_gc: IdleCollector | None = None  # full collections wait for a pause in the typing, when given
