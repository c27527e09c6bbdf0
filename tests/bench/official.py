"""The side-by-side figure: `sqltriage eval` against the official Spider evaluator on the same predictions.

The official evaluator (test-suite-sql-eval: evaluation.py, process_sql.py, exec_eval.py, parse.py) is
not part of this project; point the benchmark at a folder holding it with `--official PATH` or
`SQLTRIAGE_OFFICIAL_EVAL=PATH` (its own dependencies, sqlparse and nltk, installed in this interpreter).
Without it the figure is skipped with the reason.

Both sides see the same inputs: the Spider dev examples whose database is present (the official code
cannot run without one), each system's predictions for those examples. The official side is
`evaluation.py --etype all` (EX + exact match) in a fresh process; ours is `sqltriage eval` of the same
files on a new workspace, in a fresh process. Where nltk's `punkt` data is not installed, the official
code's tokenizer is run on the whole query as one sentence (`preserve_line`), which the single-sentence
SQL of Spider does not notice; nothing else is changed.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
from dataclasses import dataclass
from pathlib import Path

from tests.bench.harness import PYTHON, SPIDER_DEV, Figure, run_process

OFFICIAL_FILES = ("evaluation.py", "process_sql.py", "exec_eval.py", "parse.py")
ENV_VAR = "SQLTRIAGE_OFFICIAL_EVAL"

_RUNNER = """
import functools, runpy, sys
import nltk
try:
    nltk.data.find("tokenizers/punkt_tab/english/")
except LookupError:
    try:
        nltk.data.find("tokenizers/punkt/english.pickle")
    except LookupError:
        nltk.word_tokenize = functools.partial(nltk.word_tokenize, preserve_line=True)
folder = sys.argv[1]
sys.path.insert(0, folder)
sys.argv = [folder + "/evaluation.py", *sys.argv[2:]]
runpy.run_path(folder + "/evaluation.py", run_name="__main__")
"""


def find_official(given: str | None) -> tuple[Path | None, str]:
    """The evaluator's folder, or None with the reason the figure is skipped."""
    where = given or os.environ.get(ENV_VAR)
    if not where:
        return None, f"official evaluator not given (--official PATH or {ENV_VAR}=PATH)"
    folder = Path(where).expanduser()
    missing = [f for f in OFFICIAL_FILES if not (folder / f).is_file()]
    if missing:
        return None, f"official evaluator at {folder} lacks {', '.join(missing)}"
    import importlib.util

    absent = [m for m in ("sqlparse", "nltk") if importlib.util.find_spec(m) is None]
    if absent:
        return None, f"the official evaluator needs {', '.join(absent)} (pip install {' '.join(absent)})"
    return folder, ""


@dataclass(frozen=True)
class SideBySide:
    """The same examples and predictions laid out for both evaluators."""

    dataset: Path  # a Spider-layout folder: dev.json of the kept examples, tables.json, database/
    gold: Path  # SQL<TAB>db_id per kept example
    predictions: dict[str, Path]  # system -> one SQL per kept example
    examples: int


def prepare(tmp: Path, systems: list[Path]) -> SideBySide:
    """Spider dev restricted to the examples whose database exists, for every system given."""
    records = json.loads((SPIDER_DEV / "dev.json").read_text(encoding="utf-8"))
    db_dir = SPIDER_DEV / "database"
    keep = [i for i, r in enumerate(records) if (db_dir / r["db_id"] / f"{r['db_id']}.sqlite").is_file()]
    folder = tmp / "spider_dev_with_db"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "dev.json").write_text(json.dumps([records[i] for i in keep]), encoding="utf-8")
    shutil.copyfile(SPIDER_DEV / "tables.json", folder / "tables.json")
    if not (folder / "database").exists():
        (folder / "database").symlink_to(db_dir)
    gold = folder / "gold.sql"
    gold.write_text(
        "".join(f"{records[i]['query']}\t{records[i]['db_id']}\n" for i in keep), encoding="utf-8"
    )
    preds: dict[str, Path] = {}
    pred_dir = folder / "predictions"
    pred_dir.mkdir(exist_ok=True)
    for path in systems:
        lines = path.read_text(encoding="utf-8").splitlines()
        out = pred_dir / path.name
        out.write_text("".join(f"{lines[i]}\n" for i in keep), encoding="utf-8")
        preds[path.stem] = out
    return SideBySide(folder, gold, preds, len(keep))


def run_official(folder: Path, side: SideBySide, system: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one official EX + EM run (a fresh process)."""
    run = run_process(
        [
            PYTHON,
            "-c",
            _RUNNER,
            str(folder),
            "--gold",
            str(side.gold),
            "--pred",
            str(side.predictions[system]),
            "--db",
            str(side.dataset / "database"),
            "--table",
            str(side.dataset / "tables.json"),
            "--etype",
            "all",
        ],
        cwd=side.dataset,
    )
    if "EXECUTION ACCURACY" not in run.stdout:
        raise RuntimeError(f"the official evaluator printed no scores:\n{run.stdout[-2000:]}")
    return run.wall, run.cpu


def run_ours(side: SideBySide, systems: list[str], workspace: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of `sqltriage eval` of these systems on a new workspace (a fresh process tree)."""
    args = [PYTHON, "-m", "sqltriage.tui.cli", "eval", str(side.dataset)]
    for name in systems:
        args += ["--pred", f"{name}={side.predictions[name]}"]
    run = run_process([*args, "--workspace", str(workspace), "--json"])
    for leftover in workspace.parent.glob(workspace.name + "*"):
        leftover.unlink()
    return run.wall, run.cpu


def figures(runs: int, tmp: Path, given: str | None, systems: list[Path]) -> list[Figure]:
    """Official vs ours, 1 system and 8 systems, runs interleaved so both see the same load."""
    folder, reason = find_official(given)
    one = Figure("8", "side by side: ours / official EX+EM, 1 system (cold)", "x", target=0.5)
    eight = Figure(
        "8", f"side by side: ours / official EX+EM, {len(systems)} systems (cold)", "x", target=0.2
    )
    one.target_text, eight.target_text = "<= 0.5x", "<= 0.2x"
    if folder is None:
        one.note = eight.note = f"skipped: {reason}"
        return [one, eight]
    side = prepare(tmp, systems)
    names = [p.stem for p in systems]
    off1 = Figure("8", f"official EX+EM, 1 system, {side.examples} examples (wall)", "s")
    ours1 = Figure("8", "sqltriage eval, same inputs, 1 system (wall)", "s")
    off8 = Figure("8", f"official EX+EM, {len(names)} runs, one per system (wall, summed)", "s")
    ours8 = Figure("8", f"sqltriage eval, same inputs, {len(names)} systems (wall)", "s")
    cpu = {"off1": [], "ours1": [], "off8": [], "ours8": []}

    def take(figure: Figure, name: str, timed: tuple[float, float]) -> None:
        figure.samples.append(timed[0])
        cpu[name].append(timed[1])

    for i in range(runs):
        take(off1, "off1", run_official(folder, side, names[0]))
        take(ours1, "ours1", run_ours(side, names[:1], tmp / f"side1-{i}.db"))
        eight_official = [run_official(folder, side, n) for n in names]
        take(off8, "off8", (sum(w for w, _ in eight_official), sum(c for _, c in eight_official)))
        take(ours8, "ours8", run_ours(side, names, tmp / f"side8-{i}.db"))
    one.samples = [statistics.median(ours1.samples) / statistics.median(off1.samples)]
    eight.samples = [statistics.median(ours8.samples) / statistics.median(off8.samples)]
    for figure, ours, official in ((one, "ours1", "off1"), (eight, "ours8", "off8")):
        ratio = statistics.median(cpu[ours]) / statistics.median(cpu[official])
        figure.note = f"wall medians of interleaved runs; CPU time {ratio:.2f}x"
    for figure, name in ((off1, "off1"), (ours1, "ours1"), (off8, "off8"), (ours8, "ours8")):
        figure.note = f"CPU {statistics.median(cpu[name]):.1f} s"
    return [off1, ours1, one, off8, ours8, eight]
