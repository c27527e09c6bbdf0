"""Distillation: keep the generated databases that tell the gold queries apart from their mutants.

Greedy set cover, as the test-suite paper describes it: every mutant that the original database already
tells apart from its gold is set aside (plain EX catches it); of the rest, each candidate database
"kills" the mutants whose result differs from the gold's there, and candidates are taken one at a time,
each the one that kills the most mutants no chosen database kills yet. Results are compared with the
same `spider` comparison as `ex_spider`, on the texts Spider's evaluator runs (`spider_sql`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sqltriage.core.verdicts.exec_compare import compare, order_matters, spider_sql
from sqltriage.core.verdicts.exec_result import ExecResult
from sqltriage.core.verdicts.execution import execute, steps_for
from sqltriage.core.verdicts.testsuite.mutate import mutants

DISTIL_TIMEOUT = 1.0  # seconds per query while distilling, as SQLite steps; a slower mutant is not used
DISTIL_STEPS = steps_for(DISTIL_TIMEOUT)  # the set built is the same on a loaded machine as on a quiet one
DISTIL_MAX_ROWS = 20_000


@dataclass(frozen=True, slots=True)
class Distilled:
    order: list[int]  # candidate indexes, the chosen (most telling first) then the rest in index order
    chosen: int  # how many of `order` the greedy cover chose
    mutants: int  # mutants the original database does not tell apart (the ones to cover)
    covered: int  # of those, how many the chosen databases tell apart


def _run(db: Path, sql: str) -> ExecResult:
    return execute(db, sql, timeout=10 * DISTIL_TIMEOUT, max_rows=DISTIL_MAX_ROWS, steps=DISTIL_STEPS)


def distil(original: Path, candidates: Sequence[Path], gold_sqls: Sequence[str], k: int) -> Distilled:
    """The order in which to keep `candidates` so that the first ones cover the most mutants."""
    universe: list[tuple[str, str, bool]] = []  # (gold text, mutant text, order matters)
    for gold in gold_sqls:
        g_text = spider_sql(gold)
        ordered = order_matters(gold)
        g_res = _run(original, g_text)
        if not g_res.ok or g_res.truncated:
            continue
        for m in mutants(gold, distinct=False):
            m_text = spider_sql(m)
            m_res = _run(original, m_text)
            if not m_res.ok:
                continue  # a mutant that does not run is no test of anything
            if compare(g_res, m_res, "spider", order_matters=ordered) == 1:
                universe.append((g_text, m_text, ordered))
    kills: list[set[int]] = []
    for cand in candidates:
        killed: set[int] = set()
        gold_results: dict[str, ExecResult] = {}
        for u, (g_text, m_text, ordered) in enumerate(universe):
            if g_text not in gold_results:
                gold_results[g_text] = _run(cand, g_text)
            g_res = gold_results[g_text]
            if not g_res.ok or g_res.truncated:
                continue
            m_res = _run(cand, m_text)
            if m_res.ok and compare(g_res, m_res, "spider", order_matters=ordered) == 0:
                killed.add(u)
        kills.append(killed)
    chosen: list[int] = []
    covered: set[int] = set()
    while len(chosen) < k:
        best, gain = -1, 0
        for i, killed in enumerate(kills):
            if i in chosen:
                continue
            g = len(killed - covered)
            if g > gain:
                best, gain = i, g
        if best < 0:
            break
        chosen.append(best)
        covered |= kills[best]
    rest = [i for i in range(len(candidates)) if i not in chosen]
    return Distilled(chosen + rest, len(chosen), len(universe), len(covered))
