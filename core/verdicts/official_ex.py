"""`ex_official`: the verdict the official Spider evaluator (test-suite-sql-eval) gives, quirk for quirk.

Researchers quote the official number, so it is shown beside `ex_spider`, with the quirk that decides
every row where the two differ. The official behaviour is reproduced from how that evaluator reads and
runs queries (default settings: no value plugging, DISTINCT removed), never by writing to a database:

- `tab-cut`: it reads a prediction as the text before the first tab of its (stripped) line.
- `value-to-1`: it replaces every `value` in the prediction with `1`, even inside names and strings.
- first statement only, `> =` joined, DISTINCT removed, `YEAR(CURDATE())` → 2020: as `ex_spider`.
- `order-by-substring`: row order counts when the gold's text contains `order by` anywhere.
- `mixed-type-sort`: before the column search it sorts each row's values by their text followed by
  their type's name and rejects when the sorted rows differ, so `1` and `1.0` can fail to match.
- `writable-db`: a write statement runs on its writable connection and returns no rows; here it is
  refused, so the verdict is 0 when the gold has rows and unknown (None) when it has none. Only a
  statement that can return rows on a writable connection (a PRAGMA, an EXPLAIN, a write with a
  RETURNING clause) stays unknown: a `CREATE TABLE …` (then INSERTs) returns none, so it scores 0.
- `row-cap`: it fetches every row; a result cut at our cap is decided only when what was fetched
  already rules a match out (the shared comparison's rule), else the verdict is unknown.

The comparison itself is `exec_compare.compare` in spider mode, the one every EX figure goes through.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqltriage.core.verdicts.exec_compare import Rows, compare, order_matters, spider_sql
from sqltriage.core.verdicts.exec_result import DB_FAULTS, ExecResult

QUIRKS = (
    "tab-cut",
    "value-to-1",
    "order-by-substring",
    "mixed-type-sort",
    "writable-db",
    "row-cap",
    "search-cut",
)


def official_pred_text(pred_sql: str) -> str:
    """The text the official evaluator runs for a prediction."""
    return spider_sql(pred_sql.strip().split("\t")[0].replace("value", "1"))


def official_gold_text(gold_sql: str) -> str:
    """The text the official evaluator runs for a gold query (its gold file is `SQL<TAB>db_id`)."""
    return spider_sql(gold_sql.strip().split("\t")[0])


def official_order_matters(gold_sql: str) -> bool:
    """Row order counts when `order by` appears anywhere in the gold's text, even in a subquery or string."""
    return "order by" in official_gold_text(gold_sql).lower()


_TYPE_TEXT: dict[type, str] = {}  # str(type) per type: "<class 'int'>", made once, not once per value


def _typed_text(value: object) -> str:
    kind = type(value)
    text = _TYPE_TEXT.get(kind)
    if text is None:
        text = _TYPE_TEXT[kind] = str(kind)
    return f"{value}{text}"


def _sorted_row(row: tuple) -> tuple:
    return tuple(sorted(row, key=_typed_text)) if len(row) > 1 else row


def passes_row_sort(gold: Rows, pred: Rows, ordered: bool) -> bool:
    """The official pre-check: each row's values sorted by text+type, compared as lists or sets of rows."""
    g = [_sorted_row(r) for r in gold]
    p = [_sorted_row(r) for r in pred]
    return g == p if ordered else set(g) == set(p)


_QUOTED_OR_COMMENT = re.compile(
    r"'(?:[^']|'')*'?|\"(?:[^\"]|\"\")*\"?|`[^`]*`?|\[[^\]]*\]?|--[^\n]*|/\*.*?(?:\*/|$)", re.S
)
_WORD = re.compile(r"[a-z_][a-z_0-9$]*")
_ROWS_WITH_RETURNING = frozenset({"insert", "update", "delete", "replace", "with"})


def may_return_rows(statement: str) -> bool:
    """Whether a refused statement could return rows on a writable connection, read from its keywords.

    A PRAGMA or an EXPLAIN can; an INSERT/UPDATE/DELETE/REPLACE only with a RETURNING clause; anything
    else (CREATE, DROP, ALTER, ATTACH, a transaction) never does. Names and strings are not read: a
    table called `returning_items` says nothing.
    """
    words = _WORD.findall(_QUOTED_OR_COMMENT.sub(" ", statement).lower())
    if not words:
        return False
    if words[0] in {"pragma", "explain"}:
        return True
    return words[0] in _ROWS_WITH_RETURNING and "returning" in words


@dataclass(frozen=True, slots=True)
class OfficialVerdict:
    ex: int | None  # the official verdict; None when it cannot be known without writing or waiting
    quirk: str | None  # what makes it differ from `ex_spider` (or unknown), else None


def official_verdict(gold: ExecResult, pred: ExecResult, gold_sql: str, pred_sql: str) -> int | None:
    """The official EX of one pair from the results of `official_gold_text` / `official_pred_text`."""
    if gold.error_kind in DB_FAULTS or pred.error_kind in DB_FAULTS or not gold.ok:
        return None  # no database, or a gold that fails (the official script stops there)
    if pred.error_kind == "forbidden":
        if gold.rows and not may_return_rows(official_pred_text(pred_sql)):
            return 0  # the official run returns no rows (or fails): never the gold's rows
        return None
    ordered = official_order_matters(gold_sql)
    verdict = compare(gold, pred, "spider", order_matters=ordered)
    return 0 if verdict == 1 and _sort_tells_apart(gold, pred, ordered) else verdict


def _sort_rejects(gold: ExecResult, pred: ExecResult, ordered: bool) -> bool:
    """The results match, yet the official pre-check's sort by text and type tells them apart."""
    return compare(gold, pred, "spider", order_matters=ordered) == 1 and _sort_tells_apart(
        gold, pred, ordered
    )


def _sort_tells_apart(gold: ExecResult, pred: ExecResult, ordered: bool) -> bool:
    """The official pre-check (each row's values sorted by text and type) finds the results different."""
    if not (gold.ok and pred.ok and gold.rows and len(gold.rows) == len(pred.rows)):
        return False
    return not passes_row_sort(gold.rows, pred.rows, ordered)


def explain(
    official: int | None,
    ours: int | None,
    gold: ExecResult,
    pred: ExecResult,
    gold_sql: str,
    pred_sql: str,
) -> str | None:
    """The official quirks that make `official` differ from `ours` (`ex_spider`), joined by ' + '."""
    if official == ours:
        return None
    if official is None:
        if pred.error_kind == "forbidden":
            return "writable-db"
        if gold.truncated or pred.truncated:
            return "row-cap"
        return "search-cut" if gold.ok and pred.ok else None
    quirks = []
    stripped = pred_sql.strip()
    if stripped.split("\t")[0].strip() != stripped:
        quirks.append("tab-cut")
    if "value" in stripped.split("\t")[0]:
        quirks.append("value-to-1")
    ordered = official_order_matters(gold_sql)
    if ordered != order_matters(gold_sql):
        quirks.append("order-by-substring")
    if _sort_rejects(gold, pred, ordered):
        quirks.append("mixed-type-sort")
    if pred.error_kind == "forbidden":
        quirks.append("writable-db")
    return " + ".join(quirks) if quirks else None


def official_outcome(
    gold: ExecResult, pred: ExecResult, gold_sql: str, pred_sql: str, ex_spider: int | None
) -> OfficialVerdict:
    """`ex_official` and the quirk that separates it from `ex_spider`, from the official texts' results."""
    ex = official_verdict(gold, pred, gold_sql, pred_sql)
    return OfficialVerdict(ex, explain(ex, ex_spider, gold, pred, gold_sql, pred_sql))
