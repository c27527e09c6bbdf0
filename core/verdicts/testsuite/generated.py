"""`sqltriage db generate`: one database per `db_id` from the schema alone, for datasets shipped without
their files (BIRD as most users first meet it, a warehouse out of reach).

Each database is the neighbour generator's first planted database of the schema's empty file
(`from_schema.schema_database`): tables from the declared types and keys, rows drawn from the types, the
join links and the literals of the database's gold queries, planted so that each gold returns something.
The evidence a dataset gives (BIRD's "evidence": `Female refers to gender = 'F'`) names values too: its
`column = value` comparisons become queries of their own, planted like the golds. The same dataset and seed
give the same bytes (`VACUUM INTO`).
"""

from __future__ import annotations

import dataclasses
import os
import random
import re
import sqlite3
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sqltriage.core.model import Dataset, Schema

# `column = 'value'` (or a number) in evidence text; the column may be written `table.column` or quoted
_COMPARISON = re.compile(
    r"(?:`?(?P<table>[A-Za-z_][\w ]*?)`?\.)?`?(?P<column>[A-Za-z_][\w]*)`?\s*(?P<op>=|>=|<=|>|<)\s*"
    r"(?P<value>'[^']*'|\"[^\"]*\"|-?\d+(?:\.\d+)?)"
)


@dataclass(frozen=True, slots=True)
class Generated:
    db_id: str
    path: Path
    tables: int
    rows: int
    golds: int  # gold queries it was planted from
    evidence: int  # queries mined from the evidence
    problems: tuple[str, ...] = ()  # what the generator could not reproduce


def evidence_queries(evidence: Iterable[str], schema: Schema) -> list[str]:
    """`SELECT * FROM t WHERE column = value` for every comparison the evidence makes on a column the
    schema holds (one table that has it, or the table the evidence names), in a fixed order."""
    tables = {t.name.lower(): t for t in schema.tables}
    out: dict[str, None] = {}
    for text in evidence:
        for m in _COMPARISON.finditer(text or ""):
            column = m.group("column").lower()
            named = (m.group("table") or "").strip().lower()
            owners = [t for t in schema.tables if any(c.name.lower() == column for c in t.columns)]
            if named and named in tables:
                owners = [tables[named]] if tables[named] in owners else []
            if len(owners) != 1:
                continue  # a column several tables hold, or none: which row to plant is not said
            table = owners[0]
            col = next(c.name for c in table.columns if c.name.lower() == column)
            value = m.group("value")
            if value.startswith('"'):
                value = "'" + value[1:-1].replace("'", "''") + "'"
            out[f'SELECT * FROM "{table.name}" WHERE "{col}" {m.group("op")} {value}'] = None
    return list(out)


def generate_database(
    schema: Schema,
    gold_sqls: Sequence[str],
    evidence: Iterable[str],
    out: Path,
    *,
    seed: int = 0,
    rows: int | None = None,
    cache_root: Path | None = None,
) -> Generated:
    """Write `out` (replacing it) from the schema, planted from the golds and the evidence's comparisons.
    `rows`: tables hold between a few and about twice this many rows (log-uniform; default about 20)."""
    from sqltriage.core.verdicts.testsuite.from_schema import schema_database
    from sqltriage.core.verdicts.testsuite.generate import build_database
    from sqltriage.core.verdicts.testsuite.literals import gold_literals
    from sqltriage.core.verdicts.testsuite.mine import gold_shapes, mine
    from sqltriage.core.verdicts.testsuite.plant import GoldPlan
    from sqltriage.core.verdicts.testsuite.schema import read_db

    empty = schema_database(schema, cache_root)
    info = read_db(empty, schema.foreign_keys, schema.primary_keys)
    if rows is not None:  # the generator draws up to twice a table's original size: as if it held `rows`
        info = dataclasses.replace(info, tables=[dataclasses.replace(t, rows=rows) for t in info.tables])
    mined_from = sorted(set(evidence_queries(evidence, schema)))
    golds = sorted(set(gold_sqls) | set(mined_from))
    columns = {c.name.lower() for t in info.tables for c in t.columns}
    literals = gold_literals(golds, columns)
    shapes = gold_shapes(info, golds)
    mined = mine(info, literals, [s for found, _ in shapes.values() for s in found])
    plans = [GoldPlan(sql, found, reason) for sql, (found, reason) in shapes.items()]
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{schema.db_id}.", suffix=".sqlite", dir=out.parent)
    os.close(fd)
    os.unlink(tmp)  # build_database writes a new file
    try:
        rng = random.Random(f"{schema.db_id}:{seed}")
        problems = build_database(info, literals, rng, Path(tmp), mined, plans)
        if out.exists():
            out.unlink()
        conn = sqlite3.connect(tmp)
        try:
            conn.execute("VACUUM INTO ?", (str(out),))  # the same rows give the same bytes
        finally:
            conn.close()
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    n_tables, n_rows = _size(out)
    return Generated(
        schema.db_id, out, n_tables, n_rows, len(set(gold_sqls)), len(mined_from), tuple(problems)
    )


def _size(path: Path) -> tuple[int, int]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        total = sum(conn.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names)
        return len(names), total
    finally:
        conn.close()


def generate_databases(
    dataset: Dataset,
    out_dir: Path,
    *,
    seed: int = 0,
    rows: int | None = None,
    cache_root: Path | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> list[Generated]:
    """`<out_dir>/<db_id>/<db_id>.sqlite` for every database of the dataset's schemas, in db_id order;
    `progress(db_id, done, total)` is told as each one starts. A database the generator cannot build is
    skipped with its reason in `problems` (path absent), never a crash of the rest."""
    db_ids = sorted(dataset.schemas)
    out: list[Generated] = []
    for n, db_id in enumerate(db_ids):
        if progress is not None:
            progress(db_id, n, len(db_ids))
        examples = [e for e in dataset.examples if e.db_id == db_id]
        target = Path(out_dir) / db_id / f"{db_id}.sqlite"
        try:
            found = generate_database(
                dataset.schemas[db_id],
                [e.gold_sql for e in examples],
                [e.evidence or "" for e in examples],
                target,
                seed=seed,
                rows=rows,
                cache_root=cache_root,
            )
        except Exception as exc:  # one schema the generator cannot read: said, the others still built
            found = Generated(db_id, target, 0, 0, len(examples), 0, (f"not generated: {exc}",))
        out.append(found)
    return out
