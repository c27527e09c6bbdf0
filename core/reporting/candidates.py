"""What the papers report of k sampled candidates, per model: greedy EX, maj@k, pass@k and the oracle; and
how each model's responses gave up their SQL (extraction kinds).

pass@k is the unbiased estimator of Chen et al. (2021), "Evaluating Large Language Models Trained on Code":
per question with n candidates of which c are right, 1 - C(n-c, k) / C(n, k), averaged over the questions
with n >= k. The naive share of questions whose first k candidates hold a right one depends on the order
of sampling; the estimator does not.
"""

from __future__ import annotations

import json
from math import comb
from typing import Any

import polars as pl

RESPONSE_EXTRAS = ("tokens", "latency", "cost", "confidence")


def pass_at_k(n: int, c: int, k: int) -> float:
    """The chance that k of the n candidates drawn without replacement hold one of the c right ones."""
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def first_ex(clusters: str | None, ex: int | None, chosen: int | None) -> int | None:
    """EX of candidate 1 (greedy): the row's own unless another candidate was chosen, else its cluster's."""
    if not clusters or (chosen or 1) == 1:
        return ex
    for cluster in json.loads(clusters):
        if 1 in cluster["members"]:
            return cluster["ex"]
    return None


def candidate_metrics(frame: pl.DataFrame, mode: str = "spider") -> list[dict[str, Any]]:
    """Per model read from responses: greedy EX, maj@k, pass@1..k, the oracle, each over the rows executed,
    all in the dataset's EX mode `mode` (as `candidates_right` and `ex_majority` are stored)."""
    if "candidates" not in frame.columns:
        return []
    rows = frame.filter(pl.col("candidates").is_not_null() & pl.col("candidates_right").is_not_null())
    out = []
    for model in rows.get_column("model").unique(maintain_order=True).to_list():
        sub = rows.filter(pl.col("model") == model)
        n = sub.get_column("candidates").to_list()
        c = sub.get_column("candidates_right").to_list()
        greedy = [
            first_ex(cl, ex, ch)
            for cl, ex, ch in zip(
                sub.get_column("candidate_clusters").to_list(),
                sub.get_column(f"ex_{mode}").to_list(),
                sub.get_column("chosen").to_list(),
                strict=True,
            )
        ]
        k_max = max(n, default=0)
        passes = {}
        for k in range(1, k_max + 1):
            values = [pass_at_k(ni, ci, k) for ni, ci in zip(n, c, strict=True) if ni >= k]
            passes[str(k)] = {"value": sum(values) / len(values) if values else None, "n": len(values)}
        known = [g for g in greedy if g is not None]
        majority = [v for v in sub.get_column("ex_majority").to_list() if v is not None]
        out.append(
            {
                "model": model,
                "n": sub.height,
                "k": k_max,
                "k_min": min(n, default=0),
                "greedy_ex": sum(known) / len(known) if known else None,
                "maj_at_k": sum(majority) / len(majority) if majority else None,
                "pass_at_k": passes,
                "oracle": sum(ci > 0 for ci in c) / len(c) if c else None,
                "missed": sum(g == 0 and ci > 0 for g, ci in zip(greedy, c, strict=True)),
            }
        )
    return out


def extraction_counts(frame: pl.DataFrame) -> list[dict[str, Any]]:
    """Per model read from responses and kind of extraction (fence-sql, …, failed: <why>): its rows."""
    if "extraction" not in frame.columns:
        return []
    counted = (
        frame.filter(pl.col("extraction").is_not_null())
        .group_by(["model", "extraction"], maintain_order=True)
        .agg(pl.len().alias("rows"))
        .sort(["model", "rows"], descending=[False, True], maintain_order=True)
    )
    return counted.to_dicts()


def extras_summary(frame: pl.DataFrame) -> list[dict[str, Any]]:
    """Per model: the mean and total of each figure given with the responses (tokens, latency, cost,
    confidence), where present."""
    present = [
        c for c in RESPONSE_EXTRAS if c in frame.columns and frame.get_column(c).null_count() < frame.height
    ]
    if not present:
        return []
    aggs = []
    for c in present:
        aggs += [
            pl.col(c).mean().alias(f"{c}_mean"),
            pl.col(c).sum().alias(f"{c}_total"),
            pl.col(c).count().alias(f"{c}_n"),
        ]
    return frame.group_by("model", maintain_order=True).agg(aggs).to_dicts()


def response_report(frame: pl.DataFrame, mode: str = "spider") -> dict[str, Any]:
    """The report's parts on responses: empty lists for a workspace of bare SQL files."""
    return {
        "extraction": extraction_counts(frame),
        "candidates": candidate_metrics(frame, mode),
        "response_figures": extras_summary(frame),
    }
