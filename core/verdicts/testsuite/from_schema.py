"""Neighbour databases for a dataset that has a schema but no database file (BIRD dev without its files).

`schema_database` writes an empty SQLite file from the schema alone (tables, declared types, primary and
foreign keys) into the cache folder; `schema_neighbours` hands it to the neighbour generator, which then
fills tables from the types, the keys, the join links and the literals of the gold queries (planted rows
make each gold return something). Nothing original exists to be written: only cache files are created.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import tempfile
from collections.abc import Sequence
from pathlib import Path

from sqltriage.core.model import Schema
from sqltriage.core.verdicts.testsuite.cache import default_cache_root, ensure_neighbours

SCHEMA_K = 3  # neighbours per database: few, since each pair runs on all of them
SCHEMA_DIR = "schema-only"
# tables.json column types (Spider's families, BIRD's SQLite names) → a declared type with that affinity
DECLARED = {
    "number": "NUMERIC",
    "integer": "INTEGER",
    "real": "REAL",
    "time": "DATE",
    "date": "DATE",
    "datetime": "DATETIME",
    "boolean": "INTEGER",
    "text": "TEXT",
}


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def trusted_primary_keys(schema: Schema) -> tuple[tuple[str, str], ...]:
    """The declared primary keys a proof may rest on. A table whose key is one column that also refers to
    another table is often a link table whose real key is composite (Spider's tables.json lists only the
    first column: `countrylanguage` keyed by `CountryCode` alone, where the data holds several languages
    per country). Such a key is left out: the databases stay filled as declared, but no verdict assumes it."""
    children = {(t.lower(), c.lower()) for (t, c), _parent in schema.foreign_keys}
    per_table: dict[str, int] = {}
    for t, _c in schema.primary_keys:
        per_table[t.lower()] = per_table.get(t.lower(), 0) + 1
    return tuple(
        (t, c)
        for t, c in schema.primary_keys
        if not (per_table[t.lower()] == 1 and (t.lower(), c.lower()) in children)
    )


def schema_ddl(schema: Schema) -> list[str]:
    """One CREATE TABLE per table: declared types, the trusted primary key, and foreign keys to known
    columns."""
    pks: dict[str, list[str]] = {}
    for t, c in trusted_primary_keys(schema):
        pks.setdefault(t.lower(), []).append(c)
    fks: dict[str, list[tuple[str, str, str]]] = {}
    names = {t.name.lower(): t for t in schema.tables}
    for (t, c), (pt, pc) in schema.foreign_keys:
        parent = names.get(pt.lower())
        if parent is not None and any(col.name.lower() == pc.lower() for col in parent.columns):
            fks.setdefault(t.lower(), []).append((c, parent.name, pc))
    out = []
    for table in schema.tables:
        seen: set[str] = set()
        parts = []
        for col in table.columns:
            if col.name.lower() in seen or col.name == "*":
                continue
            seen.add(col.name.lower())
            parts.append(f"{_q(col.name)} {DECLARED.get(col.type.lower(), 'TEXT')}")
        key = [c for c in dict.fromkeys(pks.get(table.name.lower(), [])) if c.lower() in seen]
        if key:
            parts.append(f"PRIMARY KEY ({', '.join(_q(c) for c in key)})")
        for c, pt, pc in fks.get(table.name.lower(), []):
            if c.lower() in seen:
                parts.append(f"FOREIGN KEY ({_q(c)}) REFERENCES {_q(pt)} ({_q(pc)})")
        if parts:
            out.append(f"CREATE TABLE {_q(table.name)} ({', '.join(parts)})")
    return out


def schema_database(schema: Schema, cache_root: Path | None = None) -> Path:
    """The empty database of `schema`, written once into `<cache>/schema-only/` (content-addressed)."""
    ddl = schema_ddl(schema)
    digest = hashlib.sha256("\n".join([schema.db_id, *ddl]).encode()).hexdigest()[:16]
    root = (Path(cache_root) if cache_root is not None else default_cache_root()) / SCHEMA_DIR
    path = root / f"{digest}.sqlite"
    if path.is_file():
        return path
    root.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{digest}.", suffix=".sqlite", dir=root)
    os.close(fd)
    try:
        conn = sqlite3.connect(tmp)
        try:
            for stmt in ddl:
                try:
                    conn.execute(stmt)
                except sqlite3.Error:  # a table the schema cannot express: left out, the rest is built
                    continue
            conn.commit()
        finally:
            conn.close()
        os.replace(tmp, path)  # readers see the whole file or none; a racing writer writes the same bytes
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def schema_neighbours(
    schema: Schema,
    gold_sqls: Sequence[str],
    *,
    k: int = SCHEMA_K,
    seed: int = 0,
    cache_root: Path | None = None,
) -> list[Path]:
    """K databases of `schema` filled from its types, keys, join links and the golds' literals (cached)."""
    empty = schema_database(schema, cache_root)
    return ensure_neighbours(
        empty,
        gold_sqls,
        k,
        seed,
        cache_root,
        foreign_keys=schema.foreign_keys,
        primary_keys=trusted_primary_keys(schema),
        distilled=False,
    )
