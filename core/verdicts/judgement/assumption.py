"""`refutation_assumption`: what a refuting witness needs that the original data never shows.

Decided from the witness and the original database, never from the SQL text alone: the witness's breaches
of the data's regularities (breaches.py) in what the two queries read, each repaired in turn on a private
copy (repair.py). A breach whose repair makes the two queries agree again is needed; a tie at an ORDER BY …
LIMIT cut of either query on the witness is needed (nothing repairs a tie but inventing rows); an empty
table is needed when nothing else explains the difference. When the witness breaks nothing, or still
refutes with every breach repaired, the refutation needs nothing: `none`, a realistic database.

The vocabulary (docs/judgement.md): none, tie, duplicate, dangling, null, empty, domain.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from sqltriage.core.verdicts.judgement.breaches import KINDS, Breach, breaches, q, witness_columns
from sqltriage.core.verdicts.judgement.reads import Reads, merge, reads_of
from sqltriage.core.verdicts.judgement.regularities import Regularities, regularities
from sqltriage.core.verdicts.judgement.repair import TRIES, Hints, copy_of, repair, with_parents

NONE = "none"


@dataclass(frozen=True, slots=True)
class Assumption:
    kind: str  # NONE or one of breaches.KINDS: the most telling needed one
    kinds: tuple[str, ...]  # every needed kind, in KINDS order
    detail: str  # one line a person reads
    fragile: str  # "gold", "prediction", "both" or "": which query the assumption breaks
    repaired: bool = False  # `none` reached by repairing the witness's breaches: the repaired copy refutes
    difference: str | None = None  # `none`: a difference on the witness a reader may forgive (difference.py)
    world: Path | None = None  # `none` reached by repair: the repaired copy, written beside the witness


def classify(
    witness: Path,
    original: Path | None,
    gold_sql: str,
    pred_sql: str,
    *,
    mode: str = "spider",
    timeout: float = 5.0,
    max_rows: int = 10_000,
    regs: Regularities | None = None,
) -> Assumption | None:
    """The assumption of a refutation; None when the witness cannot be read or no longer refutes. `regs`:
    the regularities to hold it against where there is no original (`schema_regularities`)."""
    from sqltriage.core.verdicts.testsuite.shrink import Differ

    try:
        source = sqlite3.connect(f"file:{quote(str(Path(witness).resolve()))}?mode=ro", uri=True)
        try:
            conn = copy_of(source)
        finally:
            source.close()
        regs = regs if regs is not None else regularities(original) if original is not None else None
    except (OSError, sqlite3.Error):
        return None
    if regs is None:  # nothing to hold the witness against
        conn.close()
        return None
    try:
        differs = Differ(gold_sql, pred_sql, mode, timeout=timeout, max_rows=max_rows, pred_may_fail=True)
        if not differs(conn):
            return None
        columns = {low: {c.lower() for c in cols} for low, (_n, cols) in witness_columns(conn).items()}
        gold_reads, pred_reads = reads_of(gold_sql, columns), reads_of(pred_sql, columns)
        found = breaches(conn, regs, merge(gold_reads, pred_reads))
        tie = _tie_only(differs, (gold_sql, pred_sql), timeout, max_rows)
        read = merge(gold_reads, pred_reads)
        hints = _hints(conn, read)
        known = {_key(b) for b in found}

        def differs_kept(trial: sqlite3.Connection) -> bool:
            """Still different, and the repair broke no promise the witness kept (a NULL given a value
            that refers to nothing is no realistic world)."""
            return differs(trial) and all(_key(b) in known for b in breaches(trial, regs, read))

        needed = _needed(conn, found, differs_kept, tie, regs, hints)
        tied = tie(conn)
        # A difference that is only the tie's is the tie's, whatever else the witness needed to make it.
        kinds = tuple(k for k in KINDS if k in needed or (k == "tie" and tied))
        if not kinds:
            from sqltriage.core.verdicts.judgement.difference import forgivable

            # read off the realistic world: the witness with its breaches repaired, where they were
            world = _repaired(conn, found, differs_kept, regs, hints) if found else None
            forgiven = forgivable(*differs.results(world or conn))
            detail = _realistic(world or conn, bool(found))
            kept_at = None
            if world is not None:
                kept_at = _keep_world(world, Path(witness))
                world.close()
            return Assumption(NONE, (), detail, "", bool(found), forgiven, kept_at)
        kind = kinds[0]
        from sqltriage.core.verdicts.judgement.sides import fragile_side

        side = fragile_side(kind, needed.get(kind), tied, gold_reads, pred_reads, differs, conn)
        return Assumption(kind, kinds, _detail(kind, needed.get(kind), gold_reads.literals), side)
    except sqlite3.Error:
        return None
    finally:
        conn.close()


def _needed(
    conn: sqlite3.Connection, found: list[Breach], differs, tie: Callable, regs, hints: Hints
) -> dict[str, Breach]:
    """kind → a breach of that kind whose repair alone leaves no realistic difference (the queries agree,
    or differ only by the rows tied at a cut); with none such, every breach when repairing them all does
    (they are needed together)."""
    out: dict[str, Breach] = {}
    for kind in KINDS:
        of_kind = [b for b in found if b.kind == kind]
        alone = next(
            (
                b
                for b in of_kind
                if not _still_realistic(conn, with_parents(b, found, regs), differs, tie, regs, hints)
            ),
            None,
        )
        if alone is not None:
            out[kind] = alone
        elif len(of_kind) > 1 and not _still_realistic(conn, of_kind, differs, tie, regs, hints):
            out[kind] = of_kind[0]
    if not out and found and not _still_realistic(conn, found, differs, tie, regs, hints):
        out.update({b.kind: b for b in reversed(found)})
    return out


def _still_realistic(
    conn: sqlite3.Connection, fix: list[Breach], differs, tie: Callable, regs, hints: Hints
) -> bool:
    """Some repair of `fix` (one of the few values tried for each) leaves a difference beyond ties."""
    for attempt in range(TRIES):
        trial = copy_of(conn)
        try:
            if repair(trial, fix, regs, attempt, hints) and differs(trial) and not tie(trial):
                return True
        finally:
            trial.close()
    return False


def _repaired(
    conn: sqlite3.Connection, found: list[Breach], differs, regs, hints: Hints
) -> sqlite3.Connection | None:
    """A copy of the witness with every breach repaired, when the two queries still differ on it."""
    for attempt in range(TRIES):
        trial = copy_of(conn)
        if repair(trial, found, regs, attempt, hints) and differs(trial):
            return trial
        trial.close()
    return None


def _keep_world(world: sqlite3.Connection, witness: Path) -> Path | None:
    """The repaired witness as a file beside the witness (the cache folder), named by its content: the
    realistic database a person opens to see the difference, the one the judgement rests on."""
    import hashlib
    import os
    import tempfile

    digest = hashlib.sha256("\n".join(world.iterdump()).encode("utf-8", "replace")).hexdigest()[:16]
    path = witness.with_name(f"{witness.stem}-realistic-{digest}.sqlite")
    if path.exists():
        return path
    try:
        fd, tmp = tempfile.mkstemp(dir=witness.parent, suffix=".tmp")
        os.close(fd)
        target = sqlite3.connect(tmp)
        try:
            world.backup(target)
        finally:
            target.close()
        os.replace(tmp, path)  # whole or not at all, whichever process writes it first
    except (OSError, sqlite3.Error):
        return None
    return path


def _key(b: Breach) -> tuple[str, str, str]:
    return (b.kind, b.table.lower(), b.column.lower())


def _hints(conn: sqlite3.Connection, reads: Reads) -> Hints:
    """Per column, the values the witness holds in the columns the queries equate or match it with (a join,
    an `IN (SELECT …)`): the values a repaired NULL or duplicate may take and still mean something there."""
    out: Hints = {}
    pairs = reads.equated | reads.matched
    for a, b in pairs | {(b, a) for a, b in pairs}:
        sql = f"SELECT DISTINCT {q(b[1])} FROM {q(b[0])} WHERE {q(b[1])} IS NOT NULL ORDER BY 1"
        try:
            values = [r[0] for r in conn.execute(sql)]
        except sqlite3.Error:
            continue
        known = out.setdefault(a, [])
        known.extend(v for v in values if v not in known)
    return out


def _tie_only(differs, sqls: tuple[str, str], timeout: float, max_rows: int) -> Callable:
    """A test of a database: do the two queries differ only by which rows tied at a cut they keep? It
    names the side that cuts (a dict side → True); empty when not."""
    from sqltriage.core.verdicts.execution import execute_on
    from sqltriage.core.verdicts.gold_audit import cut_rows

    def test(conn: sqlite3.Connection) -> dict[str, bool]:
        def run(sql: str):
            return execute_on(conn, sql, timeout=timeout, max_rows=max_rows)

        gold, pred = differs.results(conn)
        if not (gold.ok and pred.ok):
            return {}
        out: dict[str, bool] = {}
        for side, sql, other in (("gold", sqls[0], pred), ("prediction", sqls[1], gold)):
            cut = cut_rows(sql, run)
            if cut is not None and other.rows and {_row(r) for r in other.rows} <= {_row(r) for r in cut[0]}:
                out[side] = True
        return out

    return test


def _row(row: tuple) -> tuple:
    """A row as a bag of values: Spider's comparison lets columns come in another order."""
    return tuple(sorted(map(repr, row)))


def _realistic(conn: sqlite3.Connection, repaired: bool) -> str:
    rows = sum(conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in _tables(conn))
    how = " once its values are brought within the data's" if repaired else ""
    return f"they differ on a realistic database of {rows} rows{how}"


def _tables(conn: sqlite3.Connection) -> list[str]:
    return [n for n, _c in witness_columns(conn).values()]


# The wording of a duplicate the gold itself names: the question asks about one thing called so (the judgement
# without a database reads it, decide.py).
NAMED_BY_GOLD = "the value the gold names"


def _detail(kind: str, breach: Breach | None, named: set[object] | frozenset[object] = frozenset()) -> str:
    if kind == "tie":
        return "they differ only by which rows tied at the ORDER BY … LIMIT cut are kept"
    assert breach is not None
    where = f"{breach.table}.{breach.column}"
    if kind == "duplicate" and breach.value in named and isinstance(breach.value, str):
        return (
            f"they differ only if two {breach.table} rows share a {breach.column}, {NAMED_BY_GOLD} "
            f"({breach.value!r})"
        )
    if kind == "duplicate":
        return f"they differ only if two {breach.table} rows share a {breach.column} ({breach.value!r})"
    if kind == "dangling":
        parent = f"{breach.parent[0]}.{breach.parent[1]}" if breach.parent else "its partner"
        return f"they differ only if a {where} has no match in {parent} ({breach.value!r})"
    if kind == "null":
        return f"they differ only if {where} is NULL, which it never is in the data where the queries look"
    if kind == "empty" and breach.column and breach.parent:
        return (
            f"they differ only if a {breach.table} row has no {breach.parent[0]} ({breach.value!r}),"
            " which the data never shows"
        )
    if kind == "empty":
        return f"they differ only if {breach.table} is empty"
    return f"they differ only if {where} holds {breach.value!r}, outside the values the data holds"


def summary_kind(value: Assumption | None) -> str | None:
    return None if value is None else value.kind


__all__ = ["NAMED_BY_GOLD", "NONE", "Assumption", "Reads", "classify", "summary_kind"]
