"""`python -m tests.bench suggest`: the suggestion engine against the hand-labelled causes.

Prints recall@1 / recall@3 (a human label among the first 1 / 3 suggestions of a wrong row), precision
(suggested tags on wrong rows that a person gave), false alarms (right rows that get any suggestion) and
a per-category table, separately for the tuning part and the held-out part of the set, with the engine's
own time per row. Options: `--show` lists every row with its labels and suggestions.
"""

from __future__ import annotations

import argparse
import statistics
import sys

from tests.bench.harness import SHARED_DATA, load_average
from tests.core.suggest_score import Metrics, run_row, score
from tests.core.suggest_set import load_rows

TARGETS = {"recall@3": 0.80, "precision": 0.50, "false alarms": 0.20}
CATEGORIES = (
    "Attribute",
    "Table",
    "Condition",
    "Value",
    "Function",
    "Clause",
    "Subquery",
    "Operator",
    "Other",
    "Evaluation",
)


def _summary_table(parts: dict[str, Metrics]) -> str:
    lines = [
        "| part | wrong rows | right rows | recall@1 | recall@3 | recall@3 (category) | precision | false alarms |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, m in parts.items():
        lines.append(
            f"| {name} | {m.n_wrong} | {m.n_right} | {m.recall1():.2f} | {m.recall3():.2f} | "
            f"{m.recall3_category():.2f} | {m.precision():.2f} ({m.correct}/{m.suggested}) | "
            f"{m.false_alarm_rate():.2f} ({m.false_alarms}/{m.n_right}) |"
        )
    return "\n".join(lines)


def _category_table(m: Metrics) -> str:
    lines = [
        "| category | labels | found in first 3 | recall | suggested | right | precision |",
        "|---|---|---|---|---|---|---|",
    ]
    for cat in CATEGORIES:
        given, found, suggested, right = m.per_category.get(cat, [0, 0, 0, 0])
        rec = f"{found / given:.2f}" if given else "—"
        prec = f"{right / suggested:.2f}" if suggested else "—"
        lines.append(f"| {cat} | {given} | {found} | {rec} | {suggested} | {right} | {prec} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench suggest", description=__doc__)
    parser.add_argument("--show", action="store_true", help="list every row with its labels and suggestions")
    args = parser.parse_args(argv)
    if not (SHARED_DATA / "spider_dev" / "dev.json").exists():
        print(f"shared data not found at {SHARED_DATA}: set SQLTRIAGE_SHARED_DATA", file=sys.stderr)
        return 2
    load_before = load_average()
    results = [run_row(r) for r in load_rows(SHARED_DATA)]
    if args.show:
        for r in results:
            got = "; ".join(f"{s.tag} ({s.confidence:.2f})" for s in r.suggested) or "—"
            mark = (
                "ok "
                if (not r.row.wrong and not r.suggested)
                or (set(s.tag for s in r.suggested[:3]) & set(r.row.labels))
                else "XX "
            )
            print(
                f"{mark}{r.row.split:4} {r.row.dataset}/{r.row.source}/{r.row.index} ex={r.ex}\n"
                f"     human: {'; '.join(r.row.labels) or '(right)'}\n     engine: {got}"
            )
            for s in r.suggested:
                print(f"        - {s.tag}: {s.reason}")
    parts = {
        "tune": score([r for r in results if r.row.split == "tune"]),
        "held-out": score([r for r in results if r.row.split == "held"]),
        "fresh (labelled after tuning)": score([r for r in results if r.row.split == "fresh"]),
        "all": score(results),
    }
    for ds in ("spider", "bird", "archer"):
        parts[f"all, {ds}"] = score([r for r in results if r.row.dataset == ds])
    times = [r.seconds * 1000 for r in results]
    print(
        f"Suggestion engine on {len(results)} hand-labelled rows — load before {load_before}, after {load_average()}"
    )
    print(_summary_table(parts))
    print(
        f"\ntargets: recall@3 ≥ {TARGETS['recall@3']}, precision ≥ {TARGETS['precision']}, false alarms ≤ {TARGETS['false alarms']}"
    )
    for name in ("tune", "held-out", "fresh (labelled after tuning)"):
        print(
            f"\nPer category, {name} part (labels found among the first 3; suggestions that a person gave):"
        )
        print(_category_table(parts[name]))
    print(
        f"\nengine time per row: median {statistics.median(times):.2f} ms, max {max(times):.2f} ms (execution excluded)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
