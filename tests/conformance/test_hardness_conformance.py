"""Spider hardness on sqlglot trees vs the official evaluator's labels, over the 1034 dev gold queries."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from sqltriage.core.datasets.schema import load_tables_json
from sqltriage.core.sql.categories import hardness
from sqltriage.core.sql.parse import parse_sql


def test_hardness_agrees_with_official_labels(spider_dev: Path) -> None:
    dev = json.loads((spider_dev / "dev.json").read_text())
    schemas = load_tables_json(spider_dev / "tables.json")
    with (spider_dev / "reference" / "dinsql_gpt4.tsv").open() as f:
        reference = list(csv.DictReader(f, delimiter="\t"))
    assert len(dev) == len(reference) == 1034

    disagreements = []
    for example, row in zip(dev, reference, strict=True):
        ours = hardness(parse_sql(example["query"], schemas.get(example["db_id"])))
        if ours != row["hardness"]:
            disagreements.append((row["index"], row["hardness"], ours, example["query"]))

    agreement = 1 - len(disagreements) / len(dev)
    print(f"\nhardness agreement with the official labels: {agreement:.2%} ({len(dev)} gold queries)")
    for index, official, ours, sql in disagreements:
        print(f"  #{index}: official {official}, ours {ours or '(unparsed)'}: {sql}")
    assert agreement >= 0.99
