"""Minimal witnesses on real SQLite files: small, still telling gold and prediction apart, keeping every
constraint, content-addressed, read-only and the same bytes from the same inputs."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from sqltriage.core.verdicts.exec_compare import compare, order_matters, spider_sql
from sqltriage.core.verdicts.exec_result import ExecResult
from sqltriage.core.verdicts.execution import execute
from sqltriage.core.verdicts.testsuite import ensure_neighbours
from sqltriage.core.verdicts.testsuite import witness as witness_module
from sqltriage.core.verdicts.testsuite.reading import read_difference, witness_tables
from sqltriage.core.verdicts.testsuite.witness import count_rows, minimal_witness

SCHEMA = """
CREATE TABLE shop (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, city TEXT);
CREATE TABLE clerk (id INTEGER PRIMARY KEY, shop_id INTEGER NOT NULL REFERENCES shop(id), name TEXT);
CREATE TABLE sale (
    id INTEGER PRIMARY KEY,
    shop_id INTEGER REFERENCES shop(id),
    clerk_id INTEGER REFERENCES clerk(id),
    amount INTEGER
);
CREATE TABLE supplier (code TEXT PRIMARY KEY, country TEXT);
"""
ROWS = """
INSERT INTO shop VALUES (1, 'Alpha', 'Oslo'), (2, 'Beta', 'Rome'), (3, 'Gamma', 'Oslo');
INSERT INTO clerk VALUES (1, 1, 'Ann'), (2, 2, 'Bo'), (3, 3, 'Cy');
INSERT INTO sale VALUES (1, 1, 1, 3), (2, 1, 1, 8), (3, 2, 2, 9), (4, 3, 3, 1), (5, 3, 3, 2);
INSERT INTO supplier VALUES ('S1', 'Norway'), ('S2', 'Italy');
"""
# (gold, a prediction that agrees with it on the original only)
PAIRS = [
    ("SELECT count(*) FROM sale WHERE amount > 5", "SELECT count(*) FROM sale WHERE amount > 6"),
    (
        "SELECT T1.name FROM shop AS T1 JOIN sale AS T2 ON T1.id = T2.shop_id WHERE T2.amount > 5",
        "SELECT T1.name FROM shop AS T1 JOIN sale AS T2 ON T1.id = T2.shop_id WHERE T2.amount >= 8",
    ),
    (
        "SELECT name FROM clerk WHERE shop_id IN (SELECT id FROM shop WHERE city = 'Oslo')",
        "SELECT name FROM clerk WHERE shop_id <> 2",
    ),
]


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def plain(path: Path, sql: str) -> ExecResult:
    """The query run with the plain sqlite3 module, read-only: not through our sandbox."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        cur = conn.execute(sql)
        return ExecResult(tuple(d[0] for d in cur.description), tuple(cur.fetchall()), 0.0)
    except sqlite3.Error as exc:
        return ExecResult((), (), 0.0, error=str(exc), error_kind="runtime")
    finally:
        conn.close()


def differ_plainly(path: Path, gold: str, pred: str) -> bool:
    g, p = plain(path, spider_sql(gold)), plain(path, spider_sql(pred))
    return compare(g, p, "spider", order_matters=order_matters(gold)) == 0


def constraint_problems(path: Path) -> list[str]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        out = [f"fk {r}" for r in conn.execute("PRAGMA foreign_key_check")]
        for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
            for col in conn.execute(f"PRAGMA table_info({t})").fetchall():
                if col[3] and conn.execute(f"SELECT count(*) FROM {t} WHERE {col[1]} IS NULL").fetchone()[0]:
                    out.append(f"null {t}.{col[1]}")
        dup = conn.execute("SELECT count(*) - count(DISTINCT name) FROM shop").fetchone()[0]
        return out + (["duplicate shop name"] if dup else [])
    finally:
        conn.close()


@pytest.fixture(scope="module")
def shops(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    root = tmp_path_factory.mktemp("shops")
    db = root / "shops.sqlite"
    conn = sqlite3.connect(db)
    conn.executescript(SCHEMA + ROWS)
    conn.close()
    return db, ensure_neighbours(db, [g for g, _ in PAIRS], 10, 0, root / "cache")


def refuting(neighbours: list[Path], gold: str, pred: str) -> Path:
    for nb in neighbours:
        if execute(nb, gold).ok and differ_plainly(nb, gold, pred):
            return nb
    raise AssertionError(f"no neighbour tells {pred!r} from {gold!r}")


@pytest.mark.parametrize("pair", range(len(PAIRS)))
def test_a_refuting_neighbour_shrinks_to_a_few_rows_that_still_differ(shops, pair: int) -> None:
    db, neighbours = shops
    gold, pred = PAIRS[pair]
    assert not differ_plainly(db, gold, pred), "the pair agrees on the original"
    nb = refuting(neighbours, gold, pred)
    before = sha(nb)
    found = minimal_witness(nb, gold, pred, timeout=5.0, max_rows=10_000)
    assert sha(nb) == before, "the neighbour is never written"
    assert found.shrunk and found.path.parent == nb.parent.parent / "witnesses"
    assert found.path.name == sha(found.path)[:20] + ".sqlite", "named by its content"
    assert not found.path.stat().st_mode & 0o222, "written read-only"
    assert found.rows == count_rows(found.path) <= 4 < count_rows(nb)
    assert differ_plainly(found.path, gold, pred)
    assert constraint_problems(found.path) == []
    # every sale and clerk left points at a shop that is there (the shrinking took the parents along)
    conn = sqlite3.connect(f"file:{found.path}?mode=ro", uri=True)
    orphans = conn.execute(
        "SELECT count(*) FROM sale WHERE shop_id IS NOT NULL AND shop_id NOT IN (SELECT id FROM shop)"
    ).fetchone()[0]
    conn.close()
    assert orphans == 0


def test_the_same_inputs_give_the_same_witness_file(shops, tmp_path: Path) -> None:
    _, neighbours = shops
    gold, pred = PAIRS[1]
    nb = refuting(neighbours, gold, pred)
    first = minimal_witness(nb, gold, pred, timeout=5.0, max_rows=10_000, root=tmp_path / "a")
    second = minimal_witness(nb, gold, pred, timeout=5.0, max_rows=10_000, root=tmp_path / "b")
    assert first.path.name == second.path.name and first.path.read_bytes() == second.path.read_bytes()
    again = minimal_witness(nb, gold, pred, timeout=5.0, max_rows=10_000, root=tmp_path / "a")
    assert again.path == first.path and [p.name for p in (tmp_path / "a").glob("*.sqlite")] == [
        first.path.name
    ]


def test_a_rerun_takes_the_witness_from_the_index_without_shrinking(
    shops, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, neighbours = shops
    gold, pred = PAIRS[0]
    nb = refuting(neighbours, gold, pred)
    first = minimal_witness(nb, gold, pred, timeout=5.0, max_rows=10_000, root=tmp_path)
    assert first.shrunk and any((tmp_path / "index").rglob("*.json"))
    witness_module._EARLIER.clear()  # as in a new process: only the files are left

    def no_shrinking(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("shrunk again")

    monkeypatch.setattr(witness_module, "shrink", no_shrinking)
    again = minimal_witness(nb, gold, pred, timeout=5.0, max_rows=10_000, root=tmp_path)
    assert (again.path, again.rows, again.shrunk) == (first.path, first.rows, True)
    # another prediction is shrunk (from the witness it shares the difference with, if any)
    other = "SELECT count(*) FROM sale WHERE amount >= 7"
    if differ_plainly(nb, gold, other):
        with pytest.raises(AssertionError, match="shrunk again"):
            minimal_witness(nb, gold, other, timeout=5.0, max_rows=10_000, root=tmp_path)


def test_a_bounded_search_keeps_the_last_database_that_differs(shops, tmp_path: Path) -> None:
    _, neighbours = shops
    gold, pred = PAIRS[2]
    nb = refuting(neighbours, gold, pred)
    found = minimal_witness(nb, gold, pred, timeout=5.0, max_rows=10_000, root=tmp_path, max_steps=2)
    assert found.steps <= 3 and found.rows <= count_rows(nb)
    assert differ_plainly(found.path, gold, pred) and constraint_problems(found.path) == []


def test_a_pair_that_does_not_differ_keeps_the_neighbour(shops, tmp_path: Path) -> None:
    _, neighbours = shops
    gold = PAIRS[0][0]
    found = minimal_witness(neighbours[0], gold, gold, timeout=5.0, max_rows=10_000, root=tmp_path)
    assert not found.shrunk and found.path == neighbours[0] and "does not tell" in (found.note or "")
    assert not any(tmp_path.iterdir()), "nothing is left behind"


def test_the_witness_tables_and_the_line_that_reads_the_difference(shops) -> None:
    _, neighbours = shops
    gold, pred = PAIRS[0]
    found = minimal_witness(refuting(neighbours, gold, pred), gold, pred, timeout=5.0, max_rows=10_000)
    tables = {t.name: t for t in witness_tables(found.path)}
    assert set(tables) == {"shop", "clerk", "sale", "supplier"}
    assert sum(t.count for t in tables.values()) == found.rows
    assert tables["supplier"].count == 0, "a table neither query names is emptied"
    (sale,) = [r for r in tables["sale"].rows]
    assert sale[tables["sale"].columns.index("amount")] == 6, "the one sale that tells > 5 from > 6"
    line = read_difference(execute(found.path, gold), execute(found.path, pred))
    assert line == "both return 1 row: gold has (1), the prediction (0)"


def test_reading_lines() -> None:
    def res(*rows: tuple, cols: int = 1) -> ExecResult:
        return ExecResult(tuple(f"c{i}" for i in range(cols)), tuple(rows), 0.0)

    assert read_difference(res((1,)), res()) == "gold returns 1 row, the prediction none"
    assert (
        read_difference(res(), res(("Oslo",), ("Rome",)))
        == "gold returns none, the prediction 2 rows: ('Oslo'), ('Rome')"
    )
    assert (
        read_difference(res((1,), (2,), (3,)), res((1,), (2,)))
        == "gold returns 3 rows, the prediction 2: it misses (3)"
    )
    assert read_difference(res((1,), (2,)), res((2,), (1,)), ordered=True) == (
        "both return the same 2 rows, in another order (gold sorts them)"
    )
    timeout = ExecResult((), (), 0.0, error="timed out", error_kind="timeout")
    assert read_difference(res((1,)), timeout) == "gold returns 1 row, the prediction times out"
    long = "x" * 40
    assert "it misses ('xxxxxxxxxxxxxxxxxxxxxxx…')" in read_difference(res(("a",), (long,)), res(("a",)))
    assert read_difference(res((1, 2), cols=2), res((1,))) == "gold returns 2 column(s), the prediction 1"
