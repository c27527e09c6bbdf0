"""`?`: every key binding of the app and the browse screen, with the id to remap it by."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "dismiss", "Close help", id="help.close"),
    ]

    def __init__(self, bindings: list[tuple[str, Binding]], keymap: dict[str, str]) -> None:
        super().__init__()
        self.entries = bindings
        self.keymap = keymap

    def compose(self) -> ComposeResult:
        table = Table(title="keys (remap by id in the keymap file)", expand=True)
        table.add_column("where")
        table.add_column("key")
        table.add_column("does")
        table.add_column("id", style="dim")
        for where, b in self.entries:
            keys = self.keymap.get(b.id or "", b.key_display or b.key)
            table.add_row(where, keys, b.description, b.id or "")
        table.add_row("app", "ctrl+p", "command palette", "")
        with VerticalScroll(id="help-box"):
            yield Static(table, id="help-table")

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)
