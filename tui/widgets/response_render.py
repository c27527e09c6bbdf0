"""The Response tab: how the row's SQL was found in the model's response, its k candidates grouped by
execution result (the majority first, which cluster is right, which one the row scores), and the response
itself, reasoning included."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

SHOWN_HEAD = 8_000  # characters of a long response shown from its start…
SHOWN_TAIL = 24_000  # …and from its end, where the answer is; a 500 kB response would take seconds to lay out


def render_response(row: dict[str, Any]) -> RenderableType:
    """The tab for one row; a row of a bare SQL file says there is no response to show."""
    raw = row.get("pred_raw")
    if raw is None and not row.get("candidate_clusters"):
        return Text("this model's file holds bare SQL: no response to show", style="dim")
    parts: list[RenderableType] = [_header(row)]
    if row.get("candidate_clusters"):
        parts.append(_clusters(row))
    parts.append(Text(""))
    parts.append(
        Text("response of the scored candidate" if (row.get("chosen") or 1) > 1 else "response", style="bold")
    )
    parts.append(_raw(raw or ""))
    return Group(*parts)


def _header(row: dict[str, Any]) -> Text:
    text = Text()
    extraction = row.get("extraction") or "?"
    failed = extraction.startswith("failed")
    text.append("SQL found by ", style="dim")
    text.append(extraction, style="red" if failed else "green")
    k = row.get("candidates") or 1
    if k > 1:
        right = row.get("candidates_right")
        text.append(f" · {k} candidates, ", style="dim")
        text.append("?" if right is None else str(right), style="bold")
        text.append(" pass EX · candidate ", style="dim")
        text.append(str(row.get("chosen") or 1), style="bold")
        text.append(" scored", style="dim")
    figures = [
        f"{name} {row[name]:g}"
        for name in ("tokens", "latency", "cost", "confidence")
        if row.get(name) is not None
    ]
    if figures:
        text.append(" · " + ", ".join(figures), style="dim")
    return text


def _clusters(row: dict[str, Any]) -> Table:
    clusters = json.loads(row["candidate_clusters"])
    chosen = row.get("chosen") or 1
    t = Table(title="candidates by execution result", title_justify="left", expand=True, show_edge=False)
    t.add_column("×", justify="right", no_wrap=True)
    t.add_column("EX", no_wrap=True)
    t.add_column("candidates", no_wrap=True)
    t.add_column("", no_wrap=True)
    t.add_column("SQL (the earliest) or error", ratio=1)
    for i, cluster in enumerate(clusters):
        members = cluster["members"]
        ex = cluster.get("ex")
        if cluster.get("error"):
            verdict = Text("error", style="red")
        elif ex is None:
            verdict = Text("—", style="dim")
        else:
            verdict = Text("right", style="green bold") if ex == 1 else Text("wrong", style="red")
        marks = []
        if i == 0:
            marks.append("majority")
        if chosen in members:
            marks.append("scored")
        shown = cluster.get("error") or cluster.get("sql") or ""
        t.add_row(
            str(len(members)),
            verdict,
            ", ".join(map(str, members)),
            Text(" ".join(marks), style="bold"),
            Text(
                shown if len(shown) <= 400 else shown[:400] + " …",
                style="dim" if cluster.get("error") else "",
            ),
        )
    return t


def _raw(raw: str) -> Text:
    if len(raw) <= SHOWN_HEAD + SHOWN_TAIL:
        return Text(raw)
    omitted = len(raw) - SHOWN_HEAD - SHOWN_TAIL
    text = Text(raw[:SHOWN_HEAD])
    text.append(f"\n… {omitted:,} characters not shown …\n", style="dim italic")
    text.append(raw[-SHOWN_TAIL:])
    return text
