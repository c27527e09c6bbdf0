"""Read-only connections are kept between queries, yet never hold the database: a writer elsewhere is not
blocked, and an edited file is read afresh."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from sqltriage.core.verdicts.execution import _KEPT, execute
from sqltriage.samples import SAMPLE_DIR


def sample_db(tmp_path: Path) -> Path:
    src = next((SAMPLE_DIR / "database").glob("*/*.sqlite"))
    dest = tmp_path / src.name
    shutil.copyfile(src, dest)
    return dest


def first_table(db: Path) -> str:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").fetchone()[0]


def test_a_truncated_read_leaves_no_lock_and_an_edit_is_seen(tmp_path: Path) -> None:
    db = sample_db(tmp_path)
    table = first_table(db)
    before = execute(db, f"SELECT count(*) FROM [{table}]").rows[0][0]
    assert before >= 2
    cut = execute(db, f"SELECT * FROM [{table}]", max_rows=1)  # stops reading half way
    assert cut.truncated and len(cut.rows) == 1
    assert any(str(db) == key[0] for key in _KEPT.open)  # kept for the next query on this file

    writer = sqlite3.connect(db, timeout=0)  # no waiting: a lock held by the kept connection would fail here
    writer.execute(f"DELETE FROM [{table}] WHERE rowid = (SELECT min(rowid) FROM [{table}])")
    writer.commit()
    writer.close()

    assert execute(db, f"SELECT count(*) FROM [{table}]").rows[0][0] == before - 1


def test_a_refused_statement_does_not_leave_its_connection_for_the_next(tmp_path: Path) -> None:
    db = sample_db(tmp_path)
    table = first_table(db)
    execute(db, "SELECT 1")
    refused = execute(db, f"DELETE FROM [{table}]")
    assert refused.error_kind == "forbidden"
    assert not any(str(db) == key[0] for key in _KEPT.open)
    assert execute(db, f"SELECT count(*) FROM [{table}]").rows[0][0] > 0
