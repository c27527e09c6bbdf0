"""k candidates per question on real predictions: the 8 Spider dev systems as 8 candidates of one model.

Each system is also evaluated alone, as a bare SQL file, and the test derives from those rows, by its own
code, what the candidates' columns and the model's figures must be: `candidates_right`, `ex_majority`,
maj@k, pass@k (by enumerating every k-subset, not by the estimator's formula) and the oracle."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from itertools import combinations
from pathlib import Path

import polars as pl
import pytest

from sqltriage.core.datasets import load_dataset
from sqltriage.core.datasets.predictions import load_predictions
from sqltriage.core.datasets.responses import first_statement
from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
from sqltriage.core.reporting.candidates import candidate_metrics, extraction_counts, pass_at_k
from sqltriage.core.reporting.report import load_frame
from sqltriage.core.workspace.store import Workspace
from tests.conftest import built_once

pytestmark = pytest.mark.xdist_group("candidates_spider_dev")
STYLES = (
    lambda s: f"<think>The schema has these tables.</think>\n```sql\n{s}\n```",
    lambda s: f"Answer:\n<answer>{s}</answer>",
    lambda s: f"Reasoning first.\nSQL: {s}",
    lambda s: s,
)


def _write_candidates(spider_dev: Path, path: Path) -> list[str]:
    files = sorted((spider_dev / "predictions").glob("*.sql"))
    systems = [f.read_text(encoding="utf-8").split("\n")[:1034] for f in files]
    with path.open("w", encoding="utf-8") as out:
        for i in range(1034):
            responses = [STYLES[j % len(STYLES)](s[i].strip()) for j, s in enumerate(systems)]
            out.write(json.dumps({"id": i, "responses": responses, "tokens": 50 + i}) + "\n")
    return [f.stem for f in files]


@pytest.fixture(scope="module")
def built(spider_dev: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    def build(root: Path) -> None:
        names = _write_candidates(spider_dev, root / "k8.jsonl")
        dataset = load_dataset(spider_dev / "dev.json")
        files = sorted((spider_dev / "predictions").glob("*.sql"))
        sets = [load_predictions(f, dataset, name=f.stem) for f in files]
        assert [s.name for s in sets] == names
        sets.append(load_predictions(root / "k8.jsonl", dataset, name="k8"))
        with Workspace.open(root / "w.db") as ws:
            evaluate(dataset, sets, ws, EvalOptions(features=False))
        with Workspace.open(root / "majority.db") as ws:
            evaluate(dataset, sets[-1:], ws, EvalOptions(features=False, choose="majority"))

    return built_once(tmp_path_factory, "candidates-spider-dev", build)


@pytest.fixture(scope="module")
def frames(built: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    with Workspace.open_for_reading(built / "w.db") as ws:
        frame = load_frame(ws)
    with Workspace.open_for_reading(built / "majority.db") as ws:
        majority = load_frame(ws)
    return frame, majority


def _expected(frame: pl.DataFrame) -> dict[int, dict]:
    """Per example, from the 8 systems' own rows: the right count and the majority's EX, derived here."""
    systems = [m for m in frame.get_column("model").unique(maintain_order=True).to_list() if m != "k8"]
    out: dict[int, dict] = {}
    by = {(r["index"], r["model"]): r for r in frame.iter_rows(named=True)}
    for index in range(1034):
        rows = [by[(index, m)] for m in systems]
        if rows[0]["ex_spider"] is None:
            continue  # the database is missing: no execution verdict
        keys = []
        for r in rows:
            failed = r["va"] == 0 or not (r["pred_sql"] or "").strip()
            keys.append(
                (failed, r["result_digest"] or r["pred_sql"]) if not failed else (failed, r["error_kind"])
            )
        sizes = Counter(keys)
        ran = [i for i, k in enumerate(keys) if not k[0]]
        pool = ran or list(range(len(keys)))
        winner = min(pool, key=lambda i: (-sizes[keys[i]], keys.index(keys[i])))
        out[index] = {
            "right": sum(r["ex_spider"] == 1 for r in rows),
            "majority": rows[keys.index(keys[winner])]["ex_spider"],
            "first": rows[0]["ex_spider"],
            "n": len(rows),
        }
    return out


def test_candidates_right_and_ex_majority_per_row(frames: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    frame, _ = frames
    expected = _expected(frame)
    k8 = {r["index"]: r for r in frame.filter(pl.col("model") == "k8").iter_rows(named=True)}
    assert len(expected) == 972
    for index, want in expected.items():
        row = k8[index]
        assert row["candidates"] == 8
        assert row["candidates_right"] == want["right"], index
        assert row["ex_majority"] == want["majority"], index
        assert row["ex_spider"] == want["first"], index
    missed = [i for i, w in expected.items() if w["first"] == 0 and w["right"] > 0]
    assert missed, "candidate 1 fails where another system is right on real data"


def test_the_first_candidate_is_scored_as_the_system_alone(frames: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    frame, _ = frames
    first = frame.get_column("model").unique(maintain_order=True).to_list()[0]
    cols = ["index", "ex", "ex_bird", "em", "pm", "error_kind", "judgement"]
    alone = frame.filter(pl.col("model") == first).select(cols).sort("index")
    k8 = frame.filter(pl.col("model") == "k8").select(cols).sort("index")
    assert alone.equals(k8)


def test_model_figures_against_an_enumeration(frames: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    frame, _ = frames
    expected = _expected(frame)
    (got,) = candidate_metrics(frame.filter(pl.col("model") == "k8"), "spider")
    n = len(expected)
    assert got["n"] == n and got["k"] == 8
    assert got["greedy_ex"] == pytest.approx(sum(w["first"] for w in expected.values()) / n)
    assert got["maj_at_k"] == pytest.approx(sum(w["majority"] for w in expected.values()) / n)
    assert got["oracle"] == pytest.approx(sum(w["right"] > 0 for w in expected.values()) / n)
    for k in range(1, 9):
        total = Fraction(0)
        for w in expected.values():
            right = set(range(w["right"]))  # which positions are right does not matter to a subset count
            subsets = list(combinations(range(8), k))
            total += Fraction(sum(bool(right & set(s)) for s in subsets), len(subsets))
        assert got["pass_at_k"][str(k)]["value"] == pytest.approx(float(total / n), abs=1e-12), k
        assert got["pass_at_k"][str(k)]["n"] == n
    assert got["pass_at_k"]["1"]["value"] == pytest.approx(
        sum(w["right"] for w in expected.values()) / (8 * n)
    )
    assert got["pass_at_k"]["8"]["value"] == pytest.approx(got["oracle"])


def test_pass_at_k_estimator_edges() -> None:
    assert pass_at_k(8, 0, 3) == 0.0
    assert pass_at_k(8, 6, 3) == 1.0
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - 3 / 10)


def test_choose_majority_scores_the_majority(
    frames: tuple[pl.DataFrame, pl.DataFrame], spider_dev: Path
) -> None:
    frame, majority = frames
    expected = _expected(frame)
    files = sorted((spider_dev / "predictions").glob("*.sql"))
    systems = [f.read_text(encoding="utf-8").split("\n")[:1034] for f in files]
    for row in majority.iter_rows(named=True):
        want = expected.get(row["index"])
        if want is None:
            continue
        assert row["ex_spider"] == row["ex_majority"] == want["majority"], row["index"]
        chosen = row["chosen"]
        assert row["pred_sql"] == first_statement(systems[chosen - 1][row["index"]].strip())
        clusters = json.loads(row["candidate_clusters"])
        assert clusters[0]["members"][0] == chosen
        assert sorted(m for c in clusters for m in c["members"]) == list(range(1, 9))
    (got,) = candidate_metrics(majority, "spider")
    n = len(expected)
    assert got["greedy_ex"] == pytest.approx(sum(w["first"] for w in expected.values()) / n)


def test_extraction_counted_by_kind(frames: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    frame, _ = frames
    counts = {r["extraction"]: r["rows"] for r in extraction_counts(frame)}
    assert counts == {"fence-sql": 1034}  # candidate 1 of every row is fenced
    k8 = frame.filter(pl.col("model") == "k8")
    assert k8.get_column("tokens").to_list() == [50.0 + i for i in range(1034)]
    assert k8.get_column("pred_raw").str.starts_with("<think>").all()


def test_a_bad_file_evaluates_with_per_row_errors(spider_dev: Path, tmp_path: Path) -> None:
    """Through the command line: a file mixing one response and lists, a missing id, a repeated id, an
    unknown id, a response without SQL and a 500 kB response; every example gets its row, nothing crashes."""
    lines = [
        line.strip() for line in (spider_dev / "predictions" / "dinsql_gpt4.sql").read_text().split("\n")
    ]
    records: list[dict] = []
    for i in range(1034):
        if i == 3:
            continue
        value: object = f"```sql\n{lines[i]}\n```"
        if i % 5 == 0:
            value = [value, f"SQL: {lines[i]}"]
        records.append({"id": i, "response": value})
    records[10]["response"] = "No query can answer this."  # example 11
    records[20]["response"] = "I think. " * 60_000 + f"\n```sql\n{lines[21]}\n```"  # example 21
    records.append({"id": 2, "response": f"<answer>{lines[2]}</answer>"})
    records.append({"id": 99999, "response": "SELECT 1"})
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    ws = tmp_path / "w.db"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sqltriage.tui.cli",
            "eval",
            str(spider_dev),
            "--pred",
            f"bad={path}",
            "--workspace",
            str(ws),
            "--json",
            "--jobs",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    (problem,) = report["load_problems"]["bad"]
    assert problem.startswith("bad.jsonl line 1035: id '99999' is not an example of")
    assert "id '99999'" in done.stderr
    with Workspace.open_for_reading(ws) as w:
        rows = {r["index"]: r for r in load_frame(w).iter_rows(named=True)}
    assert sorted(rows) == list(range(1034))
    assert rows[3]["error"] == "bad.jsonl: no response for example 3 (id '3')"
    assert rows[3]["extraction"] == "failed: no response" and rows[3]["error_kind"] == "extraction"
    assert rows[11]["error"].startswith("bad.jsonl line 11, id '11': no SQL in the response (no SQL found)")
    assert rows[11]["ex"] == 0
    assert rows[21]["pred_sql"] == lines[21] and len(rows[21]["pred_raw"]) > 500_000
    assert rows[2]["candidates"] == 2 and rows[0]["candidates"] == 2 and rows[1]["candidates"] == 1
    assert "1 candidate where the file's other rows have up to 2" in rows[1]["error"]
    kinds = {r["extraction"]: r["rows"] for r in report["extraction"]}
    assert kinds["failed: no response"] == 1 and kinds["failed: no SQL found"] == 1
    assert sum(kinds.values()) == 1034


def test_facets_of_candidates_and_figures(frames: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    from sqltriage.core.reporting.facet_names import SELECTION_MISSED, Filters
    from sqltriage.core.reporting.facets import facet_counts, prepare

    frame, _ = frames
    expected = _expected(frame)
    counts = facet_counts(prepare(frame), Filters({"model": frozenset({"k8"})}))
    outcomes = dict(counts["outcome"])
    assert outcomes[SELECTION_MISSED] == sum(w["first"] == 0 and w["right"] > 0 for w in expected.values())
    assert dict(counts["extraction"]) == {"fence-sql": 1034}
    # tokens 50 + index: 50 of them under 100, 900 from 100 to 1k, the last 84 above
    assert dict(counts["tokens"]) == {"< 100": 50, "100 – 1k": 900, "1k – 10k": 84}
    plain = dict(facet_counts(prepare(frame), Filters({"model": frozenset({"dinsql_gpt4"})}))["tokens"])
    assert plain == {"(none)": 1034}
