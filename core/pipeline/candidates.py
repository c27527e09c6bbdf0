"""A prediction read from raw responses: its extraction, its k candidates and how a selection fares.

Candidate 1 (or, with `--choose majority`, the execution majority's earliest candidate) is evaluated as any
prediction is (`evaluate_pair`); the others are only run and compared with the gold, since what the papers
report of them (maj@k, pass@k, the oracle) needs their EX and their result, nothing more. Runs are shared
between equal texts: samples repeat themselves, and the same text on the same example gives the same result.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqltriage.core.model import Prediction
from sqltriage.core.pipeline.pair import evaluate_pair, limits_of

if TYPE_CHECKING:
    from sqltriage.core.pipeline.options import EvalOptions
    from sqltriage.core.pipeline.pair import GoldContext
    from sqltriage.core.pipeline.shared_analyses import RecentAnalyses

CHOICES = ("first", "majority")  # which candidate is scored as the row's prediction (`--choose`)
RESPONSE_COLUMNS = (
    "pred_raw",
    "extraction",
    "candidates",
    "candidates_right",
    "ex_majority",
    "chosen",
    "candidate_clusters",
    "tokens",
    "latency",
    "cost",
    "confidence",
)


@dataclass(frozen=True, slots=True)
class Outcome:
    """One candidate against the gold: its EX in the dataset's mode, what its result is equal to, its error."""

    ex: int | None
    key: str  # equal for equal results ("rows:<digest>"), else "error: <kind>"
    error: str | None


RunMemo = dict[tuple[str, str, str], Outcome]  # (db path, gold, candidate text) -> outcome, per chunk


def evaluate_response(
    gold: GoldContext,
    pred: Prediction,
    options: EvalOptions,
    analyses: RecentAnalyses | None = None,
    runs: RunMemo | None = None,
) -> dict[str, Any]:
    """The row of a prediction read from responses: `evaluate_pair` of the chosen candidate, with the
    response's columns (RESPONSE_COLUMNS); never raises for a bad response."""
    runs = runs if runs is not None else {}
    texts = pred.candidates or (pred.sql,)
    outcomes: list[Outcome | None] = [None] * len(texts)
    chosen = 0
    if options.choose == "majority" and len(texts) > 1:
        outcomes = [_run(gold, t, options, runs) for t in texts]
        chosen = clusters_of(outcomes)[0][0]
    row = evaluate_pair(gold, texts[chosen], options, analyses)
    outcomes[chosen] = _from_row(row, gold.ex_mode)
    runs.setdefault(_memo_key(gold, texts[chosen]), outcomes[chosen])
    done = [
        o if o is not None else _run(gold, t, options, runs) for o, t in zip(outcomes, texts, strict=True)
    ]
    row.update(_columns(pred, done, chosen, texts))
    _add_problem(row, pred)
    return row


def clusters_of(outcomes: list[Outcome]) -> list[list[int]]:
    """Candidate positions grouped by equal results, the majority first: the largest cluster, ties to the
    one holding the earliest candidate; clusters of failing candidates after every cluster that ran."""
    groups: dict[str, list[int]] = {}
    for i, o in enumerate(outcomes):
        groups.setdefault(o.key, []).append(i)

    def rank(members: list[int]) -> tuple[int, int, int]:
        failed = outcomes[members[0]].error is not None
        return (int(failed), -len(members), members[0])

    return sorted(groups.values(), key=rank)


def _memo_key(gold: GoldContext, text: str) -> tuple[str, str, str]:
    return (str(gold.db_path), gold.example.gold_sql, text)


def _run(gold: GoldContext, text: str, options: EvalOptions, runs: RunMemo) -> Outcome:
    """One candidate run and scored exactly as a row's `ex_<mode>` is (alternatives and accepted golds
    count), once per text."""
    key = _memo_key(gold, text)
    known = runs.get(key)
    if known is not None:
        return known
    if not text.strip():
        outcome = Outcome(0 if gold.result is not None else None, "error: empty", "empty prediction")
    elif gold.db_path is None or gold.result is None:
        outcome = Outcome(None, f"rows:{text}", None)  # no database: candidates cluster by their text
    else:
        from sqltriage.core.verdicts.judgement.difference import result_digest
        from sqltriage.core.verdicts.pair_run import run_prediction

        run = run_prediction(gold.run, text, limits=limits_of(options))
        ex = run.outcomes.get(f"ex_{gold.ex_mode}")
        error = run.pred.error
        digest = result_digest(run.pred)
        outcome = Outcome(
            ex if isinstance(ex, int) else None,
            f"error: {run.pred.error_kind}" if error else f"rows:{digest or text}",
            error,
        )
    runs[key] = outcome
    return outcome


def _from_row(row: dict[str, Any], mode: str) -> Outcome:
    """The evaluated candidate's outcome, read off its row (no second run)."""
    ex = row.get(f"ex_{mode}")
    error = row.get("error") if row.get("va") == 0 or not (row.get("pred_sql") or "").strip() else None
    if error:
        return Outcome(ex, f"error: {row.get('error_kind') or 'empty'}", error)
    digest = row.get("result_digest")
    return Outcome(ex, f"rows:{digest or row.get('pred_sql')}", None)


def _columns(
    pred: Prediction, outcomes: list[Outcome], chosen: int, texts: tuple[str, ...]
) -> dict[str, Any]:
    clusters = clusters_of(outcomes)
    known = any(o.ex is not None for o in outcomes)
    out: dict[str, Any] = {
        "pred_raw": pred.raw,
        "extraction": pred.extraction if chosen == 0 else _extraction_of(pred, chosen),
        "candidates": len(outcomes),
        "candidates_right": sum(o.ex == 1 for o in outcomes) if known else None,
        "ex_majority": outcomes[clusters[0][0]].ex,
        "chosen": chosen + 1,
        "candidate_clusters": None,
    }
    if len(outcomes) > 1:
        out["candidate_clusters"] = json.dumps(
            [
                {
                    "members": [i + 1 for i in members],
                    "ex": outcomes[members[0]].ex,
                    "error": outcomes[members[0]].error,
                    "sql": texts[members[0]],
                }
                for members in clusters
            ]
        )
    out.update(dict.fromkeys(("tokens", "latency", "cost", "confidence")))
    out.update(dict(pred.extras))
    return out


def _extraction_of(pred: Prediction, i: int) -> str | None:
    kinds = pred.candidate_extractions
    return kinds[i] if i < len(kinds) else pred.extraction


def _add_problem(row: dict[str, Any], pred: Prediction) -> None:
    """The file's problem with this row (file, line, id) as the row's error, before any other."""
    if not pred.problem:
        return
    failed = not (row.get("pred_sql") or "").strip()
    error = row.get("error")
    row["error"] = pred.problem if failed or not error else f"{pred.problem}; {error}"
    if failed:
        row["error_kind"] = "extraction"
    elif not error:
        row["error_kind"] = "input"
