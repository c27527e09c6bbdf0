"""The symbolic relation a query encodes to (`Rel`), the context an expression is read in (`Ctx`), and what
the clauses after FROM/WHERE ask of the encoder (`Encoding`).

A leaf below encode.py (FROM, WHERE, expressions) and aggregate.py (groups, the select list, ORDER BY, set
operations), which call each other: both take these records from here, and aggregate.py and results.py
type the encoder by the protocol, so neither imports encode.py back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from sqltriage.core.verdicts.verify.symbolic import Tri, Unsupported, Val

if TYPE_CHECKING:
    from sqlglot import exp

    from sqltriage.core.verdicts.verify.tables import SymDatabase

Scope = dict[str, dict[str, Val]]  # alias → column → value, for one row of FROM
Env = tuple[Scope, ...]  # innermost scope first (correlated subqueries see the outer ones)


class TooLarge(Unsupported):
    """The encoding would exceed its size guard."""


@dataclass(slots=True)
class Rel:
    rows: list[tuple[Any, tuple[Val, ...]]]  # (present, values)
    names: list[str]
    ranks: list[Any] | None = None  # a row's position when the relation is ordered
    single: bool = False  # one aggregate row, always present (an aggregate without GROUP BY)
    heads: list[str] = field(default_factory=list)  # per column, what it computes (results.column_order)
    keys: list[Any] | None = None  # per row, its ORDER BY key values, when ordered without LIMIT/OFFSET


@dataclass(slots=True)
class Ctx:
    env: Env
    group: list[tuple[Any, Env]] | None = None  # the rows of the current group, for aggregates
    keys: frozenset = frozenset()  # resolved (alias, column) of the GROUP BY columns
    aliases: dict[str, exp.Expression] = field(default_factory=dict)  # select aliases in scope
    outer_depth: int = 0  # scopes of env[outer_depth:] belong to enclosing queries


class Encoding(Protocol):
    """What aggregate.py and results.py use of the encoder (`encode.Encoder`), which calls them back."""

    db: SymDatabase
    max_rows: int
    facts: list[Any]  # constraints on the free choices (bare columns, tie orders, …)
    ties: list[Any]  # "these two present rows tie on their ORDER BY keys", per pair

    def name(self, stem: str) -> str: ...
    def tick(self) -> None: ...
    def query(self, node: exp.Expression, env: Env = ()) -> Rel: ...
    def cond(self, e: exp.Expression, ctx: Ctx) -> Tri: ...
    def value(self, e: exp.Expression, ctx: Ctx) -> Val: ...
    def column(self, e: exp.Column, ctx: Ctx) -> Val: ...
    def resolve(self, e: exp.Column, env: Env) -> tuple[str, str] | None: ...
