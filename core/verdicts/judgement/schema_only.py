"""The judgement's evidence where the database file is missing: the databases generated from the schema.

A dataset shipped without its files (BIRD as most users first meet it) has no EX to read. Its rows are run
instead on the databases the neighbour generator builds from the schema, the golds and the evidence
(`testsuite/from_schema.py`): a prediction that fails there while the gold runs, or that returns other rows
on a witness keeping what the schema promises (`regularities.schema_regularities`: keys and names unique,
references resolving, tables not empty), is told apart from the gold on a database the schema allows.
Nothing here comes from real data, and the row says so (`schema_verdict`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqltriage.core.model import Schema

if TYPE_CHECKING:
    from sqltriage.core.sql.parse import ParsedQuery
    from sqltriage.core.verdicts.exec_result import ExecResult

AGREES, DIFFERS, PRED_FAILS, GOLD_FAILS = "agrees", "differs", "prediction fails", "gold fails"
# Other generated databases that tell the pair apart, shrunk when the first witness needs an assumption:
# a realistic witness found there is the one the judgement reads (as realistic.py does with neighbours).
REALISTIC_TRIES = 3  # witnesses shrunk at most per row, the first included
KEYS = (
    "schema_verdict",
    "values_match",
    "ts_databases",
    "ts_witness",
    "ts_witness_rows",
    "refutation_assumption",
    "refutation_detail",
    "fragile_side",
    "difference",
    "refutation_witness",
)


def schema_columns(
    gold_sql: str,
    pred_sql: str,
    parsed: tuple[ParsedQuery | None, ParsedQuery | None],
    schema: Schema | None,
    databases: Sequence[Path],
    *,
    mode: str,
    timeout: float,
    max_rows: int,
) -> dict[str, Any]:
    """`schema_verdict` and the refutation's columns of one row whose database file is missing."""
    out: dict[str, Any] = {"values_match": values_match(*parsed)}
    if schema is None or not databases:
        return out
    key = (gold_sql, pred_sql, tuple(map(str, databases)), mode, timeout, max_rows)
    if key not in _ROWS:  # models often predict the same text: run and shrink once per process
        _ROWS[key] = _on_generated(gold_sql, pred_sql, schema, databases, mode, timeout, max_rows)
        if len(_ROWS) > _MEMO_SIZE:
            _ROWS.popitem(last=False)
    _ROWS.move_to_end(key)
    return {**out, **_ROWS[key]}


def _on_generated(
    gold_sql: str,
    pred_sql: str,
    schema: Schema,
    databases: Sequence[Path],
    mode: str,
    timeout: float,
    max_rows: int,
) -> dict[str, Any]:
    """What the generated databases show of one pair: the first that tells them apart, or agreement."""
    from sqltriage.core.verdicts.exec_compare import compare, order_matters, spider_sql
    from sqltriage.core.verdicts.execution import execute

    out: dict[str, Any] = {}
    text = spider_sql(pred_sql) if mode == "spider" else pred_sql
    gold_text = spider_sql(gold_sql) if mode == "spider" else gold_sql
    ordered = order_matters(gold_sql)
    told, first, shrunk = 0, None, 0
    gold_error: str | None = None
    for db in databases:
        gold = _gold_on(db, gold_text, timeout, max_rows)
        if not gold.ok:
            gold_error = gold.error  # the gold itself cannot be run here: this database tells nothing
            continue
        pred = execute(db, text, timeout=timeout, max_rows=max_rows)
        told += 1
        if not pred.ok:
            out.update(
                schema_verdict=PRED_FAILS,
                ts_databases=told,
                refutation_detail=f"the prediction fails on a database of the schema: {_line(pred.error)}",
            )
            return out
        if compare(gold, pred, mode, order_matters=ordered) == 0:
            found = _refutation(db, gold_sql, pred_sql, schema, mode, timeout, max_rows)
            if found.get("refutation_assumption") == "none":
                return {**out, "schema_verdict": DIFFERS, "ts_databases": told, **found}
            first, shrunk = first or found, shrunk + 1
            if shrunk >= REALISTIC_TRIES:
                break
    if first is not None:  # every database that tells them apart needs an assumption: the first one's
        return {**out, "schema_verdict": DIFFERS, "ts_databases": told, **first}
    if told:
        out.update(schema_verdict=AGREES, ts_databases=told)
    else:
        out.update(
            schema_verdict=GOLD_FAILS,
            ts_databases=0,
            refutation_detail=f"the gold fails on every database of the schema: {_line(gold_error)}",
        )
    return out


def schema_proof(
    gold_sql: str,
    pred_sql: str,
    schema: Schema | None,
    databases: Sequence[Path],
    row: dict[str, Any],
    *,
    mode: str,
    bound: int | None,
    timeout: float | None,
    exec_timeout: float,
    max_rows: int,
    neighbour_cache: str | None,
) -> dict[str, Any]:
    """`equivalence` of a pair the generated databases could not tell apart, from the declared schema
    alone (no data, so nothing mined): `verified` holds on every database the schema allows up to the
    bound; a refutation's database becomes the row's witness, held against the schema's promises."""
    from sqltriage.core.verdicts.testsuite.from_schema import schema_database, trusted_primary_keys
    from sqltriage.core.verdicts.verify import DEFAULT_BOUND, DEFAULT_TIMEOUT, check_pair
    from sqltriage.core.verdicts.verify.columns import witness_root

    if schema is None or not databases or row.get("schema_verdict") != AGREES:
        return {}
    key = ("proof", gold_sql, pred_sql, str(databases[0]), mode, bound, timeout)
    if key not in _ROWS:
        # the empty database of the schema: the solver mines nothing from rows (a generated database's
        # columns never NULL, or tables never empty, say nothing of what the schema allows)
        empty = schema_database(schema, Path(neighbour_cache) if neighbour_cache else None)
        verdict = check_pair(
            gold_sql,
            pred_sql,
            empty,
            mode=mode,
            bound=bound or DEFAULT_BOUND,
            timeout=timeout or DEFAULT_TIMEOUT,
            extra_foreign_keys=schema.foreign_keys,
            extra_primary_keys=trusted_primary_keys(schema),
            witness_root=witness_root(neighbour_cache),
            exec_timeout=exec_timeout,
            declared_only=True,
        )
        out: dict[str, Any] = verdict.columns()
        if verdict.status == "refuted" and verdict.witness is not None:
            out.update(
                schema_verdict=DIFFERS,
                ts_witness=str(verdict.witness),
                ts_witness_rows=verdict.witness_rows,
                **_held_against_schema(
                    verdict.witness, databases[0], gold_sql, pred_sql, schema, mode, exec_timeout, max_rows
                ),
            )
        _ROWS[key] = out
        if len(_ROWS) > _MEMO_SIZE:
            _ROWS.popitem(last=False)
    _ROWS.move_to_end(key)
    return dict(_ROWS[key])


def _gold_on(db: Path, gold_text: str, timeout: float, max_rows: int) -> ExecResult:
    """The gold's result on a generated database, run once per process for every model's row."""
    from sqltriage.core.verdicts.execution import execute

    key = (str(db), gold_text, timeout, max_rows)
    if key not in _GOLDS:
        _GOLDS[key] = execute(db, gold_text, timeout=timeout, max_rows=max_rows)
        if len(_GOLDS) > _MEMO_SIZE:
            _GOLDS.popitem(last=False)
    _GOLDS.move_to_end(key)
    return _GOLDS[key]


_MEMO_SIZE = 256
_GOLDS: OrderedDict[tuple, ExecResult] = OrderedDict()
_ROWS: OrderedDict[tuple, dict[str, Any]] = OrderedDict()


def _refutation(
    db: Path, gold_sql: str, pred_sql: str, schema: Schema, mode: str, timeout: float, max_rows: int
) -> dict[str, Any]:
    """The generated database shrunk to a witness, and what the witness needs beyond the schema's promises."""
    from sqltriage.core.verdicts.testsuite.witness import minimal_witness

    witness = minimal_witness(
        db,
        gold_sql,
        pred_sql,
        mode=mode,
        timeout=timeout,
        max_rows=max_rows,
        extra_foreign_keys=schema.foreign_keys,
        pred_ok=True,
    )
    return {
        "ts_witness": str(witness.path),
        "ts_witness_rows": witness.rows,
        **_held_against_schema(witness.path, db, gold_sql, pred_sql, schema, mode, timeout, max_rows),
    }


def _held_against_schema(
    witness: Path,
    db: Path,
    gold_sql: str,
    pred_sql: str,
    schema: Schema,
    mode: str,
    timeout: float,
    max_rows: int,
) -> dict[str, Any]:
    """What a witness needs beyond the schema's promises; its repairs may write the values and rows of
    `db`, the generated database it comes from (the schema leaves values free)."""
    from sqltriage.core.verdicts.judgement.assumption import classify
    from sqltriage.core.verdicts.judgement.regularities import schema_regularities, with_stand_ins

    found = classify(
        witness,
        None,
        gold_sql,
        pred_sql,
        mode=mode,
        timeout=timeout,
        max_rows=max_rows,
        regs=with_stand_ins(schema_regularities(schema), db),
    )
    if found is None:
        return {}
    detail = found.detail.replace("a realistic database", "a database the schema allows")
    return {
        "refutation_assumption": found.kind,
        "refutation_detail": f"{detail} (generated from the schema, not from data)",
        "fragile_side": found.fragile or None,
        "difference": found.difference,
        "refutation_witness": str(found.world) if found.world is not None else None,
    }


def values_match(gold: ParsedQuery | None, pred: ParsedQuery | None) -> int | None:
    """1 when both queries name the same literal values (exact-set match ignores them: `'Hickman'` and
    `'Handford'` match), 0 when not, None when either does not parse. Read off the parses the pipeline
    already holds, once per parse."""
    if gold is None or pred is None or not (gold.ok and pred.ok):
        return None
    return int(_literals(gold) == _literals(pred))


def _literals(parsed: ParsedQuery) -> list[str]:
    from sqlglot import exp

    # as written: SQLite's `=` tells 'Dog' from 'dog'; a number as its value ('3' and '3.0' alike)
    return parsed.derived(
        "literals", lambda: sorted(_literal(lit) for lit in parsed.tree.find_all(exp.Literal))
    )


def _literal(lit: Any) -> str:
    if lit.is_string:
        return f"s:{lit.this}"
    try:
        return f"n:{float(lit.this)!r}"
    except ValueError:
        return f"n:{lit.this}"


def _line(text: str | None) -> str:
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return line if len(line) <= 120 else line[:117] + "…"
