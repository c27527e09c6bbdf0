"""SliceLine over facet values: the planted failing slice comes out on top, on made-up rows and on Spider dev."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from sqltriage.core.errors import UsageError
from sqltriage.core.reporting.slice_features import build, pack, popcount, quartile_labels, rows_of
from sqltriage.core.reporting.slices import find_slices, scores


def _rows(n: int = 3000, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    structural = rng.choice(["S F", "S F W", "S F W G", "S F O L", "S F W N"], n)
    return pl.DataFrame(
        {
            "index": np.arange(n),
            "model": ["m"] * n,
            "hardness": rng.choice(["easy", "medium", "hard", "extra"], n),
            "db_id": rng.choice([f"db{i}" for i in range(12)], n),
            "structural": structural,
            "operators": rng.choice(["", "Ag", "J C", "J Ag C"], n),
            "tags": [
                [None, "gold SQL wrong", "Schema: wrong table, gold SQL wrong"][k]
                for k in rng.integers(0, 3, n)
            ],
            "q_words": rng.integers(3, 40, n),
        }
    )


def _planted(frame: pl.DataFrame, noise: float, seed: int = 1) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    planted = (pl.col("hardness") == "hard") & (pl.col("db_id") == "db3")
    wrong = pl.Series(rng.random(frame.height) < noise)
    return frame.with_columns(pl.when(planted | wrong).then(0).otherwise(1).alias("ex"))


def test_the_planted_slice_is_on_top() -> None:
    frame = _planted(_rows(), noise=0.08)
    search = find_slices(frame)
    top = search.slices[0]
    assert top.predicates == {"hardness": "hard", "db_id": "db3"}
    planted = frame.filter((pl.col("hardness") == "hard") & (pl.col("db_id") == "db3"))
    assert top.size == planted.height and top.errors == planted.height
    assert search.overall_error_rate == pytest.approx(1 - frame.get_column("ex").mean())
    # scores as the paper defines them, best first
    best = [s.score for s in search.slices]
    assert best == sorted(best, reverse=True)
    n, mean = search.rows, search.overall_error_rate
    for s in search.slices:
        want = scores(np.array([s.size]), np.array([s.errors]), n, mean, search.alpha)[0]
        assert s.score == pytest.approx(want)
        assert len(rows_of(frame, s.predicates)) == s.size
        assert s.size >= search.min_support


def test_exhaustive_search_agrees_on_two_predicates() -> None:
    """Pruning never loses the best slice: compare with scoring every pair of predicates by brute force."""
    frame = _planted(_rows(1500, seed=4), noise=0.15, seed=5)
    search = find_slices(frame, max_predicates=2, min_support=20, top=1)
    preds = build(frame, with_model=False)
    errors = pack((frame.get_column("ex") == 0).to_numpy())
    n, mean = frame.height, float((frame.get_column("ex") == 0).mean())
    best = -np.inf
    for i in range(len(preds.columns)):
        for j in range(i, len(preds.columns)):
            if i != j and preds.columns[i] == preds.columns[j]:
                continue
            bits = preds.bits[i] & preds.bits[j]
            size = int(popcount(bits[None, :])[0])
            errs = int(popcount((bits & errors)[None, :])[0])
            if size >= 20 and errs > 0:
                best = max(best, scores(np.array([size]), np.array([errs]), n, mean, search.alpha)[0])
    assert search.slices[0].score == pytest.approx(best)


def test_memberships_and_quartiles() -> None:
    frame = _rows(400)
    preds = build(frame, with_model=False)
    pairs = set(zip(preds.columns, preds.values, strict=True))
    assert ("structural", "has W") in pairs and ("structural", "S F W") in pairs
    assert ("tags", "has gold SQL wrong") in pairs and ("operators", "has J") in pairs
    has_w = rows_of(frame, {"structural": "has W"})
    assert len(has_w) == frame.filter(pl.col("structural").str.contains("W")).height
    bins = quartile_labels(frame.get_column("q_words"), frame.get_column("q_words"))
    assert bins.n_unique() == 4 and bins.null_count() == 0
    assert bins.value_counts().get_column("count").min() > 60  # quartiles: about a quarter each


def test_no_error_no_slice_and_bad_options() -> None:
    frame = _rows(200).with_columns(pl.lit(1).alias("ex"))
    assert find_slices(frame).slices == []
    with pytest.raises(UsageError, match="max-predicates"):
        find_slices(frame, max_predicates=0)
    with pytest.raises(UsageError, match="no model named"):
        find_slices(frame, model="nope")


# --- on real data, through the command line ---------------------------------------------------------


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sqltriage.tui.cli", *args], capture_output=True, text=True)


@pytest.mark.slow
def test_planted_slice_on_spider_dev(spider_dev: Path, tmp_path: Path) -> None:
    """Predictions equal to gold except on one conjunction (hardness = hard ∧ one database), made wrong."""
    examples = json.loads((spider_dev / "dev.json").read_text())
    gold_file = tmp_path / "gold.sql"
    gold_file.write_text("".join(e["query"].replace("\n", " ").strip() + "\n" for e in examples))
    ws = tmp_path / "planted.sqltriage.db"
    common = [str(spider_dev), "--workspace", str(ws), "--jobs", "2", "--json"]
    done = _cli("eval", *common, "--pred", f"gold={gold_file}")
    assert done.returncode == 0, done.stderr
    out = _cli("export", "--workspace", str(ws), "--out", str(tmp_path / "gold.parquet"))
    assert out.returncode == 0, out.stderr
    exported = pl.read_parquet(tmp_path / "gold.parquet").filter(
        pl.col("ex").is_not_null()
    )  # databases present
    hard = exported.filter(pl.col("hardness") == "hard").group_by("db_id").len()
    db = hard.sort(["len", "db_id"], descending=[True, False]).get_column("db_id")[0]
    planted = set(
        exported.filter((pl.col("hardness") == "hard") & (pl.col("db_id") == db)).get_column("index")
    )
    lines = [
        ("SELECT 'planted wrong answer'" if i in planted else e["query"].replace("\n", " ").strip()) + "\n"
        for i, e in enumerate(examples)
    ]
    pred_file = tmp_path / "planted.sql"
    pred_file.write_text("".join(lines))
    done = _cli("eval", *common, "--pred", f"gold={gold_file}", "--pred", f"planted={pred_file}")
    assert done.returncode == 0, done.stderr
    before = ws.read_bytes()
    out = _cli("slices", "--workspace", str(ws), "--model", "planted", "--json")
    assert out.returncode == 0, out.stderr
    assert ws.read_bytes() == before  # reading slices writes nothing
    doc = json.loads(out.stdout)
    assert set(doc) >= {"slices", "overall_error_rate"}
    top = doc["slices"][0]
    assert top["predicates"] == {"hardness": "hard", "db_id": db}
    assert set(top) == {"predicates", "size", "errors", "error_rate", "score"}
    assert top["size"] == top["errors"] == len(planted)
