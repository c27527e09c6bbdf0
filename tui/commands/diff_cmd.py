"""`sqltriage diff GOLD PRED [--db FILE]`: compare two queries from the shell."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def run(args: argparse.Namespace) -> int:
    from sqltriage.core.pipeline.compare_queries import as_json, checked_db, compare_queries
    from sqltriage.core.verdicts.exec_result import DEFAULT_TIMEOUT

    db = checked_db(args.db or None)
    if db is not None and not isinstance(db, Path):  # a server: both queries read in its dialect
        from sqltriage.core.sql.parse import use_dialect

        use_dialect(db.dialect)
    doc = compare_queries(
        args.gold,
        args.pred,
        db=db,
        timeout=args.timeout or DEFAULT_TIMEOUT,
        neighbours=args.neighbours or 0,
        seed=args.seed or 0,
        neighbour_cache=Path(args.neighbour_cache) if args.neighbour_cache else None,
        verify=bool(getattr(args, "verify", False)),
        verify_bound=getattr(args, "verify_bound", None),
        verify_timeout=getattr(args, "verify_timeout", None),
    )
    if args.json:
        sys.stdout.write(as_json(doc))
        sys.stdout.write("\n")
    else:
        render(doc)
    return 0


def _score(v: float | None) -> str:
    return "—" if v is None else f"{v:.3f}"


def _outcome(v: int | None) -> str:
    return {1: "[green]pass[/]", 0: "[red]fail[/]"}.get(v, "[dim]n/a[/]") if v is not None else "[dim]n/a[/]"


def render(doc: dict[str, Any]) -> None:
    from rich.table import Table
    from rich.text import Text

    from sqltriage.tui.console import make_console

    console = make_console()
    diff = Table(
        title="SQL (gold | prediction), differing tokens marked", title_justify="left", show_lines=True
    )
    diff.add_column("clause", style="bold")
    diff.add_column("gold")
    diff.add_column("prediction")
    styles = {"equal": "", "gold_only": "bold red", "pred_only": "bold green"}
    for clause in doc["diff"]["clauses"]:
        cells = []
        for side in ("gold", "pred"):
            text = Text()
            for tok in clause[side]:
                if tok["space"] and text:
                    text.append(" ")
                text.append(tok["text"], style=styles[tok["kind"]])
            cells.append(text)
        diff.add_row(clause["clause"], *cells)
    console.print(diff)

    cats = Table(title="Categories", title_justify="left")
    cats.add_column("")
    cats.add_column("gold")
    cats.add_column("prediction")
    for key in (
        "structural",
        "operators",
        "hardness",
        "n_tables",
        "n_columns",
        "n_values",
        "nesting_depth",
        "error",
    ):
        g, p = doc["gold"][key], doc["pred"][key]
        if key == "error" and not g and not p:
            continue
        cats.add_row(key, str(g if g not in (None, "") else "—"), str(p if p not in (None, "") else "—"))
    console.print(cats)

    scores = Table(title=f"Match (schema {doc['schema']})", title_justify="left")
    for name in ("EM", "EM (Spider)", "SM", "OM", "VM", "PM"):
        scores.add_column(name, justify="right")
    scores.add_row(
        _outcome(doc["em"]),
        _outcome(doc["em_spider"]),
        _score(doc["sm"]),
        _score(doc["om"]),
        _score(doc["vm"]),
        _score(doc["pm"]),
    )
    console.print(scores)
    if doc.get("pm_error"):
        console.print(f"[yellow]{doc['pm_error']}[/]")
    authors = doc.get("authors") or {}
    if authors.get("raises"):
        console.print(f"[dim]As the paper's code computes them: {authors['raises']}[/]")
    elif authors and any(
        authors[k] is None or doc[k] is None or abs(authors[k] - doc[k]) >= 0.005
        for k in ("sm", "om", "vm", "pm")
    ):
        figures = "  ".join(f"{k.upper()} {_score(authors[k])}" for k in ("sm", "om", "vm", "pm"))
        console.print(f"[dim]As the paper's code computes them: {figures}[/]")

    bd = Table(title="Partial-match breakdown: what only one side has", title_justify="left", show_lines=True)
    bd.add_column("subquery")
    bd.add_column("component")
    bd.add_column("score", justify="right")
    bd.add_column("gold only", style="red")
    bd.add_column("prediction only", style="green")
    for sub in doc["breakdown"]:
        label = f"level {sub['level']} #{sub['position']}"
        for comp in ("structural", "operator", "variable"):
            c = sub[comp]
            if c["gold_only"] or c["pred_only"]:
                bd.add_row(
                    label, comp, _score(c["score"]), ", ".join(c["gold_only"]), ", ".join(c["pred_only"])
                )
    if bd.row_count:
        console.print(bd)
    else:
        console.print("[green]No component differs.[/]")

    if doc.get("suggestions"):
        sug = Table(title="Suggested causes (most confident first)", title_justify="left")
        sug.add_column("#", justify="right")
        sug.add_column("cause", style="bold")
        sug.add_column("confidence", justify="right")
        sug.add_column("why")
        for rank, s in enumerate(doc["suggestions"], 1):
            sug.add_row(str(rank), s["tag"], f"{s['confidence']:.0%}", s["reason"])
        console.print(sug)
    else:
        console.print("[dim]No suggested cause: nothing is confidently wrong.[/]")

    if "execution" in doc:
        ex = doc["execution"]
        for side, title in (("gold", "Gold result"), ("pred", "Predicted result")):
            r = ex[side]
            if r["error"]:
                console.print(f"[bold]{title}[/]: [red]{r['error_kind']}: {r['error']}[/]")
                continue
            console.print(
                f"[bold]{title}[/]: {r['row_count']} rows{' (truncated)' if r['truncated'] else ''}, "
                f"{r['elapsed'] * 1000:.1f} ms"
            )
            t = Table()
            for col in r["columns"]:
                t.add_column(str(col))
            for row in r["rows"]:
                t.add_row(*(str(v) for v in row))
            if r["row_count"] > len(r["rows"]):
                t.caption = f"first {len(r['rows'])} of {r['row_count']} rows"
            console.print(t)
        verdicts = Table(title="Execution verdicts", title_justify="left")
        for name in ("VA", "EX (spider)", "EX (bird)", "EX (archer)"):
            verdicts.add_column(name)
        cells = [
            _outcome(ex["va"]),
            _outcome(ex["ex_spider"]),
            _outcome(ex["ex_bird"]),
            _outcome(ex["ex_archer"]),
        ]
        if ex.get("ex_official") != ex["ex_spider"]:  # the official evaluator's verdict, where it differs
            verdicts.add_column("EX (official)")
            cells.append(f"{_outcome(ex['ex_official'])} ({ex.get('official_quirk') or 'unknown'})")
        verdicts.add_row(*cells)
        console.print(verdicts)

    if "equivalence" in doc:
        eq = doc["equivalence"]
        colour = {"verified": "green", "refuted": "red"}.get(eq["status"], "yellow")
        note = f": {eq['note']}" if eq["note"] else ""
        console.print(
            f"[bold]Equivalence[/] up to {eq['bound']} rows per table: [{colour}]{eq['status']}{note}[/] "
            f"({eq['seconds']:.2f} s)"
        )
    if "neighbours" in doc or doc.get("witness") is not None:
        _render_neighbours(console, doc)


def _render_neighbours(console: Any, doc: dict[str, Any]) -> None:
    from rich.table import Table

    nb = doc.get("neighbours")
    if nb is not None and nb["error"]:
        console.print(f"[yellow]no neighbours: {nb['error']}[/]")
    elif nb is not None:
        verdicts = Table(title=f"On {nb['k']} neighbour databases (seed {nb['seed']})", title_justify="left")
        for name in ("EX (spider) = ex_ts", "EX (bird)", "EX (archer)"):
            verdicts.add_column(name)
        verdicts.add_row(_outcome(nb["ex_ts"]), _outcome(nb["ex_ts_bird"]), _outcome(nb["ex_ts_archer"]))
        console.print(verdicts)
    w = doc["witness"]
    if w is None:
        return
    console.print(f"[bold]Witness[/] {w['path']} ({w['rows']} rows in all): [bold]{w['reading']}[/]")
    for t in w["tables"]:
        if not t["row_count"]:
            continue
        table = Table(title=f"{t['name']} ({t['row_count']} rows)", title_justify="left")
        for col in t["columns"]:
            table.add_column(str(col))
        for row in t["rows"]:
            table.add_row(*("NULL" if v is None else str(v) for v in row))
        console.print(table)
    empty = [t["name"] for t in w["tables"] if not t["row_count"]]
    if empty:
        console.print(f"[dim]empty: {', '.join(empty)}[/]")
    for side, title in (("gold", "Gold on the witness"), ("pred", "Prediction on the witness")):
        r = w[side]
        rows = "; ".join("(" + ", ".join(map(str, row)) + ")" for row in r["rows"]) or "no rows"
        console.print(f"[bold]{title}[/]: " + (f"[red]{r['error']}[/]" if r["error"] else rows))
