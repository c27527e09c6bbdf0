"""Score the suggestion engine on the hand-labelled set: recall@1/@3, precision, false alarms, per category.

Each row is run the way an evaluation runs it: gold and prediction executed read-only on the database
when there is one (EX in the default mode, the error, the results), then `suggest_causes`.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from sqltriage.core.sql.exact_match import exact_match
from sqltriage.core.suggest import Suggestion, suggest_causes
from sqltriage.core.verdicts.ex_modes import EX_MODES
from sqltriage.core.verdicts.execution import execute
from sqltriage.core.verdicts.gold_audit import audit_gold, tie_sensitive
from sqltriage.core.verdicts.pair_run import execution_outcomes
from sqltriage.core.verdicts.testsuite.from_schema import schema_neighbours
from tests.core.suggest_set import LabelledRow


@dataclass
class Scored:
    row: LabelledRow
    suggested: list[Suggestion]
    ex: int | None
    seconds: float  # the engine alone, execution excluded


def run_row(row: LabelledRow, data: Path | None = None, *, structure_only: bool = False) -> Scored:
    """One row as an evaluation runs it, in its dataset's EX mode. Without a database file (BIRD here), the
    row runs on databases generated from the schema and its database's golds (`data`: ../shared/data),
    unless `structure_only`."""
    ex, error, g, p, tied, em = None, None, None, None, False, False
    mode = row.dataset if row.dataset in EX_MODES else None
    if row.db_path is not None:
        db = row.db_path
        g, p = execute(db, row.gold_sql), execute(db, row.pred_sql)
        if g.ok:
            ex = execution_outcomes(g, p, row.gold_sql)[f"ex_{mode or 'spider'}"]
            error = p.error
            tie = audit_gold(row.gold_sql, g, lambda q: execute(db, q)).tie
            tied = p.ok and tie_sensitive(tie, g.rows, p.rows)
            if row.schema is not None:  # the evaluation's exact-set match, passed as it passes it
                em = exact_match(row.gold_sql, row.pred_sql, row.schema).em == 1
    databases: list[Path] = []
    if row.db_path is None and row.schema is not None and data is not None and not structure_only:
        databases = schema_neighbours(row.schema, _golds(data, row.dataset, row.schema.db_id))
    started = time.perf_counter()
    found = suggest_causes(
        row.gold_sql, row.pred_sql, schema=row.schema, evidence=row.evidence,
        gold_result=g, pred_result=p, ex=ex, error=error, tie_sensitive=tied, ex_mode=mode,
        databases=databases, exact_match=em, question=row.question,
    )  # fmt: skip
    return Scored(row, found, ex, time.perf_counter() - started)


@cache
def _golds(data: Path, dataset: str, db_id: str) -> tuple[str, ...]:
    """Every gold query of the database in the dataset: what its generated databases are planted from."""
    if dataset != "bird":
        raise ValueError(f"no schema-only databases for {dataset} rows here")
    dev = json.loads((data / "bird_dev" / "dev.json").read_text())
    return tuple(e["SQL"] for e in dev if e["db_id"] == db_id)


def category(tag: str) -> str:
    return tag.split(":", 1)[0]


@dataclass
class Metrics:
    n_wrong: int = 0
    n_right: int = 0
    hit1: int = 0
    hit3: int = 0
    hit3_category: int = 0
    suggested: int = 0  # tags suggested on wrong rows
    correct: int = 0  # of those, tags a person gave
    false_alarms: int = 0  # right rows with any suggestion
    per_category: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0, 0, 0]))
    # category → [labels given, labels found in the first 3, tags suggested, suggested and right]

    def recall1(self) -> float:
        return self.hit1 / self.n_wrong if self.n_wrong else 0.0

    def recall3(self) -> float:
        return self.hit3 / self.n_wrong if self.n_wrong else 0.0

    def recall3_category(self) -> float:
        return self.hit3_category / self.n_wrong if self.n_wrong else 0.0

    def precision(self) -> float:
        return self.correct / self.suggested if self.suggested else 0.0

    def false_alarm_rate(self) -> float:
        return self.false_alarms / self.n_right if self.n_right else 0.0


def score(results: Sequence[Scored]) -> Metrics:
    m = Metrics()
    for r in results:
        tags = [s.tag for s in r.suggested]
        labels = set(r.row.labels)
        if not r.row.wrong:
            m.n_right += 1
            m.false_alarms += bool(tags)
            continue
        m.n_wrong += 1
        m.hit1 += bool(set(tags[:1]) & labels)
        m.hit3 += bool(set(tags[:3]) & labels)
        m.hit3_category += bool({category(t) for t in tags[:3]} & {category(t) for t in labels})
        m.suggested += len(tags)
        m.correct += len(set(tags) & labels)
        for label in labels:
            cell = m.per_category[category(label)]
            cell[0] += 1
            cell[1] += label in tags[:3]
        for t in tags:
            cell = m.per_category[category(t)]
            cell[2] += 1
            cell[3] += t in labels
    return m
