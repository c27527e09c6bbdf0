"""What an evaluation is asked to do (`EvalOptions`), apart from the pipeline that does it.

Opening the app on a workspace needs the options but not the pipeline (its process pool, the pair
metrics): importing them from here keeps those out of the app's start.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqltriage.core.verdicts.exec_result import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT
from sqltriage.core.verdicts.verify.check import DEFAULT_BOUND as VERIFY_BOUND
from sqltriage.core.verdicts.verify.check import DEFAULT_TIMEOUT as VERIFY_TIMEOUT

METRICS_VERSION = "17"  # bump whenever a metric's definition changes (the suggestions too): stored results are then recomputed
NEIGHBOURS_META = "neighbours"  # "K:seed" of the last finished run, so a later run keeps ex_ts unless told
VERIFY_META = "verify"  # "bound:timeout" of the last finished run with --verify ("" without), kept likewise
START_METHODS = ("fork", "spawn")  # how the pool may start its worker processes
REPLAY_VERSION = "1"  # bump when replaying neighbours on a server changes: those runs' rows are recomputed


@dataclass(frozen=True, slots=True)
class EvalOptions:
    timeout: float = DEFAULT_TIMEOUT
    max_rows: int = DEFAULT_MAX_ROWS
    jobs: int | None = None  # worker processes; None = one per core
    chunk_size: int = 24  # examples per task
    features: bool = True  # copy cached question features into the workspace (never computed here)
    pipeline: str | None = None  # spaCy pipeline name; None = the default
    pool_min_pairs: int | None = None  # fewer pairs run in this process; None = by start method (pool_start)
    cluster: str | None = None  # a Dask scheduler address, or local:N; None = this machine's processes
    neighbours: int = 0  # K neighbour databases per database for `ex_ts`; 0 = off
    seed: int = 0  # seed of the neighbour generation
    neighbour_cache: str | None = (
        None  # folder of the neighbour sets; None = $XDG_CACHE_HOME/sqltriage/neighbours
    )
    start_method: str | None = None  # "fork" | "spawn" for the pool; None = fork where safe (pool_start)
    verify: bool = False  # bounded equivalence of each EX pass (`equivalence`, extra `verify`)
    verify_bound: int = VERIFY_BOUND  # rows per table of the symbolic databases
    verify_timeout: float = VERIFY_TIMEOUT  # seconds per pair, encoding and solving
    ves: int = 0  # runs of each EX-passing pair for Mini-Dev's R-VES (`--ves N`); 0 = off
    db_url: str | None = None  # a PostgreSQL or MySQL server holding the databases (`--db-url`); None: SQLite
    scratch_url: str | None = None  # the login that loads neighbours into that server; None: db_url's
    choose: str = "first"  # which of k candidates is scored: "first" or "majority" (pipeline/candidates.py)

    @property
    def dialect(self) -> str:
        """sqlglot's name of the dialect gold and predictions are read in: the engine's."""
        if self.db_url is None:
            return "sqlite"
        scheme = self.db_url.split(":", 1)[0].lower()
        return "postgres" if scheme.startswith("postgres") else "mysql"

    def result_key(self) -> str:
        ts = f":n{self.neighbours}:s{self.seed}" if self.neighbours > 0 else ""
        eq = ""
        if self.verify:
            from sqltriage.core.verdicts.verify import solver_version
            from sqltriage.core.verdicts.verify.check import ENCODING_VERSION

            eq = f":v{self.verify_bound}:vt{self.verify_timeout}:z{solver_version()}:e{ENCODING_VERSION}"
        on = ""
        if self.db_url is not None:
            from sqltriage.core.engines.refs import parse_url

            on = f":db{parse_url(self.db_url).redacted()}"
            if (
                self.neighbours > 0
            ):  # ex_ts replayed on the server (engines/replay.py): rows made before redone
                on += f":replay{REPLAY_VERSION}"
        ves = f":ves{self.ves}" if self.ves > 0 else ""
        chosen = f":c{self.choose}" if self.choose != "first" else ""
        return f"m{METRICS_VERSION}:t{self.timeout}:r{self.max_rows}{ts}{eq}{on}{ves}{chosen}"
