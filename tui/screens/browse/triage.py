"""Triage on the browse screen: tags, notes, accepted alternative golds and undo, written to the workspace.

Every write runs in a thread worker, one at a time in the order the keys were typed (the app's write
turns); a change is shown as saved only once its transaction has committed (`Saved`, `GoldsChanged`).
Tags and notes patch the frame in place; accepting or withdrawing a gold re-scores rows, so the frame
is read again.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import polars as pl
from textual import work

from sqltriage.core.reporting import facets, patches
from sqltriage.core.triage.tags import GOLD_KINDS, Change
from sqltriage.tui.screens.browse.messages import GoldsChanged, Saved, UndoFound
from sqltriage.tui.screens.browse.state import BrowseState, RowKey
from sqltriage.tui.screens.modals import Confirm, NoteEditor, TagPicker
from sqltriage.tui.widgets.detail_pane import DetailPane

if TYPE_CHECKING:
    from sqltriage.core.model import Dataset

CHANGING_ACTIONS = frozenset(
    {
        "tag",
        "tag_all",
        "accept_suggestion",
        "accept_as_gold",
        "withdraw_gold",
        "untag",
        "untag_all",
        "undo",
        "undo_anyone",
        "note",
    }
)  # the keys that write to the workspace: off when it cannot be written


class TriageMixin(BrowseState):
    """The keys that change the workspace, the workers that write, and the handlers that show it done."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A workspace that cannot be written (no permission, a read-only mount) is browsed only."""
        ws = self.session.workspace
        return action not in CHANGING_ACTIONS or (ws is not None and ws.writable)

    def read_accepted_golds(self) -> None:
        """The alternative golds accepted in the app so far, from the workspace (when the screen opens)."""
        if (ws := self.session.workspace) is not None:
            from sqltriage.core.workspace.accepted import accepted

            self.accepted_golds = accepted(ws)

    def _triage_row(self) -> dict[str, Any] | None:
        """The current row as the full frame has it: triage changes land there first."""
        self._row_changed()  # a key typed right after cursor moves acts on the row now under the cursor
        if self.current is None:
            return None
        index, model = self.current
        number = self.index.row_number(index, model) if self.index is not None else None
        if number is not None:
            return self.frame.row(number, named=True)  # a tag change keeps the rows' order
        hits = self.frame.filter((pl.col("index") == index) & (pl.col("model") == model))
        return hits.row(0, named=True) if hits.height else None

    def _show_triage(self, row: dict[str, Any] | None = None) -> None:
        from sqltriage.tui.widgets.detail_render import render_triage

        row = row or self._triage_row()
        if row is None:
            return
        key = (row["index"], row["model"])
        self.query_one(DetailPane).set_tab(
            "triage",
            render_triage(
                row.get("tags") or "",
                row.get("note") or "",
                self.suggestions.get(key, []),
                row.get("tags_by") or "",
                hidden=bool(row.get("_hidden")),
                adjudicated_by=row.get("adjudicated_by") or "",
            ),
        )

    def _filtered_pairs(self) -> list[RowKey]:
        return [(int(i), str(m)) for i, m in self.view.select("index", "model").iter_rows()]

    def _used_tags(self) -> list[str]:
        tags = self.frame.get_column("_f_tag").explode().unique().sort().to_list()
        return [t for t in tags if t and t != facets.NONE_VALUE]

    def _row_tags(self, row: dict[str, Any]) -> list[str]:
        return [t for t in (row.get("tags") or "").split(", ") if t]

    def _own_tags(self, row: dict[str, Any]) -> list[str]:
        """The tags this annotator gave the row (its `tags_by` pairs under their name)."""
        me = f"{self.session.annotator}: "
        return [p[len(me) :] for p in (row.get("tags_by") or "").split("; ") if p.startswith(me)]

    def action_tag(self) -> None:
        row = self._triage_row()
        if row is None:
            return
        key = (row["index"], row["model"])
        have = set(self._row_tags(row))
        picker = TagPicker(
            self.session.taxonomy,
            title=f"tag #{key[0]} · {key[1]}",
            suggestions=[s for s in self.suggestions.get(key, []) if s.tag not in have],
            used=self._used_tags(),
        )

        def picked(tag: str | None) -> None:
            if tag:
                self.save("tag", [key], tag)

        self.app.push_screen(picker, picked)

    def action_tag_all(self) -> None:
        pairs = self._filtered_pairs()
        if not pairs:
            self.notify("no row matches the filter: nothing to tag", severity="warning")
            return
        picker = TagPicker(
            self.session.taxonomy,
            title=f"tag all {len(pairs):,} rows of the filter ({self.filters.describe()})",
            used=self._used_tags(),
        )

        def confirmed(tag: str, yes: bool | None) -> None:
            if yes:
                self.save("tag", pairs, tag)

        def picked(tag: str | None) -> None:
            if tag:
                question = f"Tag all {len(pairs):,} rows of the current filter with {tag!r}?"
                self.app.push_screen(Confirm(question), partial(confirmed, tag))

        self.app.push_screen(picker, picked)

    def action_accept_suggestion(self) -> None:
        row = self._triage_row()
        if row is None:
            return
        key = (row["index"], row["model"])
        have = set(self._row_tags(row))
        pending = [s for s in self.suggestions.get(key, []) if s.tag not in have]
        if not pending:
            self.notify("no suggested cause left for this row")
            return
        self.save("tag", [key], pending[0].tag)

    def action_accept_as_gold(self) -> None:
        """Accept the row's prediction as another correct gold of its example (kept in the workspace)."""
        if self.wait_for_rest(self.action_accept_as_gold):  # the predictions are still being read
            return
        row = self._triage_row()
        if row is None:
            return
        sql = (row.get("pred_sql") or "").strip()
        if not sql:
            self.notify("this row has no prediction to accept", severity="warning")
            return
        index = int(row["index"])
        question = (
            f"Accept {row['model']}'s prediction as an alternative gold of #{index}? It is kept in the "
            "workspace (not the dataset) and every model's row of this example is re-scored."
        )

        model = str(row["model"])

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._gold_worker(self.session.write_turns.take(), partial(self._accept, index, sql, model))

        self.app.push_screen(Confirm(question), confirmed)

    def _accept(self, index: int, sql: str, model: str, ws: Any) -> str:
        from sqltriage.core.triage.accepted_gold import accept

        done = accept(ws, self._dataset(), index, sql, model=model, **self._limits())
        rows = len({m for m, _ in done.changed})
        return f"saved: alternative gold of #{index} accepted from model {model}; {rows} model row(s) now pass EX"

    def action_withdraw_gold(self) -> None:
        """Withdraw one of the highlighted example's accepted alternative golds (picked from a list)."""
        row = self._triage_row()
        if row is None:
            return
        index = int(row["index"])
        choices = self.accepted_labelled(index)
        if not choices:
            self.notify(f"#{index} has no alternative gold accepted in the app", severity="warning")
            return
        by_text = {f"{label}: {sql}": sql for label, sql in choices}

        def picked(text: str | None) -> None:
            if text in by_text:
                self.confirm_withdraw(index, by_text[text])

        picker = TagPicker(
            self.session.taxonomy,
            title=f"withdraw an accepted alternative gold of #{index}",
            only=list(by_text),
        )
        self.app.push_screen(picker, picked)

    def confirm_withdraw(self, index: int, sql: str) -> None:
        """Ask, then withdraw `sql` as an alternative gold of example `index` (the palette calls it too)."""
        question = (
            f"Withdraw the accepted alternative gold of #{index}?\n{sql}\nEvery model's row of this example "
            "is re-scored without it."
        )

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._gold_worker(self.session.write_turns.take(), partial(self._withdraw, index, sql))

        self.app.push_screen(Confirm(question), confirmed)

    def _withdraw(self, index: int, sql: str, ws: Any) -> str:
        from sqltriage.core.triage.accepted_gold import withdraw

        done = withdraw(ws, self._dataset(), index, sql, **self._limits())
        rows = len({m for m, _ in done.changed})
        return f"saved: {done.describe()}; {rows} model row(s) re-scored"

    def _dataset(self) -> Dataset:
        """The dataset rows are re-scored against (in a worker: an error is shown as "not saved")."""
        if self.session.dataset is None:
            raise ValueError("no dataset is loaded: rows cannot be re-scored")
        return self.session.dataset

    def _limits(self) -> dict[str, Any]:
        return {"timeout": self.sources.timeout, "max_rows": self.sources.max_rows}

    @work(thread=True, group="save")
    def _gold_worker(self, turn: int, change: Callable[[Any], str]) -> None:
        """Change the accepted alternative golds (and so re-score rows), then re-read the frame."""
        from sqltriage.core.reporting.report import load_frame
        from sqltriage.core.workspace.accepted import accepted

        session = self.session
        ws = session.workspace
        with session.write_turns.turn(turn):
            try:
                text = change(ws)
                frame = facets.prepare(facets.use_ex_mode(load_frame(ws, self.models or None), self.ex_mode))
                if session.blind:
                    from sqltriage.tui.blind import blinded, hidden_rows

                    frame = blinded(frame, hidden_rows(ws, ws.annotator))
                taken = accepted(ws)
            except Exception as exc:  # shown, never a crash: the workspace kept its last committed state
                self.post_message(GoldsChanged(None, {}, "", error=str(exc)))
                return
        self.post_message(GoldsChanged(frame, taken, text))

    def on_golds_changed(self, message: GoldsChanged) -> None:
        if message.frame is None:
            self.notify(f"not saved: {message.error}", severity="error", timeout=10)
            return
        self.reread_frame(message.frame)  # every column may have changed
        self.accepted_golds = message.accepted
        self.redraw_detail()  # the detail tabs are drawn again from the re-scored row
        self.saved_log.append(message.text)
        self.notify(message.text)
        self.refilter()
        self._run_waiting()  # the frame read again is whole

    def action_untag(self) -> None:
        row = self._triage_row()
        if row is None:
            return
        key = (row["index"], row["model"])
        tags = self._row_tags(row) if self.session.adjudicate else self._own_tags(row)
        if not tags:
            self.notify(
                "this row has no tag of yours to remove" if self._row_tags(row) else "this row has no tag"
            )
            return

        def picked(tag: str | None) -> None:
            if tag:
                self.save("untag", [key], tag)

        picker = TagPicker(self.session.taxonomy, title=f"remove a tag from #{key[0]} · {key[1]}", only=tags)
        self.app.push_screen(picker, picked)

    def action_untag_all(self) -> None:
        pairs = self._filtered_pairs()
        tags = sorted(set(self.view.get_column("_f_tag").explode().to_list()) - {facets.NONE_VALUE})
        if not tags:
            self.notify("no row of the filter has a tag")
            return

        def confirmed(tag: str, yes: bool | None) -> None:
            if yes:
                self.save("untag", pairs, tag)

        def picked(tag: str | None) -> None:
            if tag:
                question = f"Remove {tag!r} from every row of the current filter ({len(pairs):,} rows)?"
                self.app.push_screen(Confirm(question), partial(confirmed, tag))

        picker = TagPicker(self.session.taxonomy, title="remove a tag from every filtered row", only=tags)
        self.app.push_screen(picker, picked)

    def action_note(self) -> None:
        row = self._triage_row()
        if row is None:
            return
        key = (row["index"], row["model"])

        def edited(text: str | None) -> None:
            if text is not None and text != (row.get("note") or ""):
                self.save("note", [key], text)

        self.app.push_screen(NoteEditor(f"note on #{key[0]} · {key[1]}", row.get("note") or ""), edited)

    def action_undo(self) -> None:
        """Undo your newest change still in force, from the workspace's logs (so from any session).

        What it would undo is read in a worker and shown for confirmation before anything is written.
        """
        self._undo_lookup_worker(self.session.annotator)

    def action_undo_anyone(self) -> None:
        """Undo the newest change still in force whoever made it (another annotator's, asked for)."""
        self._undo_lookup_worker(None)

    def action_toggle_adjudicate(self) -> None:
        """Adjudication on or off: while on, tagging and untagging set the rows' final tags."""
        session = self.session
        session.adjudicate = not session.adjudicate
        self.notify(
            "adjudicating: t and d now set the final tags of a row"
            if session.adjudicate
            else "adjudication off: t and d change your own tags"
        )

    @work(thread=True, group="save")
    def _undo_lookup_worker(self, annotator: str | None) -> None:
        from sqltriage.core.triage import history

        try:
            change = history.last_change(self.session.workspace, annotator)
        except Exception as exc:
            self.post_message(UndoFound(None, error=str(exc)))
            return
        self.post_message(UndoFound(change))

    def on_undo_found(self, message: UndoFound) -> None:
        from sqltriage.core.triage.history import describe

        change = message.change
        if change is None:
            self.notify(
                message.error or "nothing to undo: the workspace has no change in force",
                severity="warning" if message.error else "information",
            )
            return

        def confirmed(yes: bool | None) -> None:
            if not yes:
                return
            if change.kind in GOLD_KINDS:  # re-scores rows: the frame is read again afterwards
                self._gold_worker(self.session.write_turns.take(), partial(self._undo_gold, change))
            else:
                self.save("undo", [], "", undo_of=change)

        self.app.push_screen(Confirm(f"Undo: {describe(change)}?"), confirmed)

    def _undo_gold(self, change: Change, ws: Any) -> str:
        from sqltriage.core.triage import history

        done = history.undo(ws, change, dataset=self.session.dataset, **self._limits())
        return f"undone: {done.describe()}"

    def save(self, kind: str, pairs: list[RowKey], value: str, *, undo_of: Change | None = None) -> None:
        """Write one change in a worker; the screen shows it once `Saved` says it committed."""
        turn = self.session.write_turns.take()
        self._save_worker(turn, kind, pairs, value, undo_of)

    @work(thread=True, group="save")
    def _save_worker(
        self, turn: int, kind: str, pairs: list[RowKey], value: str, undo_of: Change | None
    ) -> None:
        from sqltriage.core.triage import tags

        ws = self.session.workspace
        with self.session.write_turns.turn(turn):  # changes commit in the order made
            try:
                if undo_of is not None:
                    from sqltriage.core.triage import history

                    change = history.undo(ws, undo_of)
                elif kind in ("tag", "untag") and self.session.adjudicate:
                    change = _adjudicated(ws, kind, pairs, value)
                elif kind == "tag":
                    change = tags.add_tag(ws, pairs, value)
                elif kind == "untag":
                    change = tags.remove_tag(ws, pairs, value)
                else:
                    change = tags.set_note(ws, pairs[0], value)
                rows = patches.rows_as_stored(ws, change.pairs)
            except Exception as exc:  # shown, never a crash: the workspace kept its last committed state
                self.post_message(Saved(None, error=str(exc)))
                return
        self.post_message(Saved(change, undo=undo_of is not None, rows=rows))

    def on_saved(self, message: Saved) -> None:
        change = message.change
        if change is None:
            self.notify(f"not saved: {message.error}", severity="error", timeout=10)
            return
        if change.kind in (
            "tag",
            "untag",
            "adjudicate",
        ):  # the rows' final tags and who gave which, as stored
            from sqltriage.tui.blind import revealed

            self.patch_frame(revealed(patches.with_row_tags(self.frame, message.rows), list(message.rows)))
        else:
            self.patch_frame(patches.with_note(self.frame, change.notes_after))
        text = ("undone: " if message.undo else "saved: ") + change.describe()
        self.saved_log.append(text)
        self.notify(text)
        self.refilter()
        self._show_triage()


def _adjudicated(ws: Any, kind: str, pairs: list[RowKey], tag: str) -> Change:
    """Adjudication: the tag added to (or removed from) each row's final tags, recorded as adjudicated."""
    from sqltriage.core.triage.adjudication import adjudicate, adjudicated

    changed = []
    with ws.write():
        for pair in pairs:
            current = set(adjudicated(ws, pair) or ws.tags_of(*pair))
            new = current | {tag} if kind == "tag" else current - {tag}
            if new != current:
                adjudicate(ws, pair, sorted(new))
                changed.append(pair)
    return Change(kind, tuple(changed), tag, annotator=ws.annotator)
