"""Everything `sqltriage diff` reports about two queries, as one JSON-ready document."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqltriage.core.datasets.schema import schema_from_sqlite
from sqltriage.core.errors import UsageError
from sqltriage.core.model import Schema
from sqltriage.core.verdicts.exec_result import DEFAULT_TIMEOUT, ExecResult

if TYPE_CHECKING:  # types only: sqlglot loads when the queries are parsed
    from sqltriage.core.engines.registry import Database
    from sqltriage.core.sql.parse import ParsedQuery

SHOWN_ROWS = 20


def checked_db(db: Path | str | None, *, name: str = "--db") -> Path | Database | None:
    """The database to run both queries on; a missing file is refused, never created by opening it. A
    server URL (`postgresql://…/dbname`, `mysql://…/dbname`) names one database on that server."""
    if db is None:
        return None
    if "://" in str(db):
        from sqltriage.core.engines.refs import PLACEHOLDER, parse_url
        from sqltriage.core.engines.registry import Database

        server = parse_url(str(db))
        if server.per_db_id:
            raise UsageError(f"{name} names one database: replace {PLACEHOLDER} in {server.redacted()}")
        return Database(server.ref(""))
    path = Path(db)
    if not path.is_file():
        raise UsageError(
            "database file does not exist", path=path, hint=f"give {name} the path of a .sqlite file"
        )
    return path


def as_json(doc: dict[str, Any]) -> str:
    """The document as `sqltriage diff --json` prints it: a value JSON has no type for is written as text."""
    return json.dumps(doc, indent=2, default=str)


def _result_doc(result: ExecResult) -> dict[str, Any]:
    return {
        "columns": list(result.columns),
        "rows": [list(r) for r in result.rows[:SHOWN_ROWS]],
        "row_count": len(result.rows),
        "truncated": result.truncated,
        "elapsed": round(result.elapsed, 6),
        "error": result.error,
        "error_kind": result.error_kind,
    }


def compare_queries(
    gold_sql: str,
    pred_sql: str,
    *,
    db: Path | Database | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    neighbours: int = 0,
    seed: int = 0,
    neighbour_cache: Path | None = None,
    verify: bool = False,
    verify_bound: int | None = None,
    verify_timeout: float | None = None,
) -> dict[str, Any]:
    """Categories of both, EM both ways, partial match with its breakdown, the clause diff, and results.

    With `neighbours` K > 0 (and `db`), also `ex_ts` in every mode on K neighbour databases of `db` built
    from this gold query (cached), and the minimal witness when one refutes an EX pass.
    """
    from sqltriage.core.sql.authors_match import authors_partial_match
    from sqltriage.core.sql.categories import categorize
    from sqltriage.core.sql.diff import sql_diff
    from sqltriage.core.sql.exact_match import exact_match
    from sqltriage.core.sql.parse import parse_sql
    from sqltriage.core.sql.partial_match import partial_match
    from sqltriage.core.sql.schema_guess import guess_schema
    from sqltriage.core.verdicts.pair_run import run_pair

    if db is not None and not isinstance(
        db, Path
    ):  # on a server (read in its dialect: the caller's `use_dialect`)
        if neighbours > 0 or verify:
            raise UsageError("--neighbours and --verify need a SQLite file as --db, not a server")
        from sqltriage.core.engines.registry import adapter_for

        schema: Schema = adapter_for(db.engine).schema(db.ref).as_model("")
    else:
        schema = schema_from_sqlite(db) if db is not None else guess_schema([gold_sql, pred_sql])
    gold, pred = parse_sql(gold_sql, schema), parse_sql(pred_sql, schema)
    em = exact_match(gold_sql, pred_sql, schema)
    pm = partial_match(gold, pred, schema)
    diff = sql_diff(gold, pred, schema)
    doc: dict[str, Any] = {
        "gold_sql": gold_sql,
        "pred_sql": pred_sql,
        "schema": "database" if db is not None else "inferred from the queries",
        "em": em.em,
        "em_spider": em.em_spider,
        "em_error": em.error,
        "sm": pm.sm,
        "om": pm.om,
        "vm": pm.vm,
        "pm": pm.pm,
        "pm_error": pm.error,
        "authors": asdict(authors_partial_match(gold, pred, schema)),  # as the paper's code computes them
        "gold": asdict(categorize(gold, schema)),
        "pred": asdict(categorize(pred, schema)),
        "breakdown": [s.as_dict() for s in pm.subqueries],
        "diff": {
            "gold_pretty": diff.gold_pretty,
            "pred_pretty": diff.pred_pretty,
            "identical": diff.identical,
            "clauses": [asdict(c) for c in diff.clauses],
        },
    }
    g = p = None
    if db is not None:
        run = run_pair(db, gold_sql, pred_sql, timeout=timeout)  # as eval and the app run a pair
        g, p = run.gold, run.pred
        shown = {k: v for k, v in run.outcomes.items() if k != "pred_elapsed"}  # the same every run
        doc["execution"] = {"db": str(db), "gold": _result_doc(g), "pred": _result_doc(p), **shown}
    if neighbours > 0:
        if db is None:
            raise UsageError("--neighbours needs a database", hint="give --db the .sqlite file to imitate")
        doc.update(
            _on_neighbours(
                db, gold_sql, pred_sql, doc["execution"], neighbours, seed, neighbour_cache, timeout
            )
        )
    if verify:
        if db is None:
            raise UsageError("--verify needs a database", hint="give --db the .sqlite file of the schema")
        doc.update(
            _on_verify(db, gold_sql, pred_sql, doc, verify_bound, verify_timeout, neighbour_cache, timeout)
        )
    doc["suggestions"] = _suggestions(gold, pred, schema, g, p, doc.get("execution"))
    return doc


def _suggestions(
    gold: ParsedQuery,
    pred: ParsedQuery,
    schema: Schema,
    g: ExecResult | None,
    p: ExecResult | None,
    ex: dict | None,
) -> list[dict[str, Any]]:
    """Ranked suggested causes, each with its confidence and reason (results used when there is a db)."""
    from sqltriage.core.suggest import suggest_causes

    error = p.error if p is not None else None
    found = suggest_causes(
        gold, pred, schema=schema, gold_result=g, pred_result=p, ex=ex.get("ex") if ex else None, error=error
    )
    return [s.as_dict() for s in found]


def _on_neighbours(
    db: Path,
    gold_sql: str,
    pred_sql: str,
    execution: dict[str, Any],
    k: int,
    seed: int,
    cache: Path | None,
    timeout: float,
) -> dict[str, Any]:
    """`neighbours` (K, seed, ex_ts in every mode) and `witness` (None unless a neighbour refutes ex_spider)."""
    from sqltriage.core.verdicts.exec_result import DEFAULT_MAX_ROWS
    from sqltriage.core.verdicts.testsuite import NeighbourError, ensure_neighbours
    from sqltriage.core.verdicts.testsuite.match import TS_MODES, neighbour_golds, refute

    out: dict[str, Any] = {"k": k, "seed": seed, "ts_databases": None, "error": None}
    out.update({col: 0 if execution[f"ex_{m}"] == 0 else None for m, col in TS_MODES.items()})
    modes = [m for m in TS_MODES if execution[f"ex_{m}"] == 1]
    try:
        paths = ensure_neighbours(db, [gold_sql], k, seed, cache)
    except NeighbourError as exc:
        return {"neighbours": {**out, "error": str(exc)}, "witness": None}
    if not modes:
        return {"neighbours": out, "witness": None}
    golds = neighbour_golds(gold_sql, paths, None, timeout, DEFAULT_MAX_ROWS)
    found = refute(gold_sql, pred_sql, golds, modes, timeout=timeout, max_rows=DEFAULT_MAX_ROWS)
    out.update({TS_MODES[m]: v for m, v in found.verdicts.items()})
    if "spider" in modes:
        out["ts_databases"] = found.databases
    witness = _witness_doc(found.witness, gold_sql, pred_sql, timeout) if found.witness is not None else None
    return {"neighbours": out, "witness": witness}


def _on_verify(
    db: Path,
    gold_sql: str,
    pred_sql: str,
    doc: dict[str, Any],
    bound: int | None,
    limit: float | None,
    cache: Path | None,
    timeout: float,
) -> dict[str, Any]:
    """`equivalence` (status, bound, note, seconds); a refutation's database becomes the `witness` when no
    neighbour gave one, shown exactly as a neighbour's."""
    from types import SimpleNamespace

    from sqltriage.core.verdicts.verify import DEFAULT_BOUND, DEFAULT_TIMEOUT, check_pair
    from sqltriage.core.verdicts.verify.columns import witness_root

    v = check_pair(
        gold_sql,
        pred_sql,
        db,
        bound=bound or DEFAULT_BOUND,
        timeout=limit or DEFAULT_TIMEOUT,
        witness_root=witness_root(str(cache) if cache else None),
    )
    out: dict[str, Any] = {
        "equivalence": {"status": v.status, "bound": v.bound, "note": v.note, "seconds": round(v.seconds, 3)}
    }
    if v.witness is not None and doc.get("witness") is None:
        found = SimpleNamespace(
            path=v.witness, rows=v.witness_rows, shrunk=True, neighbour=None, note="solver"
        )
        out["witness"] = _witness_doc(found, gold_sql, pred_sql, timeout)
    return out


def _witness_doc(witness: Any, gold_sql: str, pred_sql: str, timeout: float) -> dict[str, Any]:
    """The witness as `diff --json` reports it: where, how big, every table's rows, both results, the reading."""
    from sqltriage.core.verdicts.exec_compare import order_matters
    from sqltriage.core.verdicts.pair_run import run_pair
    from sqltriage.core.verdicts.testsuite.reading import read_difference, witness_tables

    path = witness.path
    run = run_pair(path, gold_sql, pred_sql, timeout=timeout)
    gold, pred, g_spider, p_spider = run.gold, run.pred, run.gold_spider, run.pred_spider
    return {
        "path": str(path),
        "rows": witness.rows,
        "shrunk": witness.shrunk,
        "neighbour": str(witness.neighbour) if witness.neighbour is not None else None,
        "note": witness.note,
        "tables": [
            {
                "name": t.name,
                "columns": list(t.columns),
                "rows": [list(r) for r in t.rows],
                "row_count": t.count,
            }
            for t in witness_tables(path)
        ],
        "gold": _result_doc(gold),
        "pred": _result_doc(pred),
        "reading": read_difference(g_spider, p_spider, ordered=order_matters(gold_sql)),
    }
