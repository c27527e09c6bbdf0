"""Draw the hand-judged set of the judgement (docs/judgement.md), printed for judging by hand.

`python -m tests.core.judged_draw WORKSPACE [--dump]` reads a workspace holding Spider dev × the shared
systems evaluated with `--neighbours 10 --verify` and prints the drawn rows. The draw is reproducible
(seed 39) and takes three strata, each from the 7 real systems (the official repo's example predictions use
a placeholder value and are left out):

- `refuted`: 90 EX passes (spider mode) that a neighbour or the solver refutes;
- `doubt`: 60 EX failures on examples where at least 5 of the 7 systems fail EX (golds that look doubtful);
- `random`: 60 rows at random among the rows whose database exists.

A row is in the held-back part when `held_back(model, index)` says so (about a third), decided by a digest,
never by what the row holds. `--dump` prints, for judging, the question, both queries, their results on the
original database and, for a refuted row, the witness database and both results on it.
"""

from __future__ import annotations

import hashlib
import random
import sqlite3
import sys
from pathlib import Path

SEED = 39
N_REFUTED, N_DOUBT, N_RANDOM = 90, 60, 60
LEFT_OUT = "spider_repo_pred_example"


def held_back(model: str, index: int) -> bool:
    """The held-back third of the set: scored once, at the end, never read while rules are tuned."""
    return hashlib.sha256(f"{model}:{index}".encode()).digest()[0] % 3 == 0


def draw(workspace: Path) -> list[tuple[str, str, int]]:
    """(stratum, model, index) of every drawn row, in draw order."""
    db = sqlite3.connect(f"file:{workspace}?mode=ro", uri=True)
    rows = db.execute(
        "SELECT r.model, r.idx, r.ex_spider, r.ex_ts, r.equivalence FROM results r "
        "JOIN examples e USING (idx) WHERE e.db_missing = 0 AND r.model != ? ORDER BY r.model, r.idx",
        (LEFT_OUT,),
    ).fetchall()
    fails: dict[int, int] = {}
    for _m, idx, ex, _ts, _eq in rows:
        fails[idx] = fails.get(idx, 0) + (ex == 0)
    refuted = [(m, i) for m, i, ex, ts, eq in rows if ex == 1 and (ts == 0 or eq == "refuted")]
    doubt = [(m, i) for m, i, ex, _ts, _eq in rows if ex == 0 and fails[i] >= 5]
    rng = random.Random(SEED)
    out: list[tuple[str, str, int]] = []
    taken: set[tuple[str, int]] = set()
    for name, pool, n in (("refuted", refuted, N_REFUTED), ("doubt", doubt, N_DOUBT)):
        for key in rng.sample(pool, n):
            taken.add(key)
            out.append((name, *key))
    rest = [(m, i) for m, i, *_ in rows if (m, i) not in taken]
    out.extend(("random", *key) for key in rng.sample(rest, N_RANDOM))
    return out


def _result(path: str, sql: str, limit: int = 12) -> str:
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        rows = con.execute(sql).fetchmany(limit + 1)
    except sqlite3.Error as exc:
        return f"error: {exc}"
    more = " …" if len(rows) > limit else ""
    return repr(rows[:limit]) + more


def _tables(path: str) -> str:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    out = []
    for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
        cols = [c[1] for c in con.execute(f'PRAGMA table_info("{name}")')]
        rows = con.execute(f'SELECT * FROM "{name}"').fetchall()
        if rows:
            out.append(f"    {name}({', '.join(cols)}): {rows!r}")
    return "\n".join(out)


def dump(workspace: Path, drawn: list[tuple[str, str, int]]) -> None:
    from tests.conftest import SHARED_DATA

    db = sqlite3.connect(f"file:{workspace}?mode=ro", uri=True)
    for stratum, model, idx in drawn:
        q, gold, db_id, suspect = db.execute(
            "SELECT question, gold_sql, db_id, gold_suspect FROM examples WHERE idx = ?", (idx,)
        ).fetchone()
        pred, ex, ts, eq, witness = db.execute(
            "SELECT pred_sql, ex_spider, ex_ts, equivalence, ts_witness FROM results WHERE model = ? AND idx = ?",
            (model, idx),
        ).fetchone()
        original = str(SHARED_DATA / "spider_dev" / "database" / db_id / f"{db_id}.sqlite")
        part = "held" if held_back(model, idx) else "tune"
        print(
            f"## {stratum} {model} {idx} ({db_id}, {part}) ex={ex} ex_ts={ts} equivalence={eq} suspect={suspect}"
        )
        print(f"Q: {q}\nG: {gold}\nP: {pred}")
        print(f"  gold on original: {_result(original, gold)}")
        print(f"  pred on original: {_result(original, pred)}")
        if witness and witness != "original" and Path(witness).exists():
            print(f"  witness:\n{_tables(witness)}")
            print(f"  gold on witness: {_result(witness, gold)}")
            print(f"  pred on witness: {_result(witness, pred)}")
        print()


if __name__ == "__main__":
    ws = Path(sys.argv[1])
    drawn = draw(ws)
    if "--dump" in sys.argv:
        dump(ws, drawn)
    else:
        for row in drawn:
            print("\t".join(map(str, row)))
