"""Several correct answers: alternative gold queries per example, from the dataset or accepted in the app.

A question often has more than one right query (ties, equivalent phrasings the gold's author did not
think of). A dataset may list alternatives per example (JSONL/CSV field `alternatives`, or a sidecar
file beside a Spider/BIRD json); a person may accept a prediction as one in the app, which stores it in
the workspace, never in the dataset file (core/workspace/accepted.py reads them, core/triage/accepted_gold.py
accepts and withdraws them). EX then
passes when the prediction matches the gold or any alternative, and the row's `gold_match` says which
one it matched.

Sidecar format (JSON Lines, `<dataset stem>.alternatives.jsonl` or `alternatives.jsonl` beside the
dataset file, or given with `--alternatives FILE`): one object per line with `index` (0-based position
in the dataset) or `id` (the dataset's own example id), and `sql` (one query or a list of queries).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from sqltriage.core.errors import DatasetError
from sqltriage.core.model import Dataset

FIELD_NAMES = ("alternatives", "alternative_sql", "alt_sql", "alternative_gold")
SIDECAR_SUFFIX = ".alternatives.jsonl"
SIDECAR_NAME = "alternatives.jsonl"
DATASET_LABEL = "alternative"  # "alternative 1", … in `gold_match`
ACCEPTED_LABEL = "accepted"  # "accepted 1", … : accepted in the app, stored in the workspace
OFFICIAL_QUIRK = "alternative gold"  # official_quirk where EX passes on an alternative only
_SIDECAR_LINE_HINT = 'write {"index": 0, "sql": "SELECT …"}'


def parse_field(value: Any, *, path: Path, where: str) -> tuple[str, ...]:
    """An `alternatives` field: a list of SQL strings, one SQL string, or (CSV) a JSON list as text."""
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except json.JSONDecodeError as exc:
                raise DatasetError(
                    f"alternatives look like a JSON list but do not parse ({exc.msg})",
                    path=path,
                    where=where,
                    hint='write a JSON list of SQL strings, e.g. ["SELECT …", "SELECT …"], or one SQL query',
                ) from None
        else:
            return (text,) if text else ()
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(v.strip() for v in value if v.strip())
    raise DatasetError(
        f"alternatives must be SQL text or a list of SQL texts, not {type(value).__name__}",
        path=path,
        where=where,
        hint='write ["SELECT …", "SELECT …"] or one SQL query',
    )


def find_sidecar(dataset_file: Path) -> Path | None:
    """`<stem>.alternatives.jsonl` beside the dataset file, else `alternatives.jsonl` in its folder."""
    for candidate in (
        dataset_file.with_name(dataset_file.stem + SIDECAR_SUFFIX),
        dataset_file.parent / SIDECAR_NAME,
    ):
        if candidate.is_file():
            return candidate
    return None


def with_sidecar(dataset: Dataset, sidecar: Path) -> Dataset:
    """The dataset with the sidecar's alternatives added to its examples (a bad line is a clear error)."""
    by_id = {e.example_id: e.index for e in dataset.examples}
    extra: dict[int, list[str]] = {}
    try:
        lines = sidecar.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"cannot be read ({exc})", path=sidecar) from None
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"line {lineno}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(
                f"is not JSON ({exc.msg})",
                path=sidecar,
                where=where,
                hint=_SIDECAR_LINE_HINT,
            ) from None
        if not isinstance(record, Mapping) or "sql" not in record:
            raise DatasetError(
                "needs an object with `sql` and `index` or `id`",
                path=sidecar,
                where=where,
                hint=_SIDECAR_LINE_HINT,
            )
        idx = _example_index(record, by_id, len(dataset.examples), sidecar, where)
        extra.setdefault(idx, []).extend(parse_field(record["sql"], path=sidecar, where=f"{where}, key sql"))
    if not extra:
        return replace(dataset, alternatives_file=sidecar)
    examples = tuple(
        replace(e, alternatives=tuple(dict.fromkeys((*e.alternatives, *extra[e.index]))))
        if e.index in extra
        else e
        for e in dataset.examples
    )
    return replace(dataset, examples=examples, alternatives_file=sidecar)


def _example_index(
    record: Mapping[str, Any], by_id: Mapping[str, int], n: int, path: Path, where: str
) -> int:
    if "index" in record:
        idx = record["index"]
        if isinstance(idx, bool) or not isinstance(idx, int) or not 0 <= idx < n:
            raise DatasetError(
                f"index {idx!r} is not an example of the dataset (0 to {n - 1})",
                path=path,
                where=f"{where}, key index",
                hint="index is the 0-based position of the example in the dataset file",
            )
        return idx
    if "id" in record:
        key = str(record["id"]).strip()
        if key not in by_id:
            raise DatasetError(
                f"no example has id {key!r}",
                path=path,
                where=f"{where}, key id",
                hint="use the dataset's own ids",
            )
        return by_id[key]
    raise DatasetError("names no example", path=path, where=where, hint="give `index` (0-based) or `id`")


def labelled(
    dataset_alternatives: Sequence[str], accepted_ones: Sequence[str]
) -> tuple[tuple[str, str], ...]:
    """(label, sql) of every alternative of one example: the dataset's first, then the accepted ones."""
    out = [(f"{DATASET_LABEL} {i}", sql) for i, sql in enumerate(dataset_alternatives, start=1)]
    seen = set(dataset_alternatives)
    n = 0
    for sql in accepted_ones:
        if sql not in seen:
            n += 1
            out.append((f"{ACCEPTED_LABEL} {n}", sql))
            seen.add(sql)
    return tuple(out)
