"""Execution match: is a prediction's result the gold result, in each community's sense of "same"?

Three modes, named in every number the tool shows:
- `spider` (default), after taoyds/test-suite-sql-eval `exec_eval.result_eq`: rows are bags, row order
  counts only when the gold's outermost query has ORDER BY (read from the parse tree), and the predicted
  columns may match the gold columns in any order. The column order is found by matching columns on
  their multisets of values and refining, never by trying all n! orders.
- `bird`, after BIRD's evaluator: `set(pred_rows) == set(gold_rows)`, column order as given.
- `archer`: Algorithm 1 of the Archer paper (Appendix B), branch by branch.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence

from sqltriage.core.verdicts.ex_modes import EX_MODES
from sqltriage.core.verdicts.exec_result import DB_FAULTS, ExecResult

MAX_PERMUTATION_CANDIDATES = 5_000  # column orders verified before `spider` gives up as undecidable

Row = tuple
Rows = Sequence[Row]


# ---------------------------------------------------------------- ORDER BY in the gold query


@functools.lru_cache(maxsize=8192)
def order_matters(gold_sql: str) -> bool:
    """True when the gold's outermost SELECT (or set operation) sorts its result.

    Read from the sqlglot parse tree, so an ORDER BY inside a subquery does not count (the official
    evaluator's substring test counts it). When the gold does not parse, an ORDER BY outside any
    parentheses and string literals decides. Cached: the same gold is asked about for every model.
    """
    # sqlglot is imported here, not at module level: a run with nothing to compare (a warm `eval`, the
    # app opening a cached workspace) then never pays for importing it.
    if "order" not in gold_sql.lower():
        return False  # neither reading below can find an ORDER BY without the word: no parse needed
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    try:
        tree = sqlglot.parse_one(gold_sql, read="sqlite")
    except (SqlglotError, ValueError, RecursionError):
        return _top_level_order_by(gold_sql)
    while tree is not None:
        if tree.args.get("order") is not None:
            return True
        if isinstance(tree, exp.Subquery | exp.Paren):
            tree = tree.this
            continue
        return False
    return False


_TOKENS = re.compile(
    r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|`[^`]*`|\[[^\]]*\]|--[^\n]*|/\*.*?\*/|[()]|[^'\"`\[()\-/]+|.", re.S
)
_ORDER_BY = re.compile(r"\border\s+by\b", re.I)


def _top_level_order_by(sql: str) -> bool:
    depth = 0
    for tok in _TOKENS.findall(sql):
        if tok == "(":
            depth += 1
        elif tok == ")":
            depth = max(0, depth - 1)
        elif depth == 0 and tok[:1] not in {"'", '"', "`", "[", "-", "/"} and _ORDER_BY.search(tok):
            return True
    return False


# ---------------------------------------------------------------- value normalisation


def _quantizer(float_tol: float | None) -> Callable[[object], object] | None:
    """Numbers snapped to a grid of `float_tol` so near-equal floats compare equal (opt-in only)."""
    if not float_tol:
        return None

    def snap(v: object) -> object:
        if (isinstance(v, float) and math.isfinite(v)) or (isinstance(v, int) and not isinstance(v, bool)):
            return ("num", round(v / float_tol))
        return v

    return snap


def _normalise(rows: Rows, float_tol: float | None) -> list[Row]:
    snap = _quantizer(float_tol)
    if snap is None:
        return list(rows)
    return [tuple(snap(v) for v in row) for row in rows]


# ---------------------------------------------------------------- spider


def spider_eq(gold: Rows, pred: Rows, *, order_matters: bool) -> bool | None:
    """test-suite-sql-eval `result_eq` semantics; None when too many column orders stay possible."""
    if not gold and not pred:
        return True
    if len(gold) != len(pred):
        return False
    ncols = len(gold[0])
    if any(len(r) != ncols for r in pred):
        return False
    if ncols == 0:
        return True
    if list(gold) == list(pred):
        return True  # the same rows in the same order: the identity column order, always tried first
    if order_matters:
        # Necessary: the same rows as bags of values, position by position.
        if any(Counter(g) != Counter(p) for g, p in zip(gold, pred, strict=True)):
            return False
    elif Counter(gold) == Counter(pred):
        return True  # the identity order already matches: no search needed
    gold_target: object = list(gold) if order_matters else Counter(gold)
    for perm in _column_orders(gold, pred, ncols):
        if perm is _GAVE_UP:
            return None
        permuted = [tuple(row[j] for j in perm) for row in pred]
        if (permuted if order_matters else Counter(permuted)) == gold_target:
            return True
    return False


class _GaveUp(tuple):
    __slots__ = ()


_GAVE_UP = _GaveUp()


def _column_orders(gold: Rows, pred: Rows, ncols: int) -> Iterator[tuple[int, ...]]:
    """Candidate orders `perm` (gold column i ↔ pred column perm[i]) consistent with column contents.

    Columns are first grouped by their multiset of values (a column order that makes the bags of rows
    equal must map each gold column to a pred column with the same multiset), then the groups are
    refined by co-occurrence with the columns already matched one-to-one. Only the orders left inside
    groups that stay ambiguous are enumerated, and identical columns are not permuted among themselves.
    """
    gold_cols = [tuple(r[i] for r in gold) for i in range(ncols)]
    pred_cols = [tuple(r[j] for r in pred) for j in range(ncols)]
    colours: dict[object, int] = {}  # every signature interned as a small int, shared by both sides

    def colour(sig: object) -> int:
        return colours.setdefault(sig, len(colours))

    gold_sig = [colour(_bag(c)) for c in gold_cols]
    pred_sig = [colour(_bag(c)) for c in pred_cols]
    if Counter(gold_sig) != Counter(pred_sig):
        return
    # Refinement: a column's colour becomes (colour, bag of (value, row colour over anchored columns)).
    for _ in range(ncols):
        gold_anchor = _anchors(gold_sig)
        pred_anchor = _anchors(pred_sig)
        if not gold_anchor or len(gold_anchor) == ncols:
            break  # nothing to refine with, or nothing left to refine
        if set(gold_anchor) != set(pred_anchor):
            return
        order = list(gold_anchor)  # any order shared by both sides will do
        row_ids: dict[tuple, int] = {}
        gold_keys = [row_ids.setdefault(tuple(r[gold_anchor[s]] for s in order), len(row_ids)) for r in gold]
        pred_keys = [row_ids.setdefault(tuple(r[pred_anchor[s]] for s in order), len(row_ids)) for r in pred]
        new_gold = [
            colour((s, _bag(zip(c, gold_keys, strict=True))))
            for s, c in zip(gold_sig, gold_cols, strict=True)
        ]
        new_pred = [
            colour((s, _bag(zip(c, pred_keys, strict=True))))
            for s, c in zip(pred_sig, pred_cols, strict=True)
        ]
        if Counter(new_gold) != Counter(new_pred):
            return
        if len(set(new_gold)) == len(set(gold_sig)):
            break
        gold_sig, pred_sig = new_gold, new_pred
    # Group columns by colour; inside a group, identical pred columns are not swapped with each other.
    choices: list[tuple[list[int], list[int]]] = []
    for colour in dict.fromkeys(gold_sig):
        g_idx = [i for i, s in enumerate(gold_sig) if s == colour]
        p_idx = [j for j, s in enumerate(pred_sig) if s == colour]
        choices.append((g_idx, p_idx))
    per_group = [
        list(itertools.islice(_distinct_assignments(p_idx, pred_cols), MAX_PERMUTATION_CANDIDATES + 1))
        for _, p_idx in choices
    ]
    for n, combo in enumerate(itertools.product(*per_group)):
        if n >= MAX_PERMUTATION_CANDIDATES:
            yield _GAVE_UP
            return
        perm = [0] * ncols
        for (g_idx, _), assigned in zip(choices, combo, strict=True):
            for i, j in zip(g_idx, assigned, strict=True):
                perm[i] = j
        yield tuple(perm)


def _bag(values: object) -> frozenset:
    return frozenset(Counter(values).items())  # type: ignore[arg-type]


def _anchors(sig: list) -> dict:
    counts = Counter(sig)
    return {s: i for i, s in enumerate(sig) if counts[s] == 1}


def _distinct_assignments(p_idx: list[int], pred_cols: list[tuple]) -> Iterator[tuple[int, ...]]:
    """Orders of a group of pred columns, skipping swaps of identical columns (a multiset permutation)."""
    classes: dict[tuple, list[int]] = {}
    for j in p_idx:
        classes.setdefault(pred_cols[j], []).append(j)
    members = list(classes.values())
    remaining = [len(m) for m in members]

    def walk(prefix: list[int]) -> Iterator[list[int]]:
        if len(prefix) == len(p_idx):
            yield prefix
            return
        for c, left in enumerate(remaining):
            if left:
                remaining[c] -= 1
                yield from walk([*prefix, c])
                remaining[c] += 1

    for classes_in_order in walk([]):
        taken = [0] * len(members)
        out = []
        for c in classes_in_order:
            out.append(members[c][taken[c]])
            taken[c] += 1
        yield tuple(out)


# ---------------------------------------------------------------- bird


def bird_eq(gold: Rows, pred: Rows) -> bool:
    """BIRD's evaluator: the sets of rows are equal (duplicates and row order ignored)."""
    return set(pred) == set(gold)


# ---------------------------------------------------------------- archer


def archer_eq(gold: Rows, pred: Rows, *, gold_ncols: int, pred_ncols: int, order_matters: bool) -> bool:
    """Algorithm 1 of the Archer paper (Appendix B), line by line; the prediction already executed."""
    # l.9: exactly equal (same rows in the same order, columns as given)
    if list(pred) == list(gold):
        return True
    # l.12: different number of rows or of columns
    if len(pred) != len(gold) or pred_ncols != gold_ncols:
        return False
    # l.15: the gold has an outermost ORDER BY: compare the sets of columns (each column in row order)
    if order_matters:
        return set(zip(*pred, strict=True)) == set(zip(*gold, strict=True))
    # l.20: frequencies of the elements of every row and every column; each pred one must be present
    # in gold (membership, as written: how many rows or columns carry it is not compared)
    gold_rows = {_bag(r) for r in gold}
    gold_cols = {_bag(c) for c in zip(*gold, strict=True)}
    return all(_bag(r) in gold_rows for r in pred) and all(
        _bag(c) in gold_cols for c in zip(*pred, strict=True)
    )


# ---------------------------------------------------------------- verdicts


def _undecidable(gold: ExecResult, pred: ExecResult) -> bool:
    """No verdict without a database or a gold result."""
    return gold.error_kind in DB_FAULTS or pred.error_kind in DB_FAULTS or not gold.ok


def _min_rows(result: ExecResult) -> int:
    """Fewest rows the full result can have: a result cut at the row cap has at least one more."""
    n = len(result.rows)
    return n + 1 if result.truncated and n >= result.max_rows else n


def _value_key(value: object) -> tuple:
    """A sort key under which equal values (`1 == 1.0`) sit together whatever their types."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return (0, float(value), 0.0)
    if isinstance(value, str):
        return (1, 0.0, value)
    return (2, 0.0, repr(value))


def _unordered_row(row: Row) -> tuple:
    """A row's values as a bag, for checks that allow any column order."""
    return tuple(sorted(Counter(row).items(), key=lambda kv: _value_key(kv[0])))


def _cut_rules_out(gold: ExecResult, pred: ExecResult, g: Rows, p: Rows, mode: str, ordered: bool) -> bool:
    """True when a result cut at the row (or byte) cap already shows that no full result could match.

    The row count, the column count and the rows already seen are all a cut result tells; each rules a
    match out in the modes where it counts. Otherwise the verdict stays unknown (None), never a guess.
    """
    if g and p and len(gold.columns) != len(pred.columns):
        return True  # rows of different widths never match in any mode
    if mode == "bird":  # sets of rows: a seen row missing from the complete other side decides
        if gold.truncated and pred.truncated:
            return False
        complete, cut = (set(g), p) if not gold.truncated else (set(p), g)
        return any(row not in complete for row in cut)
    # spider and archer compare row counts
    if not gold.truncated and _min_rows(pred) > len(g):
        return True
    if not pred.truncated and _min_rows(gold) > len(p):
        return True
    if mode == "spider":
        if ordered:  # the seen prefixes must agree row by row (as bags: any column order)
            return any(Counter(a) != Counter(b) for a, b in zip(g, p, strict=False))
        if not gold.truncated:  # every seen predicted row must be one of gold's, as often at most
            have = Counter(_unordered_row(r) for r in g)
            need = Counter(_unordered_row(r) for r in p)
            return any(have[k] < n for k, n in need.items())
        if not pred.truncated:
            have = Counter(_unordered_row(r) for r in p)
            need = Counter(_unordered_row(r) for r in g)
            return any(have[k] < n for k, n in need.items())
    return False


def compare(
    gold: ExecResult,
    pred: ExecResult,
    mode: str,
    *,
    order_matters: bool,
    float_tol: float | None = None,
) -> int | None:
    """1 if the prediction's result matches the gold's in `mode`, 0 if not, None if it cannot be told.

    None when the database is missing or the gold failed. A result cut at the row cap scores 0 when
    its row count, column count or the rows already seen rule a match out, else None (the comparison
    says it cannot decide rather than guessing). A prediction that failed to execute scores 0.
    This is the one comparison every EX figure goes through (`ex_official` and test-suite EX too).
    """
    if mode not in EX_MODES:
        raise ValueError(f"unknown EX mode {mode!r}; expected one of {', '.join(EX_MODES)}")
    if _undecidable(gold, pred):
        return None
    if not pred.ok:
        return 0
    if not gold.truncated and not pred.truncated and gold.rows == pred.rows:
        return 1  # the same rows in the same order match in every mode (the common case on neighbours)
    g = _normalise(gold.rows, float_tol)
    p = _normalise(pred.rows, float_tol)
    if gold.truncated or pred.truncated:
        return 0 if _cut_rules_out(gold, pred, g, p, mode, order_matters) else None
    if mode == "bird":
        return int(bird_eq(g, p))
    if mode == "archer":
        return int(
            archer_eq(
                g,
                p,
                gold_ncols=len(gold.columns),
                pred_ncols=len(pred.columns),
                order_matters=order_matters,
            )
        )
    verdict = spider_eq(g, p, order_matters=order_matters)
    return None if verdict is None else int(verdict)


# ---------------------------------------------------------------- spider's own rewriting


_QUOTED_OR_DISTINCT = re.compile(
    r"('(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|`[^`]*`|\[[^\]]*\])|\bdistinct\b", re.I
)
_CUR_YEAR = re.compile(r"YEAR\s*\(\s*CURDATE\s*\(\s*\)\s*\)\s*", re.I)
_STATEMENT_PARTS = re.compile(
    r"'(?:[^']|'')*'?|\"(?:[^\"]|\"\")*\"?|`[^`]*`?|\[[^\]]*\]?|--[^\n]*|/\*.*?(?:\*/|$)|;|[^'\"`\[;/-]+|.",
    re.S,
)


def first_statement(sql: str) -> str:
    """The text up to and including the first `;` outside quotes and comments, when more text follows.

    The official Spider evaluator keeps only the first statement when it strips DISTINCT, so a
    prediction like `SELECT a FROM t; SELECT b FROM t`, or a query followed by remarks after a `;`,
    is scored on its first statement. Text that is one statement (with or without a final `;`) is
    returned unchanged.
    """
    if ";" not in sql:
        return sql
    end = 0
    for m in _STATEMENT_PARTS.finditer(sql):
        if m.group() == ";":
            end = m.end()
            break
    else:
        return sql
    return sql[:end] if sql[end:].strip() else sql


def spider_sql(sql: str) -> str:
    """The text test-suite-sql-eval executes for a query in its default setting (`keep_distinct=False`).

    It joins `> =`, `< =`, `! =`, keeps the first statement only (`first_statement`), removes every
    DISTINCT keyword (also inside `count(DISTINCT x)`) from gold and prediction alike, and replaces
    MySQL's `YEAR(CURDATE())` by 2020. `ex_spider` compares the results of these texts so that it
    agrees with the official labels; `ex_bird` and `ex_archer` run the queries as written.
    """
    text = sql.replace("> =", ">=").replace("< =", "<=").replace("! =", "!=")
    text = first_statement(text)
    text = _QUOTED_OR_DISTINCT.sub(lambda m: m.group(1) or "", text)
    return _CUR_YEAR.sub("2020", text)
