"""`sqltriage diff GOLD PRED --db URL`: both queries run on one server database, read in its dialect."""

from __future__ import annotations

import json

import pytest

from sqltriage.tui.cli import main
from tests.servers import Server


def test_diff_on_postgresql(pg_server: Server, pg_spider: str, capsys: pytest.CaptureFixture[str]) -> None:
    url = pg_spider.replace("{db_id}", "concert_singer")
    gold = "SELECT name FROM singer WHERE age > 30"
    pred = 'SELECT "name" FROM singer WHERE age::int >= 31'
    assert main(["diff", gold, pred, "--db", url, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["execution"]["ex"] == 1 and doc["execution"]["gold"]["error"] is None
    assert "secret-pw" not in doc["execution"]["db"]
    assert doc["pred"]["structural"] is not None  # the cast parsed as PostgreSQL


def test_diff_refuses_a_placeholder_and_neighbours(
    pg_spider: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diff", "SELECT 1", "SELECT 1", "--db", pg_spider]) == 2
    assert "{db_id}" in capsys.readouterr().err
    url = pg_spider.replace("{db_id}", "concert_singer")
    assert main(["diff", "SELECT 1", "SELECT 1", "--db", url, "--neighbours", "3"]) == 2
