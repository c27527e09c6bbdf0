"""The paper's measures as its authors' code computes them, row by row against that code's own outputs.

`../shared/data/spider_dev/reference_paper_code/` holds what the published analysis code gives on Spider dev
for the 8 systems. Only partial match is computed here (no execution, gold parsed once), so the check
stays cheap. Rows where their code raised are left out of the partial-match shares: there it scores 0,
and sqltriage records "their code would raise" instead.
"""

from __future__ import annotations

import csv
from functools import cache
from pathlib import Path

import pytest

from sqltriage.core.model import Schema
from sqltriage.core.sql.authors_match import authors_partial_match
from sqltriage.core.sql.categories import categorize
from sqltriage.core.sql.parse import ParsedQuery, parse_sql

from .systems import SYSTEMS

# one worker runs the module: the gold parses and question features are computed once, not per worker
pytestmark = pytest.mark.xdist_group("test_authors_conformance")

WITHIN = 0.01
AT_LEAST = 0.99


def _tsv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


@pytest.fixture(scope="module")
def reference(spider_dev: Path) -> Path:
    ref = spider_dev / "reference_paper_code"
    if not ref.is_dir():
        pytest.skip(f"the authors' outputs are not at {ref}")
    return ref


@pytest.fixture(scope="module")
def gold(dev: list[dict], schemas: dict[str, Schema]) -> list[ParsedQuery]:
    """Each gold query parsed once for all 8 systems."""
    return [parse_sql(ex["query"], schemas.get(ex["db_id"])) for ex in dev]


@pytest.mark.parametrize("system", SYSTEMS)
def test_authors_partial_match_reproduces_their_code(
    system: str,
    spider_dev: Path,
    reference: Path,
    dev: list[dict],
    schemas: dict[str, Schema],
    gold: list[ParsedQuery],
) -> None:
    lines = (spider_dev / "predictions" / f"{system}.sql").read_text().split("\n")[: len(dev)]
    rows = _tsv(reference / "partial_match" / f"{system}.tsv")
    agree = {k: 0 for k in ("sm", "om", "vm", "pm")}
    scored = 0
    misses: list[str] = []
    for row in rows:
        if row["error"]:
            continue
        i = int(row["index"])
        schema = schemas.get(dev[i]["db_id"])
        ours = authors_partial_match(gold[i], parse_sql(lines[i], schema), schema)
        scored += 1
        for k in agree:
            value = getattr(ours, k)
            if value is not None and abs(value - float(row[k])) <= WITHIN:
                agree[k] += 1
            elif k == "pm" and len(misses) < 5:
                misses.append(f"#{i}: theirs {float(row[k]):.3f}, ours {value} ({ours.raises or ''})")
    shares = {k: n / scored for k, n in agree.items()}
    print(
        f"\n{system}: {scored} rows their code scored; within {WITHIN}: "
        + ", ".join(f"{k} {v:.4f}" for k, v in shares.items())
    )
    for k, share in shares.items():
        assert share >= AT_LEAST, f"{k}_authors agrees on {share:.4f} of {system}'s rows; e.g. {misses}"


@cache
def _gold_categories(path: Path) -> list[dict[str, str]]:
    return _tsv(path)


def test_gold_operator_and_structural_categories_are_the_authors(
    reference: Path, dev: list[dict], gold: list[ParsedQuery], schemas: dict[str, Schema]
) -> None:
    rows = _gold_categories(reference / "gold_categories.tsv")
    assert len(rows) == len(dev) == 1034
    differ = []
    for row in rows:
        i = int(row["index"])
        cats = categorize(gold[i], schemas.get(dev[i]["db_id"]))
        theirs_ops = "" if row["operators"] == "None" else row["operators"].replace("-", " ")
        theirs_struct = row["structural"].replace("-", " ")
        if (cats.operators, cats.structural) != (theirs_ops, theirs_struct):
            differ.append((i, cats.operators, theirs_ops, cats.structural, theirs_struct))
    print(f"\ngold categories equal to the authors': {len(rows) - len(differ)} / {len(rows)}")
    assert not differ, differ[:5]


# --- question axes ---------------------------------------------------------------------------------

AXES = {  # ours (QuestionFeatures attribute, scale) → their column
    "n_words": (1.0, "length"),
    "tree_depth": (1.0, "depth"),
    "schema_linkage": (100.0, "referenced_schema_elements_percentage"),
    "flesch": (1.0, "readability(flesch_reading_ease)"),
    "lexical_density": (1.0, "lexical_density"),
    "rarity": (1.0, "rarity"),
}


@pytest.fixture(scope="module")
def question_pairs(
    reference: Path, dev: list[dict], gold: list[ParsedQuery], schemas: dict[str, Schema]
) -> dict[str, list[tuple[float, float]]]:
    """(ours, theirs) per axis over the 1034 Spider dev questions, computed once."""
    from sqltriage.core.questions.nl import load_pipeline, pipeline_unavailable_reason, question_features

    nlp = load_pipeline()
    if nlp is None:
        pytest.skip(pipeline_unavailable_reason() or "no spaCy pipeline")
    rows = _tsv(reference / "question_features.tsv")
    feats = question_features(
        [ex["question"] for ex in dev],
        gold_sqls=gold,
        schemas=[schemas.get(ex["db_id"]) for ex in dev],
        nlp=nlp,
    )
    pairs: dict[str, list[tuple[float, float]]] = {axis: [] for axis in AXES}
    for f, row in zip(feats, rows, strict=True):
        for axis, (scale, column) in AXES.items():
            ours, theirs = getattr(f, axis), row[column]
            if ours is not None and theirs not in ("", "nan"):
                pairs[axis].append((ours * scale, float(theirs)))
    return pairs


def _pearson(xs: list[float], ys: list[float]) -> float:
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / (sxx * syy) ** 0.5


@pytest.mark.parametrize("axis", list(AXES))
def test_question_axis_follows_the_authors(
    axis: str, question_pairs: dict[str, list[tuple[float, float]]]
) -> None:
    if axis == "rarity":
        from sqltriage.core.questions.nl import frequent_words

        source = frequent_words()[2]
        if "textcomplexity" not in source:
            pytest.skip(f"rarity uses {source}: install sqltriage[paper] for the authors' list")
    pairs = question_pairs[axis]
    assert len(pairs) >= 1000, f"{axis}: only {len(pairs)} questions scored"
    ours, theirs = [p[0] for p in pairs], [p[1] for p in pairs]
    r = _pearson(ours, theirs)
    mean_ours, mean_theirs = sum(ours) / len(ours), sum(theirs) / len(theirs)
    print(f"\n{axis}: Pearson {r:.3f}, mean ours {mean_ours:.3f}, theirs {mean_theirs:.3f}")
    assert r >= 0.95
    assert abs(mean_ours - mean_theirs) <= 0.10 * abs(mean_theirs)
