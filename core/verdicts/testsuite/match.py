"""`ex_ts`: an EX pass must survive every neighbour database, in each EX mode's sense of "same".

`ex_ts` compares exactly as `ex_spider` does, `ex_ts_bird` as `ex_bird`, `ex_ts_archer` as `ex_archer`, all
on the same neighbours. Only rows that pass a mode on the original are run on the neighbours in that mode
(a fail stays a fail), in the neighbours' order (most telling first), stopping at the first neighbour whose
results differ. For `ex_ts`, that neighbour is shrunk to a minimal witness (witness.py): `ts_witness` is
its path, `ts_witness_rows` its rows in all tables. A neighbour where the gold itself fails, times out or
is cut at the row cap is skipped for that example and, for `ex_ts`, not counted in `ts_databases`.

On a server (`--db-url`) the neighbours are the same SQLite files, replayed there (engines/replay.py): both
queries run on the server's copy (`NeighbourGold.place`), a refuting neighbour's file is the witness as it
is (shrinking runs on SQLite), and `ts_note` says the verdict is the server's.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from sqltriage.core.model import Example, Schema
    from sqltriage.core.verdicts.exec_result import ExecResult, ServerDatabase
    from sqltriage.core.verdicts.execution import GoldResultCache
    from sqltriage.core.verdicts.testsuite.constraints import ExtraForeignKeys
    from sqltriage.core.verdicts.testsuite.witness import Witness

ORIGINAL = "original"  # the witness of a row that already fails on the original database
_MEMO_SIZE = 4096  # recent (gold, prediction, neighbours) verdicts kept per process
_memo: OrderedDict[tuple, dict[str, Any]] = OrderedDict()


class NeighbourGold:
    """The result of the gold (as Spider's evaluator rewrites it) on one neighbour: run on first use (a row
    that fails on the original, or on an earlier neighbour, never needs it), then shared by every model.

    `path` is the neighbour's SQLite file; `place` where its queries run: the file itself, or its copy on a
    server (`engines.replay`) when the evaluation runs there."""

    __slots__ = ("_result", "_run", "_written", "gold_sql", "path", "place")

    def __init__(
        self,
        path: Path,
        gold_sql: str,
        run: Callable[[Path | ServerDatabase, str], ExecResult],
        place: ServerDatabase | None = None,
    ) -> None:
        self.path = path
        self.place: Path | ServerDatabase = path if place is None else place
        self.gold_sql = gold_sql
        self._run = run
        self._result: ExecResult | None = None
        self._written: ExecResult | None = None

    @property
    def engine(self) -> str:
        """Where the queries run: "sqlite", or the server's engine."""
        return "sqlite" if isinstance(self.place, Path) else self.place.engine

    @property
    def spider_result(self) -> ExecResult:
        """ExecResult of spider_sql(gold) on this neighbour."""
        if self._result is None:
            from sqltriage.core.verdicts.exec_compare import spider_sql

            self._result = self._run(self.place, spider_sql(self.gold_sql))
        return self._result

    @property
    def written_result(self) -> ExecResult:
        """ExecResult of the gold as written (what `ex_bird` and `ex_archer` compare) on this neighbour."""
        if self._written is None:
            from sqltriage.core.verdicts.exec_compare import spider_sql

            same = spider_sql(self.gold_sql) == self.gold_sql
            self._written = self.spider_result if same else self._run(self.place, self.gold_sql)
        return self._written

    @property
    def usable(self) -> bool:
        r = self.spider_result
        return bool(r.ok and not r.truncated)

    @property
    def written_usable(self) -> bool:
        r = self.written_result
        return bool(r.ok and not r.truncated)


def neighbour_golds(
    gold_sql: str,
    paths: Sequence[Path],
    cache: GoldResultCache | None,
    timeout: float,
    max_rows: int,
    places: Sequence[ServerDatabase] | None = None,
) -> tuple[NeighbourGold, ...]:
    """`places`: where each neighbour was replayed on a server (in `paths`' order); None on SQLite."""
    from sqltriage.core.verdicts.execution import execute

    def run(where: Path | ServerDatabase, sql: str) -> ExecResult:
        if cache is not None and isinstance(where, Path):
            return cache.get(where, sql, timeout, max_rows)
        return execute(where, sql, timeout=timeout, max_rows=max_rows)

    if places is None:
        return tuple(NeighbourGold(p, gold_sql, run) for p in paths)
    return tuple(NeighbourGold(p, gold_sql, run, place) for p, place in zip(paths, places, strict=True))


TS_MODES = {"spider": "ex_ts", "bird": "ex_ts_bird", "archer": "ex_ts_archer"}
TS_KEYS = (*TS_MODES.values(), "ts_databases", "ts_witness", "ts_witness_rows", "ts_note")


class TsGold(Protocol):
    """What `ex_ts` reads of one example's gold: the pipeline's GoldContext is one (named here, as the
    pipeline sits above the verdicts)."""

    @property
    def example(self) -> Example: ...
    @property
    def schema(self) -> Schema | None: ...
    @property
    def neighbours(self) -> tuple[NeighbourGold, ...]: ...
    @property
    def ts_problem(self) -> str | None: ...  # why the example's database has no neighbours


class TsOptions(Protocol):
    """What `ex_ts` reads of a run's options (the pipeline's EvalOptions is one)."""

    @property
    def neighbours(self) -> int: ...  # K; 0 = off
    @property
    def timeout(self) -> float: ...
    @property
    def max_rows(self) -> int: ...


def ts_columns(gold: TsGold, pred_sql: str, options: TsOptions, outcomes: dict[str, Any]) -> dict[str, Any]:
    """`ex_ts`, `ex_ts_bird`, `ex_ts_archer`, `ts_databases`, `ts_witness`, `ts_witness_rows` of one
    (example, prediction); `outcomes` holds the row's `ex_spider`/`ex_bird`/`ex_archer`."""
    out: dict[str, Any] = dict.fromkeys(TS_KEYS)
    if options.neighbours <= 0:
        return out
    passed = {m: outcomes.get(f"ex_{m}") for m in TS_MODES}
    for m, v in passed.items():
        out[TS_MODES[m]] = 0 if v == 0 else None  # a fail stays a fail
    if passed["spider"] == 0:
        out.update(ts_databases=0, ts_witness=ORIGINAL)
    todo = tuple(m for m, v in passed.items() if v == 1)
    if not todo:
        return out
    if gold.ts_problem:
        if passed["spider"] == 1:
            out.update(ts_databases=0, ts_witness=f"no neighbours: {gold.ts_problem}")
        return out
    same_written = _bare(pred_sql) == _bare(gold.example.gold_sql)
    if same_written or ("spider" in todo and _same_text(pred_sql, gold.example.gold_sql)):
        # the gold itself (as Spider runs it, or as written): the same rows on every neighbour
        out.update({TS_MODES[m]: 1 for m in todo if same_written or m == "spider"})
        if "spider" in todo:
            out["ts_databases"] = sum(nb.usable for nb in gold.neighbours)
            if gold.neighbours and gold.neighbours[0].engine != "sqlite":
                out["ts_note"] = server_note(gold.neighbours[0].engine, refuted=False)
        todo = () if same_written else tuple(m for m in todo if m != "spider")
        if not todo:
            return out
    # Models often predict the same text for an example: it is run on the neighbours once per process.
    key = (
        gold.example.gold_sql,
        pred_sql,
        todo,
        tuple(str(nb.place) for nb in gold.neighbours),
        options.timeout,
        options.max_rows,
    )
    if key not in _memo:
        _memo[key] = _run_on_neighbours(gold, pred_sql, options, todo)
        if len(_memo) > _MEMO_SIZE:
            _memo.popitem(last=False)
    _memo.move_to_end(key)
    out.update(_memo[key])
    return out


def _bare(sql: str) -> str:
    return sql.strip().rstrip(";").strip()


def _same_text(pred_sql: str, gold_sql: str) -> bool:
    """True when the texts Spider's evaluator runs are the same (so are their results, on any database)."""
    from sqltriage.core.verdicts.exec_compare import spider_sql

    return _bare(spider_sql(pred_sql.strip())) == _bare(spider_sql(gold_sql.strip()))


def _run_on_neighbours(
    gold: TsGold, pred_sql: str, options: TsOptions, modes: tuple[str, ...]
) -> dict[str, Any]:
    schema = gold.schema
    found = refute(
        gold.example.gold_sql,
        pred_sql,
        gold.neighbours,
        modes,
        timeout=options.timeout,
        max_rows=options.max_rows,
        extra_foreign_keys=schema.foreign_keys if schema is not None else (),
    )
    out: dict[str, Any] = {TS_MODES[m]: v for m, v in found.verdicts.items()}
    if "spider" in modes:
        out["ts_databases"] = found.databases
        if found.witness is not None:
            out.update(ts_witness=str(found.witness.path), ts_witness_rows=found.witness.rows)
    engine = gold.neighbours[0].engine if gold.neighbours else "sqlite"
    if engine != "sqlite":  # the verdict is the server's: say so where SQLite's reading could differ
        out["ts_note"] = server_note(engine, refuted=found.witness is not None)
    return out


def server_note(engine: str, *, refuted: bool) -> str:
    """What `ts_note` says of a verdict found on a server's copies of the neighbours."""
    if refuted:
        return (
            f"refuted on {engine} (the neighbour replayed there); the witness is that neighbour's SQLite "
            "file, not shrunk: SQLite may read the queries otherwise"
        )
    return f"neighbours replayed on {engine}"


@dataclass(frozen=True, slots=True)
class Refutation:
    verdicts: dict[str, int]  # EX mode -> 1 (survived every neighbour) or 0 (refuted)
    databases: int  # neighbours that could tell, in spider mode, up to the refuting one
    witness: Witness | None = None  # the minimal witness of a spider-mode refutation


def refute(
    gold_sql: str,
    pred_sql: str,
    neighbours: Sequence[NeighbourGold],
    modes: Sequence[str] = ("spider",),
    *,
    timeout: float,
    max_rows: int,
    extra_foreign_keys: ExtraForeignKeys = (),
) -> Refutation:
    """Each mode's comparison (`exec_compare.compare`) on each neighbour until it differs there; a spider-mode
    refutation is shrunk to its minimal witness.

    `spider` compares Spider's rewriting of both queries (what `ex_spider` reads), `bird` and `archer` the
    queries as written; a text two modes need is run once per neighbour.
    """
    from sqltriage.core.verdicts.exec_compare import compare, order_matters, spider_sql
    from sqltriage.core.verdicts.execution import execute
    from sqltriage.core.verdicts.testsuite.witness import Witness, count_rows, minimal_witness

    texts = {"spider": spider_sql(pred_sql), "bird": pred_sql, "archer": pred_sql}
    ordered = order_matters(gold_sql)
    verdict = dict.fromkeys(modes, 1)
    used = 0
    witness = None
    for nb in neighbours:
        open_modes = [m for m in modes if verdict[m] == 1]
        if not open_modes:
            break
        ran: dict[str, ExecResult] = {}
        for m in open_modes:
            if not (nb.usable if m == "spider" else nb.written_usable):
                continue
            text = texts[m]
            if text not in ran:
                ran[text] = execute(nb.place, text, timeout=timeout, max_rows=max_rows)
            g = nb.spider_result if m == "spider" else nb.written_result
            v = compare(g, ran[text], m, order_matters=ordered)
            if v is None:
                continue  # cannot be told on this neighbour (e.g. the prediction hit the row cap)
            if m == "spider":
                used += 1
            if v == 0:
                verdict[m] = 0
                if m == "spider" and nb.engine != "sqlite":
                    # shrinking runs the queries on SQLite, whose reading of the server's dialect may
                    # differ: the neighbour itself is the witness
                    witness = Witness(nb.path, count_rows(nb.path), nb.path, False, note=nb.engine)
                elif m == "spider":
                    witness = minimal_witness(
                        nb.path,
                        gold_sql,
                        pred_sql,
                        mode="spider",
                        timeout=timeout,
                        max_rows=max_rows,
                        extra_foreign_keys=extra_foreign_keys,
                        pred_ok=ran[text].ok,
                    )
    return Refutation(verdict, used, witness)
