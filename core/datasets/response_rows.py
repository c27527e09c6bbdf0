"""Rows of raw responses aligned with a dataset: one prediction per example, its candidates in file order.

A response file is what a sampling run writes, and such runs go wrong in ways a SQL file does not: a
question left out, a row written twice, a response with no query, a list where the rest hold one response.
None of these may stop the evaluation or shift the other rows, so each becomes a `problem` on its example's
row (file, line and id), shown as that row's error; rows that belong to no example are returned with index
-1 for `load_predictions` to list as the file's problems. Only a file that cannot be aligned at all (no ids
and the wrong number of rows, a row naming another database) is refused whole, as a SQL file is.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sqltriage.core.datasets.alignment import check_count, check_db, norm, split_db
from sqltriage.core.datasets.responses import FAILED, Extracted, extract_sql
from sqltriage.core.model import Dataset, Prediction

# a column numbering the candidates of one id: rows are ordered by it, and a number seen twice is a duplicate
CANDIDATE_COLUMNS = (
    "sample",
    "sampleid",
    "sampleidx",
    "sampleindex",
    "candidate",
    "candidateid",
    "candidateidx",
    "candidateindex",
    "beam",
    "attempt",
)
# per-row figures that come with responses: (normalised column name, factor to the stored unit)
EXTRA_FIELDS: dict[str, tuple[tuple[str, float], ...]] = {
    "tokens": tuple(
        (n, 1.0)
        for n in ("tokens", "totaltokens", "completiontokens", "outputtokens", "ntokens", "numtokens")
    ),
    "latency": (
        *((n, 1.0) for n in ("latency", "latencys", "latencysec", "latencyseconds", "elapsed", "elapseds")),
        *((n, 1.0) for n in ("duration", "durations", "time", "responsetime", "seconds")),
        *((n, 0.001) for n in ("latencyms", "elapsedms", "durationms", "timems", "responsetimems")),
    ),
    "cost": tuple((n, 1.0) for n in ("cost", "costusd", "price", "usd", "dollars")),
    "confidence": tuple(
        (n, 1.0) for n in ("confidence", "score", "probability", "prob", "logprob", "meanlogprob")
    ),
}
EXTRAS = tuple(EXTRA_FIELDS)  # the result columns they become (seconds for latency, whatever unit for cost)
_TEXT_KEYS = ("response", "text", "content", "output", "completion", "sql", "query")


def from_responses(
    path: Path,
    rows: list[dict[str, Any]],
    dataset: Dataset,
    sql_col: str,
    id_col: str | None,
    db_col: str | None,
    unit: str,
) -> list[Prediction]:
    """One prediction per example from rows of responses; unplaceable rows come back with index -1."""
    n = len(dataset.examples)
    columns = [c for c in rows[0] if c != "__line__"]
    taken = {sql_col, id_col, db_col}
    cand_col = next((c for c in columns if c not in taken and norm(c) in CANDIDATE_COLUMNS), None)
    extras = _extra_columns(columns, taken)
    groups: dict[int, list[dict[str, Any]]] = {}
    strays: list[Prediction] = []
    if id_col is None:
        check_count(path, len(rows), dataset, f"{unit}s")
        for pos, row in enumerate(rows):
            groups[pos] = [row]
    else:
        by_id = {e.example_id: e.index for e in dataset.examples}
        for row in rows:
            key = _id_text(row.get(id_col))
            pos = by_id.get(key)
            if pos is None and key.isdigit() and int(key) < n:
                pos = int(key)
            if pos is None:
                why = (
                    f"has no {id_col}" if not key else f"{id_col} {key!r} is not an example of {dataset.name}"
                )
                strays.append(
                    Prediction(-1, "", row["__line__"], problem=f"{_where(path, unit, row)}: {why}")
                )
                continue
            groups.setdefault(pos, []).append(row)
    preds = [
        _example_prediction(
            path, dataset, pos, groups.get(pos, []), sql_col, id_col, db_col, cand_col, extras, unit
        )
        for pos in range(n)
    ]
    most = max((len(p.candidates) or (1 if p.raw is not None else 0) for p in preds), default=0)
    if most > 1:  # a file mixing single responses and lists: say so on the rows with fewer
        preds = [_short_of(p, most) for p in preds]
    return preds + strays


def _example_prediction(
    path: Path,
    dataset: Dataset,
    pos: int,
    group: list[dict[str, Any]],
    sql_col: str,
    id_col: str | None,
    db_col: str | None,
    cand_col: str | None,
    extras: Mapping[str, tuple[str, float]],
    unit: str,
) -> Prediction:
    example = dataset.examples[pos]
    if not group:
        where = f"{path.name}: no response for example {pos}" + (
            f" ({id_col} {example.example_id!r})" if id_col else ""
        )
        return Prediction(pos, "", None, extraction=FAILED + "no response", problem=where)
    problems: list[str] = []
    if cand_col is not None:
        group = _ordered(group, cand_col, id_col, path, unit, problems)
    raws: list[str] = []
    db_id: str | None = None
    for row in group:
        texts = _texts(row.get(sql_col))
        if not texts:
            problems.append(f"{_where(path, unit, row, id_col)}: an empty list of candidates")
        for text in texts:
            sql_text, db_in_text = split_db(text) if "\t" in text else (text, None)
            raws.append(sql_text)
            db_id = db_id or db_in_text
        if db_col and row.get(db_col) not in (None, ""):
            db_id = str(row[db_col]).strip()
    check_db(path, f"{unit} {group[0]['__line__']}", db_id, dataset, pos)
    found: list[Extracted] = [extract_sql(r) for r in raws] or [Extracted("", FAILED + "empty response")]
    first = group[0]
    if not found[0].ok:
        problems.insert(
            0,
            f"{_where(path, unit, first, id_col)}: no SQL in the response ({found[0].extraction[len(FAILED) :]})",
        )
    failed_later = [str(i + 1) for i, f in enumerate(found) if i and not f.ok]
    if failed_later:
        problems.append(
            f"candidate{'s' if len(failed_later) > 1 else ''} {', '.join(failed_later)} without SQL"
        )
    many = len(found) > 1
    return Prediction(
        pos,
        found[0].sql,
        first["__line__"],
        db_id,
        raw=raws[0] if raws else "",
        extraction=found[0].extraction,
        problem="; ".join(problems) or None,
        candidates=tuple(f.sql for f in found) if many else (),
        candidate_extractions=tuple(f.extraction for f in found) if many else (),
        extras=_extras(group, extras),
    )


def _short_of(p: Prediction, most: int) -> Prediction:
    from dataclasses import replace

    k = len(p.candidates) or 1
    if p.raw is None or k >= most:
        return p
    note = f"{k} candidate{'s' if k > 1 else ''} where the file's other rows have up to {most}"
    return replace(p, problem=f"{p.problem}; {note}" if p.problem else note)


def _ordered(
    group: list[dict[str, Any]], cand_col: str, id_col: str | None, path: Path, unit: str, problems: list[str]
) -> list[dict[str, Any]]:
    """The rows of one id by their candidate number; a number seen twice is kept and reported."""
    seen: dict[str, int] = {}
    for row in group:
        number = _id_text(row.get(cand_col))
        if number in seen:
            problems.append(
                f"{_where(path, unit, row, id_col)}: {cand_col} {number!r} also on {unit} {seen[number]} "
                "(both kept as candidates)"
            )
        else:
            seen[number] = row["__line__"]

    def key(row: dict[str, Any]) -> tuple[int, float, str]:
        text = _id_text(row.get(cand_col))
        try:
            return (0, float(text), "")
        except ValueError:
            return (1, 0.0, text)

    return sorted(group, key=key)


def _where(path: Path, unit: str, row: Mapping[str, Any], id_col: str | None = None) -> str:
    key = f", {id_col} {_id_text(row.get(id_col))!r}" if id_col else ""
    return f"{path.name} {unit} {row['__line__']}{key}"


def _id_text(value: Any) -> str:
    key = "" if value is None else str(value).strip()
    if key.endswith(".0") and key[:-2].isdigit():
        key = key[:-2]
    return key


def _texts(value: Any) -> list[str]:
    """The candidates one cell holds: a list's items, a JSON list written in a CSV cell, or one response."""
    if isinstance(value, str) and value.lstrip().startswith("[") and value.rstrip().endswith("]"):
        try:
            decoded = json.loads(value)
        except ValueError:
            decoded = None
        if isinstance(decoded, list):
            value = decoded
    if isinstance(value, dict) and isinstance(value.get("choices"), list):
        value = value["choices"]  # a chat completion sampled n times: one candidate per choice
    if isinstance(value, list):
        return [_text(v) for v in value]
    return [_text(value)]


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, dict):  # a choice as clients write it: {"text": …}, {"message": {"content": …}}
        if isinstance(value.get("message"), dict):
            return _text(value["message"])
        for key in _TEXT_KEYS:
            if isinstance(value.get(key), (str, list)):
                return _text(value[key])
        return ""
    if isinstance(value, list):  # content written as parts: [{"type": "text", "text": …}, …]
        return "\n".join(_text(v) for v in value)
    return value if isinstance(value, str) else str(value)


def _extra_columns(columns: list[str], taken: set[str | None]) -> dict[str, tuple[str, float]]:
    """Which column holds each extra figure (the first listed name present), and its factor."""
    by_norm = {norm(c): c for c in columns if c not in taken}
    out: dict[str, tuple[str, float]] = {}
    for field, names in EXTRA_FIELDS.items():
        for name, factor in names:
            if name in by_norm:
                out[field] = (by_norm[name], factor)
                break
    if "tokens" not in out and "usage" in by_norm:
        out["tokens"] = (by_norm["usage"], 1.0)
    return out


def _extras(
    group: list[dict[str, Any]], columns: Mapping[str, tuple[str, float]]
) -> tuple[tuple[str, float], ...]:
    """The row's figures: tokens, latency and cost summed over its rows (every candidate costs), the first
    row's confidence (the scored candidate's)."""
    out: list[tuple[str, float]] = []
    for field, (column, factor) in columns.items():
        values = [_number(row.get(column)) for row in (group[:1] if field == "confidence" else group)]
        known = [v for v in values if v is not None]
        if known:
            out.append((field, sum(known) * factor))
    return tuple(out)


def _number(value: Any) -> float | None:
    if isinstance(value, dict):  # an OpenAI-style usage record
        for key in ("total_tokens", "completion_tokens", "output_tokens"):
            if isinstance(value.get(key), (int, float)):
                return float(value[key])
        return None
    if isinstance(value, bool) or value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None
