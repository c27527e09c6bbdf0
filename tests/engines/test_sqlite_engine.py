"""The SQLite adapter is the project's sandbox (verdicts/execution.py), reached through the interface."""

from __future__ import annotations

from pathlib import Path

from sqltriage.core.engines.refs import DbRef
from sqltriage.core.engines.registry import adapter_for
from sqltriage.core.verdicts.execution import execute


def test_execute_is_the_sandbox(spider_dev: Path) -> None:
    db = spider_dev / "database" / "concert_singer" / "concert_singer.sqlite"
    sqlite = adapter_for("sqlite")
    ref = DbRef.sqlite(db)
    for sql in ("SELECT name, age FROM singer ORDER BY age", "DELETE FROM singer", "SELECT 1; SELECT 2"):
        mine = sqlite.execute(ref, sql, timeout=2, max_rows=100)
        theirs = execute(db, sql, timeout=2, max_rows=100)
        assert (mine.columns, mine.rows, mine.error, mine.error_kind) == (
            theirs.columns, theirs.rows, theirs.error, theirs.error_kind)  # fmt: skip
    assert sqlite.execute(ref, "DELETE FROM singer", timeout=2, max_rows=10).error_kind == "forbidden"


def test_schema_has_types_and_keys(spider_dev: Path) -> None:
    db = spider_dev / "database" / "concert_singer" / "concert_singer.sqlite"
    schema = adapter_for("sqlite").schema(DbRef.sqlite(db))
    tables = {t.name: t for t in schema.tables}
    assert set(tables) == {"stadium", "singer", "concert", "singer_in_concert"}
    singer = tables["singer"]
    assert singer.primary_key == ("Singer_ID",)
    assert {c.name: c.type for c in singer.columns}["Age"] == "INT"
    fks = tables["singer_in_concert"].foreign_keys
    assert {(f.columns, f.ref_table, f.ref_columns) for f in fks} == {
        (("concert_ID",), "concert", ("concert_ID",)), (("Singer_ID",), "singer", ("Singer_ID",))}  # fmt: skip
    model = schema.as_model("concert_singer")
    assert model.table("singer") is not None and ("singer", "Singer_ID") in model.primary_keys
