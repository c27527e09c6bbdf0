"""How many of 8 real systems' predictions we parse, vs the official Spider parser.

Every prediction SQLite can execute must parse with us. Only the predictions we reject are executed
(read-only, with a step budget), which keeps this test fast.
"""

from __future__ import annotations

import csv
import sqlite3
from pathlib import Path

import pytest

from sqltriage.core.model import Schema
from sqltriage.core.sql.parse import parse_sql

from .systems import SYSTEMS


def _executes(db: Path, sql: str) -> bool:
    conn = sqlite3.connect(f"file:{db.resolve()}?mode=ro", uri=True)
    budget = [0]

    def stop_after_budget() -> int:
        budget[0] += 1
        return 1 if budget[0] > 2000 else 0  # ~20M VM steps: enough to tell "runs" from "errors"

    conn.set_progress_handler(stop_after_budget, 10_000)
    try:
        conn.execute(sql).fetchmany(1)
        return True
    except sqlite3.OperationalError as exc:
        return "interrupted" in str(exc)  # it ran; it was only stopped for time
    except (sqlite3.Error, sqlite3.Warning, ValueError):
        return False
    finally:
        conn.close()


@pytest.mark.parametrize("system", SYSTEMS)
def test_parse_rate(system: str, spider_dev: Path, dev: list[dict], schemas: dict[str, Schema]) -> None:
    lines = (spider_dev / "predictions" / f"{system}.sql").read_text().split("\n")[: len(dev)]
    with (spider_dev / "reference" / f"{system}.tsv").open() as f:
        official = [row["pred_parse_ok"] == "1" for row in csv.DictReader(f, delimiter="\t")]

    rejected = []
    for i, (sql, example) in enumerate(zip(lines, dev, strict=True)):
        if not parse_sql(sql, schemas.get(example["db_id"])).ok:
            rejected.append(i)
    ours = len(dev) - len(rejected)
    print(
        f"\n{system}: we parse {ours}/{len(dev)} ({ours / len(dev):.1%}); "
        f"official parser {sum(official)}/{len(dev)} ({sum(official) / len(dev):.1%})"
    )

    executable_but_rejected = []
    for i in rejected:
        db = spider_dev / "database" / dev[i]["db_id"] / f"{dev[i]['db_id']}.sqlite"
        if db.exists() and _executes(db, lines[i]):
            executable_but_rejected.append((i, lines[i]))
    for i, sql in executable_but_rejected:
        print(f"  #{i} runs in SQLite but we reject it: {sql[:200]}")
    assert not executable_but_rejected
    assert ours >= sum(official)
