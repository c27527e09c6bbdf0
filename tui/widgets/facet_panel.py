"""The facet sidebar: every facet a collapsible section of its top values with live counts.

One option list holds all facets, so arrows walk through everything: enter or space on a header opens
or closes its section, on a value toggles it, on "more…" lists the section's remaining values. Chosen
values are pinned on top of their section (and stay visible when it is closed). A filter text narrows
every section to the values containing it. Facets and their order come from `core.facets.FACETS`, so a
facet added there appears here unchanged; a facet with one value only (under the other filters) is left
out until a value of it is chosen. The structural, operators and reasoning sections list their
membership options ("has J (join)", "needs subtraction") above the combinations, all of them, except
those holding every row of the section (they cannot narrow it). The panel only reports; the screen owns
filters and config.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import suppress
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option, OptionDoesNotExist

from sqltriage.core.reporting.facet_names import FACETS, membership_key
from sqltriage.tui.widgets.names import MIN_WIDTH, short_labels

_SEP = "\x1f"
_MORE = "\x1emore"
_FEWER = "\x1efewer"
TOP = 8  # values a section shows before "more…"
FILTER_CAP = 50  # matches a section lists while filtering before "more…"
OPEN_BY_DEFAULT = frozenset({"outcome", "hardness", "reasoning", "tag"})
CLOSED_BY_DEFAULT = frozenset(
    {"annotators", "refutation_assumption", "gold_flags", "soft_f1", "r_ves"}
)  # opened when wanted


def open_by_default(facet: str, n_values: int) -> bool:
    """A section starts open when it is one of the small, always-useful facets or has few values."""
    return facet not in CLOSED_BY_DEFAULT and (facet in OPEN_BY_DEFAULT or n_values <= TOP)


def can_narrow(facet: str, values: Iterable[tuple[str, int]]) -> bool:
    """Whether choosing a value of the facet could change the rows: not when one value holds them all.

    Outcomes overlap (a row has several), so one outcome alone may still narrow: that facet always shows.
    """
    return facet == "outcome" or sum(1 for _, n in values if n) != 1


class FacetPanel(OptionList):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "select", "Toggle value / open section", id="facets.toggle"),
        Binding("j", "cursor_down", "Down", show=False, id="facets.down"),
        Binding("k", "cursor_up", "Up", show=False, id="facets.up"),
        Binding("x", "clear_facet", "Clear facet", id="facets.clear"),
        Binding("left,h", "close_section", "Close section", show=False, id="facets.close"),
        Binding("right", "open_section", "Open section", show=False, id="facets.open"),
        Binding("slash", "filter_values", "Filter values", id="facets.filter"),
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

    class SectionsChanged(Message):
        """The user opened or closed a section: the screen remembers it in the config."""

        def __init__(self, opened: frozenset[str], closed: frozenset[str]) -> None:
            super().__init__()
            self.opened, self.closed = opened, closed

    class FilterWanted(Message):
        """`/` in the sidebar: the screen focuses the sidebar's filter box."""

    def __init__(
        self,
        *,
        opened: Iterable[str] = (),
        closed: Iterable[str] = (),
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.counts: dict[str, list[tuple[str, int]]] = {}
        self.selected: dict[str, frozenset[str]] = {}
        self.opened: set[str] = set(opened)  # the user's explicit choices (from the config)
        self.closed: set[str] = set(closed) - self.opened
        self.showing_all: set[str] = set()  # sections whose "more…" was chosen (this session)
        self.filter_text = ""
        self.models: set[str] = set()  # every model listed so far: labels stay put while filtering
        self._count_digits = 1  # the widest model count so far, for the same reason
        self._model_labels: tuple[tuple[frozenset[str], int], dict[str, str]] | None = None
        self._width = 0
        self._shown: list[tuple] = []  # what each option's prompt shows, aligned with `options`

    # --- state ------------------------------------------------------------------------------------

    def is_open(self, facet: str) -> bool:
        if facet in self.opened:
            return True
        if facet in self.closed:
            return False
        return open_by_default(facet, len(self.counts.get(facet, [])))

    def set_open(self, facet: str, is_open: bool) -> None:
        if is_open == self.is_open(facet):
            return
        (self.opened if is_open else self.closed).add(facet)
        (self.closed if is_open else self.opened).discard(facet)
        if not is_open:
            self.showing_all.discard(facet)
        self.post_message(self.SectionsChanged(frozenset(self.opened), frozenset(self.closed)))
        self._render_options(keep=f"{facet}{_SEP}")

    def set_filter(self, text: str) -> None:
        """Show only the values containing `text` (case-insensitive), in every section."""
        if text != self.filter_text:
            self.filter_text = text
            self._render_options(keep=None)
            if self.option_count:
                self.highlighted = self._first_value_index()

    def visible_values(self, facet: str) -> list[str]:
        """The values a user sees listed under `facet` now, in screen order."""
        return [
            (o.id or "").partition(_SEP)[2]
            for o in self.options
            if (o.id or "").startswith(f"{facet}{_SEP}")
            and (o.id or "").partition(_SEP)[2]
            and not (o.id or "").partition(_SEP)[2].startswith("\x1e")
        ]

    # --- drawing ----------------------------------------------------------------------------------

    def show(
        self, counts: Mapping[str, list[tuple[str, int]]], selected: Mapping[str, frozenset[str]]
    ) -> None:
        """Redraw with new counts, keeping the highlighted value where it was."""
        self.counts = dict(counts)
        self.selected = dict(selected)
        models = self.counts.get("model", [])
        self.models.update(v for v, _ in models)
        self._count_digits = max([self._count_digits, *(len(str(n)) for _, n in models)])
        keep = self.highlighted_option.id if self.highlighted_option is not None else None
        self._render_options(keep)

    def on_resize(self, event: events.Resize) -> None:
        width = self.scrollable_content_region.width
        if width != self._width and self.counts:
            keep = self.highlighted_option.id if self.highlighted_option is not None else None
            self._render_options(keep)

    def model_labels(self, width: int) -> dict[str, str]:
        """Every model's label in a value line of `width`: cut in the middle, told apart."""
        room = max(width - 3 - self._count_digits, MIN_WIDTH)  # "○ " and " count" take the rest
        key = (frozenset(self.models), room)
        if self._model_labels is None or self._model_labels[0] != key:
            self._model_labels = (key, short_labels(self.models, room))
        return self._model_labels[1]

    def _line_width(self) -> int:
        self._width = self.scrollable_content_region.width
        return max(self._width - 1, 16)  # one column spare for the scrollbar

    def _render_options(self, keep: str | None) -> None:
        """Lay the sections out; when only counts or marks changed, the options are updated in place.

        Rebuilding the list resets the highlight and scroll and re-lays out every option; a key that
        changes a few counts then costs its redraw only.
        """
        width = self._line_width()
        needle = self.filter_text.strip().lower()
        specs: list[tuple[str, tuple]] = []  # (option id, what its prompt shows)
        models = self.model_labels(width)
        for facet, label in FACETS:
            shown = models if facet == "model" else {}
            values = self.counts.get(facet, [])
            members = self.counts.get(membership_key(facet), [])
            chosen = self.selected.get(facet, frozenset())
            if not chosen and not can_narrow(facet, values):
                continue  # a section whose one value holds every row only takes room
            pinned = [(v, n) for v, n in (*members, *values) if v in chosen]
            rest = [(v, n) for v, n in values if v not in chosen]
            rest.sort(key=lambda p: p[1] == 0)  # values with rows first, order otherwise kept
            rows = sum(n for _, n in values)  # each row has one combination: the section's rows
            parts = [(v, n) for v, n in members if v not in chosen and 0 < n < rows]
            if needle:
                rest = [(v, n) for v, n in rest if needle in v.lower()]
                parts = [(v, n) for v, n in parts if needle in v.lower()]
                is_open, limit = True, FILTER_CAP
            else:
                is_open, limit = self.is_open(facet), TOP
            specs.append(
                (f"{facet}{_SEP}", ("h", label, len(values), len(chosen), is_open, len(rest), width))
            )
            specs += [(f"{facet}{_SEP}{v}", ("v", shown.get(v, v), n, True, width)) for v, n in pinned]
            if not is_open:
                continue
            specs += [(f"{facet}{_SEP}{v}", ("v", v, n, False, width)) for v, n in parts]
            every = facet in self.showing_all
            listed = rest if every else rest[:limit]
            specs += [(f"{facet}{_SEP}{v}", ("v", shown.get(v, v), n, False, width)) for v, n in listed]
            if len(rest) > limit:
                if every:
                    specs.append((f"{facet}{_SEP}{_FEWER}", ("fewer",)))
                else:
                    specs.append((f"{facet}{_SEP}{_MORE}", ("more", len(rest) - limit)))
        if [i for i, _ in specs] == [o.id for o in self.options] and len(self._shown) == len(specs):
            changed = False
            for index, ((option_id, spec), old) in enumerate(zip(specs, self._shown, strict=True)):
                if spec != old:
                    self.options[index]._set_prompt(self._prompt(option_id, spec))
                    changed = True
            self._shown = [spec for _, spec in specs]
            if changed:
                self._clear_caches()
            return
        self.set_options([Option(self._prompt(option_id, spec), id=option_id) for option_id, spec in specs])
        self._shown = [spec for _, spec in specs]
        if keep is not None:
            with suppress(OptionDoesNotExist):  # the value vanished: leave the highlight where it is
                self.highlighted = self.get_option_index(keep)

    def _prompt(self, option_id: str, spec: tuple) -> Text:
        kind = spec[0]
        if kind == "h":
            return self._header_text(*spec[1:])
        if kind == "v":
            _, value, n, on, width = spec
            return self._value_text(value, n, on, width)
        if kind == "fewer":
            return Text("  fewer", style="italic dim")
        return Text(f"  more… ({spec[1]} more)", style="italic")

    @staticmethod
    def _header_text(
        label: str, n_values: int, n_chosen: int, is_open: bool, n_matching: int, width: int
    ) -> Text:
        suffix = f"  {n_values}"
        chosen = f"  · {n_chosen} chosen" if n_chosen else ""
        room = max(width - 2 - len(suffix) - len(chosen), 6)  # the label gives way, the counts stay
        name = label if len(label) <= room else label[: room - 1] + "…"
        title = Text(f"{'▾' if is_open else '▸'} {name}", style="bold", no_wrap=True)
        title.append(suffix, style="dim")
        title.append(chosen, style="bold")
        return title

    @staticmethod
    def _value_text(value: str, n: int, on: bool, width: int) -> Text:
        count = f" {n}"
        room = max(width - 2 - len(count), 4)
        name = value if len(value) <= room else value[: room - 1] + "…"
        prompt = Text("● " if on else "○ ", style="bold" if on else "dim", no_wrap=True)
        prompt.append(name, style="bold underline" if on else "" if n else "dim")
        prompt.append(" " * (room - len(name)))
        prompt.append(count, style="bold" if n else "dim")
        return prompt

    def _first_value_index(self) -> int:
        for i, option in enumerate(self.options):
            if (option.id or "").partition(_SEP)[2]:
                return i
        return 0

    # --- keys -------------------------------------------------------------------------------------

    def _highlighted_facet(self) -> str | None:
        option = self.highlighted_option
        return option.id.partition(_SEP)[0] if option is not None and option.id else None

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        facet, _, value = (event.option.id or "").partition(_SEP)
        if not value:
            self.set_open(facet, not self.is_open(facet))
        elif value == _MORE:
            self.showing_all.add(facet)
            self._render_options(keep=event.option.id)
        elif value == _FEWER:
            self.showing_all.discard(facet)
            self._render_options(keep=f"{facet}{_SEP}{_MORE}")
        else:
            self.post_message(self.Toggled(facet, value))

    def action_clear_facet(self) -> None:
        facet = self._highlighted_facet()
        if facet is not None:
            self.post_message(self.ClearFacet(facet))

    def action_close_section(self) -> None:
        facet = self._highlighted_facet()
        if facet is not None:
            self.set_open(facet, False)

    def action_open_section(self) -> None:
        facet = self._highlighted_facet()
        if facet is not None:
            self.set_open(facet, True)

    def action_filter_values(self) -> None:
        self.post_message(self.FilterWanted())
