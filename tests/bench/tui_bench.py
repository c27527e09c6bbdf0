"""Benchmarks (4), (5), (6) and the app half of (7): the real app, driven headlessly with `run_test()`.

(5) measures from a key press to the examples table holding the new rows (a new backend with the
expected row count), at 10k and 100k (example, model) rows made by replicating Spider dev's 8 systems
under new model names. (6) measures from moving the cursor, with the results tab open, to the live
gold | predicted result being shown, on rows whose stored queries ran in under 50 ms.

Keys are put on the app's queue the way the headless driver does it (`send_key`) and the clock stops
when the app hands the table its new rows (stamped inside the app; the harness looks only every 5 ms, so
that its polling takes no CPU from the app under test). `pilot.press` would add its own wait: it sleeps
until the whole process has been idle for 20 ms, twice per key, which is the driver's cost, not the
app's; the "via pilot.press" line keeps that figure for comparison with earlier runs.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import polars as pl

from tests.bench.harness import (
    PYTHON,
    REPO,
    SPIDER_DEV,
    Figure,
    percentile,
    pred_args,
    run_process,
    spider_predictions,
)

SIZE = (160, 50)
LIVE_FAST = 0.05  # seconds: the stored run time of both queries of a row used for (6)


def scaled_frame(base: pl.DataFrame, n_models: int) -> pl.DataFrame:
    """Spider dev's rows for `n_models` models: the real systems cycled, copies renamed `name#k`."""
    models = base.get_column("model").unique(maintain_order=True).to_list()
    parts = []
    for k in range(n_models):
        name = models[k % len(models)]
        new = name if k < len(models) else f"{name}#{k // len(models)}"
        parts.append(
            base.filter(pl.col("model") == name).with_columns(
                pl.lit(new).alias("model"), pl.lit(k, dtype=pl.Int64).alias("model_position")
            )
        )
    return pl.concat(parts)


def send_key(app: Any, key: str) -> None:
    """Queue one key press on the app as `pilot.press` does, without waiting for the app to go idle."""
    import unicodedata

    from textual import events
    from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key

    if len(key) == 1 and not key.isalnum():
        key = _character_to_key(key)
    try:
        char: str | None = unicodedata.lookup(_get_unicode_name_from_key(REPLACED_KEYS.get(key, key)))
    except KeyError:
        char = key if len(key) == 1 else None
    event = events.Key(key, char)
    event.set_sender(app)
    app._driver.send_message(event)


async def _until(cond: Callable[[], bool], timeout: float = 30.0, poll: float = 0.0005) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError("the app did not update in time")
        await asyncio.sleep(poll)


async def _browse_ready(app: Any, pilot: Any) -> Any:
    """The browse screen once it shows rows and has settled (the opening may replace a first one)."""
    from sqltriage.tui.screens.browse import BrowseScreen

    def ready() -> bool:
        return isinstance(app.screen, BrowseScreen) and app.screen.current is not None

    await _until(ready, 120)
    for _ in range(3):
        await app.workers.wait_for_complete()
        await pilot.pause()
    await _until(ready, 120)
    return app.screen


def _app_on_frame(workspace: Path, frame: pl.DataFrame) -> Any:
    """The real app, opened straight onto a browse screen over `frame` (no evaluation, no loading)."""
    import argparse

    from sqltriage.core.pipeline.evaluate import EvalOptions
    from sqltriage.core.reporting.facets import prepare
    from sqltriage.core.workspace.store import Workspace
    from sqltriage.tui.app import SqlTriageApp
    from sqltriage.tui.inputs import load_inputs
    from sqltriage.tui.screens.browse import BrowseScreen, Sources

    inputs = load_inputs(argparse.Namespace(dataset=str(SPIDER_DEV), pred=[]))
    prepared = prepare(frame)
    models = prepared.get_column("model").unique(maintain_order=True).to_list()
    sources = Sources(inputs.dataset.schemas, inputs.dataset.databases, 5.0, 100_000)

    class BenchApp(SqlTriageApp):
        CSS_PATH = str(Path(sys.modules[SqlTriageApp.__module__].__file__ or "").parent / "sqltriage.tcss")

        def on_mount(self, event: Any) -> None:
            event.prevent_default()  # skip the progress screen: the frame is given
            self.push_screen(BrowseScreen(prepared, sources, models, session=self.open_browse_session()))

    return BenchApp(Workspace.open(workspace), inputs.dataset, (), EvalOptions())


async def _filter_latencies(workspace: Path, frame: pl.DataFrame, rounds: int) -> dict[str, list[float]]:
    from textual.widgets import Input

    from sqltriage.core.reporting import facets
    from sqltriage.tui.screens.browse import BrowseScreen
    from sqltriage.tui.widgets.examples_table import ExamplesTable
    from sqltriage.tui.widgets.facet_panel import FacetPanel

    app = _app_on_frame(workspace, frame)
    out: dict[str, list[float]] = {"facet toggle": [], "sort": [], "search keystroke": []}
    noop: list[float] = []
    via_pilot: list[float] = []
    async with app.run_test(size=SIZE) as pilot:
        screen: BrowseScreen = await _browse_ready(app, pilot)
        table = screen.query_one(ExamplesTable)
        prepared = screen.frame
        total = prepared.height

        shown_at: list[float] = []  # when the table was handed new rows, stamped by the app's own call
        show = table.show

        def show_and_stamp(*args: Any, **kwargs: Any) -> None:
            show(*args, **kwargs)
            shown_at.append(time.perf_counter())

        table.show = show_and_stamp  # type: ignore[method-assign]

        async def timed(key: str, expected_rows: int, *, pilot_press: bool = False) -> float:
            old = table.backend
            shown_at.clear()
            started = time.perf_counter()
            if pilot_press:
                await pilot.press(key)
            else:
                send_key(app, key)
            # The clock stops inside the app, when the table is handed its new rows; the harness only
            # looks every few ms, so that its own polling does not take CPU from the app it measures.
            await _until(lambda: table.backend is not old and table.row_count == expected_rows, poll=0.005)
            # through pilot.press, the press itself (with the driver's waits) is what is timed
            elapsed = (time.perf_counter() if pilot_press else shown_at[-1]) - started
            await pilot.pause()  # let the screen draw before the next key, as a user would see it
            return elapsed

        # A key bound to nothing, through pilot.press: what the headless driver itself costs per press.
        for _ in range(rounds):
            started = time.perf_counter()
            await pilot.press("f19")  # bound to nothing (z maximises the detail pane)
            noop.append(time.perf_counter() - started)

        # Focus moves are set directly (their keys are remappable); only the measured keys are pressed.
        panel = screen.query_one(FacetPanel)
        panel.focus()
        await pilot.pause()
        panel.highlighted = panel.get_option_index("outcome\x1fEX fail")
        fail_rows = facets.apply(prepared, facets.Filters({"outcome": frozenset({"EX fail"})})).height
        for _ in range(rounds):
            out["facet toggle"].append(await timed("space", fail_rows))
            out["facet toggle"].append(await timed("space", total))
        for _ in range(max(1, rounds // 2)):
            via_pilot.append(await timed("space", fail_rows, pilot_press=True))
            via_pilot.append(await timed("space", total, pilot_press=True))

        # sort: `s` cycles through the table's columns (the string columns cost most)
        table.focus()
        await pilot.pause()
        for _ in range(2 * rounds):
            out["sort"].append(await timed("s", total))

        # search: one keystroke at a time, then erased again
        screen.query_one("#search", Input).focus()
        word = "name"
        # the expected counts first, so that keys follow each other as in typing (no harness work between)
        expected = {
            word[:i]: facets.apply(prepared, facets.Filters(search=word[:i])).height for i in range(5)
        }
        await pilot.pause()
        for _ in range(max(1, rounds // 2)):
            for i in range(1, len(word) + 1):
                out["search keystroke"].append(await timed(word[i - 1], expected[word[:i]]))
            for i in range(len(word) - 1, -1, -1):
                out["search keystroke"].append(await timed("backspace", expected[word[:i]]))
    out["facet toggle via pilot.press"] = via_pilot
    out["no-op key via pilot.press (driver cost)"] = noop
    return out


async def _live_latencies(workspace: Path, samples: int) -> list[float]:
    import argparse

    from sqltriage.core.pipeline.evaluate import EvalOptions
    from sqltriage.tui.app import create_app
    from sqltriage.tui.inputs import load_inputs
    from sqltriage.tui.screens.browse import BrowseScreen
    from sqltriage.tui.widgets.examples_table import ExamplesTable

    preds = [f"{p.stem}={p}" for p in spider_predictions()]
    inputs = load_inputs(argparse.Namespace(dataset=str(SPIDER_DEV), pred=preds))
    app = create_app(workspace, inputs.dataset, inputs.predictions, EvalOptions())
    out: list[float] = []
    async with app.run_test(size=SIZE) as pilot:
        screen: BrowseScreen = await _browse_ready(app, pilot)
        screen.query_one(ExamplesTable).focus()
        await pilot.pause()
        await pilot.press("3")
        await _until(lambda: screen._live_key == screen.current and bool(screen.last_outcomes))
        fast = {
            (r["index"], r["model"])
            for r in screen.frame.filter(
                (pl.col("gold_elapsed") < LIVE_FAST) & (pl.col("pred_elapsed") < LIVE_FAST)
            )
            .select("index", "model")
            .iter_rows(named=True)
        }
        moves = 0
        while len(out) < samples and moves < 10 * samples:
            moves += 1
            before = screen.last_outcomes
            started = time.perf_counter()
            send_key(app, "j")
            await _until(
                lambda b=before: screen.last_outcomes is not b and screen._live_key == screen.current
            )
            elapsed = time.perf_counter() - started
            await app.workers.wait_for_complete()  # the row's analysis too, before the next move
            await pilot.pause()
            if screen.current in fast:
                out.append(elapsed)
    return out


@contextmanager
def project_bytecode() -> Iterator[None]:
    """The project's own modules compiled to bytecode for the time of the block, as an installed copy has them.

    Where the environment forbids writing bytecode (PYTHONDONTWRITEBYTECODE), every start compiles them
    again; Python still reads bytecode that exists. Caches made here are removed afterwards.
    """
    import compileall
    import shutil

    folders = [REPO / "core", REPO / "tui", REPO / "samples"]
    before = {d for f in folders for d in f.rglob("__pycache__")}
    for folder in folders:
        compileall.compile_dir(folder, quiet=1)
    try:
        yield
    finally:
        for made in {d for f in folders for d in f.rglob("__pycache__")} - before:
            shutil.rmtree(made, ignore_errors=True)


def run(rounds: int, cached: Path) -> list[Figure]:
    """The app figures; `cached` holds every Spider dev × 8 result (from the eval benchmarks)."""
    preds = spider_predictions()
    launch = Figure(
        "4", "launch to usable browse screen (8 systems, cached)", "s", target=1.0, target_text="<= 1.0 s"
    )
    launch_cpu = Figure("4", "  CPU until usable (every thread)", "s")
    mem_app = Figure("7", "peak RSS, launch (4)", "MB", target=600, target_text="<= 600 MB", stat="max")
    compiled = Figure("4", "  same, the project's bytecode cached", "s")
    compiled_cpu = Figure("4", "  CPU until usable, bytecode cached", "s")
    probe_args = [PYTHON, "-m", "tests.bench.probe_launch", str(cached), "--dataset", str(SPIDER_DEV)]
    for _ in range(max(3, rounds // 2)):
        proc = run_process([*probe_args, *pred_args(preds)])
        probe = json.loads(proc.stdout)
        launch.samples.append(float(probe["ready"]))
        launch_cpu.samples.append(float(probe["cpu"]))
        mem_app.samples.append(proc.peak_mb)
        if sys.flags.dont_write_bytecode:  # else the runs above already read the project's bytecode
            with project_bytecode():
                probe = json.loads(run_process([*probe_args, *pred_args(preds)]).stdout)
            compiled.samples.append(float(probe["ready"]))
            compiled_cpu.samples.append(float(probe["cpu"]))
    launch_cpu.note = "less sensitive to other work on the machine than the wall time"
    if sys.flags.dont_write_bytecode:
        launch.note = "PYTHONDONTWRITEBYTECODE is set: the project's modules are compiled at every start"
        compiled.note = "as an installed copy (or any start after the first one) has it"

    from sqltriage.core.reporting.report import load_frame
    from sqltriage.core.workspace.store import Workspace

    with Workspace.open(cached) as ws:
        base = load_frame(ws)
    per_model = base.height // max(1, base.get_column("model").n_unique())
    figures = [launch, launch_cpu] + ([compiled, compiled_cpu] if compiled.samples else [])
    for n_rows, target in ((10_000, None), (100_000, 0.05)):
        frame = scaled_frame(base, -(-n_rows // per_model))
        lat = asyncio.run(_filter_latencies(cached, frame, rounds))
        every = [s for op, v in lat.items() if "pilot" not in op for s in v]
        for op, values in lat.items():
            f = Figure("5", f"{op}, {frame.height:,} rows", "ms", [v * 1000 for v in values], stat="p95")
            f.note = f"p50 {percentile(f.samples, 50):.0f} ms"
            figures.append(f)
        all_ops = Figure(
            "5", f"filter/sort, all keys, {frame.height:,} rows", "ms", [v * 1000 for v in every], stat="p95"
        )
        all_ops.note = f"p50 {percentile(all_ops.samples, 50):.0f} ms"
        if target is not None:
            all_ops.target, all_ops.target_text = target * 1000, "p95 <= 50 ms"
        figures.append(all_ops)

    live = Figure(
        "6",
        "live results, query < 50 ms (cursor move)",
        "ms",
        target=300,
        target_text="<= 300 ms",
        stat="p95",
    )
    live.samples = [v * 1000 for v in asyncio.run(_live_latencies(cached, max(10, 3 * rounds)))]
    live.note = f"p50 {percentile(live.samples, 50):.0f} ms" if live.samples else "no fast rows"
    figures += [live, mem_app]
    return figures
