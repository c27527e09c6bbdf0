"""Soundness of a generated database, checked with plain sqlite3 and nothing of sqltriage.

A refutation on data that violates the schema is no refutation: every neighbour (and every witness) must
pass `PRAGMA foreign_key_check`, hold no duplicate primary key or UNIQUE value and no NULL in a NOT NULL
column. Where the original's own DDL makes the pragma fail ("foreign key mismatch": a key that
references a non-unique column, as Spider's voter_1 does), that key is checked with a NOT IN query.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def violations(path: Path) -> list[str]:
    """Every declared constraint this database breaks, one line each (empty when sound)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    out: list[str] = []
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        tables = [t for t in tables if not t.startswith("sqlite_")]
        for t in tables:
            info = conn.execute(f"PRAGMA table_info({_q(t)})").fetchall()
            try:
                bad = conn.execute(f"PRAGMA foreign_key_check({_q(t)})").fetchall()
                out += [f"{t}: row {r[1]} points at a missing {r[2]} row" for r in bad]
            except sqlite3.Error:  # foreign key mismatch in the original's DDL: check each key by hand
                for fk in conn.execute(f"PRAGMA foreign_key_list({_q(t)})").fetchall():
                    parent, col, pcol = fk[2], fk[3], fk[4]
                    if pcol is None:
                        continue
                    n = conn.execute(
                        f"SELECT count(*) FROM {_q(t)} WHERE {_q(col)} IS NOT NULL AND {_q(col)} NOT IN "
                        f"(SELECT {_q(pcol)} FROM {_q(parent)} WHERE {_q(pcol)} IS NOT NULL)"
                    ).fetchone()[0]
                    if n:
                        out.append(f"{t}.{col}: {n} rows point at no {parent}.{pcol}")
            for r in info:
                if r[3]:
                    n = conn.execute(f"SELECT count(*) FROM {_q(t)} WHERE {_q(r[1])} IS NULL").fetchone()[0]
                    if n:
                        out.append(f"{t}.{r[1]}: {n} NULLs in a NOT NULL column")
            pk = [r[1] for r in sorted(info, key=lambda r: r[5]) if r[5]]
            groups = [pk] if pk else []
            for idx in conn.execute(f"PRAGMA index_list({_q(t)})").fetchall():
                if idx[2]:
                    cols = [r[2] for r in conn.execute(f"PRAGMA index_info({_q(idx[1])})")]
                    if None not in cols:
                        groups.append(cols)
            for g in groups:
                cols = ", ".join(_q(c) for c in g)
                present = " AND ".join(f"{_q(c)} IS NOT NULL" for c in g)
                n = conn.execute(
                    f"SELECT count(*) FROM (SELECT 1 FROM {_q(t)} WHERE {present} GROUP BY {cols} "
                    "HAVING count(*) > 1)"
                ).fetchone()[0]
                if n:
                    out.append(f"{t}{tuple(g)}: {n} duplicated keys")
    finally:
        conn.close()
    return out


def _column(path: Path, table: str, column: str) -> list:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [r[0] for r in conn.execute(f"SELECT {_q(column)} FROM {_q(table)}")]
    finally:
        conn.close()


def mined_violations(path: Path, original: Path, manifest: dict, gold_text: str) -> list[str]:
    """The mined constraints the manifest names, re-checked from the original's own values.

    A categorical column holds only values of the original or constants the golds write; a ranged
    column stays within the original's min..max widened to the golds' numbers, one step beyond.
    """
    mined = manifest["mined"]
    out: list[str] = []
    numbers = [float(x) for x in re.findall(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])", gold_text)]
    for name in mined["categorical"]:
        t, c = name.split(".", 1)
        allowed = set(_column(original, t, c))
        extra = {v for v in _column(path, t, c) if v is not None and v not in allowed}
        extra = {v for v in extra if str(v) not in gold_text}
        if extra:
            out.append(
                f"{name}: values outside the original's {len(allowed)}: {sorted(map(repr, extra))[:3]}"
            )
    for name, (lo, hi) in mined["ranges"].items():
        t, c = name.split(".", 1)
        seen = [v for v in _column(original, t, c) if isinstance(v, int | float)]
        if not (lo >= min(seen) or lo + 1 in numbers) or not (hi <= max(seen) or hi - 1 in numbers):
            out.append(f"{name}: range {lo}..{hi} is wider than the original's and the golds' numbers")
        bad = [v for v in _column(path, t, c) if isinstance(v, int | float) and not lo <= v <= hi]
        if bad:
            out.append(f"{name}: {len(bad)} values outside {lo}..{hi}, e.g. {bad[0]}")
    for name in mined["never_null"]:
        t, c = name.split(".", 1)
        if any(v is None for v in _column(path, t, c)):
            out.append(f"{name}: NULL in a column never NULL in the original")
    for name in mined["unique"]:
        t, c = name.split(".", 1)
        values = [v for v in _column(path, t, c) if v is not None]
        if len(values) != len(set(values)):
            out.append(f"{name}: duplicates in a column unique in the original")
    return out


def link_violations(path: Path, manifest: dict, links: list | None = None) -> list[str]:
    """The mined join links that are inclusions in the original (the manifest marks them; or those of
    `links`), re-checked: every child value occurs among the parent's values."""
    out = []
    for child_t, child_c, parent_t, parent_c, inclusion in (
        manifest["mined"]["links"] if links is None else links
    ):
        if not inclusion:
            continue
        parents = set(_column(path, parent_t, parent_c))
        lost = [v for v in _column(path, child_t, child_c) if v is not None and v not in parents]
        if lost:
            out.append(
                f"{child_t}.{child_c}: {len(lost)} values with no {parent_t}.{parent_c}, e.g. {lost[0]!r}"
            )
    return out


def manifest_of(neighbour: Path) -> dict:
    return json.loads((neighbour.parent / "manifest.json").read_text())
