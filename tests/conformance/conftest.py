"""Spider dev as the conformance checks read it: its examples and its schemas, loaded once per module."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sqltriage.core.datasets.schema import load_tables_json
from sqltriage.core.model import Schema


@pytest.fixture(scope="module")
def dev(spider_dev: Path) -> list[dict]:
    return json.loads((spider_dev / "dev.json").read_text())


@pytest.fixture(scope="module")
def schemas(spider_dev: Path) -> dict[str, Schema]:
    return load_tables_json(spider_dev / "tables.json")
