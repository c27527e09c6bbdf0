"""The frozen hand-judged BIRD set (tests/core/fixtures/judged_bird.tsv) stays what was judged.

Its calls are the ground truth the judgement without a database is measured against, so the rows must be
exactly the ones tests/core/judged_bird_draw.py draws, with the SQL that was read when judging: a change to
the draw, to the mutations or to the data would otherwise silently change what the labels mean.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tests.core.judged_bird_draw import DATA, MUTATIONS, SOURCE, draw, held_back, load, mutate

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "judged_bird.tsv"
COLUMNS = [
    "stratum",
    "source",
    "index",
    "db_id",
    "difficulty",
    "part",
    "pred_call",
    "gold_call",
    "note",
    "pred_sql",
]


def judged() -> list[dict[str, str]]:
    """The fixture's rows; SQL holds quotes, so no quoting is read."""
    with FIXTURE.open() as f:
        lines = [ln for ln in f if not ln.startswith("#")]
    reader = csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE)
    assert reader.fieldnames == COLUMNS
    return list(reader)


@pytest.fixture(scope="module")
def bird_dev() -> Path:
    if not (DATA / "dev.json").exists():
        pytest.skip(f"BIRD dev not found at {DATA} (a fresh clone has no ../shared)")
    return DATA


def test_the_fixture_parses_and_every_row_is_judged() -> None:
    rows = judged()
    assert len(rows) >= 200
    assert {r["stratum"] for r in rows} == {"model", "mutated"}
    for r in rows:
        assert None not in r.values() and len(r) == len(COLUMNS), r
        assert r["pred_call"] in ("right", "wrong") and r["gold_call"] in ("right", "wrong"), r
        assert r["note"].strip() and r["pred_sql"].strip(), r
        assert (r["source"] == SOURCE) == (r["stratum"] == "model"), r
        assert r["stratum"] == "model" or r["source"] in MUTATIONS, r
    assert len({(r["source"], r["index"]) for r in rows}) == len(rows)
    # both calls occur in both strata, or the set could not tell a judgement that always says one thing
    for stratum in ("model", "mutated"):
        assert {r["pred_call"] for r in rows if r["stratum"] == stratum} == {"right", "wrong"}


def test_the_held_part_is_exactly_the_digest_rule() -> None:
    for r in judged():
        assert r["part"] == ("held" if held_back(r["source"], int(r["index"])) else "tune"), r


def test_every_row_is_its_bird_dev_example(bird_dev: Path) -> None:
    dev = json.loads((bird_dev / "dev.json").read_text())
    for r in judged():
        ex = dev[int(r["index"])]
        assert ex["question_id"] == int(r["index"])
        assert (ex["db_id"], ex["difficulty"]) == (r["db_id"], r["difficulty"]), r


def test_the_draw_reproduces_the_rows_and_their_sql(bird_dev: Path) -> None:
    drawn = draw(bird_dev)
    rows = judged()
    assert [(s, src, i) for s, src, i, _sql in drawn] == [
        (r["stratum"], r["source"], int(r["index"])) for r in rows
    ]
    assert [sql for *_key, sql in drawn] == [r["pred_sql"] for r in rows]


def test_each_mutated_row_is_what_its_mutation_generates(bird_dev: Path) -> None:
    dev, preds, schemas = load(bird_dev)
    for r in judged():
        i = int(r["index"])
        if r["stratum"] == "model":
            assert preds[i] == r["pred_sql"], r
            continue
        gold = dev[i]["SQL"]
        assert mutate(r["source"], gold, i, schemas[r["db_id"]]) == r["pred_sql"], r
        assert r["pred_sql"] != gold
