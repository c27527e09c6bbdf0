"""The dataset-analysis report of the paper, as plain JSON-ready data (no rendering here).

Three groups of axes: the queries (structural variety, operator variety and usage, schema usage,
content usage), the databases (schema complexity, quality, size) and the questions (length, tree
depth, lexical density, rarity, readability, schema linkage), plus the reasoning annotations.
Every distribution is a list of rows ``{"value", "count", "share"}`` so that the terminal and
``--json`` show the same numbers.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from sqltriage.core.model import Dataset
from sqltriage.core.questions.db_analysis import ENGLISH_ZIPF, analyze_database
from sqltriage.core.questions.nl import (
    CONTENT_TAGS,
    blank_pipeline,
    load_pipeline,
    pipeline_unavailable_reason,
    question_features,
)
from sqltriage.core.questions.reasoning import reasoning_for, reasoning_label
from sqltriage.core.sql.categories import categorize
from sqltriage.core.sql.parse import parse_sql

if TYPE_CHECKING:
    from spacy.language import Language

    from sqltriage.core.questions.nl import QuestionFeatures

Row = dict[str, Any]

QUESTION_AXES = ("n_words", "tree_depth", "lexical_density", "rarity", "flesch", "schema_linkage")
DEFINITIONS = {
    "n_words": "tokens that are neither punctuation nor whitespace",
    "tree_depth": "depth of the dependency tree over words, root = 0",
    "lexical_density": "content words (tags " + " ".join(sorted(CONTENT_TAGS)) + ") / tokens",
    "rarity": "rare content words / content words; rare = not among the most frequent English (form, tag) "
    "pairs (textcomplexity's list when installed, else wordfreq's top words)",
    "flesch": "Flesch reading ease as textstat 0.7.3 computes it",
    "schema_linkage": "share of the tables and columns used by the gold SQL that the question names "
    "(name split at _ / camelCase, consecutive words, lower-case form or lemma equal)",
    "english_share": f"share of table and column names whose parts all have wordfreq Zipf >= {ENGLISH_ZIPF}",
}
_SHARE_BINS = [(f"{i / 10:.1f}–{(i + 1) / 10:.1f}", i / 10, (i + 1) / 10) for i in range(10)]
_FLESCH_BINS = (
    [("< 0", float("-inf"), 0.0)]
    + [(f"{lo}–{lo + 10}", float(lo), float(lo + 10)) for lo in range(0, 100, 10)]
    + [("≥ 100", 100.0, float("inf"))]
)
_WORD_BINS = [(f"{lo}–{lo + 4}", float(lo), float(lo + 5)) for lo in range(1, 60, 5)] + [
    ("61+", 61.0, float("inf"))
]


# --- small building blocks -------------------------------------------------------------------------


def distribution(values: Iterable[Any], *, sort_by_count: bool = True, of: int | None = None) -> list[Row]:
    """Share of each distinct value, most frequent first (or in value order).

    Shares are of all the values, or of ``of`` items when a value can occur in several of them
    (an example needs several reasoning types: the share is of examples).
    """
    counts = Counter(values)
    total = of if of is not None else sum(counts.values())
    items = counts.most_common() if sort_by_count else sorted(counts.items())
    return [{"value": v, "count": c, "share": _r(c / total)} for v, c in items]


def binned(values: Iterable[float], bins: Sequence[tuple[str, float, float]]) -> list[Row]:
    """Counts in [lo, hi) bins, the last bin closed; empty bins kept so the shape is visible."""
    vals = list(values)
    total = len(vals)
    counts = [0] * len(bins)
    for v in vals:
        for i, (_, lo, hi) in enumerate(bins):
            if lo <= v < hi or (i == len(bins) - 1 and v == hi):
                counts[i] += 1
                break
    first = next((i for i, c in enumerate(counts) if c), 0)
    last = max((i for i, c in enumerate(counts) if c), default=-1)
    return [
        {"value": bins[i][0], "count": counts[i], "share": _r(counts[i] / total) if total else 0.0}
        for i in range(first, last + 1)
    ]


def summary(values: Iterable[float | int | None]) -> dict[str, Any]:
    """n, missing, mean, median, min, max over the values that are not None."""
    all_values = list(values)
    present = [v for v in all_values if v is not None]
    out: dict[str, Any] = {"n": len(present), "missing": len(all_values) - len(present)}
    if present:
        out |= {
            "mean": _r(statistics.fmean(present)),
            "median": _r(statistics.median(present)),
            "min": _r(min(present)),
            "max": _r(max(present)),
        }
    else:
        out |= {"mean": None, "median": None, "min": None, "max": None}
    return out


def _r(x: float | int) -> float | int:
    return x if isinstance(x, int) else round(x, 4)


def _counted(values: list[int]) -> dict[str, Any]:
    return {"summary": summary(values), "histogram": distribution(values, sort_by_count=False)}


# --- the three groups of axes ----------------------------------------------------------------------


def _query_axes(dataset: Dataset, parsed: list[Any], tick: Callable[[], None]) -> dict[str, Any]:
    cats = []
    for ex, p in zip(dataset.examples, parsed, strict=True):
        cats.append(categorize(p, dataset.schemas.get(ex.db_id)))
        tick()
    ok = [c for c in cats if c.error is None]
    unreadable = [
        {"index": ex.index, "example_id": ex.example_id, "error": c.error}
        for ex, c in zip(dataset.examples, cats, strict=True)
        if c.error is not None
    ]
    return {
        "n_queries": len(cats),
        "n_unreadable": len(unreadable),
        "unreadable": unreadable,
        "structural": distribution(c.structural for c in ok),
        "operators": distribution(c.operators or "(none)" for c in ok),
        "hardness": distribution(c.hardness for c in ok),
        "operator_usage": _counted([c.n_operators for c in ok]),
        "tables_per_query": _counted([c.n_tables for c in ok]),
        "columns_per_query": _counted([c.n_columns for c in ok]),
        "values_per_query": _counted([c.n_values for c in ok]),
        "nesting_depth": _counted([c.nesting_depth for c in ok]),
    }


def _database_axes(dataset: Dataset, tick: Callable[[], None]) -> dict[str, Any]:
    rows = []
    without_schema = []
    for db_id in dataset.db_ids:
        schema = dataset.schemas.get(db_id)
        if schema is None:
            without_schema.append(db_id)
        else:
            path = dataset.db_path(db_id)
            rows.append(asdict(analyze_database(schema, path)) | {"file": path is not None})
        tick()
    return {
        "n_databases": len(dataset.db_ids),
        "databases": rows,
        "without_schema": without_schema,
        "without_file": list(dataset.missing_dbs),
        "summary": {
            key: summary(r[key] for r in rows) for key in ("n_tables", "n_columns", "n_rows", "english_share")
        },
    }


def _pipeline_label(nlp: Language) -> str:
    meta = nlp.meta or {}
    name = meta.get("name") or "pipeline"
    return f"{nlp.lang}_{name}" if name != "pipeline" else f"blank:{nlp.lang}"


def _question_axes(
    dataset: Dataset,
    parsed: list[Any],
    nlp: Language | None,
    pipeline: str | None,
    tick_many: Callable[[int], None],
    on_features: Callable[[list[QuestionFeatures]], None] | None = None,
) -> dict[str, Any]:
    reason = None
    if nlp is None:
        nlp = load_pipeline(pipeline)
        if nlp is None:
            reason = pipeline_unavailable_reason()
            nlp = blank_pipeline()
    if reason is None and not {"tagger", "morphologizer"} & set(nlp.pipe_names):
        reason = (
            f"the spaCy pipeline {_pipeline_label(nlp)!r} has no part-of-speech tagger; "
            "lexical density and rarity are missing"
        )
    examples = dataset.examples
    done = 0

    def progress(d: int, _total: int) -> None:
        nonlocal done
        tick_many(d - done)
        done = d

    feats = question_features(
        [e.question for e in examples],
        gold_sqls=parsed,
        schemas=[dataset.schemas.get(e.db_id) for e in examples],
        nlp=nlp,
        progress=progress,
    )
    if on_features is not None and reason is None:
        on_features(feats)
    pos_totals: Counter[str] = Counter()
    for f in feats:
        pos_totals.update(f.content_words_by_pos)
    columns = {axis: [getattr(f, axis) for f in feats] for axis in QUESTION_AXES}
    present = {axis: [v for v in vals if v is not None] for axis, vals in columns.items()}
    return {
        "pipeline": _pipeline_label(nlp),
        "missing_reason": reason,
        "definitions": {k: v for k, v in DEFINITIONS.items() if k in QUESTION_AXES},
        "features": {
            "n_words": {
                "summary": summary(columns["n_words"]),
                "histogram": binned(present["n_words"], _WORD_BINS),
            },
            "tree_depth": {
                "summary": summary(columns["tree_depth"]),
                "histogram": distribution(present["tree_depth"], sort_by_count=False),
            },
            **{
                axis: {"summary": summary(columns[axis]), "histogram": binned(present[axis], _SHARE_BINS)}
                for axis in ("lexical_density", "rarity", "schema_linkage")
            },
            "flesch": {
                "summary": summary(columns["flesch"]),
                "histogram": binned(present["flesch"], _FLESCH_BINS),
            },
        },
        "content_words_by_pos": distribution(pos_totals.elements()),
    }


def _reasoning_axes(dataset: Dataset, parsed: list[Any]) -> dict[str, Any]:
    rs = [reasoning_for(e, p) for e, p in zip(dataset.examples, parsed, strict=True)]
    annotated = [r for r in rs if not r.inferred]
    inferred = [r for r in rs if r.inferred]
    return {
        "n_annotated": len(annotated),
        "n_inferred": len(inferred),
        "types": distribution((t for r in annotated for t in r.types), of=len(annotated)),
        "inferred_arithmetic": distribution((t for r in inferred for t in r.types), of=len(inferred)),
        "labels": distribution(reasoning_label(r) or "(none)" for r in rs),
        "with_commonsense_note": sum(1 for r in rs if r.commonsense),
        "external_knowledge": sum(1 for r in rs if r.external_knowledge),
        "difficulty": distribution(e.difficulty for e in dataset.examples if e.difficulty),
    }


# --- the report ------------------------------------------------------------------------------------


def analyze_dataset(
    dataset: Dataset,
    *,
    nlp: Language | None = None,
    pipeline: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    on_features: Callable[[list[QuestionFeatures]], None] | None = None,
) -> dict[str, Any]:
    """The whole report for one dataset, JSON-serialisable.

    ``nlp`` is used as given; otherwise the ``pipeline`` named (default: the bundled English one) is
    loaded, and when it cannot be, a blank tokenizer stands in and ``question.missing_reason`` says
    why the tag-based features are missing. ``on_features`` receives every question's features when
    the pipeline could tag them (to cache them for evaluations). ``progress(done, total)`` counts examples parsed and
    categorised, questions analysed, and databases read.
    """
    n = len(dataset.examples)
    total = 2 * n + len(dataset.db_ids)
    done = 0

    def tick_many(k: int) -> None:
        nonlocal done
        done += k
        if progress is not None and k:
            progress(done, total)

    def tick() -> None:
        tick_many(1)

    parsed = [parse_sql(e.gold_sql, dataset.schemas.get(e.db_id)) for e in dataset.examples]
    query = _query_axes(dataset, parsed, tick)
    database = _database_axes(dataset, tick)
    question = _question_axes(dataset, parsed, nlp, pipeline, tick_many, on_features)
    return {
        "dataset": {
            "name": dataset.name,
            "format": dataset.format,
            "path": str(dataset.path),
            "n_examples": n,
            "n_databases": len(dataset.db_ids),
        },
        "query": query,
        "database": database | {"definition": DEFINITIONS["english_share"]},
        "question": question,
        "reasoning": _reasoning_axes(dataset, parsed),
    }
