"""Small modal dialogs of the triage flow: tag picker, confirmation, note editor, export path.

Each returns its answer through `dismiss` (None when cancelled); the caller does the work, so a
dialog never touches the workspace.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, TextArea
from textual.widgets.option_list import Option

from sqltriage.core.triage.taxonomy import Taxonomy

if TYPE_CHECKING:  # the suggestion engine loads sqlglot: only when a row is analysed
    from sqltriage.core.suggest import Suggestion

_SEP = "\x1f"


class TagPicker(ModalScreen[str | None]):
    """Type to search the taxonomy, a quick key (`t2`) or a new tag; enter picks, escape cancels.

    Suggested causes come first, so `t` then enter accepts the top suggestion.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="picker.cancel"),
        Binding("down", "move(1)", "Next", show=False, id="picker.down"),
        Binding("up", "move(-1)", "Previous", show=False, id="picker.up"),
    ]

    def __init__(
        self,
        taxonomy: Taxonomy,
        *,
        title: str,
        suggestions: Sequence[Suggestion] = (),
        used: Sequence[str] = (),
        only: Sequence[str] | None = None,
    ) -> None:
        super().__init__()
        self.taxonomy = taxonomy
        self.title_text = title
        self.suggestions = list(suggestions)
        self.used = [t for t in used if taxonomy.by_tag(t) is None]
        self.only = list(only) if only is not None else None

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box", classes="dialog"):
            yield Label(self.title_text, id="picker-title")
            placeholder = "search" if self.only is not None else "search, quick key (e.g. t2) or a new tag"
            yield Input(placeholder=placeholder, id="picker-input")
            yield OptionList(id="picker-options")
            yield Label("enter picks · ↑↓ move · esc cancels", classes="hint")

    def on_mount(self) -> None:
        self._rebuild("")
        self.query_one(Input).focus()

    @property
    def options(self) -> OptionList:
        return self.query_one("#picker-options", OptionList)

    def _rebuild(self, text: str) -> None:
        words = text.lower().split()
        opts: list[Option] = []
        if self.only is not None:
            for tag in self.only:
                if all(w in tag.lower() for w in words):
                    opts.append(Option(tag, id=f"r{_SEP}{tag}"))
        else:
            exact = self.taxonomy.by_key(text) if text.strip() else None
            if exact is not None:
                opts.append(
                    Option(
                        self._cause_prompt(exact.key, exact.tag, exact.description), id=f"k{_SEP}{exact.tag}"
                    )
                )
            for rank, s in enumerate(self.suggestions, 1):
                if all(w in f"{s.tag} {s.reason}".lower() for w in words):
                    prompt = Text(f"★ {rank}. suggested  ", style="bold")
                    prompt.append(s.tag, style="bold")
                    prompt.append(f"  {s.confidence:.0%}  {s.reason}", style="dim")
                    opts.append(Option(prompt, id=f"s{_SEP}{s.tag}"))
            for c in self.taxonomy.search(text):
                opts.append(Option(self._cause_prompt(c.key, c.tag, c.description), id=f"c{_SEP}{c.tag}"))
            for tag in self.used:
                if all(w in tag.lower() for w in words):
                    opts.append(Option(Text(f"     {tag}  (in use)"), id=f"u{_SEP}{tag}"))
            known = {o.id.partition(_SEP)[2] for o in opts if o.id}
            if text.strip() and text.strip() not in known and exact is None:
                opts.append(
                    Option(Text(f"new tag: {text.strip()}", style="italic"), id=f"n{_SEP}{text.strip()}")
                )
        self.options.clear_options()
        self.options.add_options(opts)
        if opts:
            self.options.highlighted = 0

    @staticmethod
    def _cause_prompt(key: str, tag: str, description: str) -> Text:
        prompt = Text(f"{key:>3}  ", style="bold")
        prompt.append(tag)
        if description:
            prompt.append(f"  {description}", style="dim")
        return prompt

    @on(Input.Changed, "#picker-input")
    def _changed(self, event: Input.Changed) -> None:
        self._rebuild(event.value)

    @on(Input.Submitted, "#picker-input")
    def _submitted(self) -> None:
        self._pick()

    @on(OptionList.OptionSelected, "#picker-options")
    def _selected(self) -> None:
        self._pick()

    def _pick(self) -> None:
        option = self.options.highlighted_option
        if option is not None and option.id:
            self.dismiss(option.id.partition(_SEP)[2])

    def action_move(self, step: int) -> None:
        n = self.options.option_count
        if n:
            current = self.options.highlighted or 0
            self.options.highlighted = (current + step) % n

    def action_cancel(self) -> None:
        self.dismiss(None)


class Confirm(ModalScreen[bool]):
    """A yes/no question; y or enter confirms, n or escape declines."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box", classes="dialog"):
            yield Label(self.question, id="confirm-question")
            with Horizontal(classes="buttons"):
                yield Button("Yes (y)", id="yes", variant="primary")
                yield Button("No (n)", id="no")

    def on_mount(self) -> None:
        self.query_one("#yes", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class NoteEditor(ModalScreen[str | None]):
    """The note of one (example, model): ctrl+s saves (an empty note deletes it), escape cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save note", id="note.save"),
        Binding("escape", "cancel", "Cancel", id="note.cancel"),
    ]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = title
        self.initial = text

    def compose(self) -> ComposeResult:
        with Vertical(id="note-box", classes="dialog"):
            yield Label(self.title_text)
            yield TextArea(self.initial, id="note-text", soft_wrap=True)
            yield Label("ctrl+s saves · esc cancels", classes="hint")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_save(self) -> None:
        self.dismiss(self.query_one(TextArea).text)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ExportDialog(ModalScreen[str | None]):
    """Where to write the CSV of the current filter; enter exports, escape cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="export.cancel")]

    def __init__(self, rows: int, default: str) -> None:
        super().__init__()
        self.rows = rows
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical(id="export-box", classes="dialog"):
            yield Label(
                f"export {self.rows:,} rows (the current filter) to a .csv, .jsonl, .parquet or .sqlite file:"
            )
            yield Input(self.default, id="export-path")
            yield Label("enter exports · esc cancels", classes="hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted, "#export-path")
    def _submitted(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)
