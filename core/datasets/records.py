"""Turning JSON/CSV records into Examples, with errors that name the record and the field."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sqltriage.core.datasets.alternatives import FIELD_NAMES as ALTERNATIVE_FIELDS
from sqltriage.core.datasets.alternatives import parse_field as parse_alternatives
from sqltriage.core.errors import DatasetError
from sqltriage.core.model import Example

QUESTION_KEYS = ("question", "nl", "utterance", "text", "question_text")
ALTERNATIVE_KEYS = ALTERNATIVE_FIELDS
SQL_KEYS = ("query", "SQL", "sql", "gold_sql", "gold", "gold_query")
DB_KEYS = ("db_id", "db", "database", "db_name")
ID_KEYS = ("question_id", "example_id", "id", "qid", "idx")


def pick_key(record: Mapping[str, Any], candidates: Sequence[str]) -> str | None:
    """The first candidate key present in the record (exact, then case-insensitive)."""
    for key in candidates:
        if key in record:
            return key
    lower = {k.lower(): k for k in record if isinstance(k, str)}
    for key in candidates:
        if key.lower() in lower:
            return lower[key.lower()]
    return None


def require_str(record: Mapping[str, Any], key: str | None, *, field: str, path: Path, where: str) -> str:
    if key is None or key not in record:
        raise DatasetError(
            f"record has no {field} field",
            path=path,
            where=where,
            hint=f"add the {field} field to every record, or name its column with a flag",
        )
    value = record[key]
    if value is None or isinstance(value, (dict, list)):
        raise DatasetError(
            f"field {key!r} should be text, found {type(value).__name__}",
            path=path,
            where=where,
            hint="fix that record",
        )
    return str(value)


def optional_str(record: Mapping[str, Any], key: str) -> str | None:
    value = record.get(key)
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def reasoning_tokens(value: Any) -> tuple[str, ...] | None:
    """Archer's `reasoning_type` ("- C", or a list) as a tuple of tokens."""
    if value is None:
        return None
    tokens = [str(v).strip() for v in value] if isinstance(value, list) else str(value).split()
    tokens = [t for t in tokens if t]
    return tuple(tokens) if tokens else None


def example_from_record(
    record: Any,
    *,
    index: int,
    path: Path,
    question_key: str | None = None,
    sql_key: str | None = None,
    db_key: str | None = None,
    id_key: str | None = None,
    where: str | None = None,
) -> Example:
    """Build one Example from a dataset record; fields are recognised by their common names."""
    where = where or f"record {index}"
    if not isinstance(record, Mapping):
        raise DatasetError(
            f"expected an object, found {type(record).__name__}",
            path=path,
            where=where,
            hint="each record must hold question, gold SQL and db_id",
        )
    qk = question_key or pick_key(record, QUESTION_KEYS)
    sk = sql_key or pick_key(record, SQL_KEYS)
    dk = db_key or pick_key(record, DB_KEYS)
    ik = id_key or pick_key(record, ID_KEYS)
    question = require_str(record, qk, field="question", path=path, where=where)
    gold = require_str(record, sk, field="gold SQL (query / SQL)", path=path, where=where)
    db_id = require_str(record, dk, field="db_id", path=path, where=where).strip()
    if not db_id:
        raise DatasetError(
            "db_id is empty", path=path, where=where, hint="name the database of this question"
        )
    example_id = str(record[ik]).strip() if ik and record.get(ik) is not None else str(index)
    ak = pick_key(record, ALTERNATIVE_KEYS)
    alternatives = parse_alternatives(record.get(ak), path=path, where=f"{where}, key {ak}") if ak else ()
    known = {qk, sk, dk, ik, ak, "evidence", "difficulty", "reasoning_type", "commonsense_knowledge"}
    extra = {
        k: v
        for k, v in record.items()
        if k not in known and k not in ("sql", "query_toks", "query_toks_no_value", "question_toks")
    }
    return Example(
        index=index,
        example_id=example_id,
        db_id=db_id,
        question=question.strip(),
        gold_sql=gold.strip(),
        evidence=optional_str(record, "evidence"),
        difficulty=optional_str(record, "difficulty") or optional_str(record, "hardness"),
        reasoning=reasoning_tokens(record.get("reasoning_type")),
        commonsense=optional_str(record, "commonsense_knowledge"),
        extra=extra,
        alternatives=alternatives,
    )
