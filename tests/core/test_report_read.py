"""Reading the evaluation frame column by column gives exactly what fetching its rows gives."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import polars as pl
from polars.testing import assert_frame_equal

from sqltriage.core.reporting.report import load_frame
from sqltriage.core.workspace.store import EXAMPLE_COLUMNS, RESULT_COLUMNS, Workspace

AWKWARD_TEXT = [
    None,
    "",
    'say "hi"\nthen\ttab \\ back',
    "naïve — 日本語 \x01\x1f",
    "SELECT * FROM t WHERE a = 'it''s'",
    "[1, 2]",
    "null",
]
AWKWARD_FLOAT = [None, 0.0, 1.0, 2 / 3, 0.1 + 0.2, 1e-300, 1.4523142177899403e308, -7.5, 5e-324]
AWKWARD_INT = [None, 0, 1, -1, 2**62, -(2**63)]


def _value(kind: type, rnd: random.Random) -> object:
    pool = {str: AWKWARD_TEXT, float: AWKWARD_FLOAT, int: AWKWARD_INT}[kind]
    return rnd.choice(pool)


def _filled(path: Path, n_examples: int = 12, models: tuple[str, ...] = ("b", "a", "c")) -> Workspace:
    rnd = random.Random(7)
    ws = Workspace.open(path)
    db = ws.db
    for idx in range(n_examples):
        cols = [c for c in EXAMPLE_COLUMNS if c != "idx"]
        values = [idx, *(_value(EXAMPLE_COLUMNS[c], rnd) for c in cols)]
        db.execute(
            f"INSERT INTO examples (idx, {', '.join(f'[{c}]' for c in cols)}) VALUES ({', '.join('?' * len(values))})",
            values,
        )
    for position, model in enumerate(models):
        db.execute("INSERT INTO models (name, position) VALUES (?, ?)", [model, position])
        for idx in rnd.sample(range(n_examples), n_examples - 2):  # not every example, not in order
            cols = [c for c in RESULT_COLUMNS if c not in ("model", "idx")]
            values = [model, idx, *(_value(RESULT_COLUMNS[c], rnd) for c in cols)]
            db.execute(
                f"INSERT INTO results (model, idx, {', '.join(f'[{c}]' for c in cols)}) "
                f"VALUES ({', '.join('?' * len(values))})",
                values,
            )
    ws.add_tags([(0, "a"), (3, "b")], "EM false negative")
    ws.add_tags([(0, "a")], "gold wrong")
    ws.set_note(3, "b", 'a "note"\nwith lines')
    return ws


def _rows_read(ws: Workspace, models: list[str] | None) -> pl.DataFrame:
    """The frame as fetching rows would build it: the reference the column-wise reader must equal."""
    import sqltriage.core.reporting.report as report

    def read(
        db: sqlite3.Connection, sql: str, params: list[object], schema: dict[str, object]
    ) -> pl.DataFrame:
        rows = db.execute(sql, params).fetchall()
        columns = list(zip(*rows, strict=True)) if rows else [()] * len(schema)
        return pl.DataFrame(
            {n: pl.Series(n, list(c), dtype=t) for (n, t), c in zip(schema.items(), columns, strict=True)}
        )

    original = report._read
    report._read = read  # type: ignore[assignment]
    try:
        return report.load_frame(ws, models)
    finally:
        report._read = original


def test_column_wise_read_equals_row_wise(tmp_path: Path) -> None:
    ws = _filled(tmp_path / "w.sqltriage.db")
    with ws:
        for models in (None, ["c", "a"]):
            got = load_frame(ws, models)
            assert got.height == (30 if models is None else 20)
            assert_frame_equal(got, _rows_read(ws, models))
        # doubles come back bit for bit (SQLite's text form of them would not always)
        stored = {r[0] for r in ws.db.execute("SELECT pm FROM results WHERE pm IS NOT NULL")}
        assert stored <= set(load_frame(ws).get_column("pm").to_list())


def test_empty_workspace_reads_an_empty_frame(tmp_path: Path) -> None:
    with Workspace.open(tmp_path / "w.sqltriage.db") as ws:
        got = load_frame(ws)
        assert got.height == 0
        assert_frame_equal(got, _rows_read(ws, None))


def test_first_columns_then_the_rest_equal_a_full_read(tmp_path: Path) -> None:
    from sqltriage.core.reporting import facets, patches
    from sqltriage.core.reporting.report import load_rest, missing_columns, with_rest

    with _filled(tmp_path / "w.sqltriage.db") as ws:
        for models in (None, ["c", "a"]):
            full = load_frame(ws, models)
            first = load_frame(ws, models, columns=facets.columns_read())
            assert set(first.columns) < set(full.columns)
            assert "pred_sql" in missing_columns(first) and not missing_columns(full)
            assert_frame_equal(with_rest(first, load_rest(ws, first)), full)

            # prepared for the screen, and tagged while the rest was being read: both kept
            prepared = facets.prepare(facets.use_ex_mode(first, "bird"))
            rest = load_rest(ws, prepared)
            late = {(0, "a"): ("late tag", "ann: late tag")}
            tagged = patches.with_row_tags(prepared, late)
            merged = with_rest(tagged, rest)
            expected = patches.with_row_tags(facets.prepare(facets.use_ex_mode(full, "bird")), late)
            assert_frame_equal(merged, expected)

            # what the sidebar and the table show is the same from the first columns alone
            filters = facets.Filters().toggled("outcome", "EX fail")
            light, heavy = facets.FacetIndex(tagged), facets.FacetIndex(merged)  # the same tags on both
            assert light.counts(filters) == heavy.counts(filters)
            assert (light.rows(filters, "pm") == heavy.rows(filters, "pm")).all()

        # a rest read for other rows completes nothing
        other = load_frame(ws, ["a"], columns=facets.columns_read())
        assert with_rest(other, load_rest(ws, load_frame(ws, ["b"], columns=facets.columns_read()))) is None
        assert with_rest(full, load_rest(ws, full)) is None  # nothing to add


def test_reading_the_frame_writes_nothing_even_to_a_workspace_open_for_writing(tmp_path: Path) -> None:
    """Loading (first columns, then the rest) makes no view and leaves an outdated one as it is: only what
    evaluates makes the `evaluations` view current (`views.ensure_views`)."""
    from sqltriage.core.reporting import facets
    from sqltriage.core.reporting.report import load_rest
    from sqltriage.core.reporting.views import ensure_views, evaluations_sql

    def views(path: Path) -> dict[str, str]:
        with sqlite3.connect(path) as conn:
            return dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'view'").fetchall())

    path = tmp_path / "w.sqltriage.db"
    with _filled(path) as ws:
        load_rest(ws, load_frame(ws, columns=facets.columns_read()))
        assert views(path) == {}
        ws.replace_view("evaluations", "CREATE VIEW evaluations AS SELECT 1 AS old")
        load_frame(ws)
        assert views(path) == {"evaluations": "CREATE VIEW evaluations AS SELECT 1 AS old"}
        ensure_views(ws)
        assert views(path) == {"evaluations": evaluations_sql()}
    with Workspace.open_for_reading(path) as ws:  # reading only: it loads, and nothing may be written
        assert load_frame(ws).height == 30
