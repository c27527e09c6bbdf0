"""The facet sidebar: every facet's values with live counts, toggled from the keyboard.

One option list holds all facets (headers are disabled options), so arrows walk through everything and
enter or space toggles the highlighted value. The panel only reports toggles; the screen owns the state.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import suppress
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option, OptionDoesNotExist

from sqltriage.core.facets import FACETS

_SEP = "\x1f"


class FacetPanel(OptionList):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "select", "Toggle value", id="facets.toggle"),
        Binding("j", "cursor_down", "Down", show=False, id="facets.down"),
        Binding("k", "cursor_up", "Up", show=False, id="facets.up"),
        Binding("x", "clear_facet", "Clear facet", id="facets.clear"),
    ]

    class Toggled(Message):
        def __init__(self, facet: str, value: str) -> None:
            super().__init__()
            self.facet = facet
            self.value = value

    class ClearFacet(Message):
        def __init__(self, facet: str) -> None:
            super().__init__()
            self.facet = facet

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.counts: dict[str, list[tuple[str, int]]] = {}
        self.selected: dict[str, frozenset[str]] = {}

    def show(
        self, counts: Mapping[str, list[tuple[str, int]]], selected: Mapping[str, frozenset[str]]
    ) -> None:
        """Redraw with new counts, keeping the highlighted value where it was."""
        self.counts = dict(counts)
        self.selected = dict(selected)
        keep = self.highlighted_option.id if self.highlighted_option is not None else None
        options: list[Option] = []
        for facet, label in FACETS:
            values = self.counts.get(facet, [])
            chosen = self.selected.get(facet, frozenset())
            title = Text(f"{label}", style="bold reverse")
            if chosen:
                title.append(f"  ({len(chosen)} chosen)", style="bold")
            options.append(Option(title, id=f"{facet}{_SEP}", disabled=True))
            for value, n in values:
                on = value in chosen
                prompt = Text("● " if on else "○ ", style="bold" if on else "dim")
                prompt.append(value, style="bold underline" if on else "" if n else "dim")
                prompt.append(f"  {n}", style="bold" if n else "dim")
                options.append(Option(prompt, id=f"{facet}{_SEP}{value}"))
        self.clear_options()
        self.add_options(options)
        if keep is not None:
            with suppress(OptionDoesNotExist):  # the value vanished: leave the highlight where it is
                self.highlighted = self.get_option_index(keep)

    def visible_values(self, facet: str) -> list[tuple[str, int]]:
        return list(self.counts.get(facet, []))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        facet, _, value = (event.option.id or "").partition(_SEP)
        if value:
            self.post_message(self.Toggled(facet, value))

    def action_clear_facet(self) -> None:
        option = self.highlighted_option
        if option is not None and option.id:
            self.post_message(self.ClearFacet(option.id.partition(_SEP)[0]))
