"""What the detail tabs show, built as rich renderables off the event loop (workers call these).

Each function takes plain values and returns a renderable; none touches a widget.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from sqltriage.core.verdicts.ex_modes import EX_MODES
from sqltriage.core.verdicts.exec_result import ExecResult
from sqltriage.core.verdicts.gold_audit import Tie, tie_sensitive
from sqltriage.core.verdicts.pair_run import PairRun

if TYPE_CHECKING:  # these load sqlglot: the triage tab, drawn with the first row, must not wait for it
    from sqltriage.core.sql.authors_match import AuthorsMatch
    from sqltriage.core.sql.diff import SqlDiff
    from sqltriage.core.sql.parse import TableAlias
    from sqltriage.core.sql.partial_match import ComponentDiff, MatchBreakdown
    from sqltriage.core.suggest import Suggestion

MAX_SHOWN_ROWS = 50  # result rows drawn per side; the counts always cover every row fetched
_MISSING_STYLE = "white on dark_red"
_EXTRA_STYLE = "white on dark_green"
# Marks with their own background read the same on light and dark terminals; keywords are only bold.
GOLD_ONLY_STYLE = "bold white on dark_red"
PRED_ONLY_STYLE = "bold white on dark_green"


def _score(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def _verdict(v: int | None) -> Text:
    if v is None:
        return Text("n/a", style="dim")
    return Text("pass", style="bold green") if v else Text("fail", style="bold red")


# --- breakdown --------------------------------------------------------------------------------------


def render_breakdown(b: MatchBreakdown, authors: AuthorsMatch | None = None) -> RenderableType:
    """Scores per subquery and, per component, the items only gold or only the prediction has.

    `authors`: the same measures as the paper's published code computes them, shown under ours when they
    differ (or when that code would raise).
    """
    head = Text()
    for name, value in (("SM", b.sm), ("OM", b.om), ("VM", b.vm), ("PM", b.pm)):
        head.append(f"{name} {_score(value)}   ", style="bold")
    parts: list[RenderableType] = [head]
    if authors is not None and (line := _authors_line(b, authors)) is not None:
        parts.append(line)
    if b.error:
        parts.append(Text(b.error, style="red"))
    for sub in b.subqueries:
        title = f"subquery level {sub.level}, #{sub.position + 1}"
        table = Table(title=title, title_justify="left", expand=True, show_lines=True)
        table.add_column("component", no_wrap=True)
        table.add_column("score", justify="right", no_wrap=True)
        table.add_column("only in gold", style="red", ratio=1)
        table.add_column("only in prediction", style="green", ratio=1)
        table.add_column("in both", style="dim", ratio=1)
        components: tuple[tuple[str, ComponentDiff], ...] = (
            ("structural", sub.structural),
            ("operator", sub.operator),
            ("variable", sub.variable),
        )
        for name, c in components:
            table.add_row(
                name, _score(c.score), "\n".join(c.gold_only), "\n".join(c.pred_only), "\n".join(c.both)
            )
        if sub.gold is None:
            table.caption = "gold has no subquery here: the prediction's is extra"
        elif sub.pred is None:
            table.caption = "the prediction has no subquery here"
        parts.append(table)
    return Group(*parts)


def _authors_line(b: MatchBreakdown, a: AuthorsMatch) -> Text | None:
    if a.raises:
        return Text(f"paper's code: {a.raises}", style="dim")
    ours = (b.sm, b.om, b.vm, b.pm)
    theirs = (a.sm, a.om, a.vm, a.pm)
    if all(x is not None and y is not None and abs(x - y) < 0.005 for x, y in zip(ours, theirs, strict=True)):
        return None
    line = Text()
    for name, value in zip(("SM", "OM", "VM", "PM"), theirs, strict=True):
        line.append(f"{name} {_score(value)}   ")
    line.append("(as the paper's code computes it)")
    line.stylize("dim")
    return line


# --- results ----------------------------------------------------------------------------------------


def _side(title: str, result: ExecResult, marked: Counter, style: str) -> RenderableType:
    head = Text(f"{title}  ", style="bold")
    head.append(
        f"{len(result.rows)} row(s){' (truncated)' if result.truncated else ''}, {result.elapsed * 1000:.1f} ms"
    )
    if result.error:
        return Group(head, Text(f"{result.error_kind}: {result.error}", style="bold red"))
    table = Table(expand=True, show_edge=False, pad_edge=False)
    for col in result.columns or ("",):
        table.add_column(str(col), overflow="fold")
    left = Counter(marked)
    for row in result.rows[:MAX_SHOWN_ROWS]:
        cells = ["NULL" if v is None else str(v) for v in row]
        if left.get(row, 0) > 0:
            left[row] -= 1
            table.add_row(*cells, style=style)
        else:
            table.add_row(*cells)
    parts: list[RenderableType] = [head, table]
    if len(result.rows) > MAX_SHOWN_ROWS:
        parts.append(Text(f"… {len(result.rows) - MAX_SHOWN_ROWS} more row(s)", style="dim"))
    return Group(*parts)


def row_differences(gold: ExecResult, pred: ExecResult) -> tuple[Counter, Counter]:
    """Rows (as bags) the prediction misses and rows it adds, compared as written."""
    g, p = Counter(gold.rows), Counter(pred.rows)
    return g - p, p - g


def render_tie(tie: Tie, run: PairRun) -> RenderableType:
    """The rows tied at gold's LIMIT: any of them is as right as the one gold happened to keep."""
    head = Text("gold's LIMIT cuts inside a tie: ", style="bold yellow")
    head.append(tie.describe())
    if run.pred.ok and tie_sensitive(tie, run.gold.rows, run.pred.rows):
        head.append(
            "\nthe prediction differs from gold only by which tied rows it kept (tie-sensitive)", style="bold"
        )
    table = Table(show_edge=False, pad_edge=False)
    for col in run.gold.columns or ("",):
        table.add_column(str(col), overflow="fold")
    table.add_column("")
    for row in tie.kept[:MAX_SHOWN_ROWS]:
        table.add_row(*("NULL" if v is None else str(v) for v in row), "kept by gold")
    for row in tie.dropped[: max(0, MAX_SHOWN_ROWS - len(tie.kept))]:
        table.add_row(*("NULL" if v is None else str(v) for v in row), "tied, left out")
    return Group(head, table)


def render_results(run: PairRun, *, tie: Tie | None = None) -> RenderableType:
    """Verdict in every EX mode, then gold | prediction with missing / extra rows highlighted.

    When gold's LIMIT cuts inside a tie on its sort key, the tied rows are shown too.
    """
    missing, extra = row_differences(run.gold, run.pred)
    verdict = Text("VA ", style="bold")
    verdict.append_text(_verdict(run.outcomes.get("va")))
    for mode in EX_MODES:
        verdict.append(f"   EX ({mode}) ", style="bold")
        verdict.append_text(_verdict(run.outcomes.get(f"ex_{mode}")))
    counts = Text(
        f"rows missing from the prediction: {sum(missing.values())}   "
        f"extra rows in the prediction: {sum(extra.values())}"
    )
    grid = Table.grid(expand=True, padding=(0, 2))
    grid.add_column(ratio=1)
    grid.add_column(ratio=1)
    grid.add_row(
        _side("gold", run.gold, missing, _MISSING_STYLE),
        _side("prediction", run.pred, extra, _EXTRA_STYLE),
    )
    matched = run.outcomes.get("gold_match")
    if matched not in (None, "gold"):  # the gold shown is the dataset's; the pass is on another one
        verdict.append(f"   (passes on {matched})", style="dim")
    if run.official is not None and run.official.ex != run.outcomes.get("ex_spider"):
        verdict.append("   EX (official) ", style="bold")
        verdict.append_text(_verdict(run.official.ex))
        verdict.append(f" ({run.official.quirk})" if run.official.quirk else "", style="dim")
    parts: list[RenderableType] = [verdict, counts]
    if tie is not None:
        parts += [Text(""), render_tie(tie, run)]
    return Group(*parts, Text(""), grid)


# --- question ---------------------------------------------------------------------------------------

_FEATURES = (
    ("q_words", "words"),
    ("q_tree_depth", "parse tree depth"),
    ("q_lexical_density", "lexical density"),
    ("q_rarity", "rare words (share)"),
    ("q_flesch", "Flesch reading ease"),
    ("q_schema_linkage", "schema linkage"),
)


JUDGEMENT_STYLES = {"right": "bold green", "wrong": "bold red", "unsure": "bold yellow"}


def render_judgement(row: Mapping[str, Any]) -> Text:
    """The detail pane's first line: the judgement and why, then the doubts on the gold (docs/judgement.md)."""
    out = Text()
    call = row.get("judgement")
    if not call:
        out.append("no judgement yet: evaluate again to have one\n", style="dim")
        return out
    out.append(f"{call}", style=JUDGEMENT_STYLES.get(call, "bold"))
    out.append(f": {row.get('judgement_why') or ''}\n")
    if row.get("refutation_assumption") and row.get("refutation_detail"):
        side = row.get("fragile_side")
        out.append("refutation assumes: ", style="bold")
        out.append(f"{row['refutation_assumption']} ({row['refutation_detail']}", style="")
        out.append(f"; fragile: {side})\n" if side else ")\n")
    if row.get("gold_flags"):
        out.append("gold doubted: ", style="bold yellow")
        out.append(f"{row['gold_flags']}\n", style="yellow")
    lints = row.get("pred_lints")
    if lints:
        out.append("prediction lints: ", style="bold")
        out.append(f"{lints}\n")
    return out


def render_question(
    row: Mapping[str, Any],
    db_path: Path | None,
    features_note: str | None = None,
    alternatives: Sequence[str] = (),
    accepted: Sequence[tuple[str, str]] = (),
) -> RenderableType:
    """The question and what the dataset says about it, annotations and inferences told apart.

    ``features_note`` says why the features are not shown yet (being computed, or unavailable);
    ``accepted`` holds the (label, sql) of the alternatives accepted in the app, which `W` withdraws.
    """
    out = Text()
    out.append(f"#{row.get('index')}  ", style="bold")
    out.append(f"{row.get('db_id')}", style="bold underline")
    out.append("  (database missing)\n" if db_path is None else "\n", style="red" if db_path is None else "")
    out.append(f"\n{row.get('question') or ''}\n\n", style="bold")
    for key, label in (("evidence", "evidence"), ("commonsense", "commonsense knowledge")):
        value = row.get(key)
        if value:
            out.append(f"{label}: ", style="bold")
            out.append(f"{value}\n")
    reasoning = row.get("reasoning") or ""
    out.append("reasoning: ", style="bold")
    if not reasoning:
        out.append("none\n")
    elif row.get("reasoning_inferred"):
        out.append(f"{reasoning} — inferred from the gold SQL, not annotated\n")
    else:
        out.append(f"{reasoning} — annotated in the dataset\n")
    for n, alt in enumerate(alternatives, start=1):
        out.append(f"alternative gold {n} (dataset): ", style="bold")
        out.append(f"{alt}\n")
    for label, alt in accepted:
        out.append(f"alternative gold {label} (in the workspace; W withdraws): ", style="bold")
        out.append(f"{alt}\n")
    if row.get("gold_match") and row["gold_match"] != "gold":
        out.append("EX passes on: ", style="bold")
        out.append(f"{row['gold_match']} (not the dataset's gold)\n")
    if row.get("gold_suspect"):
        out.append("gold suspect: ", style="bold yellow")
        out.append(f"{row['gold_suspect']}\n", style="yellow")
        if row.get("gold_suspect_detail"):
            out.append(f"  {row['gold_suspect_detail']}\n", style="dim")
    for key, label in (
        ("hardness", "hardness (Spider rules)"),
        ("difficulty", "difficulty (dataset)"),
        ("structural", "structural category"),
        ("operators", "operator category"),
    ):
        if row.get(key):
            out.append(f"{label}: ", style="bold")
            out.append(f"{row[key]}\n")
    out.append("\nquestion features\n", style="bold underline")
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column(justify="right")
    any_feature = False
    for key, label in _FEATURES:
        value = row.get(key)
        if value is not None:
            any_feature = True
        table.add_row(
            label, "—" if value is None else (f"{value:.2f}" if isinstance(value, float) else str(value))
        )
    if not any_feature:
        note = features_note or "not computed for this workspace (no spaCy pipeline, or features off)"
        return Group(out, Text(note, style="dim"))
    return Group(out, table)


# --- SQL diff ---------------------------------------------------------------------------------------


def _clause_text(tokens: tuple, mark: str) -> Text:  # type: ignore[type-arg]
    from sqltriage.core.sql.diff import EQUAL

    out = Text()
    for tok in tokens:
        if tok.space and out.plain:
            out.append(" ")
        style = mark if tok.kind != EQUAL else ("bold" if tok.text.isupper() and tok.text.isalpha() else "")
        out.append(tok.text, style=style)
    return out


def render_sql_diff(diff: SqlDiff, *, error: str | None = None, resolved: bool = True) -> RenderableType:
    """Clause by clause, gold | prediction, the differing tokens marked; then what only one side has."""
    from sqltriage.core.sql.diff import EQUAL, GOLD_ONLY

    grid = Table.grid(expand=True, padding=(0, 2))
    grid.add_column(no_wrap=True, style="bold")
    grid.add_column(ratio=1)
    grid.add_column(ratio=1)
    grid.add_row("", Text("gold", style="bold underline"), Text("prediction", style="bold underline"))
    for clause in diff.clauses:
        gold = _clause_text(clause.gold, GOLD_ONLY_STYLE)
        pred = _clause_text(clause.pred, PRED_ONLY_STYLE)
        name = clause.clause + ("" if clause.equal else " ≠")
        grid.add_row(
            name,
            gold if gold.plain else Text("—", style="dim"),
            pred if pred.plain else Text("—", style="dim"),
        )
    parts: list[RenderableType] = [grid, Text("")]
    gold_only = [t.text for c in diff.clauses for t in c.gold if t.kind == GOLD_ONLY]
    pred_only = [t.text for c in diff.clauses for t in c.pred if t.kind != EQUAL]
    if diff.identical:
        parts.append(Text("same query" + (" once aliases are resolved" if resolved else ""), style="bold"))
    else:
        summary = Text()
        summary.append("only in gold: ", style="bold")
        summary.append(" ".join(gold_only) or "—", style=GOLD_ONLY_STYLE if gold_only else "")
        summary.append("\nonly in prediction: ", style="bold")
        summary.append(" ".join(pred_only) or "—", style=PRED_ONLY_STYLE if pred_only else "")
        parts.append(summary)
    for side, err in (("gold", diff.gold_error), ("prediction", diff.pred_error)):
        if err:
            parts.append(Text(f"{side} does not parse: {err}", style="bold red"))
    if error:
        parts.append(Text(f"\nerror: {error}", style="bold red"))
    line = alias_line(diff.gold_aliases, diff.pred_aliases, resolved=resolved)
    if line:
        parts.append(Text(line, style="dim"))
    return Group(*parts)


def _pairs(aliases: Sequence[TableAlias]) -> str:
    return ", ".join(f"{a.alias} → {a.table}" for a in aliases)


def _sides(gold: Sequence[TableAlias], pred: Sequence[TableAlias]) -> str:
    """One list of both queries' aliases; one per side when an alias stands for different tables in each."""
    tables: dict[str, set[str]] = {}
    for a in (*gold, *pred):
        tables.setdefault(a.alias.lower(), set()).add(a.table.lower())
    if gold and pred and any(len(t) > 1 for t in tables.values()):
        return f"gold: {_pairs(gold)}; prediction: {_pairs(pred)}"
    return _pairs(list(dict.fromkeys((*gold, *pred))))


def alias_line(gold: Sequence[TableAlias], pred: Sequence[TableAlias], *, resolved: bool) -> str:
    """What the `r` toggle does to this row's table aliases; "" when neither query has one.

    Resolved, an alias of a table read twice in one scope stays (a self-join needs it): said apart.
    """
    if not gold and not pred:
        return ""
    if not resolved:
        return f"aliases as written ({_sides(gold, pred)}); r resolves them"
    replaced = _sides([a for a in gold if not a.kept], [a for a in pred if not a.kept])
    kept = _sides([a for a in gold if a.kept], [a for a in pred if a.kept])
    parts = [f"aliases resolved ({replaced})"] if replaced else []
    if kept:
        parts.append(f"{'kept' if parts else 'aliases kept'} ({kept}): a table read twice needs them")
    if replaced:
        parts.append("r shows them as written")
    return "; ".join(parts)


# --- triage -----------------------------------------------------------------------------------------


def render_triage(
    tags: str,
    note: str,
    suggestions: list[Suggestion],
    tags_by: str = "",
    hidden: bool = False,
    adjudicated_by: str = "",
) -> RenderableType:
    """The row's final tags and who gave which, the suggested causes not applied yet (a accepts the
    first), and its note. `hidden`: blind mode, others' tags not shown until this annotator tags the row."""
    out = Text()
    out.append("tags: ", style="bold")
    out.append(tags or "none yet (t to tag)", style="" if tags else "dim")
    if adjudicated_by:
        out.append(f"  (adjudicated by {adjudicated_by})", style="bold")
    if hidden:
        out.append("\n  others' tags hidden until you tag this row (--blind)", style="dim")
    for pair in (p for p in tags_by.split("; ") if p):
        who, _, tag = pair.partition(": ")
        out.append("\n  ")
        out.append(who, style="bold")
        out.append(f": {tag}")
    out.append("\n\nsuggested causes", style="bold underline")
    have = {t for t in tags.split(", ") if t}
    pending = [s for s in suggestions if s.tag not in have]
    if not pending:
        out.append("\n  none" if not suggestions else "\n  all applied", style="dim")
    for i, s in enumerate(pending):
        out.append("\n  ")
        out.append("a → " if i == 0 else "    ", style="bold reverse" if i == 0 else "")
        out.append(f" {s.tag}", style="bold")
        out.append(f"  {s.confidence:.0%}  {s.reason}", style="dim")
    out.append("\n\nnote: ", style="bold")
    out.append(note or "none (n to write one)", style="" if note else "dim")
    return out
