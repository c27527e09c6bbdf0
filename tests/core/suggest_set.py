"""The hand-labelled set of error causes: rows that point into ../shared/data, read on demand.

`fixtures/suggest_labels.tsv` holds only references (dataset, source, index), the labels and a reason.
Spider rows name a system's prediction file, BIRD rows the ChatGPT + knowledge baseline, Archer rows a
mutation of the gold query (there are no public Archer predictions): `mutate()` applies it here, so the
mutated SQL is rebuilt from the data at run time and never stored.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from sqlglot import exp

from sqltriage.core.model import Schema
from sqltriage.core.sql.parse import parse_sql

LABELS = Path(__file__).parent / "fixtures" / "suggest_labels.tsv"


@dataclass(frozen=True, slots=True)
class LabelledRow:
    dataset: str  # spider | bird | archer
    source: str  # system file stem, "chatgpt_kg", or "mutate:NAME"
    index: int
    split: str  # tune | held
    labels: tuple[str, ...]  # empty: the prediction is right
    reason: str
    gold_sql: str
    pred_sql: str
    evidence: str | None
    db_path: Path | None
    schema: Schema | None
    question: str = ""

    @property
    def wrong(self) -> bool:
        return bool(self.labels)


def read_label_file(path: Path = LABELS) -> list[dict[str, str]]:
    lines = [line for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


def load_rows(data: Path, path: Path = LABELS) -> list[LabelledRow]:
    """Every labelled row with its SQL, evidence, database and schema read from `data` (../shared/data)."""
    rows = []
    for r in read_label_file(path):
        dataset, source, index = r["dataset"], r["source"], int(r["index"])
        gold, pred, evidence, db, schema = _resolve(data, dataset, source, index)
        labels = tuple(t.strip() for t in (r["labels"] or "").split(";") if t.strip())
        rows.append(
            LabelledRow(
                dataset,
                source,
                index,
                r["split"],
                labels,
                r["reason"],
                gold,
                pred,
                evidence,
                db,
                schema,
                question_of(data, dataset, index),
            )
        )
    return rows


def _resolve(data: Path, dataset: str, source: str, index: int) -> tuple:
    if dataset == "spider":
        ex = _json(data / "spider_dev" / "dev.json")[index]
        pred = _lines(data / "spider_dev" / "predictions" / f"{source}.sql")[index]
        db = data / "spider_dev" / "database" / ex["db_id"] / f"{ex['db_id']}.sqlite"
        return ex["query"], pred, None, db if db.exists() else None, _schema(db)
    if dataset == "bird":
        ex = _json(data / "bird_dev" / "dev.json")[index]
        raw = _json(data / "bird_dev" / "predict_dev_chatgpt_kg.json")[str(index)]
        schema = _bird_schemas(data / "bird_dev" / "dev_tables.json").get(ex["db_id"])
        return ex["SQL"], raw.split("\t----- bird -----\t")[0], ex.get("evidence"), None, schema
    if dataset == "archer":
        ex = _json(data / "archer" / "train.json")[index]
        db = data / "archer" / "database" / ex["db_id"] / f"{ex['db_id']}.sqlite"
        pred = mutate(ex["query"], source.removeprefix("mutate:"))
        return ex["query"], pred, ex.get("commonsense_knowledge"), db if db.exists() else None, _schema(db)
    raise ValueError(f"{LABELS}: unknown dataset {dataset!r} (spider, bird or archer)")


def question_of(data: Path, dataset: str, index: int) -> str:
    """The example's question (Archer's and BIRD's as the dataset writes them)."""
    path = {"spider": "spider_dev/dev.json", "bird": "bird_dev/dev.json", "archer": "archer/train.json"}[
        dataset
    ]
    return str(_json(data / path)[index]["question"])


@cache
def _json(path: Path) -> object:
    return json.loads(path.read_text())


@cache
def _lines(path: Path) -> list[str]:
    return path.read_text().split("\n")


@cache
def _bird_schemas(path: Path) -> dict[str, Schema]:
    from sqltriage.core.datasets.schema import load_tables_json

    return load_tables_json(path)


@cache
def _schema(db: Path) -> Schema | None:
    from sqltriage.core.datasets.schema import schema_from_sqlite

    return schema_from_sqlite(db) if db.exists() else None


# --- mutations of Archer gold: one known error each ------------------------------------------------------


def _top(tree: exp.Expression) -> exp.Select | None:
    node = tree
    while isinstance(node, exp.SetOperation):
        node = node.this
    return node if isinstance(node, exp.Select) else None


def _drop_conjunct(s: exp.Select) -> bool:
    where = s.args.get("where")
    if where is None or not isinstance(where.this, exp.And):
        return False
    where.set("this", where.this.this)
    return True


def _flip_order(s: exp.Select) -> bool:
    order = s.args.get("order")
    if order is None:
        return False
    first = order.expressions[0]
    first.set("desc", not first.args.get("desc"))
    return True


def _add_distinct(s: exp.Select) -> bool:
    if s.args.get("distinct") or s.args.get("group") or s.find(exp.AggFunc) is not None:
        return False
    s.set("distinct", exp.Distinct())
    return True


def _left_join(s: exp.Select) -> bool:
    joins = s.args.get("joins") or []
    if not joins or not joins[0].args.get("on"):
        return False
    joins[0].set("side", "LEFT")
    joins[0].set("kind", None)
    return True


def _swap_aggregate(s: exp.Select) -> bool:
    swap = {exp.Max: exp.Min, exp.Min: exp.Max, exp.Sum: exp.Avg, exp.Avg: exp.Sum}
    for node in s.find_all(exp.Max, exp.Min, exp.Sum, exp.Avg):
        node.replace(swap[type(node)](this=node.this.copy()))
        return True
    return False


def _where_literal(s: exp.Select, string: bool) -> exp.Literal | None:
    where = s.args.get("where")
    if where is None:
        return None
    for lit in where.find_all(exp.Literal):
        if lit.is_string == string and (not string or lit.this.upper() != lit.this):
            return lit
    return None


def _value_case(s: exp.Select) -> bool:
    lit = _where_literal(s, string=True)
    if lit is None:
        return False
    lit.replace(exp.Literal.string(lit.this.upper()))
    return True


def _value_change(s: exp.Select) -> bool:
    lit = _where_literal(s, string=False)
    if lit is None:
        return False
    lit.replace(exp.Literal.number(float(lit.this) + 1 if "." in lit.this else int(lit.this) + 1))
    return True


def _swap_comparison(s: exp.Select) -> bool:
    swap = {
        exp.GT: exp.GTE,
        exp.GTE: exp.GT,
        exp.LT: exp.LTE,
        exp.LTE: exp.LT,
        exp.EQ: exp.NEQ,
        exp.NEQ: exp.EQ,
    }
    where = s.args.get("where")
    if where is None:
        return False
    for node in where.find_all(*swap):
        if isinstance(node.this, exp.Column) and not isinstance(node.expression, exp.Column):
            node.replace(swap[type(node)](this=node.this.copy(), expression=node.expression.copy()))
            return True
    return False


def _and_to_or(s: exp.Select) -> bool:
    where = s.args.get("where")
    if where is None or not isinstance(where.this, exp.And):
        return False
    where.set("this", exp.Or(this=where.this.this.copy(), expression=where.this.expression.copy()))
    return True


def _extra_column(s: exp.Select) -> bool:
    where = s.args.get("where")
    col = where.find(exp.Column) if where is not None else None
    if col is None:
        return False
    s.set("expressions", [*s.expressions, col.copy()])
    return True


def _drop_column(s: exp.Select) -> bool:
    if len(s.expressions) < 2:
        return False
    s.set("expressions", s.expressions[:-1])
    return True


def _drop_group(s: exp.Select) -> bool:
    if not s.args.get("group"):
        return False
    s.set("group", None)
    s.set("having", None)
    return True


def _rename_aliases(s: exp.Select) -> bool:
    for item in s.expressions:
        if isinstance(item, exp.Alias):
            item.set("alias", exp.to_identifier(f"{item.alias}_renamed"))
    return True


MUTATIONS: dict[str, tuple[Callable[[exp.Select], bool], str]] = {
    "drop_conjunct": (_drop_conjunct, "Condition: explicit missing"),
    "flip_order": (_flip_order, "Other: ASC/DESC"),
    "add_distinct": (_add_distinct, "Other: DISTINCT"),
    "left_join": (_left_join, "Table: join type"),
    "swap_aggregate": (_swap_aggregate, "Function: aggregate"),
    "value_case": (_value_case, "Value: data format"),
    "value_change": (_value_change, "Value: mismatch"),
    "swap_comparison": (_swap_comparison, "Operator: comparison"),
    "and_to_or": (_and_to_or, "Operator: logical"),
    "extra_column": (_extra_column, "Attribute: redundant"),
    "drop_column": (_drop_column, "Attribute: missing"),
    "drop_group": (_drop_group, "Clause: missing"),
    "rename_aliases": (_rename_aliases, ""),
}


def mutate(gold_sql: str, name: str) -> str:
    """Gold with one mutation applied to its outermost SELECT; raises when it does not apply."""
    parsed = parse_sql(gold_sql)
    if not parsed.ok or parsed.tree is None:
        raise ValueError(f"gold does not parse: {parsed.error}")
    tree = parsed.tree.copy()
    top = _top(tree)
    fn, _ = MUTATIONS[name]
    if top is None or not fn(top):
        raise ValueError(f"mutation {name} does not apply to: {gold_sql}")
    return tree.sql(dialect="sqlite")
