"""Examples that ask the same query of the same database share one analysis, with the same results."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from sqltriage.core.datasets import load_dataset
from sqltriage.core.model import Dataset
from sqltriage.core.pipeline.evaluate import EvalOptions
from sqltriage.core.pipeline.pair import evaluate_pair, gold_context, gold_row
from sqltriage.core.pipeline.shared_analyses import KEPT, RecentAnalyses
from sqltriage.core.verdicts.execution import GoldResultCache

OPTIONS = EvalOptions(timeout=5.0, jobs=1)


@pytest.fixture(scope="module")
def dev(spider_dev: Path) -> Dataset:
    return load_dataset(spider_dev)


def shared_golds(dataset: Dataset, db_ids: tuple[str, ...]) -> list[list[int]]:
    """Indexes of the examples asking one gold query of one database, for the groups of two or more."""
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for e in dataset.examples:
        if e.db_id in db_ids:
            groups[(e.gold_sql, e.db_id)].append(e.index)
    return [g for g in groups.values() if len(g) > 1]


def untimed(row: dict) -> dict:
    return {k: v for k, v in row.items() if not k.endswith("_elapsed")}


def test_a_shared_gold_is_analysed_once_and_scores_as_if_alone(dev: Dataset) -> None:
    groups = shared_golds(dev, ("concert_singer", "world_1", "car_1"))
    assert len(groups) > 20  # Spider dev asks most gold queries twice
    analyses, pred_analyses, cache = RecentAnalyses(), RecentAnalyses(), GoldResultCache()
    for group in groups:
        shared = [gold_context(dev.examples[i], dev, OPTIONS, cache, analyses) for i in group]
        assert all(g.parsed is shared[0].parsed and g.subs is shared[0].subs for g in shared)
        for i, gold in zip(group, shared, strict=True):
            alone = gold_context(dev.examples[i], dev, OPTIONS)  # no memo, no result cache
            assert gold.parsed.tree == alone.parsed.tree and gold.subs == alone.subs
            assert gold.audit == alone.audit
            assert untimed(gold_row(gold)) == untimed(gold_row(alone))
            pred = dev.examples[group[-1]].gold_sql.replace("SELECT", "SELECT DISTINCT", 1)
            shared_pred = evaluate_pair(gold, pred, OPTIONS, pred_analyses)
            assert untimed(shared_pred) == untimed(evaluate_pair(alone, pred, OPTIONS))
    assert 0 < len(analyses) <= KEPT and 0 < len(pred_analyses) <= KEPT


def test_only_the_latest_analyses_are_kept_and_a_failed_one_is_not() -> None:
    from sqltriage.core.pipeline.shared_analyses import QueryAnalysis
    from sqltriage.core.sql.parse import parse_sql

    memo = RecentAnalyses(kept=2)
    made: list[str] = []

    def make(sql: str) -> QueryAnalysis:
        made.append(sql)
        return QueryAnalysis(parse_sql(sql), ())

    for sql in ("SELECT 1", "SELECT 1", "SELECT 2", "SELECT 3", "SELECT 1"):
        assert memo.analysis((sql, "db"), lambda sql=sql: make(sql)).parsed.sql == sql
    assert made == ["SELECT 1", "SELECT 2", "SELECT 3", "SELECT 1"]  # the first left when the third came
    with pytest.raises(RecursionError):
        memo.analysis(("deep", "db"), lambda: (_ for _ in ()).throw(RecursionError()))
    assert len(memo) == 2
    memo.analysis(("deep", "db"), lambda: make("deep"))
    assert made[-1] == "deep"  # the failed analysis was not kept: asked again, it is made
