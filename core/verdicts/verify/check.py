"""Bounded equivalence of a gold and a predicted query: `verified`, `refuted` (with a database) or `unknown`.

The question put to z3: is there a database of at most `bound` rows per table, keeping the schema's
constraints (tables.py), and a choice of what SQLite leaves unspecified (encode.py), on which the two
results differ in the row's EX mode? Unsatisfiable → `verified` up to the bound. Satisfiable → the model is
written out as a SQLite file and both queries are run on it with plain sqlite3 through the read-only
sandbox: only if the EX comparison there says they differ is the pair `refuted`; else `unknown`. A budget
counted in z3's resource units and encoding steps bounds every pair (budget.py): the same pair gets the
same verdict on a quiet machine and a loaded one, in any process, after any other pair.
"""

from __future__ import annotations

import functools
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqltriage.core.verdicts.exec_compare import order_matters
from sqltriage.core.verdicts.verify.budget import TOO_SLOW, Allowance, Budget, unlimited
from sqltriage.core.verdicts.verify.canonical import column_names, same_query
from sqltriage.core.verdicts.verify.practice import NONE, Practice, declared_practice, practice_of
from sqltriage.core.verdicts.verify.solve import solve

# What a verdict depends on beyond the bound, the time limit and z3's version: a stored verdict of an
# earlier encoding is solved again (2: the keys kept in practice, practice.py; 3: the same rows sorted alike
# asked first, pairs differing only in inner-join order, a gold's refutations reused, the bound raised for
# counts and cuts; 4: the SMT core without relevancy, which answers some pairs that timed out before, and
# the ties of a sort of the same rows asked once per gold; 5: budgets in z3's resource units and encoding
# steps, each question in a context of its own; 6: DATE columns as ISO dates and text's affinity in
# comparisons, which turns some `unknown` into verdicts and some comparisons of a DATE or a function's text
# with a number from `verified` into `refuted`, STRFTIME, DATE, SUBSTR, ROUND, CTEs and the rest encoded,
# and a proof of a pair whose ROUNDs differ never `verified`).
ENCODING_VERSION = 6
DEFAULT_BOUND = 2  # rows per table, raised for the counts and cuts that need more (docs/verification.md: why)
RAISED_BOUND_MAX = 4  # the most rows per table a pair's counts and cuts raise the bound to
DEFAULT_TIMEOUT = 0.5  # seconds per pair, as a budget of work (budget.py; docs/verification.md: why)
MODES = ("spider", "bird")
FALLBACK_BOUND = 2  # rows per table tried when the full bound times out
FULL_BOUND_SHARE = 0.8  # of the budget, for a raised bound (0.4 s of 0.5); the rest for 2 rows
BAGS_SHARE = 0.5  # of the budget, for the bag question asked first of a pair that sorts alike
# Of the budget, for the gold's own ties once the bags are the same (verified, or ties): a fixed share, as its
# answer is kept for the gold's other predictions and must not depend on what the first one spent.
ORDERED_AFTER_BAGS = 0.5
TIES_NOTE = "ties among ORDER BY keys may fall differently"  # the note of a `verified` up to tie order


@dataclass(frozen=True, slots=True)
class Verdict:
    status: str  # "verified" | "refuted" | "unknown"
    bound: int
    note: str | None = None  # the construct outside the fragment, "timeout", or why a refutation failed
    witness: Path | None = None  # the counterexample database of a refutation
    witness_rows: int | None = None
    seconds: float = 0.0
    witness_tables: frozenset[str] = frozenset()  # the tables the witness's rows were solved for (lower case)

    def columns(self) -> dict[str, Any]:
        return {"equivalence": self.status, "equivalence_bound": self.bound, "equivalence_note": self.note}


def solver_version() -> str | None:
    try:
        import z3
    except ImportError:
        return None
    return z3.get_version_string()


def check_pair(
    gold_sql: str,
    pred_sql: str,
    db_path: Path,
    *,
    mode: str = "spider",
    bound: int = DEFAULT_BOUND,
    timeout: float = DEFAULT_TIMEOUT,
    extra_foreign_keys: tuple = (),
    witness_root: Path | None = None,
    exec_timeout: float = 10.0,
    golds: Sequence[str] = (),
    extra_primary_keys: tuple = (),
    declared_only: bool = False,
) -> Verdict:
    """Never raises for a pair: whatever cannot be decided is `unknown` with its reason.

    `golds`: the database's gold queries, from which the neighbours mine what the data keeps in practice
    (practice.py); the pair's own gold when not given, as `diff --neighbours` builds its neighbours.
    `declared_only`: `db_path` is a database generated from the schema, whose rows say nothing of real
    data: only the declared keys hold, and a verdict covers every database the schema allows."""
    start = time.monotonic()
    try:
        practice = (
            declared_practice(tuple(extra_primary_keys))
            if declared_only
            else _practice(db_path, tuple(golds) or (gold_sql,), extra_foreign_keys, extra_primary_keys)
        )
        return _check_pair(
            gold_sql,
            pred_sql,
            db_path,
            mode,
            bound,
            timeout,
            (tuple(extra_foreign_keys), practice),
            witness_root,
            exec_timeout,
        )
    except Exception as exc:  # advisory like the suggestions: a pair the checker trips on never stops a run
        note = f"not checked: {type(exc).__name__}: {str(exc).splitlines()[0][:120] if str(exc) else ''}"
        return Verdict("unknown", bound, note, seconds=time.monotonic() - start)


def _practice(db_path: Path, golds: tuple, extra_fks: tuple, extra_pks: tuple) -> Practice:
    try:
        return practice_of(Path(db_path), golds, tuple(extra_fks), tuple(extra_pks))
    except Exception:  # an unreadable database is reported by the solver's own reading
        return NONE


def _check_pair(
    gold_sql: str,
    pred_sql: str,
    db_path: Path,
    mode: str,
    bound: int,
    timeout: float,
    keys: tuple,
    witness_root: Path | None,
    exec_timeout: float,
) -> Verdict:
    start = time.monotonic()
    bound = _bound_for(gold_sql, pred_sql, mode, bound)
    full = bound
    budget = Budget.for_seconds(timeout)

    def done(
        status: str,
        note: str | None = None,
        witness: Path | None = None,
        rows: int | None = None,
        tables: frozenset[str] = frozenset(),
    ) -> Verdict:
        if status == "unknown" and budget.too_slow:
            note = TOO_SLOW  # whichever question the safety net stopped, the row says why
        if status == "verified" and bound < full:
            # Proved only on smaller databases: a difference may need the rows the full bound allows (a
            # HAVING count(*) >= 3 is never true on 2 rows, so both sides are empty there). Not `verified`.
            status, note = "unknown", f"timeout at {full} rows per table (the same up to {bound})"
            return Verdict(status, full, note, None, None, time.monotonic() - start)
        return Verdict(status, bound, note, witness, rows, time.monotonic() - start, tables)

    if solver_version() is None:
        return done("unknown", "the solver is not installed (pip install 'sqltriage[verify]')")
    if mode not in MODES:
        return done("unknown", f"EX mode {mode} is not encoded")
    from sqltriage.core.verdicts.verify.counterexample import confirm

    def confirmed_by_sqlite(tables: Any) -> Any:
        return confirm(tables, gold_sql, pred_sql, db_path, mode, witness_root, exec_timeout, keys)

    sorted_alike: bool | None = None  # the same rows reach the same sort (sorted_rows.py), when asked
    if mode == "spider" and order_matters(gold_sql):
        # A pair that sorts alike is asked the bag question first: cheaper than the ordered one, and when it
        # holds the two allow the same answers, so the ordered question only tells how ties may fall.
        sorted_alike = _same_rows_sorted_alike(
            gold_sql, pred_sql, db_path, mode, bound, budget.part(BAGS_SHARE), keys
        )
        if sorted_alike:
            if same_query(gold_sql, pred_sql, mode, column_names(db_path, keys[0])):
                return done("verified")  # one plan: ties fall alike too
            # The same rows reaching the same sort allow the same answers, so whether they can differ is a
            # question of the gold alone (can its result hold two different rows tied on its keys?), asked
            # once for all the predictions that sort alike: unsatisfiable → `verified`.
            fixed = budget.part(ORDERED_AFTER_BAGS, fixed=True)
            own, tables = _own_ties(gold_sql, db_path, mode, bound, fixed, keys)
            if own == "verified":
                return done("verified")
            if own == "sat" and _cuts(gold_sql):
                # A cut through tied rows: a database where SQLite keeps other rows for each refutes.
                confirmed = confirmed_by_sqlite(tables)
                if confirmed.path is not None:
                    return done("refuted", None, confirmed.path, confirmed.rows, confirmed.tables)
            return done("verified", TIES_NOTE)
    # The full bound gets most of the time; when it runs out, a smaller bound (down to 2 rows per table)
    # gets the rest: a refutation there stands (with its smaller database); a proof does not.
    bounds = [bound, FALLBACK_BOUND] if bound > FALLBACK_BOUND else [bound]
    for i, n in enumerate(bounds):
        last = i == len(bounds) - 1
        allowance = budget.rest() if last else budget.part(FULL_BOUND_SHARE)
        try:
            found = solve(gold_sql, pred_sql, db_path, mode, n, allowance, keys)
        except RecursionError:
            return done("unknown", "query too deep to encode")
        except MemoryError:
            return done("unknown", "encoding too large")
        if last or found[:2] != ("unknown", "timeout"):
            break
    bound = n
    status, payload, untied, beyond_ties = found
    if status == "bounded":  # proved, but on databases too small to tell
        return done("verified") if bound < full else done("unknown", payload)
    if status != "sat":
        return done(status, payload)
    if beyond_ties is not None:
        # They may differ only in how ties under the outer ORDER BY fall, which SQL leaves open for both:
        # the same rows reaching the same sort (sorted_rows.py: a bag question, cheaper), or unsatisfiable
        # here, mean the same rows in the same blocks of tied positions on every database.
        if sorted_alike is None and _same_rows_sorted_alike(
            gold_sql, pred_sql, db_path, mode, bound, budget.rest(), keys
        ):
            return done("verified", TIES_NOTE)
        status, found_beyond = beyond_ties(budget.rest())
        if status == "bounded":
            return done("unknown", found_beyond)
        if status == "verified":
            return done("verified", TIES_NOTE)
        if status == "sat":
            payload = found_beyond  # a database where they differ in more than tie order
    confirmed = confirmed_by_sqlite(payload)
    if confirmed.path is None and untied is not None:
        # The difference may rest on how ties under ORDER BY (or a free choice) fall, which SQLite settles
        # the same way for both. The same rows reaching the same sort allow the same answers (sorted_rows.py);
        # else ask again for a database without ties.
        if sorted_alike is None and _same_rows_sorted_alike(
            gold_sql, pred_sql, db_path, mode, bound, budget.rest(), keys
        ):
            return done("verified", TIES_NOTE)
        status, payload = untied(budget.rest())
        if status == "bounded":
            return done("unknown", payload)
        if status == "verified":
            return done("unknown", "they differ only where ORDER BY keys tie")
        if status != "sat":
            return done(
                "unknown", confirmed.note if status == "unknown" and payload != "timeout" else payload
            )
        confirmed = confirmed_by_sqlite(payload)
    if confirmed.path is None:
        return done("unknown", confirmed.note)
    return done("refuted", None, confirmed.path, confirmed.rows, confirmed.tables)


def _bound_for(gold_sql: str, pred_sql: str, mode: str, bound: int) -> int:
    """`bound`, raised to what the pair's counts and cuts need to be told apart (bound_reach.py) when that
    is at most RAISED_BOUND_MAX rows per table: `HAVING count(*) > 2` is solved on 3 rows per table, not left
    `unknown` at 2. Beyond that the pair stays at `bound`, where the proof is `unknown` with its reason."""
    need = max(_rows_needed(gold_sql, mode), _rows_needed(pred_sql, mode))
    return need if bound < need <= max(bound, RAISED_BOUND_MAX) else bound


@functools.lru_cache(maxsize=4096)
def _read_only_tree(sql: str, mode: str) -> Any:
    """The text's sqlglot tree, shared by the readers below (none of them changes it), or None when sqlglot
    cannot read it. Per text: a gold is met once per model, and a prediction by several of them."""
    import sqlglot

    from sqltriage.core.verdicts.exec_compare import spider_sql

    try:
        return sqlglot.parse_one(spider_sql(sql) if mode == "spider" else sql, read="sqlite")
    except Exception:  # unreadable: each reader says what that means for it
        return None


def _rows_needed(sql: str, mode: str) -> int:
    from sqltriage.core.verdicts.verify.bound_reach import bound_needed

    tree = _read_only_tree(sql, mode)
    try:
        return 1 if tree is None else bound_needed([tree])
    except Exception:  # unreadable here: the solver's own parse reports it
        return 1


def tables_read(sql: str, mode: str) -> frozenset[str]:
    """The tables the query reads (lower case), subqueries included; empty when sqlglot cannot read it."""
    from sqlglot import exp

    tree = _read_only_tree(sql, mode)
    if tree is None:
        return frozenset()
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    names = frozenset(t.name.lower() for t in tree.find_all(exp.Table))
    return frozenset() if ctes & names or not names else names


def _cuts(gold_sql: str) -> bool:
    """Whether the gold's outermost query has a LIMIT or OFFSET (unreadable: taken as cut, the stricter)."""
    tree = _read_only_tree(gold_sql, "spider")
    return tree is None or bool(tree.args.get("limit") or tree.args.get("offset"))


def _own_ties(
    gold_sql: str, db_path: Path, mode: str, bound: int, allowance: Allowance, keys: tuple
) -> tuple[str, Any]:
    """The gold against itself, each side free in how its ties fall: `verified` when no two different rows
    of its result can tie on its ORDER BY keys; else `sat` with a database where they do (the rows of each
    table), or `unknown`. Kept per gold: its units are a fixed share, so a prediction after the first gets
    the answer it would have got first (but for the safety net's: another pair may be spared it)."""
    key = (gold_sql, str(db_path), mode, bound, keys)
    if key in _OWN_TIES:
        return _OWN_TIES[key]
    try:
        found = solve(gold_sql, gold_sql, db_path, mode, bound, allowance, keys, itself=True)
    except (RecursionError, MemoryError):
        return "unknown", None
    out = (found[0], found[1] if found[0] == "sat" else None)
    if out[0] != "unknown" or found[1] == "timeout":  # decided, or out of its fixed units: the same next time
        _OWN_TIES[key] = out
        while len(_OWN_TIES) > _OWN_TIES_SIZE:
            _OWN_TIES.popitem(last=False)
    return out


_OWN_TIES: OrderedDict[tuple, tuple[str, Any]] = OrderedDict()
_OWN_TIES_SIZE = 1024


def _same_rows_sorted_alike(
    gold_sql: str, pred_sql: str, db_path: Path, mode: str, bound: int, allowance: Allowance, keys: tuple
) -> bool:
    from sqltriage.core.verdicts.verify.sorted_rows import sorted_rows_pair

    derived = sorted_rows_pair(gold_sql, pred_sql, mode, column_names(db_path, keys[0]))
    if derived is None:
        return False
    if _join_order_alike(*derived, db_path, mode, keys):
        return True  # the same rows on any database, but for the order of inner joins: no solving
    return solve(*derived, db_path, mode, bound, allowance, keys)[0] == "verified"


def _join_order_alike(gold_sql: str, pred_sql: str, db_path: Path, mode: str, keys: tuple) -> bool:
    from sqltriage.core.verdicts.verify.join_order import same_up_to_join_order
    from sqltriage.core.verdicts.verify.tables import db_info

    try:
        tables = db_info(Path(db_path), tuple(keys[0]), keys[1] or NONE)
    except Exception:  # unreadable here: the solver's own reading reports it
        return False
    return same_up_to_join_order(gold_sql, pred_sql, mode, tables)


def outside_fragment(
    gold_sql: str, pred_sql: str, db_path: Path, *, mode: str = "spider", bound: int = DEFAULT_BOUND
) -> str | None:
    """Why the pair cannot be encoded (the construct), or None when both queries are in the fragment."""
    keys = ((), _practice(db_path, (gold_sql,), (), ()))
    found = solve(gold_sql, pred_sql, db_path, mode, bound, unlimited(), keys, prove=False)
    return found[1] if found[0] == "unknown" else None
