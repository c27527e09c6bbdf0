"""`sqltriage report --workspace W --out report.html`: one self-contained HTML file to share."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def run(args: argparse.Namespace) -> int:
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from sqltriage.core.errors import UsageError
    from sqltriage.core.reporting.figures import require_matplotlib
    from sqltriage.core.reporting.html_report import build_report
    from sqltriage.core.reporting.report import workspace_frame
    from sqltriage.tui.console import make_console

    require_matplotlib()  # before any work: say what to install
    out = Path(args.out)
    if out.suffix.lower() not in (".html", ".htm"):
        raise UsageError(
            f"the report is an HTML file: {args.out} does not end in .html", hint="--out report.html"
        )
    workspace = Path(args.workspace)
    frame = workspace_frame(workspace)
    if frame.is_empty():
        raise UsageError(
            "this workspace holds no evaluated row", path=workspace, hint="run sqltriage eval first"
        )
    console = make_console(stderr=True)
    with Progress(
        TextColumn("report"),
        BarColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    ) as bar:
        task = bar.add_task("reading", total=None)
        report = build_report(
            frame,
            title=f"sqltriage report: {workspace.name}",
            metric=args.metric,
            seed=args.seed,
            figures_dir=Path(args.figures) if args.figures else None,
            progress=lambda done, total, what: bar.update(
                task, completed=done, total=total, description=what
            ),
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    partial.write_text(report.html, encoding="utf-8")
    partial.replace(out)
    size = out.stat().st_size
    print(
        f"wrote {args.out} ({size / 1e6:.1f} MB, {len(report.figures)} figures)"
        + (f"; {len(report.files)} figure files in {args.figures}" if report.files else ""),
        file=sys.stderr,
    )
    return 0
