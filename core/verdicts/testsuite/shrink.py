"""Shrink a neighbour that tells gold and prediction apart to the few rows that make the difference.

Delta debugging (Zeller and Hildebrandt, 2002) over the rows of a private copy: first whole tables are
emptied (all those neither query names at once, then each other one), then rows are removed in chunks that
halve until single rows, each step kept only if the two queries still differ under the row's EX comparison
(`exec_compare.compare`, the one every EX figure uses) and no row is left pointing at a deleted parent (a
deletion takes the orphaned child rows with it). Queries run through `execution.execute_all_on`, read-only,
under a budget of SQLite steps worth the row's timeout: the copy is written by this module only, between
queries, each step inside a savepoint that is released when the step is kept and rolled back when it is not.

The work is bounded in steps, never in seconds; when the bound is hit, the last state that still differed is
kept. Nothing is random and nothing depends on the clock, so the same inputs give the same rows on a quiet
machine and a loaded one.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqltriage.core.verdicts.exec_compare import compare, order_matters, spider_sql
from sqltriage.core.verdicts.testsuite.constraints import (
    ExtraForeignKeys,
    ForeignKey,
    foreign_keys,
    orphans,
    quoted,
    table_names,
)
from sqltriage.core.verdicts.testsuite.provenance import ROW_CAP, read_rows
from sqltriage.core.verdicts.testsuite.simplify import ValueRules, simplify_values

MAX_STEPS = 400  # differences tested per witness (each runs both queries once)
# The queries of a shrink run under a budget of SQLite steps worth the row's timeout (execution.steps_for),
# and the wall clock at this many times the timeout only guards a starved machine: a witness is the same
# whatever the load. Spider's witnesses take a few milliseconds.
WALL_FACTOR = 10

RowId = tuple[str, int]  # (table, rowid)


class Differ:
    """Do gold and prediction still differ on a database, in one EX mode? (queries run read-only)"""

    def __init__(
        self, gold_sql: str, pred_sql: str, mode: str, *, timeout: float, max_rows: int, pred_may_fail: bool
    ) -> None:
        from sqltriage.core.verdicts.execution import execute, execute_all_on, steps_for

        steps, wall = steps_for(timeout), timeout * WALL_FACTOR

        def run_all(target: Path | sqlite3.Connection, sqls: tuple[str, ...], max_rows: int) -> list[Any]:
            if isinstance(target, sqlite3.Connection):  # the in-memory copy being shrunk: one guarded session
                return execute_all_on(target, sqls, timeout=wall, max_rows=max_rows, steps=steps)
            try:  # a witness file: a connection of its own, so the evaluation's kept ones stay open
                uri = f"file:{quote(str(target.resolve()))}?mode=ro"
                conn = sqlite3.connect(uri, uri=True, isolation_level=None)
            except sqlite3.Error:
                return [execute(target, sql, timeout=wall, max_rows=max_rows, steps=steps) for sql in sqls]
            try:
                return execute_all_on(conn, sqls, timeout=wall, max_rows=max_rows, steps=steps)
            finally:
                conn.close()

        self._run_all = run_all
        spider = (
            mode == "spider"
        )  # `ex_spider` compares Spider's rewriting of each query, the others the text
        self.gold_text = spider_sql(gold_sql) if spider else gold_sql
        self.pred_text = spider_sql(pred_sql) if spider else pred_sql
        self.mode = mode
        self.ordered = order_matters(gold_sql)
        self.timeout, self.max_rows = timeout, max_rows
        self.pred_may_fail = pred_may_fail  # the prediction failed on the neighbour itself
        self.runs = 0
        self.last_pred_ok = True
        self._accepted: tuple | None = None  # both results on the last database that differed
        self._named: dict[tuple[str, str], bool] = {}

    def run(self, path: Path | sqlite3.Connection, sql: str, max_rows: int) -> Any:
        """Any other read-only query on the database being shrunk, with the row's timeout."""
        return self._run_all(path, (sql,), max_rows)[0]

    def results(self, path: Path | sqlite3.Connection) -> tuple:
        gold, pred = self._run_all(path, (self.gold_text, self.pred_text), self.max_rows)
        return gold, pred

    def _reads(self, table: str, text: str) -> bool:
        key = (table, text)
        if key not in self._named:
            self._named[key] = _named_in(table, (text,))
        return self._named[key]

    def __call__(self, path: Path | sqlite3.Connection, changed: set[str] | None = None) -> bool:
        """Whether they differ on `path` (a file, or the in-memory copy being shrunk). `changed`: the only tables changed since the last call that
        differed (None: unknown). Without views, a query reads only the tables its text names, so a query
        that names none of them returns what it returned then and is not run again."""
        self.runs += 1
        if changed is None or self._accepted is None:
            gold, pred = self.results(path)
        else:
            gold, pred = self._accepted
            again_gold = any(self._reads(t, self.gold_text) for t in changed)
            again_pred = any(self._reads(t, self.pred_text) for t in changed)
            texts = (self.gold_text,) * again_gold + (self.pred_text,) * again_pred
            if texts:
                ran = iter(self._run_all(path, texts, self.max_rows))
                gold = next(ran) if again_gold else gold
                pred = next(ran) if again_pred else pred
        self.last_pred_ok = pred.ok
        differ = self._differ(gold, pred)
        if differ:
            self._accepted = (gold, pred)
        return differ

    def _differ(self, gold: Any, pred: Any) -> bool:
        if not gold.ok or gold.truncated:
            return False
        if not pred.ok and not self.pred_may_fail:
            return False  # a shrunk database on which the prediction breaks would explain nothing
        return compare(gold, pred, self.mode, order_matters=self.ordered) == 0


@dataclass(frozen=True, slots=True)
class Shrunk:
    rows: int  # rows left in all tables
    keys: list[ForeignKey]  # the foreign keys kept while shrinking (declared and extra)
    steps: int  # differences tested
    bounded: bool  # the step or time bound stopped the search before it was 1-minimal
    simplified: int = 0  # cells whose long value was replaced by a simpler one


class _Copy:
    """The private, writable in-memory copy being shrunk, and deletions that can be taken back.

    The copy lives in memory (SQLite's backup of the source): no file is written or re-read between steps,
    and the queries run on the same connection through `execute_on`'s guard. A step's deletions stay inside
    a savepoint while the step is judged (the queries read them on the same connection) and are released
    or rolled back: values never pass through Python, so a restored row has exactly its types and bytes.
    """

    def __init__(self, source: Path) -> None:
        self.conn = sqlite3.connect(":memory:", isolation_level=None)
        src = sqlite3.connect(f"file:{quote(str(source.resolve()))}?mode=ro", uri=True)
        try:
            src.backup(self.conn)
        finally:
            src.close()
        self.conn.execute("PRAGMA foreign_keys = OFF")  # orphans are handled here, not by SQLite's actions
        self.keys: list[ForeignKey] = []
        self.children: dict[str, set[str]] = {}
        self.tables = table_names(self.conn)
        without_rowid = {
            r[0] for r in self.conn.execute("SELECT name FROM pragma_table_list WHERE schema = 'main' AND wr")
        }
        self.with_rowid = [t for t in self.tables if t not in without_rowid]  # WITHOUT ROWID: left whole
        views = "SELECT 1 FROM sqlite_master WHERE type = 'view' LIMIT 1"
        self.has_views = self.conn.execute(views).fetchone() is not None
        self.pending = False  # a step's deletions wait, in a savepoint, to be kept or taken back

    def set_keys(self, keys: list[ForeignKey]) -> None:
        self.keys = keys
        self.children = {}
        for k in keys:
            self.children.setdefault(k.parent, set()).add(k.child)

    def rowids(self, table: str) -> list[int]:
        return [r[0] for r in self.conn.execute(f"SELECT rowid FROM main.{quoted(table)} ORDER BY rowid")]

    def rows(self) -> list[RowId]:
        out: list[RowId] = []
        for t in self.with_rowid:
            out += [
                (t, r[0]) for r in self.conn.execute(f"SELECT rowid FROM main.{quoted(t)} ORDER BY rowid")
            ]
        return out

    def with_parents(self, keep: dict[str, set[int]]) -> dict[str, set[int]]:
        """`keep` (table -> rowids) and every row it points at through a key, transitively."""
        out = {t: set(ids) for t, ids in keep.items()}
        todo = dict(out)
        while todo:
            grown: dict[str, set[int]] = {}
            for k in self.keys:
                ids = todo.get(k.child)
                if not ids or k.parent not in self.with_rowid:
                    continue
                match = " AND ".join(
                    f"p.{quoted(pc)} = c.{quoted(cc)}"
                    for cc, pc in zip(k.child_columns, k.parent_columns, strict=True)
                )
                found = self.conn.execute(
                    f"SELECT p.rowid FROM main.{quoted(k.parent)} AS p WHERE EXISTS (SELECT 1 FROM "
                    f"main.{quoted(k.child)} AS c WHERE c.rowid IN (SELECT value FROM json_each(?)) AND {match})",
                    (json.dumps(sorted(ids)),),
                )
                new = {r[0] for r in found} - out.setdefault(k.parent, set())
                if new:
                    out[k.parent] |= new
                    grown.setdefault(k.parent, set()).update(new)
            todo = grown
        return out

    def count(self) -> int:
        return sum(
            self.conn.execute(f"SELECT count(*) FROM main.{quoted(t)}").fetchone()[0] for t in self.tables
        )

    def delete(self, doomed: Iterable[RowId]) -> set[RowId] | None:
        """Delete rows and the rows they orphan, inside a savepoint that `keep` releases and `restore`
        rolls back; the rows deleted, or None when it cannot be done cleanly (an orphan in a table
        without rowids: nothing is deleted then)."""
        pending: dict[str, set[int]] = {}
        for t, rid in doomed:
            pending.setdefault(t, set()).add(rid)
        gone: set[RowId] = set()
        self.conn.execute("SAVEPOINT step")
        self.pending = True
        while pending:
            for t, ids in pending.items():
                ordered = sorted(ids)
                batch = json.dumps(ordered)  # one statement text per table: SQLite's prepared copy is reused
                self.conn.execute(
                    f"DELETE FROM main.{quoted(t)} WHERE rowid IN (SELECT value FROM json_each(?))", (batch,)
                )
                gone.update((t, r) for r in ordered)
            touched, pending = set(pending), {}
            for parent in touched:
                for child in self.children.get(parent, ()):
                    lost = orphans(self.conn, child, self.keys)
                    if not lost:
                        continue
                    if child not in self.with_rowid:
                        self.restore()
                        return None
                    pending.setdefault(child, set()).update(lost)
        return gone

    def keep(self) -> None:
        """Make the last `delete` final."""
        if self.pending:
            self.conn.execute("RELEASE step")
            self.pending = False

    def clear(self, tables: list[str]) -> bool:
        """Empty whole tables and delete the rows that orphans, for good (nothing kept aside); False when
        that cannot be done cleanly (an orphan in a table without rowids)."""
        self.conn.execute("BEGIN")
        for t in tables:
            self.conn.execute(f"DELETE FROM main.{quoted(t)}")
        touched = set(tables)
        while touched:
            lost: dict[str, set[int]] = {}
            for parent in touched:
                for child in self.children.get(parent, ()):
                    if found := orphans(self.conn, child, self.keys):
                        lost.setdefault(child, set()).update(found)
            if any(child not in self.with_rowid for child in lost):
                self.conn.execute("ROLLBACK")
                return False
            for child, ids in lost.items():
                batch = json.dumps(sorted(ids))
                self.conn.execute(
                    f"DELETE FROM main.{quoted(child)} WHERE rowid IN (SELECT value FROM json_each(?))",
                    (batch,),
                )
            touched = set(lost)
        self._commit()
        return True

    def restore(self) -> None:
        """Put back the rows the last `delete` took."""
        if self.pending:
            self.conn.execute("ROLLBACK TO step")
            self.conn.execute("RELEASE step")
            self.pending = False

    def _commit(self) -> None:
        self.conn.execute("COMMIT")

    def write(self, out: Path) -> None:
        """The copy as it is now, to a new file (`VACUUM INTO`: the same rows give the same bytes)."""
        self.conn.execute("PRAGMA main.synchronous = OFF")  # a temporary file, renamed when checked: no fsync
        self.conn.execute("VACUUM main INTO ?", (str(out),))

    def close(self) -> None:
        self.conn.close()


class _Search:
    def __init__(self, copy: _Copy, differs: Differ, max_steps: int) -> None:
        self.copy, self.differs = copy, differs
        self.steps, self.max_steps = 0, max_steps
        self.bounded = False

    def out_of_budget(self) -> bool:
        if self.steps >= self.max_steps:
            self.bounded = True
        return self.bounded

    def attempt(self, doomed: list[RowId]) -> set[RowId] | None:
        """Delete `doomed` (and its orphans) and keep it if the queries still differ; the rows deleted."""
        if not doomed or self.out_of_budget():
            return None
        self.steps += 1
        gone = self.copy.delete(doomed)
        if gone is None:
            return None
        changed = None if self.copy.has_views else {t for t, _ in gone}
        if self.differs(self.copy.conn, changed):
            self.copy.keep()
            return gone
        self.copy.restore()
        return None


def _named_in(table: str, texts: Iterable[str]) -> bool:
    pattern = re.compile(r"(?<![\w$])" + re.escape(table) + r"(?![\w$])", re.I)
    return any(pattern.search(t) for t in texts)


def shrink(
    source: Path,
    out: Path,
    differs: Differ,
    *,
    extra_foreign_keys: ExtraForeignKeys = (),
    links: ExtraForeignKeys = (),
    values: ValueRules | None = None,
    max_steps: int = MAX_STEPS,
) -> Shrunk:
    """Shrink an in-memory copy of `source` (which differs) and write what is left to `out`; with
    `values` (the neighbour set's mined rules), then simplify its long values (simplify.py)."""
    copy = _Copy(source)
    try:
        keys = foreign_keys(copy.conn, extra_foreign_keys, links)
        # a key the neighbour itself breaks (an extra or mined one the generator did not hold) is no rule of it
        keys = [k for k in keys if k.declared or not orphans(copy.conn, k.child, [k])]
        copy.set_keys(keys)
        search = _Search(copy, differs, max_steps)
        unnamed = _unnamed(copy, differs, all_of_them=True)
        if not _drop_unnamed(search, differs, unnamed):
            # taking them out lost the difference: start again from the whole copy, and take out only the
            # tables no named table points at (emptying those cascades into nothing the queries read)
            copy = search.copy = _fresh(copy, source, keys)
            loose = _unnamed(copy, differs, all_of_them=False)
            if loose != unnamed and not _drop_unnamed(search, differs, loose):
                copy = search.copy = _fresh(copy, source, keys)
        _keep_read_rows(search)
        _keep_samples(search)
        _remove_rows(search)
        simplified = _simplify(search, values) if values is not None else 0
        copy.write(out)
        return Shrunk(copy.count(), keys, search.steps, search.bounded, simplified)
    finally:
        copy.close()


def _simplify(search: _Search, values: ValueRules) -> int:
    """The last stage: long values made simple where the queries still differ (within the step bound)."""
    copy = search.copy

    def still_differs(changed: set[str]) -> bool:
        if search.out_of_budget():
            return False
        search.steps += 1
        return search.differs(copy.conn, None if copy.has_views else changed)

    return simplify_values(copy.conn, copy.with_rowid, copy.keys, values, still_differs)


def _fresh(copy: _Copy, source: Path, keys: list[ForeignKey]) -> _Copy:
    copy.close()
    fresh = _Copy(source)
    fresh.set_keys(keys)
    return fresh


def _unnamed(copy: _Copy, differs: Differ, *, all_of_them: bool) -> list[str]:
    """The tables neither query names; with `all_of_them` False, only those no named table depends on
    through a key (emptying one of those cannot take a row of a named table with it)."""
    texts = (differs.gold_text, differs.pred_text)
    unnamed = [t for t in copy.tables if not _named_in(t, texts)]
    if all_of_them:
        return unnamed
    ancestors: set[str] = set()
    todo = [t for t in copy.tables if t not in unnamed]
    while todo:
        child = todo.pop()
        for k in copy.keys:
            if k.child == child and k.parent not in ancestors:
                ancestors.add(k.parent)
                todo.append(k.parent)
    return [t for t in unnamed if t not in ancestors]


def _drop_unnamed(search: _Search, differs: Differ, tables: list[str]) -> bool:
    """Empty `tables` in one step, without keeping their rows aside (the caller starts again on failure)."""
    if not tables:
        return True
    search.steps += 1
    return search.copy.clear(tables) and search.differs(search.copy.conn)


def _keep_read_rows(search: _Search) -> bool:
    """Keep only the rows the two queries read past their joins and filters (provenance.py), with the rows
    they point at, in one step; whether that kept the difference. First, where both read a table but not
    the same rows, only the rows one of them reads there (a filter that differs: often one row is the
    whole story), then every row either reads. A named table no rewritten SELECT read is kept whole; with
    views (which read tables the texts do not name) nothing is cut."""
    copy, differs = search.copy, search.differs
    if copy.has_views:
        return False

    def run(sql: str) -> Any:
        return differs.run(copy.conn, sql, ROW_CAP)

    gold, pred = read_rows([differs.gold_text], run), read_rows([differs.pred_text], run)
    if not gold and not pred:
        return False
    texts = (differs.gold_text, differs.pred_text)
    union: dict[str, set[int]] = {}
    apart: dict[str, set[int]] = {}
    for t in copy.with_rowid:
        low = t.lower()
        if low in gold or low in pred:
            union[t] = gold.get(low, set()) | pred.get(low, set())
            both = low in gold and low in pred and gold[low] != pred[low]
            apart[t] = gold[low] ^ pred[low] if both else union[t]
        elif _named_in(t, texts):
            union[t] = apart[t] = set(copy.rowids(t))
    tries = [apart, union] if apart != union else [union]
    for keep in tries:
        kept = copy.with_parents(keep)
        doomed = [(t, rid) for t in copy.with_rowid for rid in copy.rowids(t) if rid not in kept.get(t, ())]
        if search.attempt(doomed) is not None:
            return True
    return False


SAMPLES = (4, 32)  # rows kept per table by the first cuts (the first rows: the generator's order is random)


def _keep_samples(search: _Search) -> None:
    """Cut every table to its first few rows in one step: most differences survive in a small sample, and
    one successful cut saves the many halving steps that would reach the same size on large tables."""
    for keep in SAMPLES:
        doomed = []
        for t in search.copy.with_rowid:
            ids = [
                r[0] for r in search.copy.conn.execute(f"SELECT rowid FROM main.{quoted(t)} ORDER BY rowid")
            ]
            doomed += [(t, rid) for rid in ids[keep:]]
        if search.attempt(doomed) is not None:
            return


def _remove_rows(search: _Search) -> None:
    """ddmin's complement-free variant: remove chunks that halve in size down to single rows.

    A row that could not be removed alone is not tried alone again: taking other rows out rarely makes it
    removable, and retrying every such row after each success was a third of all the steps.
    """
    rows = search.copy.rows()
    parts = 2
    needed: set[RowId] = set()  # rows whose removal alone lost the difference
    while len(rows) > 1 and not search.out_of_budget():
        size = math.ceil(len(rows) / parts)
        progressed = False
        start = 0
        while start < len(rows):
            chunk = rows[start : start + size]
            if size == 1 and chunk[0] in needed:
                start += 1
                continue
            gone = search.attempt(chunk)
            if gone is not None:
                rows = [r for r in rows if r not in gone]
                progressed = True
            else:
                if size == 1:
                    needed.add(chunk[0])
                start += size
            if search.bounded:
                return
        if not progressed:
            if size == 1:
                return
            parts = min(len(rows), parts * 2)
