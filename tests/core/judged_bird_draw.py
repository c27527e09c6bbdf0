"""Draw the hand-judged BIRD set of the judgement without a database, printed for judging by hand.

`python -m tests.core.judged_bird_draw [--dump]` reads BIRD dev (../shared/data/bird_dev) and prints the
drawn rows. BIRD's databases are not at hand, so each row is judged by reading question, evidence, schema and
both queries; the set exists to measure a judgement made from the schema alone. The draw is reproducible
(seed 40) and takes two strata:

- `model`: 160 predictions of the ChatGPT + knowledge baseline (predict_dev_chatgpt_kg.json), stratified over
  difficulty (70 simple, 55 moderate, 35 challenging: the harder levels over-sampled) and, within each, over
  the 11 databases in turn. The 14 examples the baseline left without a prediction are not drawn.
- `mutated`: 50 golds of other examples, each changed by one named, deterministic sqlglot transformation that
  mimics a typical model error (a wrong column of the same table, a dropped condition, `<` for `<=`, a missing
  DISTINCT, integer division, a wrong join key, LIMIT 1 for all ties, a flipped order, a wrong literal) or is
  meant to be harmless (reordered conditions, renamed aliases, BETWEEN spelt out), so that both calls occur.

A row is in the held-back part when `held_back(source, index)` says so (about a third), decided by a digest,
never by what the row holds. `--dump` prints, for judging, the question, evidence, the schema of the tables
the queries name, the gold and the prediction (for a mutated row: the mutated gold).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import sys
from collections.abc import Callable
from pathlib import Path

import sqlglot
from sqlglot import exp

from tests.conftest import SHARED_DATA

SEED = 40
N_MODEL = {"simple": 70, "moderate": 55, "challenging": 35}
SOURCE = "chatgpt_kg"
SEPARATOR = "\t----- bird -----\t"
DATA = SHARED_DATA / "bird_dev"

Schema = dict[str, dict[str, str]]  # table (lower case) -> column name -> declared type (lower case)


def held_back(source: str, index: int) -> bool:
    """The held-back third of the set: scored once, at the end, never read while rules are tuned."""
    return hashlib.sha256(f"{source}:{index}".encode()).digest()[0] % 3 == 0


def load(data: Path = DATA) -> tuple[list[dict], dict[int, str], dict[str, Schema]]:
    """dev.json, the baseline's predictions by index (missing ones left out) and each database's schema."""
    dev = json.loads((data / "dev.json").read_text())
    raw = json.loads((data / "predict_dev_chatgpt_kg.json").read_text())
    preds = {int(k): v.split(SEPARATOR)[0].strip() for k, v in raw.items() if isinstance(v, str)}
    schemas: dict[str, Schema] = {}
    for db in json.loads((data / "dev_tables.json").read_text()):
        tables: Schema = {t.lower(): {} for t in db["table_names_original"]}
        names = db["table_names_original"]
        for (t, c), typ in zip(db["column_names_original"], db["column_types"], strict=True):
            if t >= 0:
                tables[names[t].lower()][c] = typ.lower()
        schemas[db["db_id"]] = tables
    return dev, preds, schemas


# --- mutations: each returns the mutated tree, or None where it does not apply -------------------------


def _conjuncts(node: exp.Expression | None) -> list[exp.Expression]:
    return list(node.flatten()) if isinstance(node, exp.And) else ([node] if node is not None else [])


def _aliases(select: exp.Expression) -> dict[str, str]:
    """Alias or table name (lower case) -> table name (lower case), for the tables of the whole query."""
    out: dict[str, str] = {}
    for t in select.find_all(exp.Table):
        out[t.alias_or_name.lower()] = t.name.lower()
        out.setdefault(t.name.lower(), t.name.lower())
    return out


def _table_of(col: exp.Column, select: exp.Select, schema: Schema) -> str | None:
    """The table a column reads, from its qualifier or, unqualified, the only table that has it."""
    aliases = _aliases(select)
    if col.table:
        return aliases.get(col.table.lower())
    having = [t for t in set(aliases.values()) if col.name in schema.get(t, {})]
    return having[0] if len(having) == 1 else None


def _ident(name: str) -> exp.Identifier:
    return exp.to_identifier(name, quoted=not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name))


def wrong_column(tree: exp.Expression, schema: Schema, rng: random.Random) -> exp.Expression | None:
    """A projected column replaced by another column of the same table and type."""
    if not isinstance(tree, exp.Select):
        return None
    options = []
    for proj in tree.expressions:
        for col in proj.find_all(exp.Column):
            table = _table_of(col, tree, schema)
            if table is None or col.name not in schema.get(table, {}):
                continue
            typ = schema[table][col.name]
            others = [c for c, t in schema[table].items() if t == typ and c.lower() != col.name.lower()]
            if others:
                options.append((col, others))
    if not options:
        return None
    col, others = rng.choice(options)
    col.set("this", _ident(rng.choice(others)))
    return tree


def drop_condition(tree: exp.Expression, schema: Schema, rng: random.Random) -> exp.Expression | None:
    """One of the top-level WHERE's AND conditions left out."""
    where = tree.args.get("where") if isinstance(tree, exp.Select) else None
    parts = _conjuncts(where.this) if where else []
    if len(parts) < 2:
        return None
    parts.pop(rng.randrange(len(parts)))
    where.set("this", exp.and_(*[p.copy() for p in parts]))
    return tree


def boundary(tree: exp.Expression, schema: Schema, rng: random.Random) -> exp.Expression | None:
    """One comparison's bound made strict or inclusive: `<` for `<=` and the like."""
    swap = {exp.LT: exp.LTE, exp.LTE: exp.LT, exp.GT: exp.GTE, exp.GTE: exp.GT}
    found = [n for n in tree.find_all(exp.LT, exp.LTE, exp.GT, exp.GTE)]
    if not found:
        return None
    node = rng.choice(found)
    node.replace(swap[type(node)](this=node.this.copy(), expression=node.expression.copy()))
    return tree


def drop_distinct(tree: exp.Expression, schema: Schema, rng: random.Random) -> exp.Expression | None:
    """A DISTINCT left out, of a SELECT or of a COUNT."""
    found: list[exp.Expression] = [s for s in tree.find_all(exp.Select) if s.args.get("distinct")]
    found += [c for c in tree.find_all(exp.Count) if isinstance(c.this, exp.Distinct)]
    if not found:
        return None
    node = rng.choice(found)
    if isinstance(node, exp.Select):
        node.set("distinct", None)
    else:
        inner = node.this.expressions
        if len(inner) != 1:
            return None
        node.set("this", inner[0].copy())
    return tree


def int_division(tree: exp.Expression, schema: Schema, rng: random.Random) -> exp.Expression | None:
    """A CAST(... AS REAL) under a division left out: integer division where the operands are integers."""
    found = [
        c
        for c in tree.find_all(exp.Cast)
        if c.to.this in (exp.DataType.Type.FLOAT, exp.DataType.Type.DOUBLE) and c.find_ancestor(exp.Div)
    ]
    if not found:
        return None
    node = rng.choice(found)
    node.replace(node.this.copy())
    return tree


def join_key(tree: exp.Expression, schema: Schema, rng: random.Random) -> exp.Expression | None:
    """One side of a join's equality replaced by another id-like column of the same table."""
    options = []
    for select in tree.find_all(exp.Select):
        for join in select.args.get("joins") or []:
            on = join.args.get("on")
            if not isinstance(on, exp.EQ):
                continue
            for col in (on.this, on.expression):
                if not isinstance(col, exp.Column):
                    continue
                table = _table_of(col, select, schema)
                if table is None or col.name not in schema.get(table, {}):
                    continue
                ids = [
                    c
                    for c in schema[table]
                    if c.lower() != col.name.lower() and re.search(r"(id|_no|code)$", c, re.IGNORECASE)
                ]
                if ids:
                    options.append((col, ids))
    if not options:
        return None
    col, ids = rng.choice(options)
    col.set("this", _ident(rng.choice(ids)))
    return tree


def limit_one(tree: exp.Expression, schema: Schema, rng: random.Random) -> exp.Expression | None:
    """`x = (SELECT MAX(x) ...)` turned into ORDER BY x DESC LIMIT 1: one row where ties may be several."""
    if not isinstance(tree, exp.Select) or any(tree.args.get(k) for k in ("order", "limit", "group")):
        return None
    if any(p.find(exp.AggFunc) for p in tree.expressions):
        return None
    where = tree.args.get("where")
    parts = _conjuncts(where.this) if where else []
    for i, part in enumerate(parts):
        if not isinstance(part, exp.EQ) or not isinstance(part.expression, exp.Subquery):
            continue
        inner = part.expression.this
        if not isinstance(inner, exp.Select) or len(inner.expressions) != 1:
            continue
        agg = inner.expressions[0].unalias()
        if not isinstance(agg, exp.Max | exp.Min):
            continue
        rest = [p.copy() for j, p in enumerate(parts) if j != i]
        tree.set("where", exp.Where(this=exp.and_(*rest)) if rest else None)
        key = part.this.copy()
        desc = isinstance(agg, exp.Max)  # SQLite's own NULL order for the direction: no NULLS clause
        tree = tree.order_by(exp.Ordered(this=key, desc=desc, nulls_first=not desc), copy=False)
        return tree.limit(1, copy=False)
    return None


def order_direction(tree: exp.Expression, schema: Schema, rng: random.Random) -> exp.Expression | None:
    """The first ORDER BY key of a LIMIT query sorted the other way: lowest for highest."""
    found = [s for s in tree.find_all(exp.Select) if s.args.get("order") and s.args.get("limit")]
    if not found:
        return None
    first = rng.choice(found).args["order"].expressions[0]
    first.set("desc", not first.args.get("desc"))
    first.set("nulls_first", not first.args.get("desc"))  # SQLite's own NULL order: no NULLS clause
    return tree


def wrong_literal(tree: exp.Expression, schema: Schema, rng: random.Random) -> exp.Expression | None:
    """A string value compared with `=` written in another case: 'Female' for 'female', 'f' for 'F'."""
    found = [
        n
        for eq in tree.find_all(exp.EQ)
        for n in (eq.this, eq.expression)
        if isinstance(n, exp.Literal) and n.is_string and n.this.lower() != n.this.upper()
    ]
    if not found:
        return None
    lit = rng.choice(found)
    text = lit.this
    new = text.lower() if text != text.lower() else text[:1].upper() + text[1:]
    lit.replace(exp.Literal.string(new))
    return tree


def reorder_and(tree: exp.Expression, schema: Schema, rng: random.Random) -> exp.Expression | None:
    """The top-level WHERE's AND conditions in reverse order (harmless)."""
    where = tree.args.get("where") if isinstance(tree, exp.Select) else None
    parts = _conjuncts(where.this) if where else []
    if len(parts) < 2:
        return None
    where.set("this", exp.and_(*[p.copy() for p in reversed(parts)]))
    return tree


def rename_aliases(tree: exp.Expression, schema: Schema, rng: random.Random) -> exp.Expression | None:
    """Every table alias renamed (T1 -> a1, ...) where only tables carry aliases (harmless)."""
    if any(s.alias for s in tree.find_all(exp.Subquery)):
        return None
    names: dict[str, str] = {}
    for t in tree.find_all(exp.Table):
        if t.alias:
            names.setdefault(t.alias.lower(), f"a{len(names) + 1}")
    if not names:
        return None
    for t in tree.find_all(exp.Table):
        if t.alias:
            t.set("alias", exp.TableAlias(this=exp.to_identifier(names[t.alias.lower()])))
    for col in tree.find_all(exp.Column):
        if col.table and col.table.lower() in names:
            col.set("table", exp.to_identifier(names[col.table.lower()]))
    return tree


def between_bounds(tree: exp.Expression, schema: Schema, rng: random.Random) -> exp.Expression | None:
    """`x BETWEEN a AND b` spelt out as `x >= a AND x <= b` (harmless)."""
    found = list(tree.find_all(exp.Between))
    if not found:
        return None
    node = rng.choice(found)
    low = exp.GTE(this=node.this.copy(), expression=node.args["low"].copy())
    high = exp.LTE(this=node.this.copy(), expression=node.args["high"].copy())
    node.replace(exp.Paren(this=exp.and_(low, high)))
    return tree


Mutation = Callable[[exp.Expression, Schema, random.Random], exp.Expression | None]
# name -> (transformation, rows drawn); the last three are meant to keep the query's meaning.
MUTATIONS: dict[str, tuple[Mutation, int]] = {
    "wrong_column": (wrong_column, 5),
    "drop_condition": (drop_condition, 5),
    "boundary": (boundary, 4),
    "drop_distinct": (drop_distinct, 4),
    "int_division": (int_division, 4),
    "join_key": (join_key, 4),
    "limit_one": (limit_one, 4),
    "order_direction": (order_direction, 4),
    "wrong_literal": (wrong_literal, 4),
    "reorder_and": (reorder_and, 4),
    "rename_aliases": (rename_aliases, 4),
    "between_bounds": (between_bounds, 4),
}


def mutate(name: str, gold: str, index: int, schema: Schema) -> str | None:
    """The gold of example `index` under mutation `name` (SQLite text), or None where it does not apply."""
    tree = sqlglot.parse_one(gold, read="sqlite")
    before = tree.sql(dialect="sqlite")
    out = MUTATIONS[name][0](tree, schema, random.Random(f"{SEED}:{name}:{index}"))
    if out is None:
        return None
    after = out.sql(dialect="sqlite")
    return after if after != before else None


def draw(data: Path = DATA) -> list[tuple[str, str, int, str]]:
    """(stratum, source, index, pred_sql) of every drawn row, in draw order."""
    dev, preds, schemas = load(data)
    rng = random.Random(SEED)
    out: list[tuple[str, str, int, str]] = []
    for level, n in N_MODEL.items():
        by_db: dict[str, list[int]] = {}
        for ex in dev:
            if ex["difficulty"] == level and ex["question_id"] in preds:
                by_db.setdefault(ex["db_id"], []).append(ex["question_id"])
        dbs = sorted(by_db)
        rng.shuffle(dbs)
        for db in dbs:
            rng.shuffle(by_db[db])
        taken = 0
        while taken < n:
            for db in dbs:
                if taken < n and by_db[db]:
                    i = by_db[db].pop()
                    out.append(("model", SOURCE, i, preds[i]))
                    taken += 1
    used = {i for _s, _src, i, _p in out}
    pool = [ex["question_id"] for ex in dev if ex["question_id"] not in used]
    rng.shuffle(pool)
    for name, (_fn, n) in MUTATIONS.items():
        for i in pool:
            if n == 0:
                break
            if i in used:
                continue
            sql = mutate(name, dev[i]["SQL"], i, schemas[dev[i]["db_id"]])
            if sql is not None:
                used.add(i)
                out.append(("mutated", name, i, sql))
                n -= 1
    return out


def _schema_text(db_id: str, sqls: list[str], data: Path) -> str:
    """The tables the queries name, with column types, keys and foreign keys."""
    db = next(d for d in json.loads((data / "dev_tables.json").read_text()) if d["db_id"] == db_id)
    text = " ".join(sqls).lower()
    names = db["table_names_original"]
    cols = db["column_names_original"]
    pks = {k for pk in db["primary_keys"] for k in (pk if isinstance(pk, list) else [pk])}
    lines = []
    for t, name in enumerate(names):
        if not re.search(rf"(?<![\w]){re.escape(name.lower())}(?![\w])", text):
            continue
        mine = [(k, c) for k, (tt, c) in enumerate(cols) if tt == t]
        shown = [(k, c) for k, c in mine if k in pks or c.lower() in text]  # wide tables: what is named
        parts = [f"{c} {db['column_types'][k]}{' PK' if k in pks else ''}" for k, c in shown]
        if len(shown) < len(mine):
            parts.append(f"+{len(mine) - len(shown)} more")
        fks = [
            f"{cols[a][1]}->{names[cols[b][0]]}.{cols[b][1]}"
            for a, b in db["foreign_keys"]
            if cols[a][0] == t and cols[a][1].lower() in text
        ]
        lines.append(f"    {name}({', '.join(parts)})" + (f" FK {', '.join(fks)}" if fks else ""))
    return "\n".join(lines)


def dump(drawn: list[tuple[str, str, int, str]], data: Path = DATA) -> None:
    dev, _preds, _schemas = load(data)
    for stratum, source, i, pred in drawn:
        ex = dev[i]
        part = "held" if held_back(source, i) else "tune"
        print(f"## {stratum} {source} {i} ({ex['db_id']}, {ex['difficulty']}, {part})")
        print(f"Q: {' '.join(ex['question'].split())}\nE: {ex['evidence']}")
        print(_schema_text(ex["db_id"], [ex["SQL"], pred], data))
        print(f"G: {ex['SQL']}\nP: {pred}\n")


if __name__ == "__main__":
    rows = draw()
    if "--dump" in sys.argv:
        dump(rows)
    else:
        for stratum, source, i, _sql in rows:
            print(f"{stratum}\t{source}\t{i}")
