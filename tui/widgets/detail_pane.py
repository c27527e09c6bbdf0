"""The detail of the highlighted row: SQL diff, partial-match breakdown, live results, question, triage."""

from __future__ import annotations

from typing import ClassVar

from rich.console import RenderableType
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Static, TabbedContent, TabPane, TextArea

from sqltriage.tui.widgets.plain import plain_text

TABS: tuple[tuple[str, str], ...] = (
    ("sql", "SQL"),
    ("breakdown", "Breakdown"),
    ("results", "Results"),
    ("question", "Question"),
    ("triage", "Triage"),
    ("response", "Response"),  # the model's raw response and its candidates (widgets/response_render.py)
)


class DetailPane(Vertical):
    """Tabs whose content is set by the screen's message handlers; it keeps what it shows for `text()`.

    Its top border is the split with the table: dragging it with the mouse resizes the pane.
    """

    ALLOW_MAXIMIZE = True

    class DragSplit(Message):
        """The split was dragged to this screen row."""

        def __init__(self, screen_y: int) -> None:
            super().__init__()
            self.screen_y = screen_y

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+r", "run_edited", "Run edited SQL", id="detail.run"),
        Binding("ctrl+t", "next_tab", "Next tab", id="detail.next_tab"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.shown: dict[str, RenderableType] = {}
        self._stale: set[str] = set()  # tabs whose content changed while hidden
        self._dragging = False

    def compose(self) -> ComposeResult:
        with TabbedContent(id="detail-tabs", initial="tab-sql"):
            for key, title in TABS:
                with TabPane(title, id=f"tab-{key}"):
                    if key == "results":
                        yield TextArea("", id="pred-editor", soft_wrap=True, show_line_numbers=False)
                    with VerticalScroll():
                        yield Static("", id=f"body-{key}")

    @property
    def tabs(self) -> TabbedContent:
        return self.query_one("#detail-tabs", TabbedContent)

    @property
    def active(self) -> str:
        return self.tabs.active

    @active.setter
    def active(self, tab_id: str) -> None:
        self.tabs.active = tab_id

    def set_tab(self, key: str, renderable: RenderableType) -> None:
        """Keep `renderable` for the tab; draw it now only if the tab is shown (else when it is chosen).

        Laying out hidden tabs on every cursor move would cost more than the move itself.
        """
        self.shown[key] = renderable
        if self.is_mounted and self.active != f"tab-{key}":
            self._stale.add(key)
            return
        self._stale.discard(key)
        self.query_one(f"#body-{key}", Static).update(renderable)

    @on(TabbedContent.TabActivated, "#detail-tabs")
    def _draw_chosen(self, event: TabbedContent.TabActivated) -> None:
        key = (event.pane.id or "").removeprefix("tab-")
        if key in self._stale:
            self._stale.discard(key)
            self.query_one(f"#body-{key}", Static).update(self.shown[key])

    def text(self, key: str, width: int = 140) -> str:
        """The tab's content as plain text, as a terminal of `width` columns draws it."""
        return plain_text(self.shown.get(key), width)

    @property
    def editor(self) -> TextArea:
        return self.query_one("#pred-editor", TextArea)

    def focus_body(self) -> None:
        """Focus the shown tab's scrolling body, so arrows and page keys scroll what is read."""
        pane = self.tabs.active_pane
        if pane is not None:
            pane.query_one(VerticalScroll).focus()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        if event.y == 0 and self.screen.maximized is None:  # the top border: start dragging the split
            self._dragging = True
            self.capture_mouse()
            event.stop()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if self._dragging:
            self.post_message(self.DragSplit(event.screen_y))

    def on_mouse_up(self, event: events.MouseUp) -> None:
        if self._dragging:
            self._dragging = False
            self.release_mouse()
            self.post_message(self.DragSplit(event.screen_y))

    def action_next_tab(self) -> None:
        keys = [f"tab-{k}" for k, _ in TABS]
        self.active = keys[(keys.index(self.active) + 1) % len(keys)] if self.active in keys else keys[0]

    def action_run_edited(self) -> None:
        self.screen.action_run_edited()  # type: ignore[attr-defined] # the screen owns the run: it knows the row
