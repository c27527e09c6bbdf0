"""Triage changes (tag, untag, note) written to the workspace one transaction each, and their undo.

Each change returns a `Change` that says exactly which (example, model) pairs it touched, read back
from the workspace's `tag_log` (rows that already had the tag are not counted), so undoing it
restores precisely the state before it and a bulk change undoes as one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from sqltriage.core.triage import accepted_gold
from sqltriage.core.workspace.store import Workspace

Pair = tuple[int, str]  # (example index, model)
GOLD_KINDS = ("accept_gold", "withdraw_gold")  # changes of the accepted alternative golds, not of triage


@dataclass(frozen=True, slots=True)
class Change:
    kind: (
        str  # "tag" | "untag" | "note" | "adjudicate" | "accept_gold" | "withdraw_gold" (core.accepted_gold)
    )
    pairs: tuple[Pair, ...]  # the pairs really changed
    tag: str = ""
    notes_before: Mapping[Pair, str] = field(default_factory=dict)  # for "note"
    notes_after: Mapping[Pair, str] = field(default_factory=dict)
    id: str = ""  # where the workspace's logs hold it (core.history), "" when not read from them
    created: float = 0.0  # when it was made (seconds since the epoch), 0 when not read from the logs
    sql: str = ""  # for "accept_gold"/"withdraw_gold": the alternative gold query; pairs holds (index, model)
    annotator: str = ""  # who made it ("" when not read from the logs)
    tags_before: tuple[str, ...] | None = None  # for "adjudicate": the final tags set before (None: none)
    tags_after: tuple[str, ...] | None = None  # and after (None: the adjudication withdrawn)

    def describe(self) -> str:
        if self.kind in GOLD_KINDS:
            index, model = self.pairs[0]
            return accepted_gold.describe(
                accepted_gold.ACCEPT if self.kind == "accept_gold" else accepted_gold.WITHDRAW, index, model
            )
        if self.kind == "adjudicate":
            after = ", ".join(self.tags_after) if self.tags_after is not None else "not adjudicated"
            return f"adjudicated #{self.pairs[0][0]} · {self.pairs[0][1]}: {after or 'no tag'}"
        n = len(self.pairs)
        rows = f"{n} row{'s' if n != 1 else ''}"
        if self.kind == "tag":
            return f"tagged {rows} {self.tag!r}"
        if self.kind == "untag":
            return f"removed {self.tag!r} from {rows}"
        return f"note saved on {rows}" if any(self.notes_after.values()) else f"note cleared on {rows}"


def add_tag(ws: Workspace, pairs: Iterable[Pair], tag: str, *, annotator: str | None = None) -> Change:
    """Tag every pair (one transaction) as `annotator` (default: the workspace's); the change lists the
    pairs this annotator had not tagged so yet."""
    tag = tag.strip()
    who = annotator or ws.annotator
    before = ws.last_seq("tag")
    ws.add_tags(list(pairs), tag, annotator=who)
    return Change("tag", ws.tags_logged_since(before, "add", tag), tag, annotator=who)


def remove_tag(ws: Workspace, pairs: Iterable[Pair], tag: str, *, annotator: str | None = None) -> Change:
    who = annotator or ws.annotator
    before = ws.last_seq("tag")
    ws.remove_tags(list(pairs), tag, annotator=who)
    return Change("untag", ws.tags_logged_since(before, "remove", tag), tag, annotator=who)


def set_note(ws: Workspace, pair: Pair, text: str) -> Change:
    """Set one note, logged in `note_log` (one transaction) so that it can be undone in a later session."""
    with ws.write():
        before = ws.note_of(*pair)
        ws.set_note(*pair, text)
        after = ws.note_of(*pair)
        if after != before:
            ws.log_note(*pair, before, after)
    return Change(
        "note", (pair,), notes_before={pair: before}, notes_after={pair: after}, annotator=ws.annotator
    )


def undo(ws: Workspace, change: Change) -> Change:
    """Apply the inverse of `change` (itself one transaction per kind) and return what it did."""
    if change.kind == "tag":  # an annotator's tags are undone as theirs, whoever asks
        return remove_tag(ws, change.pairs, change.tag, annotator=change.annotator or None)
    if change.kind == "untag":
        return add_tag(ws, change.pairs, change.tag, annotator=change.annotator or None)
    after: dict[Pair, str] = {}
    with ws.write():  # every note of the change restored together (nested writes join this one)
        for pair, text in change.notes_before.items():
            current = ws.note_of(*pair)
            ws.set_note(*pair, text)
            after[pair] = ws.note_of(*pair)
            if after[pair] != current:
                ws.log_note(*pair, current, after[pair])
    return Change(
        "note", change.pairs, notes_before=dict(change.notes_after), notes_after=after, annotator=ws.annotator
    )
