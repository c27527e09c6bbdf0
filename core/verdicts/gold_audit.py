"""Suspect gold queries: each example's gold audited once, so a verdict against a doubtful gold is seen as such.

A gold is suspect when its result is empty or only NULLs (any wrong query that also finds nothing
passes), when its LIMIT keeps an arbitrary part of the rows (no ORDER BY, or an ORDER BY whose cut
falls inside a tie on the sort key: the answer then depends on the order SQLite happens to return tied
rows in, and EX flips between platforms), or when it fails or times out. For a tie the audit keeps the
tied rows, so that a prediction differing from gold only by which tied row it kept is marked
`tie_sensitive` and the app can show the tie.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqltriage.core.sql.parse import ParsedQuery
    from sqltriage.core.verdicts.exec_result import ExecResult

# reason code → the label shown in facets, the Question tab and the `gold_suspect` column
REASONS: dict[str, str] = {
    "empty": "empty result",
    "nulls": "only NULLs",
    "tie": "LIMIT cuts a tie",
    "limit_without_order": "LIMIT without ORDER BY",
    "fails": "gold fails",
    "times_out": "gold times out",
}
SEPARATOR = "; "
_KEY = "__sqltriage_key"
# The words sqlglot reads a row limit from (LIMIT, TOP n, FETCH FIRST): a query with none of them has none.
_MAY_LIMIT = re.compile(r"limit|top|fetch", re.IGNORECASE)

Row = tuple
Run = Callable[[str], "ExecResult"]  # executes a query on the example's database


@dataclass(frozen=True, slots=True)
class Tie:
    """The rows tied on the sort key at a LIMIT's cut: which of them gold keeps is arbitrary."""

    keys: tuple[str, ...]  # the ORDER BY expressions, as SQL
    value: tuple  # the tied key value
    kept: tuple[Row, ...]  # tied rows inside the cut (gold's columns)
    dropped: tuple[Row, ...]  # tied rows the cut leaves out

    def describe(self) -> str:
        key = ", ".join(self.keys)
        value = ", ".join("NULL" if v is None else str(v) for v in self.value)
        n = len(self.kept) + len(self.dropped)
        return f"{n} rows tie on {key} = {value}; the LIMIT keeps {len(self.kept)} of them"


@dataclass(frozen=True, slots=True)
class GoldAudit:
    reasons: tuple[str, ...] = ()  # codes of REASONS
    detail: str = ""  # one sentence per reason
    tie: Tie | None = None

    @property
    def labels(self) -> str | None:
        """The `gold_suspect` column: reason labels joined by '; ', or None when nothing is suspect."""
        return SEPARATOR.join(REASONS[r] for r in self.reasons) or None


def audit_gold(
    gold_sql: str, result: ExecResult | None, run: Run | None, parsed: ParsedQuery | None = None
) -> GoldAudit:
    """Audit one gold query from its result; `run` executes the probe that reads the sort key past LIMIT.

    `parsed`, gold's `parse_sql` result when the caller has it, spares parsing the text again where that
    would give the same tree (see `_gold_tree`).
    """
    if result is None:
        return GoldAudit()  # no database: nothing to audit
    if not result.ok:
        if result.error_kind == "timeout":
            return GoldAudit(("times_out",), f"the gold query times out: {result.error}")
        if result.error_kind in ("db_missing", "db_unreadable", "db_locked"):
            return GoldAudit()
        return GoldAudit(("fails",), f"the gold query fails: {result.error}")
    reasons: list[str] = []
    details: list[str] = []
    if not result.rows:
        reasons.append("empty")
        details.append("the gold result is empty: any query that finds nothing passes EX")
    elif all(v is None for row in result.rows for v in row):
        reasons.append("nulls")
        details.append("the gold result holds only NULLs: any query that finds nothing known passes EX")
    tie: Tie | None = None
    if run is not None and result.rows and not result.truncated:
        code, detail, tie = _limit_audit(gold_sql, result, run, parsed)
        if code:
            reasons.append(code)
            details.append(detail)
    return GoldAudit(tuple(reasons), " ".join(f"{d[0].upper()}{d[1:]}." for d in details), tie)


def _limit_audit(
    gold_sql: str, result: ExecResult, run: Run, parsed: ParsedQuery | None = None
) -> tuple[str | None, str, Tie | None]:
    """(reason code, detail, tie) for a top-level LIMIT that keeps an arbitrary part of the rows."""
    probe = _probe(gold_sql, parsed)
    if probe is None:
        return None, "", None
    sql, limit, offset, keys = probe
    full = run(sql)
    if not full.ok or full.truncated:
        return None, "", None
    width = len(result.columns)
    out = [row[:width] for row in full.rows]
    if Counter(out[offset : offset + limit]) != Counter(result.rows):
        return None, "", None  # the probe does not reproduce gold (DISTINCT over the added key, ...)
    if not keys:
        if len(out) > offset + limit and len(set(out)) > 1:
            return (
                "limit_without_order",
                f"LIMIT {limit} keeps {limit} of {len(out)} rows with no ORDER BY: which ones is arbitrary",
                None,
            )
        return None, "", None
    key_of = [row[width:] for row in full.rows]
    for boundary in (offset + limit, offset):  # the row after the cut, then the row before an OFFSET
        if 0 < boundary < len(out) and key_of[boundary - 1] == key_of[boundary]:
            value = key_of[boundary]
            tied = [i for i, k in enumerate(key_of) if k == value]
            kept = tuple(out[i] for i in tied if offset <= i < offset + limit)
            dropped = tuple(out[i] for i in tied if not offset <= i < offset + limit)
            if len(set(kept + dropped)) > 1:  # tied rows that look alike change nothing
                tie = Tie(tuple(keys), tuple(value), kept, dropped)
                return "tie", f"ORDER BY … LIMIT {limit} cuts inside a tie: {tie.describe()}", tie
    return None, "", None


def _gold_tree(gold_sql: str, parsed: ParsedQuery | None) -> Any:
    """Gold's tree as sqlglot reads its text, from `parsed` where that is provably the same tree.

    `parse_sql` reads the same text with the same parser and then turns double-quoted values into
    strings; with no double quote in the text it changes nothing, so its tree serves (it is never
    mutated: the probe works on a copy). Otherwise the text is parsed again, as written.
    """
    import sqlglot
    from sqlglot.errors import SqlglotError

    from sqltriage.core.sql.parse import read_dialect, statement_body

    text = gold_sql.strip().rstrip(";")
    if (
        parsed is not None
        and parsed.ok
        and parsed.sql == gold_sql
        and '"' not in gold_sql
        and statement_body(gold_sql) == text.strip()
    ):
        return parsed.tree
    try:
        return sqlglot.parse_one(text, read=read_dialect())
    except (SqlglotError, ValueError, RecursionError):
        return None


def _probe(gold_sql: str, parsed: ParsedQuery | None = None) -> tuple[str, int, int, list[str]] | None:
    """The gold without LIMIT/OFFSET and with its sort keys appended as columns, or None when not a case."""
    from sqlglot import exp

    if not _MAY_LIMIT.search(gold_sql):
        return None  # no keyword that makes a LIMIT: no parse needed to know
    tree = _gold_tree(gold_sql, parsed)
    if not isinstance(tree, exp.Select) or tree.args.get("limit") is None:
        return None
    limit = _int(tree.args["limit"].expression)
    offset_node = tree.args.get("offset")
    offset = _int(offset_node.expression) if offset_node is not None else 0
    if limit is None or offset is None or limit <= 0:
        return None
    selects = tree.expressions
    aliases = {s.alias.lower(): s.unalias() for s in selects if isinstance(s, exp.Alias)}
    keys: list[Any] = []
    order = tree.args.get("order")
    for ordered in order.expressions if order is not None else ():
        key = ordered.this
        if isinstance(key, exp.Literal) and key.is_int and 0 < int(key.this) <= len(selects):
            key = selects[int(key.this) - 1].unalias()
        elif isinstance(key, exp.Column) and not key.table and key.name.lower() in aliases:
            key = aliases[key.name.lower()]
        keys.append(key)
    probe = tree.copy()
    probe.set("limit", None)
    probe.set("offset", None)
    for i, key in enumerate(keys):
        probe = probe.select(exp.alias_(key.copy(), f"{_KEY}{i}"), copy=False)
    # `probe` is this function's own copy: generating from it without another copy changes nothing seen.
    return probe.sql(dialect="sqlite", copy=False), limit, offset, [k.sql(dialect="sqlite") for k in keys]


def _int(node: Any) -> int | None:
    from sqlglot import exp

    if isinstance(node, exp.Literal) and node.is_int:
        return int(node.this)
    return None


def tie_sensitive(tie: Tie | None, gold_rows: tuple[Row, ...], pred_rows: tuple[Row, ...]) -> bool:
    """The prediction is gold with other tied rows kept in place of gold's: as right as gold is.

    Compared as bags with gold's column order; gold itself is not tie-sensitive.
    """
    if tie is None or len(pred_rows) != len(gold_rows):
        return False
    gold, pred = Counter(gold_rows), Counter(pred_rows)
    if gold == pred:
        return False
    fixed = gold - Counter(tie.kept)
    if fixed - pred:
        return False  # a row outside the tie is missing
    swapped_in = pred - fixed
    return not (swapped_in - Counter(tie.kept + tie.dropped))


def cut_rows(sql: str, run: Run) -> tuple[list[Row], int] | None:
    """The query's rows without its LIMIT, in its order, cut just past every row that ties with the last
    row kept (its sort key equal), and the number of rows the LIMIT keeps; None when its top level has no
    ORDER BY … LIMIT, or the probe cannot be run. A result made only of these rows differs from the query's
    by which tied rows it kept."""
    probe = _probe(sql)
    if probe is None or not probe[3]:
        return None
    text, limit, offset, keys = probe
    full = run(text)
    if not full.ok or full.truncated:
        return None
    width = len(full.columns) - len(keys)
    if width <= 0 or offset + limit >= len(full.rows) or offset:
        return None
    key_of = [row[width:] for row in full.rows]
    last = offset + limit - 1
    end = last + 1
    while end < len(full.rows) and key_of[end] == key_of[last]:
        end += 1
    if end == last + 1:
        return None  # no tie at the cut
    return [row[:width] for row in full.rows[:end]], limit
