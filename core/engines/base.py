"""The interface every engine implements, and the schema record it lists.

Why one small class per engine: execution, error kinds, schema listing and copying differ per engine while
the evaluation asks the same four questions of each (as Harlequin has one adapter class per engine).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from sqltriage.core.model import Column, Schema, Table

if TYPE_CHECKING:
    from pathlib import Path

    from sqltriage.core.engines.refs import DbRef
    from sqltriage.core.verdicts.exec_result import ExecResult

Progress = Callable[[str, str, int, int], None]  # (db_id, table, rows copied, rows in the table)


@dataclass(frozen=True, slots=True)
class ColumnInfo:
    name: str
    type: str  # as the engine declares it ("INTEGER", "varchar(20)", "double precision"), "" when none
    not_null: bool = False


@dataclass(frozen=True, slots=True)
class ForeignKey:
    columns: tuple[str, ...]
    ref_table: str
    ref_columns: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Index:
    name: str
    columns: tuple[str, ...]
    unique: bool = False


@dataclass(frozen=True, slots=True)
class TableInfo:
    name: str
    columns: tuple[ColumnInfo, ...]
    primary_key: tuple[str, ...] = ()
    foreign_keys: tuple[ForeignKey, ...] = ()
    indexes: tuple[Index, ...] = ()


@dataclass(frozen=True, slots=True)
class DbSchema:
    """A database's tables with declared types, keys and indexes: what copying needs, more than `Schema`."""

    tables: tuple[TableInfo, ...] = field(default_factory=tuple)

    def as_model(self, db_id: str) -> Schema:
        """The shared record (types as tables.json's families) for parsing and categories."""
        from sqltriage.core.datasets.schema import type_family

        tables = tuple(
            Table(t.name, tuple(Column(c.name, type_family(c.type)) for c in t.columns)) for t in self.tables
        )
        pks = tuple((t.name, c) for t in self.tables for c in t.primary_key)
        fks = tuple(
            ((t.name, a), (fk.ref_table, b))
            for t in self.tables
            for fk in t.foreign_keys
            for a, b in zip(fk.columns, fk.ref_columns, strict=False)
        )
        return Schema(db_id, tables, pks, fks)


@dataclass(frozen=True, slots=True)
class CopyReport:
    """What a copy kept and what it could not, per database."""

    db_id: str
    tables: int
    rows: int
    notes: tuple[str, ...] = ()  # keys or types not kept as declared, and why


class Engine(ABC):
    """One database engine: how to reach it, what is in it, how to run one untrusted query on it."""

    name: ClassVar[str]  # "sqlite" | "postgresql" | "mysql"
    dialect: ClassVar[str]  # sqlglot's name of its SQL dialect

    @abstractmethod
    def execute(self, ref: DbRef, sql: str, *, timeout: float, max_rows: int) -> ExecResult:
        """Run one untrusted statement read-only under a time limit and a row cap; failures are returned
        as `ExecResult.error_kind`, never raised."""

    @abstractmethod
    def schema(self, ref: DbRef) -> DbSchema:
        """Tables, columns with their types, primary and foreign keys, indexes."""

    @abstractmethod
    def copy_in(
        self,
        source: Path,
        ref: DbRef,
        *,
        replace: bool = False,
        progress: Progress | None = None,
        numbers_from_text: bool = False,
    ) -> CopyReport:
        """Load one SQLite database file into `ref`, refusing to overwrite unless `replace`.

        `numbers_from_text`: a text column holding only numbers becomes a number (copying.plan_table)."""

    def warnings(self, ref: DbRef) -> list[str]:
        """What about the login makes evaluation less safe than it could be (a role that could write)."""
        return []

    def close(self) -> None:
        """Close the connections this process keeps (SQLite keeps its own, per thread)."""
        return None
