"""`equivalence`, `equivalence_bound`, `equivalence_note` of one row, and what a refutation does to `ex_ts`.

Only EX passes are checked (a fail is already refuted by the original database), and not those a neighbour
refuted (`ex_ts` = 0 with its witness): they are `refuted` with that witness, no solving. A refutation's database is
shown as a neighbour witness is: it fills `ts_witness` / `ts_witness_rows` when no neighbour refuted the
row, and a row every neighbour passed (`ex_ts` = 1) gets `ex_ts` = 0. Models often predict the same text, or
the same query spelled differently: a verdict is kept for the same (gold, prediction or its canonical form,
database, bound, timeout, mode); a reused refutation's database is re-run on the prediction. The latest
refutations of a gold are tried, the same way, on its other predictions before they are solved, and the
database's latest on a pair the solver left `unknown`. All of it is kept within one chunk of the run only
(`forget_reuse`), where pairs come in a fixed order: a row's verdict never depends on how chunks fell."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqltriage.core.verdicts.testsuite.constraints import ExtraForeignKeys

KEYS = ("equivalence", "equivalence_bound", "equivalence_note")
EVERY_NEIGHBOUR_PASSED = "every neighbour passed"  # the note of a refutation that set ex_ts to 0
BY_A_NEIGHBOUR = "refuted by a neighbour, not solved"  # the note of a refutation the neighbours made first
_MEMO_SIZE = 4096
_memo: OrderedDict[tuple, Any] = OrderedDict()
# The latest refutations of each (gold, database, mode), tried on its other predictions before solving.
_witnesses: OrderedDict[tuple, list[Any]] = OrderedDict()
_WITNESSES_PER_GOLD = 4
_WITNESSES_PER_DB = 8  # the database's latest, whatever their gold: tried on a pair left unknown
ANY_GOLD = "\0any gold"  # the key of a database's latest refutations, whatever their gold


def _alike_key(
    gold_sql: str, pred_sql: str, db_path: Path, fks: tuple, bound: int, timeout: float, mode: str
) -> tuple | None:
    """The memo's key for every prediction that is the same query written differently (case, spacing,
    aliases: check.same_query): SQLite plans them alike, so one verdict holds for all of them. Models often
    predict one query in several spellings."""
    from sqltriage.core.verdicts.verify.canonical import canonical, column_names

    same = canonical(pred_sql, mode, column_names(db_path, fks))
    return None if same is None else (gold_sql, "\0alike", same, str(db_path), bound, timeout, mode)


def _still_separates(verdict: Any, gold_sql: str, pred_sql: str, mode: str) -> bool:
    from sqltriage.core.verdicts.verify.counterexample import separates

    return verdict.witness is not None and separates(verdict.witness, gold_sql, pred_sql, mode)


def _refuted_by_an_earlier_witness(
    gold_sql: str, pred_sql: str, db_path: str, mode: str, *, other_golds: bool = False
) -> Any:
    """A refutation whose database also separates this pair (re-run in SQLite, as any counterexample is
    confirmed). Of this gold's other predictions, tried before solving: wrong predictions of one question
    are often wrong the same way, and two runs on a database of a few rows cost far less than solving. With
    `other_golds`, those of the database's other golds where the solver filled every table this pair reads,
    tried on a pair the solver left `unknown` (before solving they cost the pairs it verifies more than
    they save)."""
    key = (ANY_GOLD if other_golds else gold_sql, db_path, mode)
    read = _tables_read(gold_sql, pred_sql, mode) if other_golds else frozenset()
    for verdict in _witnesses.get(key, ()):
        # Another pair's database keeps the schema's and the mined constraints only in the tables solved
        # for it; elsewhere it holds no row, or its parents' fillers.
        if other_golds and not (read and read <= verdict.witness_tables):
            continue
        if _still_separates(verdict, gold_sql, pred_sql, mode):
            return verdict
    return None


def _tables_read(gold_sql: str, pred_sql: str, mode: str) -> frozenset[str]:
    """The tables either query reads (lower case); empty when either does not parse."""
    from sqltriage.core.verdicts.verify.check import tables_read

    gold, pred = tables_read(gold_sql, mode), tables_read(pred_sql, mode)
    return gold | pred if gold and pred else frozenset()


def _keep_witness(gold_sql: str, db_path: str, mode: str, verdict: Any) -> None:
    for key, size in (
        ((gold_sql, db_path, mode), _WITNESSES_PER_GOLD),
        ((ANY_GOLD, db_path, mode), _WITNESSES_PER_DB),
    ):
        kept = _witnesses.setdefault(key, [])
        _witnesses.move_to_end(key)
        if verdict not in kept:
            kept.insert(0, verdict)
            del kept[size:]
    while len(_witnesses) > _MEMO_SIZE:
        _witnesses.popitem(last=False)


def forget_reuse() -> None:
    """Forget every verdict and refutation kept for the next pairs. The pipeline calls it at the start of
    each chunk: within a chunk the pairs come in a fixed order (examples, then models), so what is tried
    on a pair, and in which order, is the same in every run, however chunks fall to workers."""
    _memo.clear()
    _witnesses.clear()


def witness_root(neighbour_cache: str | None) -> Path:
    from sqltriage.core.verdicts.testsuite.cache import default_cache_root

    return (Path(neighbour_cache) if neighbour_cache else default_cache_root()) / "witnesses"


def verify_columns(
    gold_sql: str,
    pred_sql: str,
    db_path: Path | None,
    row: dict[str, Any],
    *,
    bound: int,
    timeout: float,
    foreign_keys: ExtraForeignKeys = (),  # beyond the database's own: the dataset schema's (from, to)
    primary_keys: Iterable[tuple[str, str]] = (),  # likewise, (table, column)
    golds: tuple[str, ...] = (),
    neighbour_cache: str | None = None,
    mode: str = "spider",
) -> dict[str, Any]:
    """The columns to add to `row` (whose `ex`, `ex_ts`, `ts_witness` are already set)."""
    from sqltriage.core.verdicts.verify.check import check_pair

    out: dict[str, Any] = dict.fromkeys(KEYS)
    if db_path is None or row.get(f"ex_{mode}") != 1:
        return out
    if mode == "spider" and row.get("ex_ts") == 0 and row.get("ts_witness"):
        # A neighbour database already separates the two (its witness is the row's): the solver could only
        # find another, at 10-100 times a plain evaluation's cost. No bound: the neighbour is any size.
        out.update(equivalence="refuted", equivalence_note=BY_A_NEIGHBOUR)
        return out
    key = (gold_sql, pred_sql, str(db_path), bound, timeout, mode, len(golds), hash(golds))
    verdict = _memo.get(key)
    if verdict is None:
        rescued = None
        fks = tuple(foreign_keys or ())
        alike = _alike_key(gold_sql, pred_sql, db_path, fks, bound, timeout, mode)
        alike = None if alike is None else (*alike, len(golds), hash(golds))
        verdict = _memo.get(alike) if alike is not None else None
        if (
            verdict is not None
            and verdict.status == "refuted"
            and not _still_separates(verdict, gold_sql, pred_sql, mode)
        ):
            verdict = None
        if verdict is None:
            verdict = _refuted_by_an_earlier_witness(gold_sql, pred_sql, str(db_path), mode)
        if verdict is None:
            verdict = check_pair(
                gold_sql,
                pred_sql,
                db_path,
                mode=mode,
                bound=bound,
                timeout=timeout,
                extra_foreign_keys=fks,
                extra_primary_keys=tuple(primary_keys or ()),
                golds=golds,
                witness_root=witness_root(neighbour_cache),
            )
            if verdict.status == "unknown":
                rescued = _refuted_by_an_earlier_witness(
                    gold_sql, pred_sql, str(db_path), mode, other_golds=True
                )
                verdict = verdict if rescued is None else rescued
        for k in (key, alike):
            if k is not None:
                _memo[k] = verdict
        if verdict.status == "refuted" and verdict.witness is not None and rescued is None:
            # Another gold's database is not kept for this gold: it would push out, of the few kept, the
            # ones solved for this gold, which refute its next predictions more often.
            _keep_witness(gold_sql, str(db_path), mode, verdict)
        while len(_memo) > _MEMO_SIZE:
            _memo.popitem(last=False)
    out.update(verdict.columns())
    if verdict.status == "refuted" and verdict.witness is not None:
        if row.get("ts_witness") is None or row.get("ex_ts") == 1:
            out.update(ts_witness=str(verdict.witness), ts_witness_rows=verdict.witness_rows)
        if row.get("ex_ts") == 1:
            out["ex_ts"] = 0
            out["equivalence_note"] = EVERY_NEIGHBOUR_PASSED
    return out
