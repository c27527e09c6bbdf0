"""The browse screen: facets, the examples table with "n of N", the detail of the highlighted row, triage.

One module per concern; each concern is a mixin over the shared state, and `screen.BrowseScreen`
combines them:

- session: `BrowseSession`, what the screen uses of the app (the workspace, taxonomy, annotator,
  dataset, write turns, blind and adjudicate modes, …), built by the app and passed to `BrowseScreen`
- state: what every concern shares (`BrowseState`: the frame, filters, sort, rows shown, the
  highlighted row), `Sources`, `RowKey`, the lookups between keys and rows; `OWNERS` names the one
  module that writes each field
- keys: the key bindings with their ids (`BrowseScreen.BINDINGS`)
- messages: what the thread workers post back to their handlers
- filtering: the frame, facets, search, sort and the status line; `apply_filters` is the filter
  worker's body
- detail: the highlighted row's detail tabs, its question features and live runs
- triage: tags, notes, accepted alternative golds, undo, and the workers that write them
- export: the export dialog and its worker
- loading: the frame's other columns, read once the first screen is drawn (what needs them waits)
- screen: `BrowseScreen` itself, its widgets, focus and layout keys, the table's messages

Each field of `BrowseState` is written by its owner alone (`state.OWNERS`); another concern reads it or
calls a method of the owner (a new frame goes through filtering's `patch_frame`, `reread_frame`,
`complete_frame`). What the screen needs of the app is in `self.session`; `self.app` is used only as
Textual's App (`push_screen`, `batch_update`, …). `tests/tui/test_browse_owners.py` checks both.

May import core (records, facets, triage; in workers, what they analyse, run or write), tui.widgets,
tui.screens.modals, tui.screens.browse_layout, tui.config, tui.blind, tui.idle_gc and, when asked for,
tui.screens.summary (and, for its types only, tui.write_turns); never tui.app. Inside the package the
concern modules import only state, session and messages, never one another: what one calls on another
is declared on `BrowseState` for type checkers. Other modules import `BrowseScreen` and `Sources` from
here.
"""

from sqltriage.tui.screens.browse.screen import BrowseScreen
from sqltriage.tui.screens.browse.state import Sources

__all__ = ["BrowseScreen", "Sources"]
