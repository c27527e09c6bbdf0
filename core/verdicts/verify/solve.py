"""One question put to z3 for a pair: encode both queries over symbolic tables and solve "they differ".

The gold's part of the formula is kept per process and reused for each model's prediction of it; text is
encoded as integers in the same order where the pair allows (text_codes.py); every question is bounded by
its allowance of the pair's budget (budget.py) and solved in a z3 context of its own, so what it costs
and answers depends on the formula alone, not on what the process solved before. A satisfying model is
read back as the rows of each table, for counterexample.py to write out and confirm in SQLite.
"""

from __future__ import annotations

import functools
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

import sqltriage.core.verdicts.verify.budget as budget
from sqltriage.core.verdicts.exec_compare import order_matters
from sqltriage.core.verdicts.verify.bound_reach import beyond_bound
from sqltriage.core.verdicts.verify.budget import TOO_SLOW, Allowance, TooSlow
from sqltriage.core.verdicts.verify.canonical import bare, column_names, same_query


def solve(
    gold_sql: str,
    pred_sql: str,
    db_path: Path,
    mode: str,
    bound: int,
    allowance: Allowance,
    keys: tuple,
    *,
    prove: bool = True,
    itself: bool = False,
) -> tuple[str, Any, Any, Any]:
    """(status, note or model tables, a retry without ORDER BY ties when the encoding has any, else None,
    the question "do they differ beyond how the outer ORDER BY's ties fall" when it applies, else None).
    Status `bounded`: unsatisfiable, but on databases too small to tell (bound_reach.py); the note says why.
    `itself`: the two texts are one query, each side encoded with its own free choices (ties, bare columns)."""
    import sqlglot
    import z3
    from sqlglot.errors import SqlglotError

    import sqltriage.core.verdicts.verify.symbolic as symbolic
    from sqltriage.core.verdicts.exec_compare import spider_sql
    from sqltriage.core.verdicts.verify.encode import Encoder, Timeout
    from sqltriage.core.verdicts.verify.results import differ, differ_beyond_ties, tie_blind
    from sqltriage.core.verdicts.verify.symbolic import Unsupported
    from sqltriage.core.verdicts.verify.tables import SymDatabase
    from sqltriage.core.verdicts.verify.text_codes import NeedsStrings

    texts = (spider_sql(gold_sql), spider_sql(pred_sql)) if mode == "spider" else (gold_sql, pred_sql)
    if not itself and bare(texts[0]) == bare(texts[1]):
        return "verified", None, None, None  # the same text: the same plan, the same rows in the same order
    extra_fks, practice = keys
    if prove and not itself and same_query(gold_sql, pred_sql, mode, column_names(db_path, extra_fks)):
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
    cpu = time.process_time()
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
                    enc = kept.copy(allowance)
                else:
                    enc = Encoder(SymDatabase(db_path, bound, literals, extra_fks, practice), allowance)
                    gold = enc.query(trees[0])
                    _GOLDS[key] = (enc.copy(allowance, charge=False), gold)
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
    except TooSlow:
        return "unknown", TOO_SLOW, None, None
    except Unsupported as exc:
        return "unknown", str(exc), None, None
    except z3.Z3Exception as exc:
        return "unknown", f"solver error: {exc}", None, None
    except NeedsStrings as exc:  # a text constant the code lacks, with strings as well: not expected
        return "unknown", f"not encoded: {exc}", None, None
    budget.record("encode", enc.ticks, time.process_time() - cpu)
    if not prove:
        return "encoded", None, None, None
    # Simplifying and eliminating the equalities first (the symbolic rows are full of them) before the
    # SMT core solves several times faster than z3's default solver on these formulas.
    asserted = [*db.constraints, *enc.facts, goal]
    reach = beyond_bound(trees, bound)

    def proved(found: tuple[str, Any]) -> tuple[str, Any]:
        """A proof on databases too small to reach a count or a cut of these queries proves nothing."""
        return ("bounded", reach) if found[0] == "verified" and reach else found

    status, payload = proved(_check(asserted, db, allowance))
    if status != "sat":
        return status, payload, None, None

    def untied(more: Allowance) -> tuple[str, Any]:
        return proved(_check([*asserted, z3.Not(z3.Or(*enc.ties))], db, more))

    def beyond_ties(more: Allowance) -> tuple[str, Any]:
        try:
            goal = differ_beyond_ties(enc, gold, pred)
        except (Unsupported, z3.Z3Exception) as exc:
            return "unknown", str(exc)
        return proved(_check([*db.constraints, *enc.facts, goal], db, more))

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


def _solver(ctx: Any) -> Any:
    """The SMT core with relevancy propagation off: on these formulas, mostly disjunctions of row
    conditions that all matter, tracking which of them are relevant cost more than it saved (about a third
    of z3's time on the same formulas, for proofs and counterexamples alike: docs/verification.md)."""
    import z3

    tactics = [z3.Tactic(name, ctx) for name in TACTICS]
    return z3.Then(*tactics, z3.With(z3.Tactic("smt", ctx), relevancy=0)).solver()


def _check(asserted: list, db: Any, allowance: Allowance) -> tuple[str, Any]:
    """One question, in a context of its own: the formula is copied into it, so z3 numbers its terms the
    same way whatever the process built before, and the units it spends (and where it stops) depend on the
    formula alone. Within what is left of the allowance (z3's `rlimit`; it stops with "canceled"); z3's
    wall-clock timeout, far above, only guards against a machine much slower than the calibration (it stops
    with "timeout": TOO_SLOW)."""
    import z3

    import sqltriage.core.verdicts.verify.symbolic as symbolic
    from sqltriage.core.verdicts.verify.text_codes import NeedsStrings

    units, wall = allowance.left(), allowance.budget.wall_left()
    if wall <= 0:
        allowance.budget.too_slow = True
        return "unknown", TOO_SLOW
    if units <= 0:
        return "unknown", "timeout"
    _keep_freed_memory()
    ctx = z3.Context()
    solver = _solver(ctx)
    # one copy of the whole formula (its conjunction built through the C API), not one per part
    solver.add(symbolic.and_(*asserted).translate(ctx))
    solver.set("rlimit", units)
    solver.set("timeout", max(1, int(wall * 1000)))
    cpu = time.process_time()
    try:
        answer = solver.check()
    except z3.Z3Exception as exc:
        return "unknown", f"solver error: {exc}"
    finally:
        used = _units_used(solver)
        allowance.charge(used)
        budget.record("solve", used, time.process_time() - cpu)
    if answer == z3.unsat:
        return "verified", None
    if answer == z3.sat:
        try:
            return "sat", _tables(solver.model().translate(z3.main_ctx()), db)
        except NeedsStrings as exc:
            return "unknown", str(exc)
    reason = solver.reason_unknown()
    if "timeout" in reason:  # z3's wall clock, not the budget
        allowance.budget.too_slow = True
        return "unknown", TOO_SLOW
    return "unknown", "timeout" if (
        "cancel" in reason or "interrupt" in reason or "resource" in reason
    ) else reason


@functools.cache
def _keep_freed_memory() -> None:
    """Ask glibc to keep freed memory for reuse, once per process. A z3 context allocates about 16 MB, which
    glibc maps afresh and hands back to the system when the context is deleted; the next question's context
    then faults every page in again: 3.7 ms of system time per context, against 1 ms to build it, once the
    process's heap has grown. Kept instead (at most 64 MB of freed memory), the same pages serve every
    question. Elsewhere than glibc this does nothing."""
    try:
        import ctypes
        import ctypes.util

        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        m_trim_threshold, m_mmap_threshold = -1, -3  # glibc's mallopt parameters
        libc.mallopt(m_mmap_threshold, 32 << 20)
        libc.mallopt(m_trim_threshold, 64 << 20)
    except (OSError, AttributeError):  # not glibc: its allocator decides
        pass


def _units_used(solver: Any) -> int:
    import z3

    try:
        return int(solver.statistics().get_key_value("rlimit count"))
    except z3.Z3Exception:  # a question settled before the solver counted anything
        return 0


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
