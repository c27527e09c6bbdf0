"""`sqltriage analyze`: the dataset-analysis report as rich tables with inline bars, or one JSON document.

The numbers come from :func:`sqltriage.core.questions.analysis.analyze_dataset`; this module only shows them.
Progress goes to stderr, and only to a terminal and only once the work has taken a moment.
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Sequence
from typing import Any

from rich.console import Console, Group
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from sqltriage.core.model import Dataset
from sqltriage.tui.console import make_console

BAR_WIDTH = 24
MAX_ROWS = 14  # category tables: the most frequent rows, then one "other" row
_EIGHTHS = " ▏▎▍▌▋▊▉"
QUESTION_TITLES = {
    "n_words": "Length (words)",
    "tree_depth": "Dependency-tree depth",
    "lexical_density": "Lexical density",
    "rarity": "Rarity",
    "flesch": "Flesch reading ease",
    "schema_linkage": "Schema linkage",
}


class _DelayedProgress:
    """A progress bar on stderr that appears only when the work lasts longer than ``delay`` seconds."""

    def __init__(self, console: Console, delay: float = 0.5) -> None:
        self.console = console
        self.delay = delay
        self.start = time.monotonic()
        self.progress: Progress | None = None
        self.task: Any = None

    def __call__(self, done: int, total: int) -> None:
        if self.progress is None:
            if not self.console.is_terminal or time.monotonic() - self.start < self.delay:
                return
            self.progress = Progress(
                TextColumn("analysing"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=self.console,
                transient=True,
            )
            self.progress.start()
            self.task = self.progress.add_task("analyse", total=total)
        self.progress.update(self.task, completed=done, total=total)

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()


def bar(share: float, scale: float = 1.0, width: int = BAR_WIDTH) -> str:
    """A horizontal bar of ``share / scale`` of ``width`` cells, in eighths of a cell."""
    if scale <= 0 or share <= 0:
        return ""
    eighths = max(1, round(min(share / scale, 1.0) * width * 8))  # a non-zero share stays visible
    full, part = divmod(eighths, 8)
    return "█" * full + (_EIGHTHS[part] if part else "")


def _pct(share: float) -> str:
    return f"{share * 100:.1f}%"


def _num(x: Any, digits: int = 2) -> str:
    if x is None:
        return "—"
    if isinstance(x, int):
        return f"{x:,}"
    return f"{x:,.{digits}f}"


def compact(rows: Sequence[dict[str, Any]], max_rows: int = MAX_ROWS) -> list[dict[str, Any]]:
    """Numeric histograms with many values grouped into equal ranges, so a table stays short."""
    if len(rows) <= max_rows or not all(isinstance(r["value"], int) for r in rows):
        return list(rows)
    lo, hi = rows[0]["value"], rows[-1]["value"]
    width = math.ceil((hi - lo + 1) / max_rows)
    groups: dict[int, dict[str, Any]] = {}
    for r in rows:
        k = (r["value"] - lo) // width
        g = groups.setdefault(
            k, {"value": f"{lo + k * width}–{lo + k * width + width - 1}", "count": 0, "share": 0}
        )
        g["count"] += r["count"]
        g["share"] += r["share"]
    return [groups[k] for k in sorted(groups)]


def top(rows: Sequence[dict[str, Any]], max_rows: int = MAX_ROWS) -> list[dict[str, Any]]:
    """The most frequent rows and one row for the rest."""
    if len(rows) <= max_rows:
        return list(rows)
    head, rest = list(rows[: max_rows - 1]), rows[max_rows - 1 :]
    head.append(
        {
            "value": f"other ({len(rest)} more)",
            "count": sum(r["count"] for r in rest),
            "share": sum(r["share"] for r in rest),
        }
    )
    return head


def histogram_table(title: str, rows: Sequence[dict[str, Any]], label: str = "value") -> Table:
    t = Table(title=title, title_justify="left", title_style="bold", show_edge=False, pad_edge=False)
    t.add_column(label)
    t.add_column("n", justify="right")
    t.add_column("share", justify="right")
    t.add_column("", style="cyan", no_wrap=True, min_width=BAR_WIDTH)
    scale = max((r["share"] for r in rows), default=0.0)
    for r in rows:
        t.add_row(str(r["value"]), f"{r['count']:,}", _pct(r["share"]), bar(r["share"], scale))
    if not rows:
        t.add_row("—", "0", "", "")
    return t


def _summary_line(s: dict[str, Any], digits: int = 2) -> str:
    if not s["n"]:
        return "no values"
    text = (
        f"mean {_num(s['mean'], digits)} · median {_num(s['median'], digits)} · "
        f"min {_num(s['min'], digits)} · max {_num(s['max'], digits)}"
    )
    return text + (f" · {s['missing']} missing" if s["missing"] else "")


def _render_queries(q: dict[str, Any], console: Console) -> None:
    console.rule("[bold]Queries")
    if q["n_unreadable"]:
        console.print(f"[yellow]{q['n_unreadable']} of {q['n_queries']} gold queries could not be read[/]")
    console.print(histogram_table("Structural variety", top(q["structural"]), "combination"))
    console.print(histogram_table("Operator variety", top(q["operators"]), "combination"))
    console.print(histogram_table("Spider hardness", q["hardness"], "hardness"))
    for key, title, label in (
        ("operator_usage", "Operator usage", "operators"),
        ("tables_per_query", "Schema usage: tables per query", "tables"),
        ("columns_per_query", "Schema usage: columns per query", "columns"),
        ("values_per_query", "Content usage: values per query", "values"),
        ("nesting_depth", "Nesting depth", "depth"),
    ):
        console.print(histogram_table(title, compact(q[key]["histogram"]), label))
        console.print(f"  [dim]{_summary_line(q[key]['summary'])}[/]")


def _render_databases(d: dict[str, Any], console: Console) -> None:
    console.rule("[bold]Databases")
    t = Table(title="Schema complexity, quality and size", title_justify="left", title_style="bold")
    t.add_column("database")
    t.add_column("tables", justify="right")
    t.add_column("columns", justify="right")
    t.add_column("rows", justify="right")
    t.add_column("English names", justify="right")
    t.add_column("", style="cyan", no_wrap=True, min_width=BAR_WIDTH // 2)
    for r in d["databases"]:
        rows = _num(r["n_rows"]) if r["n_rows"] is not None else "[dim]no file[/]"
        t.add_row(
            r["db_id"],
            str(r["n_tables"]),
            str(r["n_columns"]),
            rows,
            _pct(r["english_share"]),
            bar(r["english_share"], width=BAR_WIDTH // 2),
        )
    for db_id in d["without_schema"]:
        t.add_row(db_id, "[dim]—[/]", "[dim]—[/]", "[dim]no file[/]", "[dim]no schema[/]", "")
    console.print(t)
    s = d["summary"]
    for key, label, digits in (
        ("n_tables", "tables", 1),
        ("n_columns", "columns", 1),
        ("n_rows", "rows", 0),
        ("english_share", "English names", 3),
    ):
        console.print(f"  [dim]{label}: {_summary_line(s[key], digits)}[/]")
    console.print(f"  [dim]English names: {d['definition']}[/]")


def _render_questions(qa: dict[str, Any], console: Console) -> None:
    console.rule("[bold]Questions")
    console.print(f"pipeline: {qa['pipeline']}")
    if qa["missing_reason"]:
        console.print(f"[yellow]{qa['missing_reason']}[/]")
    t = Table(title="Question axes", title_justify="left", title_style="bold")
    t.add_column("axis")
    for name in ("mean", "median", "min", "max", "missing"):
        t.add_column(name, justify="right")
    for axis, title in QUESTION_TITLES.items():
        s = qa["features"][axis]["summary"]
        t.add_row(
            title, _num(s["mean"]), _num(s["median"]), _num(s["min"]), _num(s["max"]), str(s["missing"])
        )
    console.print(t)
    for axis, title in QUESTION_TITLES.items():
        rows = qa["features"][axis]["histogram"]
        if rows:
            console.print(histogram_table(title, compact(rows), "range" if axis != "tree_depth" else "depth"))
    if qa["content_words_by_pos"]:
        console.print(histogram_table("Content words by part of speech", qa["content_words_by_pos"], "POS"))
    console.print(Group(*(f"  [dim]{k}: {v}[/]" for k, v in qa["definitions"].items())))


def _render_reasoning(r: dict[str, Any], console: Console) -> None:
    if not (r["n_annotated"] or r["inferred_arithmetic"] or r["external_knowledge"] or r["difficulty"]):
        return
    console.rule("[bold]Reasoning")
    if r["n_annotated"]:
        title = f"Annotated reasoning types (share of the {r['n_annotated']} annotated examples)"
        console.print(histogram_table(title, r["types"], "type"))
        if r["with_commonsense_note"]:
            console.print(
                f"  [dim]{r['with_commonsense_note']} examples carry a commonsense-knowledge note[/]"
            )
    if r["n_inferred"] and r["inferred_arithmetic"]:
        title = (
            f"Arithmetic inferred from the gold SQL (share of {r['n_inferred']} examples without annotation)"
        )
        console.print(histogram_table(title, r["inferred_arithmetic"], "operation (inferred)"))
    console.print(histogram_table("Reasoning labels (facet values)", top(r["labels"]), "label"))
    if r["external_knowledge"]:
        console.print(f"external knowledge (evidence): {r['external_knowledge']} examples")
    if r["difficulty"]:
        console.print(histogram_table("Difficulty", r["difficulty"], "difficulty"))


def render(report: dict[str, Any], console: Console) -> None:
    """The whole report, section by section, as the paper groups its axes."""
    ds = report["dataset"]
    d = report["database"]
    console.print(
        f"[bold]{ds['name']}[/] ({ds['format']}): {ds['n_examples']:,} examples, "
        f"{ds['n_databases']} databases ({len(d['without_file'])} without a file)"
    )
    _render_queries(report["query"], console)
    _render_databases(d, console)
    _render_questions(report["question"], console)
    _render_reasoning(report["reasoning"], console)
    console.print(f"[dim]analysed in {report.get('seconds', 0):.1f} s[/]")


def run(dataset: Dataset, *, as_json: bool, pipeline: str | None) -> int:
    """Analyse the dataset and print the report (rich tables, or one JSON document with ``as_json``)."""
    from sqltriage.core.questions.analysis import analyze_dataset
    from sqltriage.core.questions.nl import load_pipeline, pipeline_unavailable_reason

    err = make_console(stderr=True)
    started = time.monotonic()
    if err.is_terminal:
        with err.status("loading the spaCy pipeline…"):
            nlp = load_pipeline(pipeline)
    else:
        nlp = load_pipeline(pipeline)
    if nlp is None:
        err.print(f"[yellow]{pipeline_unavailable_reason()}[/]")
    progress = _DelayedProgress(err)

    def keep(feats: Sequence[Any]) -> None:  # for every later evaluation of this dataset
        from sqltriage.core.questions.feature_cache import store_computed
        from sqltriage.tui.commands.cache_cmd import keep_within_limit

        store_computed(dataset, pipeline, feats)
        keep_within_limit()  # the features went to the user cache

    try:
        report = analyze_dataset(
            dataset, nlp=nlp, pipeline=pipeline, progress=progress, on_features=keep if nlp else None
        )
    finally:
        progress.close()
    report["seconds"] = round(time.monotonic() - started, 2)
    if as_json:
        sys.stdout.write(json.dumps(report, ensure_ascii=False, indent=2, allow_nan=False) + "\n")
    else:
        render(report, make_console())
    return 0
