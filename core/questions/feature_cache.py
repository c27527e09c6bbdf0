"""Question features, once per dataset: computed apart from the metrics and kept in the user cache folder.

The features of a question depend on the dataset (question, gold SQL, schema), the spaCy pipeline and
the feature definitions, never on a model. So they are computed once per (dataset fingerprint, pipeline,
definitions) and stored outside any workspace, in ``$XDG_CACHE_HOME/sqltriage/features/``; every
workspace of that dataset takes them from there. Metrics never wait for them: `evaluate()` only copies
cached features into the workspace, and whoever needs features that are not cached yet (`eval
--features`, `analyze`, the app's Question tab) computes them here.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqltriage.core.cache import user_cache_dir
from sqltriage.core.cache.use import mark_used
from sqltriage.core.model import Dataset
from sqltriage.core.workspace.store import Workspace, dataset_fingerprint

if TYPE_CHECKING:
    from sqltriage.core.questions.nl import QuestionFeatures

CACHE_FORMAT = "1"  # bump when the file layout below changes
FEATURE_COLUMNS = ("q_words", "q_tree_depth", "q_lexical_density", "q_rarity", "q_flesch", "q_schema_linkage")
WORKSPACE_META_KEY = "features_key"  # the feature key whose values the workspace holds


@cache
def definitions_digest() -> str:
    """A digest of the module that defines the features: a changed definition is a new key, never stale values."""
    from sqltriage.core.questions import nl

    source = Path(nl.__file__).read_bytes() if nl.__file__ else b""
    return hashlib.sha256(source).hexdigest()[:16]


@cache
def _version(distribution: str) -> str:
    from importlib import metadata  # only when a key is computed: its import alone costs ~12 ms

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "-"


def feature_key(dataset: Dataset, pipeline: str | None) -> str:
    """What the features depend on: the dataset, the pipeline (name and versions) and their definitions."""
    from sqltriage.core.questions.nl import DEFAULT_PIPELINE

    name = pipeline or DEFAULT_PIPELINE
    parts = [
        CACHE_FORMAT,
        dataset_fingerprint(dataset),
        name,
        _version(name.replace("_", "-")),
        _version("spacy"),
        _version("wordfreq"),
        _version("textstat"),
        _version("textcomplexity"),  # its frequent-words list decides rarity when installed
        definitions_digest(),
    ]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


def cache_path(key: str) -> Path:
    return user_cache_dir() / "features" / f"{key}.json"


@dataclass(frozen=True, slots=True)
class FeatureRows:
    """One dataset's features as workspace rows (``idx`` + FEATURE_COLUMNS), or why there are none."""

    key: str
    rows: list[dict[str, Any]]
    unavailable: str | None = None  # the reason when no spaCy pipeline could be loaded


def load_cached(key: str) -> list[dict[str, Any]] | None:
    """The cached rows for this key; None when absent or unreadable (then they are computed again)."""
    path = cache_path(key)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    mark_used(path)  # its last use, which decides what pruning the cache removes first
    if not isinstance(data, dict) or data.get("key") != key or not isinstance(data.get("rows"), list):
        return None
    return data["rows"]


def store(key: str, rows: Sequence[dict[str, Any]]) -> None:
    """Write atomically (a temporary file renamed), so two processes never read half a file."""
    path = cache_path(key)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".features-", suffix=".json", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"key": key, "rows": list(rows)}, fh, ensure_ascii=False)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only or full cache folder costs a recomputation next time, nothing else


def rows_of(dataset: Dataset, feats: Sequence[QuestionFeatures]) -> list[dict[str, Any]]:
    """Workspace rows for features aligned with the dataset's examples."""
    return [
        {
            "idx": e.index,
            "q_words": f.n_words,
            "q_tree_depth": f.tree_depth,
            "q_lexical_density": f.lexical_density,
            "q_rarity": f.rarity,
            "q_flesch": f.flesch,
            "q_schema_linkage": f.schema_linkage,
        }
        for e, f in zip(dataset.examples, feats, strict=True)
    ]


def gold_parses(dataset: Dataset) -> list[Any]:
    """Each gold query parsed once; one too deep to analyse is an unparsed query, naming no schema element."""
    from sqltriage.core.sql.parse import ParsedQuery, parse_sql

    out: list[Any] = []
    for e in dataset.examples:
        try:
            out.append(parse_sql(e.gold_sql, dataset.schemas.get(e.db_id)))
        except (RecursionError, MemoryError, ValueError) as exc:
            out.append(ParsedQuery(e.gold_sql, None, f"cannot be analysed ({type(exc).__name__})"))
    return out


def compute(
    dataset: Dataset,
    pipeline: str | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> FeatureRows:
    """Compute every question's features with the named pipeline and cache them; nothing when it cannot load."""
    from sqltriage.core.questions.nl import load_pipeline, pipeline_unavailable_reason, question_features

    key = feature_key(dataset, pipeline)
    nlp = load_pipeline(pipeline)
    if nlp is None:
        return FeatureRows(key, [], pipeline_unavailable_reason() or "no spaCy pipeline could be loaded")
    examples = dataset.examples
    feats = question_features(
        [e.question for e in examples],
        gold_sqls=gold_parses(dataset),
        schemas=[dataset.schemas.get(e.db_id) for e in examples],
        nlp=nlp,
        progress=progress,
    )
    rows = rows_of(dataset, feats)
    store(key, rows)
    return FeatureRows(key, rows)


def store_computed(dataset: Dataset, pipeline: str | None, feats: Sequence[QuestionFeatures]) -> None:
    """Keep features computed elsewhere (the dataset analysis) for every workspace of this dataset."""
    store(feature_key(dataset, pipeline), rows_of(dataset, feats))


def cached(dataset: Dataset, pipeline: str | None = None) -> FeatureRows | None:
    key = feature_key(dataset, pipeline)
    rows = load_cached(key)
    return None if rows is None else FeatureRows(key, rows)


def workspace_has(workspace: Workspace, key: str) -> bool:
    return workspace.get_meta(WORKSPACE_META_KEY) == key


def none_anywhere(workspace: Workspace) -> bool:
    """True when neither the workspace nor the user cache holds features under any key.

    Then no key can match, and computing one (package versions, the definitions' digest) is skipped.
    """
    if workspace.get_meta(WORKSPACE_META_KEY) is not None:
        return False
    try:
        with os.scandir(user_cache_dir() / "features") as entries:
            return not any(e.name.endswith(".json") for e in entries)
    except OSError:  # no folder yet: nothing was ever cached
        return True


def write_to_workspace(workspace: Workspace, features: FeatureRows) -> None:
    """Put the features into the workspace's examples and remember which key they are."""
    if features.unavailable is not None:
        return
    with workspace.write():
        workspace.write_chunk(features.rows, [])
        workspace.set_meta(WORKSPACE_META_KEY, features.key)


def ensure(
    dataset: Dataset,
    workspace: Workspace | None,
    pipeline: str | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[FeatureRows, str]:
    """The dataset's features, from the cache or computed now, copied into `workspace` when given.

    Returns them with how they were had: "cached" or "computed" (or "unavailable: <why>").
    """
    found = cached(dataset, pipeline)
    how = "cached"
    if found is None:
        found = compute(dataset, pipeline, progress=progress)
        how = f"unavailable: {found.unavailable}" if found.unavailable else "computed"
    if workspace is not None and not workspace_has(workspace, found.key):
        write_to_workspace(workspace, found)
    return found, how


def ensure_apart(
    dataset: Dataset, workspace_path: Path | None, pipeline: str | None = None
) -> tuple[FeatureRows, str]:
    """:func:`ensure` with the computing done in a separate process.

    spaCy's seconds of CPU then never hold the caller's interpreter (the app's UI thread shares it with
    any worker thread). The workspace gets its own connection, so no other writer's transaction is joined.
    """
    found = cached(dataset, pipeline)
    how = "cached"
    if found is None:
        found = _compute_in_child(dataset, pipeline)
        how = f"unavailable: {found.unavailable}" if found.unavailable else "computed"
    if workspace_path is not None and found.unavailable is None:
        with Workspace.open(workspace_path) as ws:
            if not workspace_has(ws, found.key):
                write_to_workspace(ws, found)
    return found, how


def _compute_in_child(dataset: Dataset, pipeline: str | None) -> FeatureRows:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from sqltriage.core.processes import ensure_resource_tracker, stderr_captured

    quiet = stderr_captured()  # inside a terminal app: the child must not write on its screen
    ensure_resource_tracker()
    with ProcessPoolExecutor(
        max_workers=1,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_child_start,
        initargs=(os.getpid(), quiet),
    ) as pool:
        return pool.submit(compute, dataset, pipeline).result()


def _child_start(parent_pid: int, quiet: bool) -> None:
    """The feature child ends with its parent (the pool lives within this call) and keeps off its screen."""
    from sqltriage.core.processes import die_with_parent, quiet_worker

    die_with_parent(parent_pid, thread_safe=True)
    if quiet:
        quiet_worker()
