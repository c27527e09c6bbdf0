"""`sqltriage eval`: evaluate models into a workspace and print the metrics."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from sqltriage.core.errors import UsageError
from sqltriage.tui.inputs import default_workspace, load_inputs


def _flag(name: str) -> str:
    """An option as typed on the command line: `--neighbour-cache` for `neighbour_cache`."""
    return "--" + name.replace("_", "-")


def options_from(args: argparse.Namespace) -> Any:
    """The EvalOptions the command line asks for, checked by core (messages name the flags)."""
    from sqltriage.core.pipeline.run_options import eval_options

    given = {
        "timeout": getattr(args, "timeout", None),
        "jobs": getattr(args, "jobs", None),
        "pipeline": getattr(args, "pipeline", None) or None,
        "cluster": getattr(args, "cluster", None),
        "neighbours": getattr(args, "neighbours", None),
        "seed": getattr(args, "seed", None),
        "neighbour_cache": getattr(args, "neighbour_cache", None) or None,
        "verify": getattr(args, "verify", None),
        "verify_bound": getattr(args, "verify_bound", None),
        "verify_timeout": getattr(args, "verify_timeout", None),
        "db_url": getattr(args, "db_url", None),
        "scratch_url": getattr(args, "scratch_url", None),
        "ves": getattr(args, "ves", None),
        "choose": getattr(args, "choose", None),
    }
    return eval_options(given, spell=_flag)


FEATURES_HINT = (
    "not computed yet — `sqltriage eval --features` or `sqltriage analyze` computes them once for this "
    "dataset (kept for every workspace), and the app computes them when its Question tab is shown"
)


def features_line(status: str) -> str:
    """The eval report's word on question features: they never hold the metrics back, so say where they are."""
    return FEATURES_HINT if status == "not computed" else status


def remember_neighbours(args: argparse.Namespace, workspace: Path) -> None:
    """Without --neighbours, keep the K and seed the workspace was last evaluated with (else ex_ts is lost)."""
    from sqltriage.core.pipeline.run_options import with_remembered_neighbours

    given = {"neighbours": getattr(args, "neighbours", None), "seed": getattr(args, "seed", None)}
    kept = with_remembered_neighbours(given, workspace)
    for name in ("neighbours", "seed"):
        if kept[name] != given[name]:
            setattr(args, name, kept[name])
    from sqltriage.core.pipeline.run_options import with_remembered_verify

    names = ("verify", "verify_bound", "verify_timeout")
    given = {name: getattr(args, name, None) for name in names}
    for name, value in with_remembered_verify(given, workspace).items():
        if value != given[name]:
            setattr(args, name, value)


def _verify_line(frame: Any, options: Any) -> str:
    """How the EX passes fared under --verify: verified, refuted, unknown (the commonest reasons)."""
    import polars as pl

    if "equivalence" not in frame.columns:
        return "equivalence: no EX pass to check"
    counts = dict(frame.group_by("equivalence").len().iter_rows())
    line = (
        f"equivalence up to {options.verify_bound} rows per table (more where a count or LIMIT needs them): "
        f"{counts.get('verified', 0)} verified, "
        f"{counts.get('refuted', 0)} refuted, {counts.get('unknown', 0)} unknown"
    )
    notes = (
        frame.filter(pl.col("equivalence") == "unknown")
        .group_by("equivalence_note")
        .len()
        .sort("len", descending=True)
        .head(3)
    )
    reasons = ", ".join(f"{n} {note}" for note, n in notes.iter_rows())
    return line + (f" ({reasons})" if reasons else "")


def too_slow_rows(frame: Any) -> int:
    """Rows the verifier's wall-clock safety net stopped: their verdict is not reproducible, and the next
    run tries them again."""
    import polars as pl

    from sqltriage.core.verdicts.verify.budget import TOO_SLOW

    if "equivalence_note" not in frame.columns:
        return 0
    return frame.filter(pl.col("equivalence_note") == TOO_SLOW).height


def ts_unserved(frame: Any) -> dict[str, int]:
    """EX-passing rows that got no `ex_ts` because their database has no neighbours, counted by reason."""
    import polars as pl

    if "ts_witness" not in frame.columns:
        return {}
    reasons = frame.filter(pl.col("ts_witness").str.starts_with("no neighbours: ").fill_null(False))
    counts = reasons.get_column("ts_witness").value_counts(sort=True).rows()
    return {w.removeprefix("no neighbours: "): n for w, n in counts}


def run(args: argparse.Namespace) -> int:
    if getattr(args, "cluster", None) is None or getattr(args, "jobs", None) is not None:
        return _run(args)
    from sqltriage.core.pipeline.cluster import prestarted_cluster

    with prestarted_cluster(args.cluster):  # local:N starts while the inputs load
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from sqltriage.core.pipeline.evaluate import evaluate
    from sqltriage.core.workspace.store import Workspace
    from sqltriage.tui.console import make_console

    inputs = load_inputs(args)
    if not inputs.predictions:
        raise UsageError("eval needs at least one --pred NAME=FILE")
    path = Path(args.workspace) if args.workspace else default_workspace(inputs.dataset)
    remember_neighbours(args, path)
    options = options_from(args)
    err = make_console(stderr=True)
    err.print(f"workspace: {path}")
    if options.db_url is not None:
        from sqltriage.core.engines.refs import parse_url
        from sqltriage.core.engines.registry import warnings_for

        server = parse_url(options.db_url)
        err.print(f"engine: {server.engine} at {server.redacted()} (queries read as {options.dialect} SQL)")
        for warning in warnings_for(options.db_url, list(inputs.dataset.db_ids)):
            err.print(f"[yellow]warning: {warning}[/]", markup=True)
    with Workspace.open(path) as ws:
        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=err,
            transient=True,
            auto_refresh=False,  # no refresh thread: a single-threaded process may fork its pool workers
        ) as bar:
            tasks: dict[str, Any] = {}

            def progress(stage: str, done: int, total: int) -> None:
                if stage not in tasks:
                    tasks[stage] = bar.add_task(stage, total=total)
                bar.update(tasks[stage], completed=done, total=total, refresh=True)

            summary = evaluate(inputs.dataset, inputs.predictions, ws, options, progress=progress)
        # polars only now: importing it starts native threads, and the pool is forked only without threads
        from sqltriage.core.reporting.report import full_report, load_frame
        from sqltriage.core.reporting.views import ensure_views

        ensure_views(ws)  # the `evaluations` view for the sqlite3 / sqlite-utils command line
        names = [p.name for p in inputs.predictions]
        frame = load_frame(ws, names)
        report = full_report(frame)
        from sqltriage.core.reporting.candidates import response_report
        from sqltriage.core.verdicts.ex_modes import DEFAULT_MODE, EX_MODES

        fmt = inputs.dataset.format
        report.update(response_report(frame, fmt if fmt in EX_MODES else DEFAULT_MODE))
    for p in inputs.predictions:
        for problem in p.problems:
            err.print(f"[yellow]{p.name}: {problem} (row left out)[/]")
    unserved = ts_unserved(frame) if options.neighbours > 0 else {}
    err.print(
        f"evaluated {summary.computed} (example, model) pairs, reused {summary.reused}, "
        f"in {summary.elapsed:.1f} s{f' on the Dask cluster {options.cluster}' if options.cluster else ''}; "
        f"question features: {features_line(summary.features)}"
    )
    if options.neighbours > 0:
        err.print(
            f"ex_ts on {options.neighbours} neighbour databases per database (seed {options.seed}); "
            "--neighbours 0 turns it off"
        )
        for reason, n in unserved.items():
            err.print(f"[yellow]ex_ts left empty on {n} EX-passing row(s): {reason}[/]")
    else:
        err.print(
            "[dim]ex_ts is off: add --neighbours 10 to also score each EX pass on 10 generated neighbour "
            "databases (catches EX false positives; see docs/testsuite.md)[/]"
        )
    if report.get("schema_only"):
        from rich.text import Text

        from sqltriage.core.reporting.report import schema_only_line

        err.print(Text(schema_only_line(report["schema_only"], options.verify), style="bold"))
    too_slow = too_slow_rows(frame) if options.verify else 0
    if options.verify:
        err.print(_verify_line(frame, options))
        if too_slow:
            err.print(
                f"[yellow]equivalence left unknown on {too_slow} row(s): machine too slow for the budget "
                "(the wall clock ran out long before the solver's budget did; run eval again on a quieter "
                "machine and these rows are tried again)[/]"
            )
    else:
        err.print(
            "[dim]equivalence is off (a run with --verify is remembered; --no-verify turns it off): add --verify to check each EX pass against the gold on every database "
            "of up to 2 rows per table, more where a count or LIMIT needs them (see docs/verification.md)[/]"
        )
    report["load_problems"] = {p.name: list(p.problems) for p in inputs.predictions if p.problems}
    report["workspace"] = str(path)
    report["ex_mode"] = "spider"
    report["engine"] = options.db_url.split(":", 1)[0] if options.db_url else "sqlite"
    report["dialect"] = options.dialect
    report["run"] = {
        "computed": summary.computed,
        "reused": summary.reused,
        "stale_models": summary.stale_models,
        "features": summary.features,
        "elapsed": round(summary.elapsed, 3),
        "neighbours": options.neighbours,
        "seed": options.seed,
        "cluster": options.cluster,
        "workers": summary.workers,
        "verify": options.verify,
        "verify_bound": options.verify_bound if options.verify else None,
        "verify_too_slow": too_slow if options.verify else None,
    }
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
        sys.stdout.flush()
    else:
        from sqltriage.tui.render_report import print_report

        print_report(report, make_console())
    computed_features = getattr(args, "features", False) and summary.features == "not computed"
    if computed_features:
        _compute_features(inputs.dataset, path, options.pipeline, err)
    if computed_features or (options.neighbours > 0 and options.neighbour_cache is None):
        from sqltriage.tui.commands.cache_cmd import keep_within_limit

        keep_within_limit()  # this run may have added to the user cache
    return 0


def _compute_features(dataset: Any, path: Path, pipeline: str | None, err: Any) -> None:
    """The question features, after the metrics were printed (spaCy; then cached for every workspace)."""
    import time

    from sqltriage.core.questions import feature_cache
    from sqltriage.core.workspace.store import Workspace

    started = time.perf_counter()
    with err.status("computing question features (spaCy)…"), Workspace.open(path) as ws:
        _, how = feature_cache.ensure(dataset, ws, pipeline)
    err.print(f"question features: {how} in {time.perf_counter() - started:.1f} s")
