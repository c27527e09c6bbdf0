"""The judgement where the database file is missing: BIRD dev rows run on databases generated from the
schema (real golds, real predictions of the ChatGPT + knowledge baseline, no BIRD database)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from sqltriage.core.datasets import load_dataset
from sqltriage.core.model import Column, Schema, Table
from sqltriage.core.sql.parse import parse_sql
from sqltriage.core.verdicts.judgement.schema_only import values_match
from tests.core.schema_only_run import judged_rows

DB = "toxicology"
N = 40


def _subset(shared_data: Path, root: Path) -> Path:
    """The first N toxicology questions of BIRD dev and the baseline's predictions, written under `root`."""
    bird = shared_data / "bird_dev"
    dev = json.loads((bird / "dev.json").read_text())
    preds = json.loads((bird / "predict_dev_chatgpt_kg.json").read_text())
    picked = [(i, e) for i, e in enumerate(dev) if e["db_id"] == DB][:N]
    (root / "dev.json").write_text(json.dumps([e for _, e in picked]))
    (root / "dev_tables.json").write_text((bird / "dev_tables.json").read_text())
    (root / "preds.json").write_text(json.dumps({str(n): preds[str(i)] for n, (i, _) in enumerate(picked)}))
    return root


@pytest.fixture(scope="module")
def judged(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    """The subset evaluated with `--neighbours 3` and no database file."""
    root = _subset(shared_data, tmp_path_factory.mktemp("bird-subset"))
    assert load_dataset(root / "dev.json").db_missing(DB)
    return judged_rows(root / "dev.json", root / "preds.json", root, name="chatgpt_kg", verify=False)


def test_every_row_is_run_on_the_generated_databases(judged: list[dict]) -> None:
    assert len(judged) == N
    verdicts = {r["schema_verdict"] for r in judged}
    assert verdicts <= {"agrees", "differs", "prediction fails", "gold fails"}
    assert {"agrees", "differs"} <= verdicts
    for r in judged:
        assert r["ex"] is None  # no EX without the file: the raw columns say so
        assert r["judgement"] in ("right", "wrong", "unsure")
        assert "no database" in r["judgement_why"] or r["judgement"] == "right"


def test_a_wrong_call_rests_on_a_witness_that_plain_sqlite_confirms(judged: list[dict]) -> None:
    """Every `differs` row judged wrong has a witness on which gold and prediction return other rows as
    BIRD compares them (sets of rows), re-run with the sqlite3 module alone."""
    wrong = [r for r in judged if r["judgement"] == "wrong" and r["schema_verdict"] == "differs"]
    assert wrong
    for r in wrong:
        assert r["refutation_assumption"] == "none"
        db = sqlite3.connect(f"file:{r['ts_witness']}?mode=ro", uri=True)
        try:
            gold = set(db.execute(r["gold_sql"]).fetchall())
            pred = set(db.execute(r["pred_sql"]).fetchall())
        finally:
            db.close()
        assert gold != pred, r["index"]


def test_right_needs_an_exact_match_with_the_same_values(judged: list[dict]) -> None:
    for r in judged:
        if r["judgement"] == "right":
            assert r["em"] == 1 and r["values_match"] == 1

    # exact-set match leaves values out: a literal changed is no match of values
    def same(gold: str, pred: str) -> int | None:
        return values_match(parse_sql(gold), parse_sql(pred))

    assert same("SELECT a FROM t WHERE b = 'Hickman'", "SELECT a FROM t WHERE b = 'Handford'") == 0
    assert same("SELECT a FROM t WHERE b = 'dog'", "select a from t where b = 'Dog'") == 0  # = is exact
    assert same("SELECT a FROM t WHERE b = 'x' LIMIT 3", "select a from t where b = 'x' limit 3.0") == 1
    assert same("SELECT a FROM t", "SELECT a FROM") is None  # a prediction that does not parse


def test_a_prediction_that_fails_on_the_schema_is_wrong(judged: list[dict]) -> None:
    failing = [r for r in judged if r["schema_verdict"] == "prediction fails"]
    assert failing  # the baseline names columns the schema does not have
    for r in failing:
        assert r["judgement"] == "wrong"
        assert "fails on a database of the schema" in r["judgement_why"]


def _schema_and_databases(tmp_path: Path) -> tuple[Schema, Path, Path]:
    """A club schema (members, and the events they attend), a generated-like database of it with rows in
    both tables, and a witness whose attendance table is empty."""
    schema = Schema(
        "club",
        (
            Table("member", (Column("member_id", "text"), Column("first_name", "text"))),
            Table("attendance", (Column("link_to_member", "text"), Column("event", "text"))),
        ),
        primary_keys=(("member", "member_id"),),
        foreign_keys=((("attendance", "link_to_member"), ("member", "member_id")),),
    )
    ddl = [
        "CREATE TABLE member (member_id TEXT PRIMARY KEY, first_name TEXT)",
        "CREATE TABLE attendance (link_to_member TEXT REFERENCES member(member_id), event TEXT)",
    ]
    generated, witness = tmp_path / "generated.sqlite", tmp_path / "witness.sqlite"
    for path, members, attends in (
        (generated, [("m1", "Amy"), ("m2", "Elijah")], [("m1", "e1"), (None, None), ("m2", "e2")]),
        (witness, [("a", "Amy"), ("b", "Elijah")], []),
    ):
        with sqlite3.connect(path) as db:
            for sql in ddl:
                db.execute(sql)
            db.executemany("INSERT INTO member VALUES (?, ?)", members)
            db.executemany("INSERT INTO attendance VALUES (?, ?)", attends)
        db.close()
    return schema, generated, witness


def test_with_no_data_a_repair_writes_the_generated_databases_rows(tmp_path: Path) -> None:
    """Members who attended something against every member: on the witness no one attended anything, a
    table the schema promises holds rows. Filled with a row of the generated database (the one with no
    NULL, pointed at a member the witness holds) the two still differ: a realistic refutation, which
    without a row to fill with could only be called one needing an empty table."""
    from sqltriage.core.verdicts.judgement.assumption import classify
    from sqltriage.core.verdicts.judgement.regularities import schema_regularities, with_stand_ins

    schema, generated, witness = _schema_and_databases(tmp_path)
    gold = "SELECT first_name FROM member WHERE member_id IN (SELECT link_to_member FROM attendance)"
    pred = "SELECT first_name FROM member"
    bare = classify(witness, None, gold, pred, mode="bird", regs=schema_regularities(schema))
    assert bare is not None and bare.kind == "empty"
    regs = with_stand_ins(schema_regularities(schema), generated)
    filled = classify(witness, None, gold, pred, mode="bird", regs=regs)
    assert filled is not None and filled.kind == "none", filled
    # the repaired database is kept beside the witness: the realistic one a person opens, which plain
    # sqlite3 tells apart, of the size the reason gives
    assert filled.world is not None and filled.world.parent == witness.parent
    db = sqlite3.connect(f"file:{filled.world}?mode=ro", uri=True)
    try:
        assert set(db.execute(gold)) != set(db.execute(pred))
        rows = sum(db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("member", "attendance"))
    finally:
        db.close()
    assert f"of {rows} rows" in filled.detail
    assert schema_regularities(schema).stand_ins is None  # the shared regularities are left as they were
    # one member only: filled, attendance names that member, and the two agree: the empty table is needed
    with sqlite3.connect(witness) as db:
        db.execute("DELETE FROM member WHERE member_id = 'b'")
    db.close()
    alone = classify(witness, None, gold, pred, mode="bird", regs=regs)
    assert alone is not None and alone.kind == "empty"


@pytest.fixture(scope="module")
def proved(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    """The same toxicology subset evaluated with `--verify` too: the pairs no generated database tells
    apart are put to the solver, on the declared schema alone."""
    pytest.importorskip("z3")
    root = _subset(shared_data, tmp_path_factory.mktemp("bird-subset-verify"))
    return judged_rows(root / "dev.json", root / "preds.json", root, name="chatgpt_kg")


def test_a_proof_from_the_declared_schema_is_right_and_holds_on_every_generated_database(
    proved: list[dict], judged: list[dict]
) -> None:
    verified = [r for r in proved if r["equivalence"] == "verified"]
    assert verified  # the baseline writes many toxicology questions the gold's way in other words
    for r in verified:
        assert r["schema_verdict"] == "agrees"
        assert r["judgement"] == "right" and "declared keys only" in r["judgement_why"]
    # only pairs the generated databases could not tell apart are solved; a refutation's database is the
    # row's witness, on which plain sqlite3 tells the two apart as BIRD compares them
    for r in proved:
        if r["equivalence"] is None:
            continue
        assert r["schema_verdict"] == ("differs" if r["equivalence"] == "refuted" else "agrees"), r
        if r["equivalence"] == "refuted":
            db = sqlite3.connect(f"file:{r['ts_witness']}?mode=ro", uri=True)
            try:
                assert set(db.execute(r["gold_sql"])) != set(db.execute(r["pred_sql"])), r["index"]
            finally:
                db.close()
    # the proof decides rows the databases alone left unsure, and undoes no decision
    before = {r["index"]: r["judgement"] for r in judged}
    for r in proved:
        if before[r["index"]] != "unsure":
            assert r["judgement"] == before[r["index"]], r["index"]
    assert sum(r["judgement"] != "unsure" for r in proved) > sum(j != "unsure" for j in before.values())


def test_two_things_sharing_the_name_the_gold_asks_for_is_a_world_the_question_never_meant(
    tmp_path: Path,
) -> None:
    """A join against a scalar subquery differ only when two members are called Amy: the question asks
    about the one Amy. From the schema alone that is right, and said so; a duplicate the gold does not
    name stays unsure."""
    from sqltriage.core.verdicts.judgement.assumption import NAMED_BY_GOLD, classify
    from sqltriage.core.verdicts.judgement.decide import judge
    from sqltriage.core.verdicts.judgement.regularities import schema_regularities, with_stand_ins

    schema, generated, witness = _schema_and_databases(tmp_path)
    with sqlite3.connect(witness) as db:
        db.execute("UPDATE member SET first_name = 'Amy'")
        db.executemany("INSERT INTO attendance VALUES (?, ?)", [("a", "e1"), ("b", "e2")])
    db.close()
    gold = (
        "SELECT a.event FROM attendance AS a JOIN member AS m ON a.link_to_member = m.member_id "
        "WHERE m.first_name = 'Amy'"
    )
    pred = "SELECT event FROM attendance WHERE link_to_member = (SELECT member_id FROM member WHERE first_name = 'Amy')"
    regs = with_stand_ins(schema_regularities(schema), generated)
    found = classify(witness, None, gold, pred, mode="bird", regs=regs)
    assert found is not None and found.kind == "duplicate" and NAMED_BY_GOLD in found.detail
    row = {"db_missing": 1, "schema_verdict": "differs", "refutation_assumption": "duplicate"}
    call, why = judge({**row, "refutation_detail": found.detail}, None, "bird")
    assert call == "right" and "a world the question never meant" in why
    other = "they differ only if two member rows share a first_name ('Bo')"
    assert judge({**row, "refutation_detail": other}, None, "bird")[0] == "unsure"
