"""Bounded equivalence of a gold and a predicted query: `verified`, `refuted` (with a database) or `unknown`.

The question put to z3: is there a database of at most `bound` rows per table, keeping the schema's
constraints (tables.py), and a choice of what SQLite leaves unspecified (encode.py), on which the two
results differ in the row's EX mode? Unsatisfiable → `verified` up to the bound. Satisfiable → the model is
written out as a SQLite file and both queries are run on it with plain sqlite3 through the read-only
sandbox: only if the EX comparison there says they differ is the pair `refuted`; else `unknown`. A hard
deadline (z3's own timeout, and a timer that interrupts z3 should it overrun) bounds every pair.
"""

from __future__ import annotations

import functools
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqltriage.core.verdicts.exec_compare import order_matters
from sqltriage.core.verdicts.verify.bound_reach import beyond_bound
from sqltriage.core.verdicts.verify.practice import NONE, Practice, practice_of

# What a verdict depends on beyond the bound, the time limit and z3's version: a stored verdict of an
# earlier encoding is solved again (2: the keys kept in practice, practice.py; 3: the same rows sorted alike
# asked first, pairs differing only in inner-join order, a gold's refutations reused, the bound raised for
# counts and cuts; 4: the SMT core without relevancy, which answers some pairs that timed out before).
ENCODING_VERSION = 4
DEFAULT_BOUND = 2  # rows per table, raised for the counts and cuts that need more (docs/verification.md: why)
RAISED_BOUND_MAX = 4  # the most rows per table a pair's counts and cuts raise the bound to
DEFAULT_TIMEOUT = 1.0  # seconds per pair, encoding and solving together (docs/verification.md: why)
MODES = ("spider", "bird")
FALLBACK_BOUND = 2  # rows per table tried when the full bound times out
FULL_BOUND_SHARE = 0.8  # of the time limit, for a raised bound (0.8 s of 1); the rest for 2 rows
BAGS_SHARE = 0.5  # of the time limit, for the bag question asked first of a pair that sorts alike
ORDERED_AFTER_BAGS = 0.25  # seconds for the ordered question once the bags are the same: verified, or ties
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
) -> Verdict:
    """Never raises for a pair: whatever cannot be decided is `unknown` with its reason.

    `golds`: the database's gold queries, from which the neighbours mine what the data keeps in practice
    (practice.py); the pair's own gold when not given, as `diff --neighbours` builds its neighbours."""
    start = time.monotonic()
    try:
        practice = _practice(db_path, tuple(golds) or (gold_sql,), extra_foreign_keys, extra_primary_keys)
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


def _practice(db_path: Path, golds: tuple, extra_fks: Any, extra_pks: Any) -> Practice:
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

    def done(
        status: str,
        note: str | None = None,
        witness: Path | None = None,
        rows: int | None = None,
        tables: frozenset[str] = frozenset(),
    ) -> Verdict:
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
            gold_sql, pred_sql, db_path, mode, bound, start + timeout * BAGS_SHARE, keys
        )
        if sorted_alike:
            left = min(start + timeout, time.monotonic() + ORDERED_AFTER_BAGS)
            try:
                strict = _solve(gold_sql, pred_sql, db_path, mode, bound, left, keys)
            except (RecursionError, MemoryError):
                strict = ("unknown", "encoding too large", None, None)
            if strict[0] == "verified":
                return done("verified")
            if strict[0] == "sat" and _cuts(gold_sql):
                # A cut through tied rows: a database where SQLite keeps other rows for each refutes.
                confirmed = confirmed_by_sqlite(strict[1])
                if confirmed.path is not None:
                    return done("refuted", None, confirmed.path, confirmed.rows, confirmed.tables)
            return done("verified", TIES_NOTE)
    # The full bound gets most of the time; when it runs out, a smaller bound (down to 2 rows per table)
    # gets the rest: a refutation there stands (with its smaller database); a proof does not.
    bounds = [bound, FALLBACK_BOUND] if bound > FALLBACK_BOUND else [bound]
    for i, n in enumerate(bounds):
        last = i == len(bounds) - 1
        deadline = start + (timeout if last else timeout * FULL_BOUND_SHARE)
        try:
            found = _solve(gold_sql, pred_sql, db_path, mode, n, deadline, keys)
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
            gold_sql, pred_sql, db_path, mode, bound, start + timeout, keys
        ):
            return done("verified", TIES_NOTE)
        status, found_beyond = beyond_ties()
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
            gold_sql, pred_sql, db_path, mode, bound, start + timeout, keys
        ):
            return done("verified", TIES_NOTE)
        status, payload = untied()
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
def _rows_needed(sql: str, mode: str) -> int:
    """Per query text: a gold is met once per model."""
    import sqlglot

    from sqltriage.core.verdicts.exec_compare import spider_sql
    from sqltriage.core.verdicts.verify.bound_reach import bound_needed

    try:
        return bound_needed([sqlglot.parse_one(spider_sql(sql) if mode == "spider" else sql, read="sqlite")])
    except Exception:  # unreadable: the solver's own parse reports it
        return 1


@functools.lru_cache(maxsize=4096)
def tables_read(sql: str, mode: str) -> frozenset[str]:
    """The tables the query reads (lower case), subqueries included; empty when sqlglot cannot read it."""
    import sqlglot

    from sqltriage.core.verdicts.exec_compare import spider_sql

    try:
        tree = sqlglot.parse_one(spider_sql(sql) if mode == "spider" else sql, read="sqlite")
    except Exception:  # unreadable: nothing is known to be read
        return frozenset()
    ctes = {c.alias_or_name.lower() for c in tree.find_all(sqlglot.exp.CTE)}
    names = frozenset(t.name.lower() for t in tree.find_all(sqlglot.exp.Table))
    return frozenset() if ctes & names or not names else names


@functools.lru_cache(maxsize=1024)
def _cuts(gold_sql: str) -> bool:
    """Whether the gold's outermost query has a LIMIT or OFFSET."""
    import sqlglot

    from sqltriage.core.verdicts.exec_compare import spider_sql

    try:
        tree = sqlglot.parse_one(spider_sql(gold_sql), read="sqlite")
    except Exception:  # unreadable: take it as cut, the stricter reading
        return True
    return bool(tree.args.get("limit") or tree.args.get("offset"))


def _same_rows_sorted_alike(
    gold_sql: str, pred_sql: str, db_path: Path, mode: str, bound: int, deadline: float, keys: tuple
) -> bool:
    from sqltriage.core.verdicts.verify.sorted_rows import sorted_rows_pair

    derived = sorted_rows_pair(gold_sql, pred_sql, mode, column_names(db_path, keys[0]))
    if derived is None:
        return False
    if _join_order_alike(*derived, db_path, mode, keys):
        return True  # the same rows on any database, but for the order of inner joins: no solving
    return _solve(*derived, db_path, mode, bound, deadline, keys)[0] == "verified"


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
    found = _solve(gold_sql, pred_sql, db_path, mode, bound, time.monotonic() + 60.0, keys, solve=False)
    return found[1] if found[0] == "unknown" else None


def _solve(
    gold_sql: str,
    pred_sql: str,
    db_path: Path,
    mode: str,
    bound: int,
    deadline: float,
    keys: tuple,
    *,
    solve: bool = True,
) -> tuple[str, Any, Any, Any]:
    """(status, note or model tables, a retry without ORDER BY ties when the encoding has any, else None,
    the question "do they differ beyond how the outer ORDER BY's ties fall" when it applies, else None).
    Status `bounded`: unsatisfiable, but on databases too small to tell (bound_reach.py); the note says why."""
    import sqlglot
    import z3
    from sqlglot.errors import SqlglotError

    from sqltriage.core.verdicts.exec_compare import spider_sql
    from sqltriage.core.verdicts.verify import symbolic
    from sqltriage.core.verdicts.verify.encode import Encoder, Timeout
    from sqltriage.core.verdicts.verify.results import differ, differ_beyond_ties, tie_blind
    from sqltriage.core.verdicts.verify.symbolic import Unsupported
    from sqltriage.core.verdicts.verify.tables import SymDatabase
    from sqltriage.core.verdicts.verify.text_codes import NeedsStrings

    texts = (spider_sql(gold_sql), spider_sql(pred_sql)) if mode == "spider" else (gold_sql, pred_sql)
    if _bare(texts[0]) == _bare(texts[1]):
        return "verified", None, None, None  # the same text: the same plan, the same rows in the same order
    extra_fks, practice = keys
    if solve and same_query(gold_sql, pred_sql, mode, column_names(db_path, extra_fks)):
        return "verified", None, None, None  # the same query but for case, spacing and aliases: the same plan
    try:
        trees = [sqlglot.parse_one(t, read="sqlite") for t in texts]
    except (SqlglotError, ValueError) as exc:
        return "unknown", f"does not parse: {str(exc).splitlines()[0][:120]}", None, None
    ordered = mode == "spider" and order_matters(gold_sql)
    literals = frozenset(
        lit.this if lit.is_string else _number(lit.this)
        for tree in trees
        for lit in tree.find_all(sqlglot.exp.Literal)
    ) | frozenset(
        c.name for tree in trees for c in tree.find_all(sqlglot.exp.Column) if c.this.args.get("quoted")
    )
    # Text as integers in the same order when the pair only compares, sorts and returns text (several
    # times faster to solve than z3's strings); with strings when some construct needs them.
    codes = _text_codes(trees, literals, db_path, keys)
    try:
        while True:
            symbolic.encode_text_as_integers(codes)
            try:
                key = (
                    texts[0],
                    str(db_path),
                    extra_fks,
                    practice,
                    bound,
                    literals,
                    tuple(codes.book) if codes else None,
                )
                if key in _GOLDS:
                    kept, gold = _GOLDS[key]
                    enc = kept.copy(deadline)
                else:
                    enc = Encoder(SymDatabase(db_path, bound, literals, extra_fks, practice), deadline)
                    gold = enc.query(trees[0])
                    _GOLDS[key] = (enc.copy(deadline), gold)
                    while len(_GOLDS) > _GOLDS_SIZE:
                        _GOLDS.popitem(last=False)
                db = enc.db
                pred = enc.query(trees[1])
                goal = differ(enc, gold, pred, mode, ordered)
                break
            except NeedsStrings:
                if codes is None:
                    raise
                codes = None
    except Timeout:
        return "unknown", "timeout", None, None
    except Unsupported as exc:
        return "unknown", str(exc), None, None
    except z3.Z3Exception as exc:
        return "unknown", f"solver error: {exc}", None, None
    except NeedsStrings as exc:  # a text constant the code lacks, with strings as well: not expected
        return "unknown", f"not encoded: {exc}", None, None
    if not solve:
        return "encoded", None, None, None
    # Simplifying and eliminating the equalities first (the symbolic rows are full of them) before the
    # SMT core solves several times faster than z3's default solver on these formulas.
    solver = _solver()
    solver.add(*db.constraints, *enc.facts, goal)
    reach = beyond_bound(trees, bound)

    def proved(found: tuple[str, Any]) -> tuple[str, Any]:
        """A proof on databases too small to reach a count or a cut of these queries proves nothing."""
        return ("bounded", reach) if found[0] == "verified" and reach else found

    status, payload = proved(_check(solver, db, deadline))
    if status != "sat":
        return status, payload, None, None

    def untied() -> tuple[str, Any]:
        solver.add(z3.Not(z3.Or(*enc.ties)))
        return proved(_check(solver, db, deadline))

    def beyond_ties() -> tuple[str, Any]:
        try:
            goal = differ_beyond_ties(enc, gold, pred)
        except (Unsupported, z3.Z3Exception) as exc:
            return "unknown", str(exc)
        relaxed = _solver()
        relaxed.add(*db.constraints, *enc.facts, goal)
        return proved(_check(relaxed, db, deadline))

    blind = beyond_ties if ordered and tie_blind(gold, pred) else None
    return status, payload, untied if enc.ties else None, blind


def _text_codes(trees: list, literals: frozenset, db_path: Path, keys: tuple) -> Any:
    """The integer code for text of this pair, or None when a construct in it certainly needs strings.
    Its constants: the pair's text literals, its integer literals written as text (a number compared with
    a text column), and the mined categorical values of text columns."""
    from sqlglot import exp

    from sqltriage.core.verdicts.verify.tables import db_info
    from sqltriage.core.verdicts.verify.text_codes import TextCodes

    if any(t.find(exp.Like, exp.ILike, exp.DPipe, exp.Concat) for t in trees):
        return None
    texts = {x for x in literals if isinstance(x, str)}
    texts |= {str(sign * x) for x in literals if isinstance(x, int) for sign in (1, -1)}
    for _, cols in db_info(db_path, *keys).values():
        texts |= {x for c in cols if c.kind == "str" for x in c.domain if isinstance(x, str)}
    return TextCodes(texts)


# The gold's encoding (its symbolic tables, their constraints and its result) per pair key: the models'
# predictions of one example are checked one after another in a process, and the gold's part of the
# formula is the same for each of them when they bring no literal of their own.
_GOLDS: OrderedDict[tuple, tuple[Any, Any]] = OrderedDict()
_GOLDS_SIZE = 16


TACTICS = ("simplify", "propagate-values", "solve-eqs")  # then the SMT core, without relevancy


def _solver() -> Any:
    """The SMT core with relevancy propagation off: on these formulas, mostly disjunctions of row
    conditions that all matter, tracking which of them are relevant cost more than it saved (about a third
    of z3's time on the same formulas, for proofs and counterexamples alike: docs/verification.md)."""
    import z3

    return z3.Then(*TACTICS, z3.With("smt", relevancy=0)).solver()


def _check(solver: Any, db: Any, deadline: float) -> tuple[str, Any]:
    """One call of the solver within what is left of the deadline, guarded by a timer should z3 overrun."""
    import z3

    from sqltriage.core.verdicts.verify.text_codes import NeedsStrings

    left = deadline - time.monotonic()
    if left <= 0:
        return "unknown", "timeout"
    solver.set("timeout", max(1, int(left * 1000)))
    guard = threading.Timer(left + 1.0, z3.main_ctx().interrupt)
    guard.daemon = True
    guard.start()
    try:
        answer = solver.check()
    except z3.Z3Exception as exc:
        return "unknown", f"solver error: {exc}"
    finally:
        guard.cancel()
    if answer == z3.unsat:
        return "verified", None
    if answer == z3.sat:
        try:
            return "sat", _tables(solver.model(), db)
        except NeedsStrings as exc:
            return "unknown", str(exc)
    reason = solver.reason_unknown()
    return "unknown", "timeout" if (
        "timeout" in reason or "cancel" in reason or "interrupt" in reason
    ) else reason


def same_query(gold_sql: str, pred_sql: str, mode: str = "spider", columns: frozenset | None = None) -> bool:
    """Whether the two are one query written differently (identifier case, spacing, table aliases, output
    names): SQLite plans them alike, so they agree on every database, ties included. Decided without solving.
    `columns` (the database's column names, lower case) lets a double-quoted name that is no column be read
    as the string SQLite reads it."""
    from sqltriage.core.verdicts.exec_compare import spider_sql

    texts = (spider_sql(gold_sql), spider_sql(pred_sql)) if mode == "spider" else (gold_sql, pred_sql)
    if _bare(texts[0]) == _bare(texts[1]):
        return True
    gold, pred = canonical(gold_sql, mode, columns), canonical(pred_sql, mode, columns)
    return gold is not None and gold == pred


@functools.lru_cache(maxsize=2048)
def canonical(sql: str, mode: str = "spider", columns: frozenset | None = None) -> str | None:
    """The query written one way (`_canonical`), None when sqlglot cannot read it. Kept per process: a gold
    is met once per model, and a prediction once by the memo of verdicts and once by `same_query`."""
    import sqlglot

    from sqltriage.core.verdicts.exec_compare import spider_sql

    try:
        tree = sqlglot.parse_one(spider_sql(sql) if mode == "spider" else sql, read="sqlite")
        return _canonical(tree, mode == "spider", columns)
    except Exception:  # a text sqlglot cannot read is simply not recognised as the same
        return None


def _canonical(tree: Any, any_column_order: bool = False, columns: frozenset | None = None) -> str:
    """The query with what cannot change SQLite's plan written one way: identifier case and quotes, table
    aliases (and the table's name on a column of a one-table query), output names, an ORDER BY on a select
    alias, ASC, a double-quoted string; with `any_column_order`, the select list in sorted order. `tree` is
    rewritten in place (every caller parses its own): copying it cost as much as parsing."""
    from collections import Counter

    from sqlglot import exp

    for c in list(tree.find_all(exp.Column)):  # "Asia": a string to SQLite when it names no column
        if not c.table and c.this.args.get("quoted") and c.parent_select is not None:
            known = columns is not None and c.name.lower() not in columns
            c.replace(exp.Literal.string(c.name if known else "\0" + c.name))
    # Each table read gets one name for the whole query: its own when it is read once, else its name and
    # its place in the query (a self-join's two sides, or an outer table a subquery also reads, must stay
    # apart: `T1.x = T2.y` is not `T2.x = T2.y`). A column's qualifier is resolved in its own query, then
    # in the enclosing ones (a correlated reference), and dropped only when it names the one table of its
    # own query.
    reads = Counter(t.name.lower() for t in tree.find_all(exp.Table))
    seen: Counter = Counter()
    scopes: dict[int, dict[str, str]] = {}
    selects = list(tree.find_all(exp.Select))
    for select in selects:
        names: dict[str, str] = {}
        for t in [t for t in select.find_all(exp.Table) if t.parent_select is select]:
            base = t.name.lower()
            seen[base] += 1
            name = base if reads[base] == 1 else f"{base}#{seen[base]}"
            names[(t.alias or t.name).lower()] = name  # an aliased table is not known by its name
            t.set("alias", None if name == base else exp.TableAlias(this=exp.to_identifier(name)))
        scopes[id(select)] = names
    for select in selects:
        own = scopes[id(select)]
        one_table = len(set(own.values())) == 1 and not select.args.get("joins")
        for c in select.find_all(exp.Column):
            if c.parent_select is not select or not c.table:
                continue
            name, scope = None, select
            while scope is not None and name is None:
                name = scopes.get(id(scope), {}).get(c.table.lower())
                scope = scope.parent_select
            if name is None:
                continue  # a subquery in FROM, by its alias: kept as written
            own_table = one_table and name in own.values()
            c.set("table", None if own_table else exp.to_identifier(name))
        named = {e.alias.lower(): e.this for e in select.expressions if isinstance(e, exp.Alias)}
        order = select.args.get("order")
        positional = False
        for o in order.expressions if order else []:
            if isinstance(o.this, exp.Column) and not o.this.table and o.this.name.lower() in named:
                o.set("this", named[o.this.name.lower()].copy())
            positional |= isinstance(o.this, exp.Literal)
            o.set("desc", True if o.args.get("desc") else None)
        columns = [e.this if isinstance(e, exp.Alias) else e for e in select.expressions]
        if any_column_order and select is tree and not positional:
            columns.sort(key=lambda e: e.sql(dialect="sqlite", copy=False).lower())
        select.set("expressions", columns)
    for ident in tree.find_all(exp.Identifier):
        ident.set("this", ident.this.lower())
        ident.set("quoted", False)
    return tree.sql(dialect="sqlite", copy=False)  # sqlglot copies the tree to write it unless told not to


@functools.lru_cache(maxsize=16)  # as db_info: a prediction's canonical form asks it once per row
def column_names(db_path: Path, extra_fks: tuple = ()) -> frozenset | None:
    from sqltriage.core.verdicts.verify.tables import db_info

    try:
        return frozenset(c.name.lower() for _, cols in db_info(db_path, extra_fks).values() for c in cols)
    except Exception:  # unreadable here: the solver's own reading reports it
        return None


def _bare(sql: str) -> str:
    return " ".join(sql.strip().rstrip(";").split())


def _number(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        return float(text)


def _tables(model: Any, db: Any) -> dict[str, list[dict[str, Any]]]:
    """The model's database: each encoded table's present rows, column → Python value."""
    out: dict[str, list[dict[str, Any]]] = {}
    for t in db.tables.values():
        rows = []
        for present, values in t.rows:
            if not _true(model.eval(present, model_completion=True)):
                continue
            row = {}
            for c in t.columns:
                v = values.get(c.name.lower())
                row[c.name] = None if v is None else _python(model, v)
            rows.append(row)
        out[t.name] = rows
    codes = _active_codes()
    if codes is not None:  # text encoded as integers: the texts in the same order, constants as written
        text_columns = {t.name: [c.name for c in t.columns if c.kind == "str"] for t in db.tables.values()}
        used = [
            r[c] for name, rows in out.items() for r in rows for c in text_columns[name] if r[c] is not None
        ]
        texts = codes.decode(used)
        if texts is None:
            raise _undecodable()
        for name, rows in out.items():
            for r in rows:
                for c in text_columns[name]:
                    if r[c] is not None:
                        r[c] = texts[r[c]]
    return out


def _active_codes() -> Any:
    from sqltriage.core.verdicts.verify.symbolic import text_codes

    return text_codes()


def _undecodable() -> Exception:
    from sqltriage.core.verdicts.verify.text_codes import NeedsStrings

    return NeedsStrings("the counterexample's texts do not fit between the constants")


def _true(b: Any) -> bool:
    import z3

    return z3.is_true(b)


def _python(model: Any, v: Any) -> Any:
    import z3

    if _true(model.eval(v.null, model_completion=True)):
        return None
    x = model.eval(v.v, model_completion=True)
    if v.kind == "int" or (v.kind == "str" and _active_codes() is not None):
        return x.as_long()  # a text's code, decoded by _tables
    if v.kind == "real":
        return float(x.as_fraction())
    if z3.is_string_value(x):
        return x.as_string()
    return str(x)
