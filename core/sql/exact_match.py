"""Spider's exact-set match, as the official evaluator computes it (`em_spider`) and with JOIN ON compared (`em`).

A port of taoyds/test-suite-sql-eval evaluation.py (Evaluator.eval_exact_match and its eval_* functions,
rebuild_sql_val / rebuild_sql_col with the tables.json foreign-key map) over the structure that
spider_struct builds from a sqlglot parse. The official quirks are kept on purpose, because the
reference labels have them: values are ignored (except inside FROM subqueries), DISTINCT is ignored at
the top level but not inside WHERE subqueries, only the presence of LIMIT counts, GROUP BY is compared
by column name without its table. The deliberate differences are listed in docs/em-differences.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqltriage.core.model import Schema
from sqltriage.core.sql.parse import ParsedQuery, parse_sql
from sqltriage.core.sql.spider_struct import (
    WHERE_OPS,
    SchemaIndex,
    SqlDict,
    StructError,
    clause_order_error,
    schema_index,
    to_struct,
)

_IUEN = ("intersect", "except", "union")


@dataclass(frozen=True, slots=True)
class ExactMatch:
    """Both exact-set-match verdicts of one prediction.

    Scores are None only when the gold query cannot be analysed; a prediction that cannot be analysed
    scores 0 with `error` saying why. `reason` names the first component that differs (None on a match).
    """

    em: int | None
    em_spider: int | None
    error: str | None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class _Analysed:
    """One query in both comparison forms: official (JOIN ON stripped) and with JOIN ON kept."""

    spider: SqlDict
    with_on: SqlDict


def exact_match(gold_sql: str | ParsedQuery, pred_sql: str | ParsedQuery, schema: Schema) -> ExactMatch:
    """Exact-set match of a prediction against the gold query, both read with `schema` (tables.json).

    Either side may be an earlier `parse_sql` result, so a pipeline parses each query once.
    """
    gold = _cached(_GOLD_CACHE, gold_sql, schema)
    if isinstance(gold, str):
        return ExactMatch(None, None, f"gold query: {gold}")
    pred = _cached(_PRED_CACHE, pred_sql, schema)
    if isinstance(pred, str):
        return ExactMatch(0, 0, f"prediction: {pred}", "unparsed")
    spider_reason = _differs(pred.spider, gold.spider, with_on=False)
    if spider_reason is not None:
        return ExactMatch(0, 0, None, spider_reason)
    on_reason = _differs(pred.with_on, gold.with_on, with_on=True)
    return ExactMatch(int(on_reason is None), 1, None, on_reason)


# Analyses by (query text, schema identity). Gold queries repeat for every model; about a third of the
# predictions of different models on Spider dev are the same text. An entry is a few kB; both caches are
# bounded (oldest out first). The cached structures are never mutated: every comparison only reads them.
_CACHE_SIZE = 8192
_Cache = dict[tuple[str, int], tuple[Schema, "_Analysed | str"]]
_GOLD_CACHE: _Cache = {}
_PRED_CACHE: _Cache = {}


def _cached(cache: _Cache, query: str | ParsedQuery, schema: Schema) -> _Analysed | str:
    text = query.sql if isinstance(query, ParsedQuery) else query
    key = (text, id(schema))  # by identity: hashing a whole schema per call costs more than the match
    hit = cache.get(key)
    if hit is not None and hit[0] is schema:
        return hit[1]
    found = _analyse(query, schema)
    if len(cache) >= _CACHE_SIZE:
        cache.pop(next(iter(cache)))
    cache[key] = (schema, found)  # the schema is kept alive, so its id cannot be reused
    return found


def _analyse(query: str | ParsedQuery, schema: Schema) -> _Analysed | str:
    parsed = query if isinstance(query, ParsedQuery) else parse_sql(query, schema)
    if parsed.tree is None or parsed.error is not None:
        return parsed.error or "does not parse"
    if (order := clause_order_error(parsed.sql)) is not None:
        return order
    try:
        struct = to_struct(parsed.tree, schema)
    except StructError as exc:
        return str(exc)
    except Exception as exc:  # untrusted text: a tree we did not foresee is a row error, not a crash
        return f"cannot analyse ({type(exc).__name__}: {exc})"
    index = schema_index(schema)
    with_on = official_normal_form(struct, index)
    spider = official_normal_form(_official_reading(struct) or struct, index)
    return _Analysed(spider, with_on)


# --- rebuild_sql_val / rebuild_sql_col -------------------------------------------------------------


def official_normal_form(sql: SqlDict, index: SchemaIndex) -> SqlDict:
    """Values dropped and foreign-key columns mapped, as the official evaluate() does before comparing."""
    valid: set[str] = set()
    for kind, unit in sql["from"]["table_units"]:
        if kind == "table_unit":
            valid |= index.table_column_ids(unit.strip("_"))
    return _rebuild_col(valid, _rebuild_val(sql), index.kmap)


def _rebuild_val(sql: SqlDict | None) -> SqlDict | None:
    if sql is None:
        return None
    out = dict(sql)
    out["from"] = {**sql["from"], "conds": _condition_val(sql["from"]["conds"])}
    out["having"] = _condition_val(sql["having"])
    out["where"] = _condition_val(sql["where"])
    for op in _IUEN:
        out[op] = _rebuild_val(sql[op])
    return out


def _condition_val(condition: list[Any]) -> list[Any]:
    res: list[Any] = []
    for i, item in enumerate(condition):
        if i % 2 == 0:
            not_op, op_id, val_unit, val1, val2 = item
            val1 = _rebuild_val(val1) if isinstance(val1, dict) else None
            val2 = _rebuild_val(val2) if isinstance(val2, dict) else None
            res.append((not_op, op_id, val_unit, val1, val2))
        else:
            res.append(item)
    return res


def _rebuild_col(valid: set[str], sql: SqlDict | None, kmap: dict[str, str]) -> SqlDict | None:
    if sql is None:
        return None

    def col(unit: Any) -> Any:
        if unit is None:
            return None
        agg_id, col_id, _distinct = unit
        if col_id in kmap and col_id in valid:
            col_id = kmap[col_id]
        return agg_id, col_id, None  # DISABLE_DISTINCT

    def val(unit: Any) -> Any:
        if unit is None:
            return None
        unit_op, c1, c2 = unit
        return unit_op, col(c1), col(c2)

    def cond(condition: list[Any]) -> list[Any]:
        return [(c[0], c[1], val(c[2]), c[3], c[4]) if i % 2 == 0 else c for i, c in enumerate(condition)]

    out = dict(sql)
    out["select"] = (None, [(agg, val(v)) for agg, v in sql["select"][1]])
    out["from"] = {"table_units": list(sql["from"]["table_units"]), "conds": cond(sql["from"]["conds"])}
    out["where"] = cond(sql["where"])
    out["groupBy"] = [col(u) for u in sql["groupBy"]]
    if sql["orderBy"]:
        direction, units = sql["orderBy"]
        out["orderBy"] = (direction, [val(u) for u in units])
    out["having"] = cond(sql["having"])
    for op in _IUEN:
        out[op] = _rebuild_col(valid, sql[op], kmap)
    return out


def _official_reading(sql: SqlDict | None) -> SqlDict | None:
    """The structure as the official parser would have read it: without our 'join_on' key, and with
    the conditions its value scanner swallows dropped. After a column on the value side
    (`a = T2.b OR c = 1`) it skips every token up to the next AND, comma, parenthesis or clause
    keyword, so the OR branches that follow vanish from the comparison."""
    if sql is None:
        return None
    out = {k: v for k, v in sql.items() if k != "join_on"}
    out["from"] = {
        "table_units": [
            (k, _official_reading(u) if k == "sql" else u) for k, u in sql["from"]["table_units"]
        ],
        "conds": _official_condition(sql["from"]["conds"]),
    }
    out["where"] = _official_condition(sql["where"])
    out["having"] = _official_condition(sql["having"])
    for op in _IUEN:
        out[op] = _official_reading(sql[op])
    return out


def _official_condition(condition: list[Any]) -> list[Any]:
    out = []
    for i, item in enumerate(_swallow(condition)):
        if i % 2 == 0 and (isinstance(item[3], dict) or isinstance(item[4], dict)):
            v1 = _official_reading(item[3]) if isinstance(item[3], dict) else item[3]
            v2 = _official_reading(item[4]) if isinstance(item[4], dict) else item[4]
            item = (item[0], item[1], item[2], v1, v2)
        out.append(item)
    return out


def _is_col_unit(value: Any) -> bool:
    return (
        isinstance(value, tuple)
        and len(value) == 3
        and isinstance(value[0], int)
        and isinstance(value[1], str)
    )


def _swallow(condition: list[Any]) -> list[Any]:
    out: list[Any] = []
    skipping = False
    for i, item in enumerate(condition):
        if i % 2 == 1:  # 'and' | 'or'
            if skipping and item == "or":
                continue
            skipping = False
            out.append(item)
        elif skipping:
            continue
        else:
            out.append(item)
            skipping = item[1] != WHERE_OPS.index("between") and _is_col_unit(item[3])
    return out


# --- Evaluator.eval_exact_match ------------------------------------------------------------------


def _same_bag(pred: list[Any], label: list[Any]) -> bool:
    """get_scores(count, pred_total, label_total) == 1 for the remove-as-you-match count."""
    if len(pred) != len(label):
        return False
    rest = list(label)
    for unit in pred:
        if unit not in rest:
            return False
        rest.remove(unit)
    return True


def _eval_select(pred: SqlDict, label: SqlDict) -> bool:
    return _same_bag(pred["select"][1], label["select"][1])


def _eval_where(pred: SqlDict, label: SqlDict) -> bool:
    return _same_bag(pred["where"][::2], label["where"][::2])


def _eval_group(pred: SqlDict, label: SqlDict) -> bool:
    def names(sql: SqlDict) -> list[str]:
        return [u[1].split(".")[1] if "." in u[1] else u[1] for u in sql["groupBy"]]

    return _same_bag(names(pred), names(label))


def _eval_having(pred: SqlDict, label: SqlDict) -> bool:
    has_pred, has_label = bool(pred["groupBy"]), bool(label["groupBy"])
    if has_pred != has_label:
        return False
    if not has_pred:
        return True
    same_cols = [u[1] for u in pred["groupBy"]] == [u[1] for u in label["groupBy"]]
    return same_cols and pred["having"] == label["having"]


def _eval_order(pred: SqlDict, label: SqlDict) -> bool:
    has_pred, has_label = bool(pred["orderBy"]), bool(label["orderBy"])
    if has_pred != has_label:
        return False
    if not has_pred:
        return True
    same_limit = (pred["limit"] is None) == (label["limit"] is None)
    return pred["orderBy"] == label["orderBy"] and same_limit


def _eval_and_or(pred: SqlDict, label: SqlDict) -> bool:
    return set(pred["where"][1::2]) == set(label["where"][1::2])


def _keywords(sql: SqlDict) -> set[str]:
    res: set[str] = set()
    if sql["where"]:
        res.add("where")
    if sql["groupBy"]:
        res.add("group")
    if sql["having"]:
        res.add("having")
    if sql["orderBy"]:
        res.add(sql["orderBy"][0])
        res.add("order")
    if sql["limit"] is not None:
        res.add("limit")
    for op in _IUEN:
        if sql[op] is not None:
            res.add(op)
    if "or" in sql["from"]["conds"][1::2] + sql["where"][1::2] + sql["having"][1::2]:
        res.add("or")
    units = sql["from"]["conds"][::2] + sql["where"][::2] + sql["having"][::2]
    if any(u[0] for u in units):
        res.add("not")
    if any(u[1] == WHERE_OPS.index("in") for u in units):
        res.add("in")
    if any(u[1] == WHERE_OPS.index("like") for u in units):
        res.add("like")
    return res


def _eval_keywords(pred: SqlDict, label: SqlDict) -> bool:
    return _keywords(pred) == _keywords(label)


def _eval_tables(pred: SqlDict, label: SqlDict) -> bool:
    if not label["from"]["table_units"]:
        return True  # the official code only compares FROM when the gold has one
    return _same_bag(pred["from"]["table_units"], label["from"]["table_units"])


def _eval_join_on(pred: SqlDict, label: SqlDict) -> bool:
    return pred.get("join_on") == label.get("join_on")


_COMPONENTS: tuple[tuple[str, Callable[[SqlDict, SqlDict], bool]], ...] = (
    ("select", _eval_select),
    ("where", _eval_where),
    ("group", _eval_group),
    ("having", _eval_having),
    ("order", _eval_order),
    ("and/or", _eval_and_or),
    ("keywords", _eval_keywords),
)


def _differs(pred: SqlDict, label: SqlDict, *, with_on: bool) -> str | None:
    """The first component that differs (None: exact match); IUEN recurses like eval_nested."""
    if with_on and not _eval_join_on(pred, label):
        return "join on"
    for name, check in _COMPONENTS:
        if not check(pred, label):
            return name
    for op in _IUEN:
        p, g = pred[op], label[op]
        if (p is None) != (g is None):
            return "set operator"
        if p is not None and g is not None:
            inner = _differs(p, g, with_on=with_on)
            if inner is not None:
                return f"{op}: {inner}"
    if not _eval_tables(pred, label):
        return "from"
    return None
