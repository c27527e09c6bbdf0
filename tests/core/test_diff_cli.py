"""`sqltriage diff` from the shell: DESIGN's key names in --json, and results with --db."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sqltriage.samples import SAMPLE_DIR
from sqltriage.tui.cli import main

LIBRARY = SAMPLE_DIR / "database" / "library" / "library.sqlite"


def diff_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main(["diff", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_identical_queries_match_everywhere(capsys: pytest.CaptureFixture[str]) -> None:
    sql = "SELECT title FROM books WHERE year > 1990 ORDER BY title"
    doc = diff_json(capsys, sql, sql)
    for key in ("em", "em_spider"):
        assert doc[key] == 1
    for key in ("sm", "om", "vm", "pm"):
        assert doc[key] == 1.0
    assert doc["diff"]["identical"]
    assert doc["gold"]["structural"] == "S F W O"


def test_join_on_different_keys_only_em_notices(capsys: pytest.CaptureFixture[str]) -> None:
    gold = "SELECT T1.name FROM a AS T1 JOIN b AS T2 ON T1.id = T2.a_id"
    pred = "SELECT T1.name FROM a AS T1 JOIN b AS T2 ON T1.id = T2.other_id"
    doc = diff_json(capsys, gold, pred)
    assert (doc["em"], doc["em_spider"]) == (0, 1)
    first = doc["suggestions"][0]
    assert (
        first["tag"] == "Table: join condition"
        and "other_id" in first["reason"]
        and first["confidence"] >= 0.5
    )


def test_suggestions_use_the_results_with_a_db(capsys: pytest.CaptureFixture[str]) -> None:
    gold = "SELECT title FROM books"
    doc = diff_json(capsys, gold, "SELECT * FROM books", "--db", str(LIBRARY))
    assert doc["suggestions"][0]["tag"] == "Attribute: redundant"
    assert diff_json(capsys, gold, "SELECT title AS t FROM books", "--db", str(LIBRARY))["suggestions"] == []


def test_with_db_runs_both_and_gives_every_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    gold = "SELECT count(*) FROM books"
    doc = diff_json(capsys, gold, "SELECT count(*) FROM books WHERE 0", "--db", str(LIBRARY))
    ex = doc["execution"]
    assert ex["gold"]["rows"][0][0] > 0 and ex["pred"]["rows"] == [[0]]
    assert (ex["va"], ex["ex"], ex["ex_spider"], ex["ex_bird"], ex["ex_archer"]) == (1, 0, 0, 0, 0)
    doc = diff_json(capsys, gold, "SELECT COUNT(book_id) FROM books", "--db", str(LIBRARY))
    assert doc["execution"]["ex_spider"] == 1 and doc["em"] == 0
    assert doc["execution"]["ex_official"] == 1 and doc["execution"]["official_quirk"] is None


def test_with_db_the_official_verdict_is_given_and_explained_where_it_differs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    gold = "SELECT count(*) FROM books"
    doc = diff_json(capsys, gold, "SELECT count(*) FROM books\tWHERE 0", "--db", str(LIBRARY))
    ex = doc["execution"]
    assert (ex["ex_spider"], ex["ex_official"], ex["official_quirk"]) == (0, 1, "tab-cut")
    assert main(["diff", gold, "SELECT count(*) FROM books\tWHERE 0", "--db", str(LIBRARY)]) == 0
    assert "EX (official)" in capsys.readouterr().out


def test_text_output_and_bad_db(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["diff", "SELECT 1", "SELEC 1"]) == 0
    out = capsys.readouterr().out
    assert "Partial-match breakdown" in out or "prediction:" in out
    assert main(["diff", "SELECT 1", "SELECT 1", "--db", str(tmp_path / "none.sqlite")]) == 2
    assert "database file does not exist" in capsys.readouterr().err


def test_the_papers_worked_example_with_the_text_and_with_the_authors_code(
    capsys: pytest.CaptureFixture[str],
) -> None:
    gold = (
        "select name from students where age < (select avg(age) from students where age>17) "
        "and grade in (select grade from best_grades)"
    )
    pred = "select name from students where grade>10 and age>17"
    doc = diff_json(capsys, gold, pred)
    assert doc["sm"] == pytest.approx(0.2)
    assert doc["authors"]["sm"] == pytest.approx(0.375) and doc["authors"]["raises"] is None
    assert main(["diff", gold, pred]) == 0
    out = capsys.readouterr().out
    assert "As the paper's code computes them: SM 0.375" in out


def test_where_the_authors_code_raises_diff_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", "SELECT title FROM books", "SELECT title FROM books WHERE year IS NULL"]) == 0
    assert "their code would raise: IS NULL" in capsys.readouterr().out


def test_with_neighbours_a_refuted_pass_reports_its_minimal_witness(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import sqlite3

    gold, pred = "SELECT title FROM books WHERE pages > 450", "SELECT title FROM books WHERE pages >= 460"
    doc = diff_json(capsys, gold, pred, "--db", str(LIBRARY), "--neighbours", "5")
    assert doc["execution"]["ex_spider"] == 1, "no book of 451-459 pages in the sample: EX passes"
    nb = doc["neighbours"]
    assert (nb["k"], nb["seed"], nb["ex_ts"], nb["error"]) == (5, 0, 0, None)
    w = doc["witness"]
    tables = {t["name"]: t for t in w["tables"]}
    assert w["rows"] == sum(t["row_count"] for t in tables.values()) <= 3
    (book,) = tables["books"]["rows"]
    pages = book[tables["books"]["columns"].index("pages")]
    assert 450 < pages < 460, "the one book that tells > 450 from >= 460"
    author_id = book[tables["books"]["columns"].index("author_id")]
    assert [a[0] for a in tables["authors"]["rows"]] == [author_id], "with the author it points at"
    assert w["gold"]["row_count"] == 1 and w["pred"]["row_count"] == 0
    assert w["reading"] == "gold returns 1 row, the prediction none"
    conn = sqlite3.connect(f"file:{w['path']}?mode=ro", uri=True)
    assert conn.execute(gold).fetchall() != conn.execute(pred).fetchall()
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    conn.close()
    # a pass the neighbours cannot refute has no witness; a fail needs none
    same = diff_json(
        capsys, gold, "SELECT title FROM books WHERE pages >= 451", "--db", str(LIBRARY), "--neighbours", "5"
    )
    assert same["neighbours"]["ex_ts"] == 1 and same["witness"] is None
    fail = diff_json(capsys, gold, "SELECT title FROM books", "--db", str(LIBRARY), "--neighbours", "5")
    assert fail["neighbours"]["ex_ts"] == 0 and fail["witness"] is None


def test_neighbours_without_a_db_say_what_is_missing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", "SELECT 1", "SELECT 2", "--neighbours", "3"]) != 0
    assert "--neighbours needs a database" in capsys.readouterr().err
