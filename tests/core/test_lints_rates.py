"""How often each lint fires on real golds, and what linting costs: a lint that flags more than 5 % of Spider dev
golds flags the benchmark's conventions, not mistakes. docs/lints.md lists every lint with the counts measured
here, and the test keeps the two equal."""

from __future__ import annotations

import re
import time
from collections import Counter
from pathlib import Path

import pytest

from sqltriage.core.datasets import load_dataset
from sqltriage.core.datasets.predictions import load_predictions
from sqltriage.core.model import Dataset
from sqltriage.core.sql.lints import LINTS, lint_query
from sqltriage.core.sql.parse import parse_sql
from tests.conftest import REPO

DOC = REPO / "docs" / "lints.md"
MAX_SPIDER_RATE = 0.05
# one row of the docs table: | `id` | title | example | Spider dev count (rate) | BIRD dev count (rate) |
ROW = re.compile(
    r"^\| `(?P<id>[a-z0-9-]+)` \|.*\| (?P<spider>\d+) \([\d.]+ %\) \| (?P<bird>\d+) \([\d.]+ %\) \|$"
)


def gold_counts(ds: Dataset) -> Counter[str]:
    """Per lint, how many of the dataset's golds it fires on."""
    counts: Counter[str] = Counter()
    for e in ds.examples:
        schema = ds.schemas.get(e.db_id)
        parsed = parse_sql(e.gold_sql, schema)
        if parsed.tree is not None:
            counts.update({h.id for h in lint_query(parsed.tree, schema, e.question)})
    return counts


@pytest.fixture(scope="module")
def spider(spider_dev: Path) -> Dataset:
    return load_dataset(spider_dev / "dev.json")


@pytest.fixture(scope="module")
def spider_counts(spider: Dataset) -> Counter[str]:
    return gold_counts(spider)


@pytest.fixture(scope="module")
def bird(shared_data: Path) -> Dataset:
    return load_dataset(shared_data / "bird_dev" / "dev.json")


@pytest.fixture(scope="module")
def bird_counts(bird: Dataset) -> Counter[str]:
    return gold_counts(bird)


def documented() -> dict[str, tuple[int, int]]:
    """{id: (Spider dev count, BIRD dev count)} as docs/lints.md's table gives them."""
    rows = [
        ROW.match(line) for line in DOC.read_text(encoding="utf-8").splitlines() if line.startswith("| `")
    ]
    assert all(rows), "every table row: | `id` | title | example | n (r %) | n (r %) |"
    return {m["id"]: (int(m["spider"]), int(m["bird"])) for m in rows if m}


def test_no_lint_fires_on_more_than_5_percent_of_spider_dev_golds(
    spider: Dataset, bird: Dataset, spider_counts: Counter[str], bird_counts: Counter[str]
) -> None:
    n, n_bird = len(spider.examples), len(bird.examples)
    print(f"\n{'lint':28s} {'Spider dev golds':>18s} {'BIRD dev golds':>16s}")
    for lint in LINTS:
        print(
            f"{lint.id:28s} {spider_counts[lint.id]:10d} ({100 * spider_counts[lint.id] / n:4.1f} %)", end=""
        )
        print(f" {bird_counts[lint.id]:8d} ({100 * bird_counts[lint.id] / n_bird:4.2f} %)")
    over = {i: c for i, c in spider_counts.items() if c > MAX_SPIDER_RATE * n}
    assert over == {}, f"lints flagging more than 5 % of Spider dev golds: {over}"


def test_docs_table_lists_exactly_the_lints_with_their_measured_counts(
    spider_counts: Counter[str], bird_counts: Counter[str]
) -> None:
    table = documented()
    assert list(table) == [lint.id for lint in LINTS]
    measured = {lint.id: (spider_counts[lint.id], bird_counts[lint.id]) for lint in LINTS}
    assert table == measured


def test_linting_spider_dev_golds_and_eight_systems_takes_seconds(spider_dev: Path, spider: Dataset) -> None:
    trees = []
    for source in [None, *sorted((spider_dev / "predictions").glob("*.sql"))]:
        texts = (
            [e.gold_sql for e in spider.examples]
            if source is None
            else [p.sql for p in load_predictions(source, spider, name=source.stem).predictions]
        )
        for e, sql in zip(spider.examples, texts, strict=True):
            schema = spider.schemas.get(e.db_id)
            parsed = parse_sql(sql, schema)
            if parsed.tree is not None:
                trees.append((parsed.tree, schema, e.question))
    start = time.perf_counter()
    fired = sum(bool(lint_query(tree, schema, question)) for tree, schema, question in trees)
    elapsed = time.perf_counter() - start
    print(f"\nlinted {len(trees)} parsed queries in {elapsed:.2f} s; {fired} have a lint")
    assert len(trees) > 9000
    assert elapsed < 15  # about 1.5 s on a shared 2-core machine; the bound leaves room for a loaded CI
