"""The browse screen: facets, the examples table with "n of N", the detail of the highlighted row, triage.

Other modules import `BrowseScreen` and `Sources` from here.
"""

from sqltriage.tui.screens.browse.screen import BrowseScreen
from sqltriage.tui.screens.browse.state import Sources

__all__ = ["BrowseScreen", "Sources"]
