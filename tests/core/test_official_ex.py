"""`ex_official` on real Spider dev databases: each quirk of the official evaluator, named where it decides."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from sqltriage.core.verdicts.execution import file_digest
from sqltriage.core.verdicts.official_ex import (
    may_return_rows,
    official_order_matters,
    official_pred_text,
    passes_row_sort,
)
from sqltriage.core.verdicts.pair_run import run_pair


@pytest.fixture(scope="module")
def dev(spider_dev: Path) -> list[dict]:
    return json.loads((spider_dev / "dev.json").read_text(encoding="utf-8"))


def db_of(spider_dev: Path, db_id: str) -> Path:
    return spider_dev / "database" / db_id / f"{db_id}.sqlite"


def scores(spider_dev: Path, db_id: str, gold: str, pred: str, **kw) -> tuple[int | None, ...]:
    run = run_pair(db_of(spider_dev, db_id), gold, pred, **kw)
    assert run.official is not None
    return run.outcomes["ex_spider"], run.outcomes["ex_bird"], run.official.ex, run.official.quirk


def test_the_official_text_of_a_prediction() -> None:
    assert official_pred_text("  SELECT a FROM t\tWHERE b = 1 ") == "SELECT a FROM t"
    assert (
        official_pred_text("SELECT count(*) FROM t WHERE x > value") == "SELECT count(*) FROM t WHERE x > 1"
    )
    assert official_pred_text("SELECT values_sum FROM t") == "SELECT 1s_sum FROM t"  # bug for bug
    assert official_pred_text("SELECT DISTINCT a FROM t; SELECT b FROM t") == "SELECT  a FROM t;"
    assert official_order_matters("SELECT a FROM t WHERE b = (SELECT b FROM u ORDER BY c LIMIT 1)")
    assert not official_order_matters("SELECT a FROM t ORDER  BY a")  # two spaces: not the substring


def test_value_placeholder_becomes_1(spider_dev: Path) -> None:
    gold = "SELECT count(*) FROM singer"
    # `value` is not a column: ours is an error; the official run reads `age > 1`, every singer
    assert scores(spider_dev, "concert_singer", gold, "SELECT count(*) FROM singer WHERE age > value") == (
        0,
        0,
        1,
        "value-to-1",
    )


def test_text_after_a_tab_is_cut(spider_dev: Path) -> None:
    gold = "SELECT count(*) FROM singer"
    pred = "SELECT count(*) FROM singer\tWHERE age > 40"
    assert scores(spider_dev, "concert_singer", gold, pred) == (0, 0, 1, "tab-cut")


def test_multi_statement_prediction_is_scored_on_its_first_statement(spider_dev: Path) -> None:
    gold = "SELECT count(*) FROM singer"
    pred = "SELECT count(*) FROM singer; This query counts the singers."
    # ex_spider and ex_official score the first statement; ex_bird keeps the error, as BIRD's script does
    assert scores(spider_dev, "concert_singer", gold, pred) == (1, 0, 1, None)
    assert scores(spider_dev, "concert_singer", gold, "SELECT count(*) FROM singer; SELECT 1") == (
        1,
        0,
        1,
        None,
    )


def test_order_by_in_a_subquery_makes_row_order_count(spider_dev: Path, dev: list[dict]) -> None:
    gold = dev[954]["query"]  # ORDER BY only inside the subquery
    assert "ORDER BY" in gold and "ORDER BY" not in gold.rsplit(")", 1)[-1]
    pred = gold + " ORDER BY T2.date_of_treatment DESC"  # the same rows, another order
    assert scores(spider_dev, "dog_kennels", gold, pred) == (1, 1, 0, "order-by-substring")


def test_rows_sorted_by_text_and_type_reject_an_int_float_match(spider_dev: Path) -> None:
    gold = "SELECT min(age), min(age) + 0.5 FROM singer"  # (25, 25.5)
    pred = "SELECT min(age) * 1.0, min(age) + 0.5 FROM singer"  # (25.0, 25.5): equal values
    assert not passes_row_sort([(25, 25.5)], [(25.0, 25.5)], False)
    assert scores(spider_dev, "concert_singer", gold, pred) == (1, 1, 0, "mixed-type-sort")


def test_a_write_is_never_run_and_its_official_verdict_is_told_only_when_certain(spider_dev: Path) -> None:
    db = db_of(spider_dev, "concert_singer")
    before = file_digest(db)
    # the gold has rows: the official run of a write returns none, so 0 whatever it did
    assert scores(spider_dev, "concert_singer", "SELECT name FROM singer", "DELETE FROM singer")[2] == 0
    # the gold is empty: the official evaluator would score the write's empty result 1; unknown here
    empty_gold = "SELECT name FROM singer WHERE age > 1000"
    assert scores(spider_dev, "concert_singer", empty_gold, "DELETE FROM singer") == (
        0,
        0,
        None,
        "writable-db",
    )
    assert file_digest(db) == before


def test_a_create_table_then_inserts_scores_0_when_the_gold_has_rows(
    spider_dev: Path, tmp_path: Path
) -> None:
    db = db_of(spider_dev, "concert_singer")
    before = file_digest(db)
    gold = "SELECT name FROM singer"
    pred = (
        "CREATE TABLE returning_singer (singer_id INTEGER PRIMARY KEY, name TEXT, pragma_note TEXT);\n"
        "INSERT INTO returning_singer VALUES (1, 'Joe Sharp', 'x');\n"
        "INSERT INTO returning_singer VALUES (2, 'Timbaland', 'y');"
    )
    # what the official evaluator does: its first statement, on a writable copy, returns no rows
    copy = tmp_path / "copy.sqlite"
    copy.write_bytes(db.read_bytes())
    conn = sqlite3.connect(copy)
    try:
        assert conn.execute(official_pred_text(pred)).fetchall() == []
    finally:
        conn.close()
    # names that hold `returning` or `pragma` do not make a CREATE TABLE return rows
    assert scores(spider_dev, "concert_singer", gold, pred) == (0, 0, 0, None)
    assert not may_return_rows("CREATE TABLE returning_t (a INT)")
    assert may_return_rows("INSERT INTO singer (name) VALUES ('x') RETURNING name")
    assert may_return_rows("PRAGMA user_version = 5")
    assert not may_return_rows("INSERT INTO t VALUES ('returning')")
    # a write that can return rows (RETURNING) stays unknown when the gold has rows
    returning = "INSERT INTO singer (name) VALUES ('x') RETURNING name"
    assert scores(spider_dev, "concert_singer", gold, returning)[2:] == (None, "writable-db")
    assert file_digest(db) == before


def test_a_result_cut_at_the_row_cap_scores_0_when_the_gold_rules_it_out(spider_dev: Path) -> None:
    gold = "SELECT count(*) FROM singer"  # one row, one column
    pred = "SELECT a.name, b.name FROM singer AS a, singer AS b"  # 36 rows, cut at 10
    run = run_pair(db_of(spider_dev, "concert_singer"), gold, pred, max_rows=10)
    assert run.pred.truncated
    assert run.official is not None and run.official.ex == 0
    assert {k: run.outcomes[k] for k in ("ex_spider", "ex_bird", "ex_archer")} == {
        "ex_spider": 0,
        "ex_bird": 0,
        "ex_archer": 0,
    }
