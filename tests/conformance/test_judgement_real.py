"""The judgement on 8 real systems' Spider dev predictions (K = 10 neighbours), as a person reads it.

- It decides (right or wrong) at least 90 % of the rows that execute, and agrees with EX on at least 85 %
  of those it decides.
- Every refuted EX pass names what its witness assumes, from the documented vocabulary.
- On the tune part of the frozen hand-judged set (tests/core/fixtures/judged_spider.tsv; its held part is
  read once, in docs/judgement.md, never here): few right predictions are judged wrong, most EX false
  positives are judged wrong, at least half of the wrong golds are flagged and few of the right ones.
"""

from __future__ import annotations

import csv
import sqlite3
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("spider_dev_ts")]

JUDGED = Path(__file__).resolve().parents[1] / "core" / "fixtures" / "judged_spider.tsv"
VOCABULARY = {"none", "tie", "duplicate", "dangling", "null", "empty", "domain"}


def judged(part: str) -> list[dict[str, str]]:
    with JUDGED.open() as f:
        return [
            r
            for r in csv.DictReader((ln for ln in f if not ln.startswith("#")), delimiter="\t")
            if r["part"] == part
        ]


def test_decides_most_executing_rows_and_agrees_with_ex(spider_dev_ts: tuple[Path, Path]) -> None:
    _cache, ws = spider_dev_ts
    with sqlite3.connect(ws) as db:
        calls = db.execute(
            "SELECT judgement, ex_spider FROM results WHERE error IS NULL AND ex_spider IS NOT NULL"
        ).fetchall()
    assert len(calls) > 7000
    decided = [(j, ex) for j, ex in calls if j in ("right", "wrong")]
    assert len(decided) / len(calls) >= 0.90
    agree = sum((j == "right") == (ex == 1) for j, ex in decided)
    assert agree / len(decided) >= 0.85
    assert {j for j, _ in calls} == {"right", "wrong", "unsure"}


def test_every_refuted_pass_names_its_assumption(spider_dev_ts: tuple[Path, Path]) -> None:
    _cache, ws = spider_dev_ts
    with sqlite3.connect(ws) as db:
        found = db.execute(
            "SELECT refutation_assumption, refutation_detail FROM results WHERE ex_spider = 1 AND ex_ts = 0"
        ).fetchall()
    assert len(found) > 300
    assert {a for a, _ in found} <= VOCABULARY
    assert {"none", "tie", "duplicate", "null"} <= {a for a, _ in found}
    assert all(d and d.startswith("they differ") for _, d in found)


def test_agrees_with_the_hand_judged_tune_part(spider_dev_ts: tuple[Path, Path]) -> None:
    _cache, ws = spider_dev_ts
    rows = judged("tune")
    with sqlite3.connect(ws) as db:
        call = {(m, i): j for m, i, j in db.execute("SELECT model, idx, judgement FROM results")}
        flags = dict(db.execute("SELECT idx, coalesce(gold_flags, '') FROM examples"))
    right = [r for r in rows if r["pred_call"] == "right"]
    wrong_by_ex = [r for r in rows if r["stratum"] == "refuted" and r["pred_call"] == "wrong"]
    assert len(right) > 60 and len(wrong_by_ex) > 10
    judged_wrong = [r for r in right if call[(r["model"], int(r["index"]))] == "wrong"]
    assert len(judged_wrong) / len(right) <= 0.06, [(r["model"], r["index"]) for r in judged_wrong]
    caught = [r for r in wrong_by_ex if call[(r["model"], int(r["index"]))] == "wrong"]
    assert len(caught) / len(wrong_by_ex) >= 0.7
    bad_gold = {int(r["index"]) for r in rows if r["gold_call"] == "wrong"}
    good_gold = {int(r["index"]) for r in rows if r["gold_call"] == "right"} - bad_gold
    assert sum(bool(flags[i]) for i in bad_gold) / len(bad_gold) >= 0.5
    assert sum(bool(flags[i]) for i in good_gold) / len(good_gold) <= 0.15
