"""`check`: validate inputs and summarise them without evaluating anything."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from sqltriage.core.model import Dataset, PredictionSet


@dataclass(frozen=True, slots=True)
class PredictionSummary:
    name: str
    path: str
    format: str
    aligned: int
    expected: int
    empty: int
    db_checked: int  # predictions whose file named a db_id that was checked against the dataset
    # a file of raw responses (docs/formats.md): rows per extraction kind, the most candidates of a row, and
    # every problem with its rows (file, line, id), those of rows that belong to no example included
    extraction: dict[str, int] = field(default_factory=dict)
    candidates: int = 1
    problems: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "path": self.path,
            "format": self.format,
            "aligned": self.aligned,
            "expected": self.expected,
            "empty": self.empty,
            "db_checked": self.db_checked,
            "extraction": self.extraction,
            "candidates": self.candidates,
            "problems": list(self.problems),
        }


def summarize_predictions(preds: PredictionSet, dataset: Dataset) -> PredictionSummary:
    return PredictionSummary(
        name=preds.name,
        path=str(preds.path),
        format=preds.format,
        aligned=len(preds.predictions),
        expected=len(dataset.examples),
        empty=sum(1 for p in preds.predictions if not p.sql.strip()),
        db_checked=sum(1 for p in preds.predictions if p.db_id is not None),
        extraction=dict(Counter(p.extraction for p in preds.predictions if p.extraction is not None)),
        candidates=max((len(p.candidates) for p in preds.predictions), default=0) or 1,
        problems=(*(p.problem for p in preds.predictions if p.problem), *preds.problems),
    )


def summarize_dataset(dataset: Dataset) -> dict[str, Any]:
    """The figures `check` prints: sizes, databases found and missing, annotations present."""
    examples = dataset.examples
    per_db = Counter(e.db_id for e in examples)
    missing = {db: per_db[db] for db in dataset.missing_dbs}
    reasoning = Counter(tok for e in examples for tok in (e.reasoning or ()))
    return {
        "name": dataset.name,
        "path": str(dataset.path),
        "format": dataset.format,
        "examples": len(examples),
        "databases_referenced": len(per_db),
        "databases_found": len(per_db) - len(missing),
        "databases_missing": missing,
        "examples_db_missing": sum(missing.values()),
        "schemas_known": sum(1 for db in per_db if db in dataset.schemas),
        "schemas_unknown": sorted(db for db in per_db if db not in dataset.schemas),
        "with_evidence": sum(1 for e in examples if e.evidence),
        "with_reasoning": sum(1 for e in examples if e.reasoning),
        "with_commonsense": sum(1 for e in examples if e.commonsense),
        "reasoning_tokens": dict(sorted(reasoning.items(), key=lambda kv: (-kv[1], kv[0]))),
        "difficulty": dict(Counter(e.difficulty for e in examples if e.difficulty)),
        "empty_gold": sum(1 for e in examples if not e.gold_sql.strip()),
        "without_question": sum(1 for e in examples if not e.question.strip()),
    }
