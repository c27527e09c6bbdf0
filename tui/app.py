"""The Textual app and its factory, shared by `sqltriage open` and the tests.

The app opens a workspace, brings it up to date in a worker (progress screen), then shows the browse
screen. Bindings carry ids so a keymap ({id: keys}) can remap any of them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider

from sqltriage.core.model import Dataset, PredictionSet
from sqltriage.core.triage.taxonomy import Taxonomy, default_taxonomy
from sqltriage.core.workspace.store import Workspace
from sqltriage.tui.idle_gc import IdleCollector
from sqltriage.tui.opening import Preload
from sqltriage.tui.screens.first import FirstScreen
from sqltriage.tui.screens.help import HelpScreen
from sqltriage.tui.screens.progress import Loaded, ProgressScreen
from sqltriage.tui.write_turns import WriteTurns

if TYPE_CHECKING:  # the browse screen imports polars: it comes once the first screen is drawn
    from sqltriage.tui.screens.browse.session import BrowseSession

HELD_THROUGH = frozenset({"ctrl+q", "ctrl+c"})  # keys that act at once even while others wait (`on_event`)


class ScreenActions(Provider):
    """The palette's own commands: the current screen's key actions, and one filter per outcome."""

    def _commands(self) -> list[tuple[str, str, Any]]:
        out: list[tuple[str, str, Any]] = []
        seen: set[str] = set()
        for active in self.screen.active_bindings.values():
            b = active.binding
            if not b.description or b.action in seen or not active.enabled:
                continue
            seen.add(b.action)
            out.append(
                (b.description, f"key {b.key_display or b.key}", partial(active.node.run_action, b.action))
            )
        from sqltriage.tui.screens.browse import BrowseScreen

        if isinstance(self.screen, BrowseScreen):
            from sqltriage.core.reporting.facets import OUTCOMES

            screen = self.screen
            for name in OUTCOMES:
                out.append(
                    (
                        f"Filter outcome: {name}",
                        "toggle this outcome value",
                        partial(screen.toggle_facet, "outcome", name),
                    )
                )
            for model in screen.models:
                out.append(
                    (
                        f"Filter model: {model}",
                        "toggle this model",
                        partial(screen.toggle_facet, "model", model),
                    )
                )
            if screen.current is not None:  # the highlighted example's accepted alternative golds
                index = screen.current[0]
                for label, sql in screen.accepted_labelled(index):
                    out.append(
                        (
                            f"Withdraw alternative gold of #{index}: {label}: {sql}",
                            "re-score the example's rows without it (asks first)",
                            partial(screen.confirm_withdraw, index, sql),
                        )
                    )
        return out

    async def discover(self) -> Hits:
        for name, help_text, callback in self._commands():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, callback in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)


class SqlTriageApp(App[None]):
    CSS_PATH = "sqltriage.tcss"
    TITLE = "sqltriage"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("question_mark", "help", "Help", key_display="?", id="app.help"),
    ]
    COMMANDS = App.COMMANDS | {ScreenActions}

    def __init__(
        self,
        workspace: Workspace,
        dataset: Dataset,
        predictions: Sequence[PredictionSet],
        options: Any,
        keymap: Mapping[str, str] | None = None,
        *,
        ex_mode: str = "spider",
        taxonomy: Taxonomy | None = None,
        theme: str | None = None,
        config_file: Path | None = None,
        facets_open: Sequence[str] = (),
        facets_closed: Sequence[str] = (),
        open_note: str = "",
        preload: Preload | None = None,
    ) -> None:
        super().__init__()
        self.preload = preload  # the workspace's first screen, being read since before the app's imports
        self.open_note = open_note  # said once the browse screen is up (e.g. the dataset is gone)
        self.config_file = config_file  # where sidebar sections are remembered (None: not remembered)
        # the sidebar's sections as remembered: the first screen's, then the browse session's to change
        self.facet_sections = (tuple(facets_open), tuple(facets_closed))
        self.workspace = workspace
        self.dataset = dataset
        self.predictions = tuple(predictions)
        self.options = options
        self.keymap = dict(keymap or {})
        self.ex_mode = ex_mode
        self.taxonomy = taxonomy or default_taxonomy()
        self.initial_theme = theme
        self.load_error = ""
        self.write_turns = WriteTurns()
        self.blind = False  # others' tags on a row hidden until this annotator has tagged it (--blind)
        self.adjudicate_at_start = False  # --adjudicate: the browse session starts with it
        self.browse_session: BrowseSession | None = None  # what the browse screen uses of the app, once up
        self.idle_gc = IdleCollector()  # full garbage collections wait for a pause in the typing
        self._held: list[events.Event] | None = (
            None  # keys pressed while the first screen waits for its frame
        )
        self._replayed: list[events.Event] = []  # held keys sent again, on their way
        self._said_opening = False  # the notes on opening were given (with the first screen)

    def on_mount(self) -> None:
        if self.initial_theme and self.initial_theme in self.available_themes:
            self.theme = self.initial_theme
        if self.keymap:
            self.set_keymap(self.keymap)
        if self.preload is not None and not self.predictions:
            # nothing to evaluate: no progress screen, and the first rows at once when they could be read
            # (not with others' tags hidden: which rows hide them is known from the frame)
            page = None if self.blind else self.preload.first_page()
            if page is None:
                self._take_preload()
                return
            self._held = []
            self.push_screen(FirstScreen(page))
            self._say_on_opening(page.models, page.total)
        else:
            self.push_screen(
                ProgressScreen(self.workspace.path, self.dataset, self.predictions, self.options)
            )

    def on_first_screen_drawn(self, message: FirstScreen.Drawn) -> None:
        """The first rows are on the terminal: the frame (with polars and the browse screen) is read now."""
        self._take_preload()

    @work(thread=True, exclusive=True, group="open")
    def _take_preload(self) -> None:
        """What the preload read (or its error), as the progress screen would have posted it."""
        assert self.preload is not None
        try:
            import sqltriage.tui.screens.browse  # noqa: F401 - imported here, off the app's thread

            opening = self.preload.result()
        except Exception as exc:  # shown as the progress screen shows it: the app exits saying why
            self.post_message(Loaded(None, [], error=str(exc)))
            return
        self.post_message(Loaded(opening.frame, opening.models, opening=opening))

    async def on_loaded(self, message: Loaded) -> None:
        from sqltriage.tui.screens.browse import BrowseScreen, Sources

        if message.frame is None:
            self.load_error = message.error
            self.exit(
                message=f"could not evaluate or load {self.workspace.path}: {message.error}\n"
                "  → whatever was evaluated is kept in the workspace; running again resumes from there"
            )
            return
        sources = Sources(
            schemas=self.dataset.schemas,
            databases=self.dataset.databases,
            timeout=getattr(self.options, "timeout", 5.0),
            max_rows=getattr(self.options, "max_rows", 100_000),
        )
        opening = message.opening
        frame, index, cells = message.frame, getattr(opening, "index", None), getattr(opening, "cells", None)
        if self.blind:  # others' tags hidden until this annotator tags the row: index and cells made again
            from sqltriage.tui.blind import blinded, hidden_rows

            frame, index, cells = (
                blinded(frame, hidden_rows(self.workspace, self.workspace.annotator)),
                None,
                None,
            )
        browse = BrowseScreen(
            frame,
            sources,
            message.models,
            session=self.open_browse_session(),
            ex_mode=self.ex_mode,
            index=index,
            cells=cells,
        )
        if isinstance(self.screen, (ProgressScreen, FirstScreen)):
            await self.switch_screen(browse)
        else:  # opened from a preload, without a progress screen
            await self.push_screen(browse)
        if message.note:
            self.notify(message.note)
        if self._held is not None:
            browse.call_after_refresh(self._release_keys)
        self._say_on_opening(message.models, message.frame.height)

    def open_browse_session(self) -> BrowseSession:
        """What the browse screen uses of the app (kept: the app reads the adjudication toggle from it)."""
        from sqltriage.tui.screens.browse.session import BrowseSession

        self.browse_session = BrowseSession(
            workspace=self.workspace,
            taxonomy=self.taxonomy,
            annotator=self.workspace.annotator,
            dataset=self.dataset,
            write_turns=self.write_turns,
            blind=self.blind,
            adjudicate=self.adjudicate_at_start,
            features=getattr(self.options, "features", True),
            pipeline=getattr(self.options, "pipeline", None),
            config_file=self.config_file,
            facet_sections=self.facet_sections,
            idle_gc=self.idle_gc,
        )
        return self.browse_session

    @property
    def adjudicate(self) -> bool:
        """Whether tag changes set the rows' final tags: the browse session's toggle (`J`) once it is up."""
        session = self.browse_session
        return session.adjudicate if session is not None else self.adjudicate_at_start

    def _say_on_opening(self, models: Sequence[str], rows: int) -> None:
        """The notes on opening (once): the open note, a read-only workspace, what is browsed or left out."""
        if self._said_opening:
            return
        self._said_opening = True
        if self.open_note:
            self.notify(self.open_note)
        if not self.workspace.writable:
            self.notify(
                f"{self.workspace.path.name} cannot be changed ({self.workspace.read_only_reason}): browse and "
                "export it; tags, notes and alternative golds are off",
                severity="warning",
                timeout=15,
            )
        if not self.predictions:
            self._say_what_is_browsed(models, rows)
        else:
            self._say_what_is_left_out(models)

    def _release_keys(self) -> None:
        """The keys pressed while the first screen showed, to the browse screen now up, in their order."""
        self.run_worker(self._replay_held(), group="keys")

    async def _replay_held(self) -> None:
        """Each held key (and any pressed meanwhile) in turn, once what the one before set off has run:
        as if typed at a human pace, so that `j` then `t` tags the row `j` went to."""
        while self._held:
            held = self._held.pop(0)
            if isinstance(held, events.Key):
                event: events.Event = events.Key(held.key, held.character)
            else:
                assert isinstance(held, events.Paste)
                event = events.Paste(held.text)
            self._replayed.append(event)  # let through by `on_event`, which holds the others meanwhile
            self.post_message(event)
            for _ in range(3):  # the key, the action it runs, the messages that action posts
                await self._queues_done()
        self._held = None
        self._replayed.clear()

    async def _queues_done(self) -> None:
        """Until the app, the screen and its widgets have handled what was queued for them so far."""
        pending = [self, *self.screen.walk_children(with_self=True)]
        done = asyncio.Event()
        count = 0

        def one_done() -> None:
            nonlocal count
            count -= 1
            if count == 0:
                done.set()

        for pump in pending:
            if pump.call_later(one_done):
                count += 1
        if count:
            await done.wait()

    def _say_what_is_left_out(self, shown: Sequence[str]) -> None:
        """Models the workspace holds beyond those given with --pred are not shown: say so, and how to see them."""
        stored = self.workspace.models()
        hidden = [m for m in stored if m not in shown]
        if hidden:
            self.notify(
                f"showing {len(shown)} of the {len(stored)} models stored in {self.workspace.path.name} "
                f"(not {', '.join(hidden[:3])}{', …' if len(hidden) > 3 else ''}); "
                "open the workspace alone (--workspace FILE, no --pred) to browse them all",
                timeout=10,
            )

    def _say_what_is_browsed(self, models: Sequence[str], rows: int) -> None:
        """Opened without --pred: the models the workspace holds, or how to add one when it holds none."""
        if not models or not rows:
            self.notify(
                f"{self.workspace.path.name} holds no evaluated model yet: add one with --pred NAME=FILE",
                severity="warning",
                timeout=10,
            )
            return
        n = len(models)
        self.notify(f"{n} model{'s' if n != 1 else ''} stored in {self.workspace.path.name}, {rows:,} rows")

    def binding_entries(self) -> list[tuple[str, Binding]]:
        """Every binding a user may want, for the help screen (deduplicated by id)."""
        from sqltriage.tui.screens.browse import BrowseScreen
        from sqltriage.tui.screens.modals import Confirm, ExportDialog, NoteEditor, TagPicker
        from sqltriage.tui.screens.progress import ProgressScreen as _Progress
        from sqltriage.tui.screens.summary import SummaryScreen
        from sqltriage.tui.widgets.detail_pane import DetailPane
        from sqltriage.tui.widgets.examples_table import ExamplesTable
        from sqltriage.tui.widgets.facet_panel import FacetPanel

        out: list[tuple[str, Binding]] = []
        seen: set[str] = set()
        for where, cls in (
            ("app", SqlTriageApp),
            ("browse", BrowseScreen),
            ("table", ExamplesTable),
            ("facets", FacetPanel),
            ("detail", DetailPane),
            ("summary", SummaryScreen),
            ("tag picker", TagPicker),
            ("confirm", Confirm),
            ("note", NoteEditor),
            ("export", ExportDialog),
            ("help", HelpScreen),
            ("opening", _Progress),
        ):
            for b in cls.BINDINGS:
                if isinstance(b, Binding) and b.id and b.id not in seen:
                    seen.add(b.id)
                    out.append((where, b))
        return out

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.binding_entries(), self.keymap))

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.MouseDown, events.MouseScrollDown, events.MouseScrollUp)):
            self.idle_gc.touch()
        replayed = any(event is sent for sent in self._replayed)  # (one also comes back here, bubbling up)
        if self._held is not None and not replayed:  # the first screen waits for its frame: keys wait too
            if (isinstance(event, events.Key) and event.key not in HELD_THROUGH) or isinstance(
                event, events.Paste
            ):
                self._held.append(event)
                return
            if isinstance(event, events.MouseEvent):  # the mouse is off meanwhile
                return
        await super().on_event(event)

    def on_unmount(self) -> None:
        self.idle_gc.stop()
        self.workspace.close()


def create_app(
    workspace: Path | str,
    dataset: Dataset,
    predictions: Sequence[PredictionSet] = (),
    options: Any = None,
    *,
    keymap: Mapping[str, str] | None = None,
    ex_mode: str = "spider",
    taxonomy: Taxonomy | None = None,
    theme: str | None = None,
    config_file: Path | None = None,
    facets_open: Sequence[str] = (),
    facets_closed: Sequence[str] = (),
    open_note: str = "",
    preload: Preload | None = None,
    annotator: str | None = None,
    blind: bool = False,
    adjudicate: bool = False,
) -> SqlTriageApp:
    """The app on `workspace` for these inputs; opening the workspace here lets a bad path fail early.

    `preload`: the same workspace's first screen, already being read (`tui.opening.Preload`; only
    when nothing is to be evaluated)."""
    from sqltriage.core.pipeline.options import EvalOptions

    path = Path(workspace)
    existing = path.exists() and path.stat().st_size > 0
    app = SqlTriageApp(
        # an existing workspace is only read until the user changes something (a tag, a note, a model)
        Workspace.open_for_reading(path, writes_later=True) if existing else Workspace.open(path),
        dataset,
        predictions,
        options or EvalOptions(),
        keymap=keymap,
        ex_mode=ex_mode,
        taxonomy=taxonomy,
        theme=theme,
        config_file=config_file,
        facets_open=facets_open,
        facets_closed=facets_closed,
        open_note=open_note,
        preload=preload,
    )
    if annotator:
        app.workspace.annotator = annotator
    app.blind, app.adjudicate_at_start = blind, adjudicate
    return app
