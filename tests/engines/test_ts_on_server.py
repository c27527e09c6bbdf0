"""`eval --db-url … --neighbours K`: the neighbours are generated from the server database's own contents,
replayed on the server (engines/replay.py) and `ex_ts` is filled there, equal to SQLite's for pairs that
mean the same on both engines; predicted SQL cannot write to the scratch places either."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from sqltriage.tui.cli import main
from tests.servers import Server

# (gold, prediction, ex_ts): concert_singer; numbers only (no collation, NULL order, division or LIMIT tie),
# so both engines read each pair alike
PAIRS = [
    ("SELECT count(*) FROM singer", "SELECT count(*) FROM singer WHERE 1 = 1", 1),
    (
        "SELECT count(*) FROM concert",
        "SELECT count(*) FROM concert",
        1,
    ),  # the gold's text: run once, not twice
    ("SELECT name FROM singer WHERE age > 30", "SELECT name FROM singer WHERE NOT age <= 30", 1),
    ("SELECT max(capacity) FROM stadium", "SELECT max(capacity) FROM stadium WHERE capacity IS NOT NULL", 1),
    # the same rows on the original (ages 52, 41, 43), not on neighbours with other ages
    ("SELECT count(*) FROM singer WHERE age > 40", "SELECT count(*) FROM singer WHERE age >= 35", 0),
    ("SELECT name FROM singer WHERE age > 40", "SELECT name FROM singer WHERE age > 35", 0),
]
HOSTILE = [
    "DELETE FROM singer",
    "DROP TABLE singer",
    "WITH x AS (DELETE FROM singer RETURNING 1) SELECT count(*) FROM x",
    "SELECT count(*) FROM singer; DROP TABLE singer",
    "UPDATE singer SET age = 0",
]
K = 3


def _inputs(tmp_path: Path, preds: list[str], pairs: list[tuple[str, str, int]] = PAIRS) -> tuple[Path, Path]:
    data = tmp_path / "questions.jsonl"
    lines = [
        {"question": f"q{i}", "query": g, "db_id": "concert_singer"} for i, (g, _, _) in enumerate(pairs)
    ]
    data.write_text("".join(json.dumps(line) + "\n" for line in lines))
    pred = tmp_path / "m.sql"
    pred.write_text("".join(p + "\n" for p in preds))
    return data, pred


def _ts(ws: Path, model: str = "m") -> dict[int, tuple]:
    conn = sqlite3.connect(ws)
    try:
        return {
            idx: rest
            for idx, *rest in conn.execute(
                "SELECT idx, ex, ex_ts, ts_databases, ts_witness, ts_note FROM results WHERE model = ?",
                (model,),
            )
        }
    finally:
        conn.close()


def _admin_url(server: Server) -> str:
    return server.url("spider_{db_id}")


@pytest.mark.parametrize("engine", ["postgresql", "mysql"])
def test_ex_ts_on_server_equals_sqlite(
    engine: str, request: pytest.FixtureRequest, spider_dev: Path, tmp_path: Path, capsys
) -> None:
    server: Server = request.getfixturevalue("pg_server" if engine == "postgresql" else "maria_server")
    url: str = request.getfixturevalue("pg_spider" if engine == "postgresql" else "maria_spider")
    data, pred = _inputs(tmp_path, [p for _, p, _ in PAIRS])
    common = ["--pred", f"m={pred}", "--neighbours", str(K), "--jobs", "1", "--json"]
    on_sqlite, on_server = tmp_path / "sqlite.db", tmp_path / "server.db"
    assert main(["eval", str(data), "--db-dir", str(spider_dev / "database"), "--workspace", str(on_sqlite),
                 *common]) == 0  # fmt: skip
    args = ["eval", str(data), "--db-url", url, "--scratch-url", _admin_url(server), "--workspace",
            str(on_server), *common]  # fmt: skip
    assert main(args) == 0
    capsys.readouterr()
    lite, served = _ts(on_sqlite), _ts(on_server)
    for i, (_, _, expected) in enumerate(PAIRS):
        ex, ex_ts, databases, witness, note = served[i]
        assert ex == 1 and ex_ts == expected == lite[i][1], (i, served[i], lite[i])
        assert databases and databases > 0, served[i]
        assert note is not None and engine in note, served[i]
        if expected == 0:  # the neighbour that refuted it, as the SQLite file it came from
            assert witness is not None and Path(witness).is_file() and "refuted" in note, served[i]
            assert witness.endswith(".sqlite")
        else:
            assert witness is None
    # a second run finds the scratch places loaded and every pair done
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["run"]["computed"] == 0


def _scratch_counts(server: Server) -> dict[str, dict[str, int]]:
    """Row counts of every table of every scratch place, read as the administrator."""
    from sqltriage.core.engines.replay import PREFIX

    out: dict[str, dict[str, int]] = {}
    if server.engine == "postgresql":
        import psycopg

        with psycopg.connect(host=server.host, port=server.port, user=server.admin_user,
                             dbname="spider_concert_singer", autocommit=True) as conn:  # fmt: skip
            for schema, table in conn.execute(
                "SELECT schemaname, tablename FROM pg_tables WHERE starts_with(schemaname, %s)", (PREFIX,)
            ).fetchall():
                n = conn.execute(f'SELECT count(*) FROM "{schema}"."{table}"').fetchone()[0]
                out.setdefault(schema, {})[table] = n
        return out
    import pymysql

    conn = pymysql.connect(host=server.host, port=server.port, user="root", password="", autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute(
                "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA LIKE %s",
                (PREFIX.replace("_", "\\_") + "%",),
            )
            for schema, table in cur.fetchall():
                cur.execute(f"SELECT count(*) FROM `{schema}`.`{table}`")
                out.setdefault(schema, {})[table] = cur.fetchone()[0]
    finally:
        conn.close()
    return out


def test_predicted_sql_cannot_touch_the_scratch_places(
    served: tuple[Server, str], tmp_path: Path, capsys
) -> None:
    from sqltriage.core.engines.refs import parse_url
    from sqltriage.core.engines.replay import scratch_database

    server, url = served
    preds = [p for _, p, _ in PAIRS]
    data, pred = _inputs(tmp_path, preds)
    hostile = tmp_path / "h.sql"
    hostile.write_text("".join(HOSTILE[i % len(HOSTILE)] + "\n" for i in range(len(PAIRS))))
    args = ["eval", str(data), "--db-url", url, "--scratch-url", _admin_url(server), "--pred", f"m={pred}",
            "--pred", f"h={hostile}", "--neighbours", str(K), "--jobs", "1", "--workspace",
            str(tmp_path / "w.db"), "--json"]  # fmt: skip
    assert main(args) == 0
    capsys.readouterr()
    before = _scratch_counts(server)
    assert len(before) >= K and all(before.values()), before
    conn = sqlite3.connect(tmp_path / "w.db")
    kinds = {k for (k,) in conn.execute("SELECT error_kind FROM results WHERE model = 'h'")}
    conn.close()
    assert kinds <= {"forbidden", "multiple_statements"}, kinds
    reader = parse_url(url)
    for name in before:  # the reader on each scratch place, as the neighbours' queries run there
        place = scratch_database(reader, "concert_singer", name)
        assert place.execute("SELECT count(*) FROM singer", timeout=5, max_rows=10).ok
        for sql in HOSTILE:
            got = place.execute(sql, timeout=5, max_rows=10)
            assert got.error_kind in ("forbidden", "multiple_statements"), (sql, got)
    assert _scratch_counts(server) == before


def test_drop_scratch_removes_only_the_scratch_places(
    served: tuple[Server, str], tmp_path: Path, capsys
) -> None:
    server, url = served
    data, pred = _inputs(tmp_path, [p for _, p, _ in PAIRS])
    args = ["eval", str(data), "--db-url", url, "--scratch-url", _admin_url(server), "--pred", f"m={pred}",
            "--neighbours", str(K), "--jobs", "1", "--workspace", str(tmp_path / "w.db"), "--json"]  # fmt: skip
    assert main(args) == 0
    assert _scratch_counts(server)
    capsys.readouterr()
    assert main(["db", "drop-scratch", _admin_url(server), "--json"]) == 0
    dropped = json.loads(capsys.readouterr().out)
    assert dropped["dropped"] and all("sqltriage_nb_" in n for n in dropped["dropped"])
    assert _scratch_counts(server) == {}
    from sqltriage.core.engines.refs import parse_url
    from sqltriage.core.engines.registry import Database

    original = Database(parse_url(url).ref("concert_singer"))
    assert original.execute("SELECT count(*) FROM singer", timeout=5, max_rows=10).rows == ((6,),)
    # a later evaluation loads them again
    again = [*args[:-2], str(tmp_path / "again.db"), "--json"]
    assert main(again) == 0
    assert {i: r[1] for i, r in _ts(tmp_path / "again.db").items()} == {
        i: e for i, (_, _, e) in enumerate(PAIRS)
    }


def test_a_login_that_cannot_create_gives_a_reason_not_a_verdict(
    pg_server: Server, pg_spider: str, tmp_path: Path, capsys
) -> None:
    """The reader may only SELECT: without --scratch-url, the rows that passed EX say why they have no
    `ex_ts` (another seed: neighbours no earlier test loaded)."""
    data, pred = _inputs(tmp_path, [p for _, p, _ in PAIRS])
    args = ["eval", str(data), "--db-url", pg_spider, "--pred", f"m={pred}", "--neighbours", str(K),
            "--seed", "7", "--jobs", "1", "--workspace", str(tmp_path / "w.db"), "--json"]  # fmt: skip
    assert main(args) == 0
    capsys.readouterr()
    for ex, ex_ts, databases, witness, _ in _ts(tmp_path / "w.db").values():
        assert ex == 1 and ex_ts is None and databases == 0, witness
        assert witness.startswith("no neighbours: cannot load") and "--scratch-url" in witness, witness


def test_ex_ts_on_server_from_worker_processes(
    pg_server: Server, pg_spider: str, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pool's workers find the neighbours the parent loaded (they open connections of their own)."""
    import sqltriage.core.pipeline.evaluate as evaluate

    monkeypatch.setattr(evaluate, "_pool_min_pairs", lambda options: 0)
    data, pred = _inputs(tmp_path, [p for _, p, _ in PAIRS])
    ws = tmp_path / "w.db"
    args = ["eval", str(data), "--db-url", pg_spider, "--scratch-url", _admin_url(pg_server), "--pred",
            f"m={pred}", "--neighbours", str(K), "--jobs", "2", "--workspace", str(ws), "--json"]  # fmt: skip
    assert main(args) == 0
    assert "processes" in json.loads(capsys.readouterr().out)["run"]["workers"]
    assert {i: r[1] for i, r in _ts(ws).items()} == {i: e for i, (_, _, e) in enumerate(PAIRS)}


# predictions only the server's dialect reads, for some of PAIRS' golds (the others predicted as written:
# the same golds, the same neighbours as the tests above): they run on the server's copies of the neighbours
DIALECT_PREDS = {
    "postgresql": {
        0: ("SELECT COUNT(*)::int FROM singer", 1),
        5: ("SELECT name FROM singer WHERE age > 35 AND name ILIKE '%'", 0),
    },
    "mysql": {
        0: ("SELECT COUNT(*) FROM `singer`", 1),
        5: ("SELECT `Name` FROM `singer` WHERE `Age` > 35", 0),
    },
}


@pytest.mark.parametrize("engine", ["postgresql", "mysql"])
def test_predictions_in_the_servers_dialect_run_on_its_neighbours(
    engine: str, request: pytest.FixtureRequest, tmp_path: Path, capsys
) -> None:
    server: Server = request.getfixturevalue("pg_server" if engine == "postgresql" else "maria_server")
    url: str = request.getfixturevalue("pg_spider" if engine == "postgresql" else "maria_spider")
    preds = DIALECT_PREDS[engine]
    assert PAIRS[5][0] == "SELECT name FROM singer WHERE age > 40"
    data, pred = _inputs(tmp_path, [preds[i][0] if i in preds else g for i, (g, _, _) in enumerate(PAIRS)])
    ws = tmp_path / "w.db"
    args = ["eval", str(data), "--db-url", url, "--scratch-url", _admin_url(server), "--pred", f"m={pred}",
            "--neighbours", str(K), "--jobs", "1", "--workspace", str(ws), "--json"]  # fmt: skip
    assert main(args) == 0
    capsys.readouterr()
    got = _ts(ws)
    expected = {i: (1, preds[i][1] if i in preds else 1) for i in range(len(PAIRS))}
    assert {i: (r[0], r[1]) for i, r in got.items()} == expected, got


def test_one_server_database_for_every_db_id(
    pg_server: Server, pg_spider: str, spider_dev: Path, tmp_path: Path, capsys
) -> None:
    """Mini-Dev's layout (a URL without `{db_id}`): the scratch schemas live in that one database."""
    import psycopg

    source = spider_dev / "database" / "concert_singer" / "concert_singer.sqlite"
    admin = pg_server.url("ts_one")
    with psycopg.connect(host=pg_server.host, port=pg_server.port, user=pg_server.admin_user, dbname="postgres",
                         autocommit=True) as conn:  # fmt: skip
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = 'ts_one'").fetchone() is None:
            conn.execute("CREATE DATABASE ts_one")
    assert main(["db", "copy", str(source), "--to", admin, "--numbers-from-text", "--replace", "--json"]) == 0
    with psycopg.connect(host=pg_server.host, port=pg_server.port, user=pg_server.admin_user, dbname="ts_one",
                         autocommit=True) as conn:  # fmt: skip
        conn.execute("GRANT USAGE ON SCHEMA public TO reader")
        conn.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader")
    data, pred = _inputs(tmp_path, [p for _, p, _ in PAIRS])
    ws = tmp_path / "w.db"
    args = ["eval", str(data), "--db-url", pg_server.url("ts_one", "reader", "secret-pw"), "--scratch-url",
            admin, "--pred", f"m={pred}", "--neighbours", str(K), "--jobs", "1", "--workspace", str(ws),
            "--json"]  # fmt: skip
    assert main(args) == 0
    capsys.readouterr()
    assert {i: r[1] for i, r in _ts(ws).items()} == {i: e for i, (_, _, e) in enumerate(PAIRS)}
    with psycopg.connect(host=pg_server.host, port=pg_server.port, user=pg_server.admin_user, dbname="ts_one",
                         autocommit=True) as conn:  # fmt: skip
        schemas = [
            r[0] for r in conn.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'sqltriage%'")
        ]
    assert len(schemas) == K, schemas
