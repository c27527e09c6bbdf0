"""One small hierarchy of errors, each message saying what is wrong, where, and what to do.

Errors that concern a single row (a prediction that fails to parse or run) are values on that row,
never exceptions; these classes are for inputs that cannot be used at all.
"""

from __future__ import annotations

from pathlib import Path


class SqlTriageError(Exception):
    """Base of every error sqltriage raises on purpose."""

    def __init__(
        self,
        what: str,
        *,
        path: str | Path | None = None,
        where: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.what = what
        self.path = str(path) if path is not None else None
        self.where = where
        self.hint = hint
        super().__init__(self.message)

    @property
    def message(self) -> str:
        place = ""
        if self.path and self.where:
            place = f"{self.path}, {self.where}: "
        elif self.path:
            place = f"{self.path}: "
        elif self.where:
            place = f"{self.where}: "
        text = f"{place}{self.what}"
        if self.hint:
            text += f"\n  → {self.hint}"
        return text

    def __str__(self) -> str:
        return self.message


class DatasetError(SqlTriageError):
    """A dataset file (questions, gold SQL, schemas) cannot be used."""


class PredictionsError(SqlTriageError):
    """A predictions file cannot be used or does not line up with its dataset."""


class WorkspaceError(SqlTriageError):
    """A workspace file cannot be opened, read or written."""


class UsageError(SqlTriageError):
    """The command line asks for something that cannot be done."""
