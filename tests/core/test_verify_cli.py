"""`eval --verify` and `diff --verify` as a user runs them: the columns stored, a refutation's database shown
as the witness, the facet and the summary's "EX verified"."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from sqltriage.core.verdicts.verify import DEFAULT_BOUND
from sqltriage.samples import SAMPLE_DIR
from sqltriage.tui.cli import main

pytest.importorskip("z3")

LIBRARY = SAMPLE_DIR / "database" / "library" / "library.sqlite"
PAIRS = [  # (gold, prediction): every prediction passes EX on the sample's library
    ("SELECT count(*) FROM books", "SELECT count(book_id) FROM books"),  # verified
    (
        "SELECT name FROM authors EXCEPT SELECT T2.name FROM books AS T1 JOIN authors AS T2 "
        "ON T1.author_id = T2.author_id",
        "SELECT name FROM authors WHERE author_id NOT IN (SELECT author_id FROM books)",  # two authors, one name
    ),
    ("SELECT count(*) FROM books", "SELECT count(*) OVER () FROM books LIMIT 1"),  # a window: unknown
]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("verify-cli")
    data = root / "lib"
    data.mkdir()
    records = [{"db_id": "library", "question": f"q{i}", "query": g} for i, (g, _) in enumerate(PAIRS)]
    (data / "dev.json").write_text(json.dumps(records))
    (data / "tables.json").write_text((SAMPLE_DIR / "tables.json").read_text())
    (data / "database").symlink_to(SAMPLE_DIR / "database")
    preds = root / "model.sql"
    preds.write_text("\n".join(p for _, p in PAIRS) + "\n")
    return data, preds


def test_eval_verify_stores_verdicts_and_shows_a_refutation_as_the_witness(
    dataset: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, preds = dataset
    ws = tmp_path / "w.db"
    assert (
        main(["eval", str(data), "--pred", f"m={preds}", "--workspace", str(ws), "--verify", "--json"]) == 0
    )
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert doc["run"]["verify"] is True and doc["run"]["verify_bound"] == DEFAULT_BOUND
    assert "1 verified, 1 refuted, 1 unknown" in captured.err
    m = doc["models"][0]
    assert m["ex"] == 1.0 and m["equivalence_n"] == 3 and m["refuted"] == 1
    assert m["ex_verified"] == pytest.approx(1 / 3)
    from rich.console import Console

    from sqltriage.tui.widgets.charts import verified_table

    console = Console(record=True, width=120)
    console.print(verified_table(doc["models"]))  # the app's Summary tab shows this table
    cells = [[c.strip() for c in x.split("│")[1:-1]] for x in console.export_text().splitlines() if "│" in x]
    assert ["m", "1.000", "—", "0.333", "3", "1"] in cells  # EX, TS (no neighbours), EX verified, checked, …
    conn = sqlite3.connect(ws)
    rows = conn.execute(
        "SELECT equivalence, equivalence_bound, equivalence_note, ts_witness, ts_witness_rows, ex_ts "
        "FROM results ORDER BY idx"
    ).fetchall()
    conn.close()
    assert rows[0] == ("verified", DEFAULT_BOUND, None, None, None, None)
    status, bound, note, witness, witness_rows, ex_ts = rows[1]
    assert (status, bound, note, ex_ts) == (
        "refuted",
        DEFAULT_BOUND,
        None,
        None,
    )  # no neighbours asked: ex_ts stays empty
    w = sqlite3.connect(f"file:{witness}?mode=ro", uri=True)
    try:
        gold = w.execute(PAIRS[1][0]).fetchall()
        pred = w.execute(PAIRS[1][1]).fetchall()
        assert sorted(gold) != sorted(pred)
        assert witness_rows == sum(
            w.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]
            for (t,) in w.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        )
    finally:
        w.close()
    assert rows[2][0] == "unknown" and "window" in rows[2][2]

    # a later run without --verify keeps the verdicts (nothing recomputed); --no-verify drops them
    assert main(["eval", str(data), "--pred", f"m={preds}", "--workspace", str(ws), "--json"]) == 0
    assert "reused 3" in capsys.readouterr().err

    from sqltriage.core.reporting.facets import Filters, facet_counts, prepare
    from sqltriage.core.reporting.report import workspace_frame

    counts = dict(facet_counts(prepare(workspace_frame(ws)), Filters())["equivalence"])
    assert counts == {"verified": 1, "refuted": 1, "unknown: window function": 1}


def test_diff_verify_reports_the_verdict_and_its_database(capsys: pytest.CaptureFixture[str]) -> None:
    gold, pred = PAIRS[1]
    assert main(["diff", gold, pred, "--db", str(LIBRARY), "--verify", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["execution"]["ex_spider"] == 1
    assert doc["equivalence"]["status"] == "refuted" and doc["equivalence"]["bound"] == DEFAULT_BOUND
    assert doc["witness"]["gold"]["rows"] != doc["witness"]["pred"]["rows"]
    assert main(["diff", *PAIRS[0], "--db", str(LIBRARY), "--verify", "--verify-bound", "2"]) == 0
    assert "Equivalence up to 2 rows per table: verified" in capsys.readouterr().out


def test_verify_options_are_checked() -> None:
    from sqltriage.core.errors import UsageError
    from sqltriage.core.pipeline.run_options import eval_options

    with pytest.raises(UsageError, match="verify_bound must be at least 1"):
        eval_options({"verify": True, "verify_bound": 0})


def test_the_help_states_the_defaults_a_run_uses(capsys: pytest.CaptureFixture[str]) -> None:
    """`--help` writes the defaults out (it stays free of the checker's imports): they must be the ones used."""
    from sqltriage.core.verdicts.verify.check import DEFAULT_TIMEOUT, RAISED_BOUND_MAX

    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"does not depend on the load (default {DEFAULT_TIMEOUT})" in text
    assert (
        f"(default {DEFAULT_BOUND}, raised for a count or LIMIT that needs more, up to {RAISED_BOUND_MAX})"
        in text
    )


def test_a_row_a_neighbour_refuted_is_refuted_with_its_witness_without_solving(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--verify --neighbours`: the rows a neighbour already separates keep the neighbour's witness and say
    they were not solved; the rows every neighbour passed are solved as before."""
    from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
    from sqltriage.core.verdicts.verify.columns import BY_A_NEIGHBOUR
    from sqltriage.core.workspace.store import Workspace
    from tests.core.test_testsuite import shops_inputs

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    _, dataset, sets = shops_inputs(tmp_path)
    options = EvalOptions(jobs=1, features=False, neighbours=10, seed=0, verify=True)
    with Workspace.open(tmp_path / "w.db") as ws:
        evaluate(dataset, sets, ws, options)
        rows = ws.db.execute(
            "SELECT model, ex_ts, ts_witness, equivalence, equivalence_bound, equivalence_note FROM results "
            "WHERE ex_spider = 1"
        ).fetchall()
    by_neighbour = [r for r in rows if r[1] == 0]
    assert by_neighbour and {r[0] for r in by_neighbour} == {"coincidence"}
    for _, _, witness, status, bound, note in by_neighbour:
        assert (status, bound, note) == ("refuted", None, BY_A_NEIGHBOUR)
        assert Path(witness).is_file()
    solved = [r for r in rows if r[1] == 1]
    assert solved and all(
        r[3] == "verified" and r[4] == DEFAULT_BOUND and r[5] != BY_A_NEIGHBOUR for r in solved
    )


def test_the_facet_tells_a_verdict_up_to_tie_order_from_a_plain_one() -> None:
    import polars as pl

    from sqltriage.core.reporting.facet_text import facet_text
    from sqltriage.core.verdicts.verify.check import TIES_NOTE

    frame = pl.DataFrame(
        {
            "equivalence": ["verified", "verified", "unknown", "refuted"],
            "equivalence_note": [None, TIES_NOTE, "timeout", "every neighbour passed"],
        }
    )
    shown = frame.select(facet_text(frame, "equivalence")).to_series().to_list()
    assert shown == [
        "verified",
        "verified: ties among ORDER BY keys may fall differently",
        "unknown: timeout",
        "refuted",
    ]


def test_rows_the_safety_net_stopped_are_counted_and_tried_again(
    dataset: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    """A verdict the wall clock cut short is not reproducible: the run says how many, and the next run, on a
    machine with time to spare, solves them and gets the verdicts of a run never cut short."""
    from sqltriage.core.verdicts.verify import budget

    data, preds = dataset
    args = ["eval", str(data), "--pred", f"m={preds}", "--verify", "--json", "--jobs", "1"]
    ws = tmp_path / "w.db"
    with monkeypatch.context() as starved:  # a machine so slow the wall clock is spent at once
        starved.setattr(budget, "SAFETY_FACTOR", 0)
        starved.setattr(budget, "SAFETY_FLOOR", 0.0)
        assert main([*args, "--workspace", str(ws)]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["run"]["verify_too_slow"] == 3
    assert "equivalence left unknown on 3 row(s): machine too slow for the budget" in " ".join(
        captured.err.split()
    )
    assert main([*args, "--workspace", str(ws)]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["run"]["computed"] == 3 and again["run"]["verify_too_slow"] == 0
    assert main([*args, "--workspace", str(tmp_path / "never-cut.db")]) == 0
    capsys.readouterr()

    def verdicts(path: Path) -> list[tuple]:
        conn = sqlite3.connect(path)
        try:
            return conn.execute(
                "SELECT idx, equivalence, equivalence_note, ex_ts FROM results ORDER BY idx"
            ).fetchall()
        finally:
            conn.close()

    assert verdicts(ws) == verdicts(tmp_path / "never-cut.db")
