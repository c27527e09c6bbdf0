"""The records every part of sqltriage exchanges: frozen, typed, free of behaviour."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True, slots=True)
class Column:
    name: str  # as in the database (original spelling)
    type: str = "text"  # "text", "number", "time", "boolean", "others" as in tables.json


@dataclass(frozen=True, slots=True)
class Table:
    name: str
    columns: tuple[Column, ...]

    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)


@dataclass(frozen=True, slots=True)
class Schema:
    """A database schema as tables.json describes it (or as read from the SQLite file)."""

    db_id: str
    tables: tuple[Table, ...]
    primary_keys: tuple[tuple[str, str], ...] = ()  # (table, column)
    foreign_keys: tuple[tuple[tuple[str, str], tuple[str, str]], ...] = ()  # (from, to)

    def table(self, name: str) -> Table | None:
        low = name.lower()
        for t in self.tables:
            if t.name.lower() == low:
                return t
        return None

    def as_mapping(self) -> dict[str, dict[str, str]]:
        """{table: {column: type}} — the shape sqlglot's optimizer accepts."""
        return {t.name: {c.name: c.type for c in t.columns} for t in self.tables}


@dataclass(frozen=True, slots=True)
class Example:
    """One benchmark question with its gold SQL and whatever annotations the dataset carries."""

    index: int  # 0-based position in the dataset file
    example_id: str  # the dataset's own id (BIRD question_id), else str(index)
    db_id: str
    question: str
    gold_sql: str
    evidence: str | None = None  # BIRD external knowledge
    difficulty: str | None = None  # BIRD simple / moderate / challenging
    reasoning: tuple[str, ...] | None = None  # annotated reasoning tokens (Archer: + - * / C H)
    commonsense: str | None = None  # Archer commonsense_knowledge
    extra: Mapping[str, Any] = field(default_factory=dict)
    alternatives: tuple[
        str, ...
    ] = ()  # other correct gold queries the dataset lists (core/datasets/alternatives.py)
    accepted: tuple[str, ...] = ()  # alternatives a person accepted in the app (kept in the workspace)


@dataclass(frozen=True, slots=True)
class Dataset:
    """A loaded benchmark: examples, schemas and where each database file is (None when missing)."""

    name: str
    path: Path
    format: str  # spider | bird | archer | jsonl | csv | gold
    examples: tuple[Example, ...]
    schemas: Mapping[str, Schema]
    databases: Mapping[str, Path | None]  # every referenced db_id → its .sqlite, or None
    alternatives_file: Path | None = None  # the sidecar the alternative golds were read from, if any

    def db_path(self, db_id: str) -> Path | None:
        return self.databases.get(db_id)

    def db_missing(self, db_id: str) -> bool:
        return self.databases.get(db_id) is None

    @property
    def db_ids(self) -> tuple[str, ...]:
        """Referenced databases in order of first use."""
        return tuple(dict.fromkeys(e.db_id for e in self.examples))

    @property
    def missing_dbs(self) -> tuple[str, ...]:
        return tuple(d for d in self.db_ids if self.db_missing(d))


@dataclass(frozen=True, slots=True)
class Prediction:
    index: int  # aligned to Example.index
    sql: str  # "" when the model gave nothing (scored as an error)
    line: int | None = None  # 1-based line (or record) in the source file
    db_id: str | None = None  # when the file names one
    # from a file of raw responses (core/datasets/responses.py); all empty for a file of bare SQL
    raw: str | None = None  # candidate 1's response as given, reasoning included
    extraction: str | None = None  # how candidate 1's SQL was found, or "failed: <why>"
    problem: str | None = None  # what is wrong with this row of the file (file, line, id), else None
    candidates: tuple[str, ...] = ()  # every candidate's SQL in the file's order, when there are several
    candidate_extractions: tuple[str, ...] = ()  # how each candidate's SQL was found
    extras: tuple[tuple[str, float], ...] = ()  # (tokens | latency | cost | confidence, value) when given


@dataclass(frozen=True, slots=True)
class PredictionSet:
    """One model's predictions, aligned one-to-one with a dataset's examples."""

    name: str
    path: Path
    format: str
    sha256: str
    predictions: tuple[Prediction, ...]
    problems: tuple[str, ...] = ()  # rows of the file that belong to no example (unknown or missing id)
