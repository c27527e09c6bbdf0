"""`sqltriage tags import FILE.csv`: labels made elsewhere, as one annotator's (or an adjudicator's) tags.

The file has the columns `index`, `model`, `tags` (taxonomy tags, "; "-separated; empty means "no
cause": the row counts as decided) and, optionally, `note`. Every line is checked before anything is
written: an unknown tag, a row the workspace does not hold, a repeated row or a missing column is
reported with its line, and then nothing is imported. The import is one transaction: each listed row's
tags by this annotator become exactly the file's (logged, so undo takes them back change by change).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from sqltriage.core.errors import UsageError
from sqltriage.core.triage import adjudication
from sqltriage.core.triage.tags import set_note
from sqltriage.core.triage.taxonomy import Taxonomy
from sqltriage.core.workspace.store import Workspace

REQUIRED = ("index", "model", "tags")
MAX_REPORTED = 20


@dataclass(frozen=True, slots=True)
class Line:
    number: int
    row: tuple[int, str]
    tags: tuple[str, ...]
    note: str | None


def read_csv(path: Path, ws: Workspace, taxonomy: Taxonomy) -> list[Line]:
    """The file's lines, checked against the workspace and the taxonomy; every problem with its line."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            reader = csv.DictReader(fh)
            header = reader.fieldnames or []
            missing = [c for c in REQUIRED if c not in header]
            if missing:
                raise UsageError(
                    f"has no column {', '.join(repr(c) for c in missing)} (line 1: {', '.join(header) or 'empty'})",
                    path=path,
                    hint='the columns are index, model, tags ("; "-separated) and optionally note',
                )
            records = [(reader.line_num, rec) for rec in reader]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise UsageError(f"cannot be read as CSV ({exc})", path=path) from None
    rows = ws.result_rows()
    problems: list[str] = []
    seen: dict[tuple[int, str], int] = {}
    lines: list[Line] = []
    for number, rec in records:
        if None in rec or any(rec.get(c) is None for c in REQUIRED):
            problems.append(f"line {number}: {len(header)} columns expected, the line has another count")
            continue
        try:
            index = int(str(rec["index"]).strip())
        except ValueError:
            problems.append(f"line {number}: index {rec['index']!r} is not a whole number")
            continue
        row = (index, str(rec["model"]).strip())
        if row not in rows:
            problems.append(f"line {number}: row #{row[0]} · {row[1]} is not in the workspace")
            continue
        if row in seen:
            problems.append(f"line {number}: row #{row[0]} · {row[1]} is on line {seen[row]} already")
            continue
        seen[row] = number
        tags = tuple(dict.fromkeys(t.strip() for t in str(rec["tags"]).split(";") if t.strip()))
        unknown = [t for t in tags if taxonomy.by_tag(t) is None]
        if unknown:
            problems.append(
                f"line {number}: unknown tag {', '.join(repr(t) for t in unknown)} (not in {taxonomy.source})"
            )
            continue
        note = rec.get("note")
        lines.append(Line(number, row, tags, None if note is None else str(note)))
    if problems:
        more = len(problems) - MAX_REPORTED
        text = "\n  ".join(problems[:MAX_REPORTED]) + (f"\n  … and {more} more" if more > 0 else "")
        raise UsageError(
            f"was not imported ({len(problems)} problem{'s' if len(problems) != 1 else ''}):\n  {text}",
            path=path,
            hint="fix these lines and import again: nothing was written",
        )
    return lines


def import_tags(
    ws: Workspace, path: Path, taxonomy: Taxonomy, annotator: str, *, adjudicate: bool = False
) -> dict[str, int]:
    """Import the file as `annotator`'s tags (or, with `adjudicate`, as the rows' final tags)."""
    lines = read_csv(path, ws, taxonomy)
    added = removed = notes = 0
    with ws.write():
        for line in lines:
            if adjudicate:
                adjudication.adjudicate(ws, line.row, line.tags, annotator=annotator)
            else:
                have = ws.tags_given_by(*line.row, annotator)
                for tag in sorted(set(line.tags) - have):
                    added += ws.add_tags([line.row], tag, annotator=annotator)
                for tag in sorted(have - set(line.tags)):
                    removed += ws.remove_tags([line.row], tag, annotator=annotator)
                if not line.tags and not have:  # decided: no cause
                    ws.mark_decided([line.row], annotator)
            if line.note is not None and line.note.strip() and line.note != ws.note_of(*line.row):
                previous, ws.annotator = ws.annotator, annotator
                try:
                    set_note(ws, line.row, line.note)
                finally:
                    ws.annotator = previous
                notes += 1
    return {"rows": len(lines), "added": added, "removed": removed, "notes": notes}
