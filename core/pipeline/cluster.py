"""Evaluation chunks on a Dask cluster, behind the same executor interface as the local process pool.

Dask (`distributed`) is an optional extra: this module imports it only when a cluster is asked for, and
says how to install it when it is missing. Dask's workers have no per-executor initialiser, so the
initialiser and its arguments are scattered once per run, and each task runs the initialiser the first
time its worker process meets that run. Results come back to the client, which writes them as it does
for the local pool. Workers must see the databases at the client's paths (a shared filesystem): that is
checked on every worker before any chunk is submitted.

For `local:N` the command line starts the LocalCluster in a background thread as soon as it has parsed
the option (`prestarted_cluster`), so that starting it overlaps loading the dataset and predictions; its
workers import the evaluation modules while they start (`dask_setup`), and it is stopped in the
background once every result is written.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Executor, Future, InvalidStateError
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sqltriage.core.errors import SqlTriageError, UsageError
from sqltriage.core.model import Dataset
from sqltriage.core.pipeline.pool_start import WORKER_MODULES

INSTALL_HINT = 'pip install "sqltriage[cluster]"'
LOCAL_PREFIX = "local:"
CONNECT_TIMEOUT = 20.0  # seconds to reach a scheduler
WORKER_WAIT = 60.0  # seconds to wait for the first worker to join
_ADDRESS = re.compile(r"^(?:(?:tcp|tls|ws|wss|ucx)://)?[^\s/:]+:\d{1,5}$")


class ClusterError(SqlTriageError):
    """The cluster cannot run this evaluation (unreachable, no workers, databases not shared, ...)."""


def parse_cluster_address(text: str) -> str:
    """`local:N` (N ≥ 1) or a scheduler address such as `tcp://host:8786`; a clear UsageError otherwise."""
    text = text.strip()
    if text.startswith(LOCAL_PREFIX):
        count = text[len(LOCAL_PREFIX) :]
        if not count.isdigit() or int(count) < 1:
            raise UsageError(
                f"--cluster {text}: local:N needs a number of worker processes N ≥ 1", hint="e.g. local:2"
            )
        return text
    if not _ADDRESS.match(text):
        raise UsageError(
            f"--cluster {text}: not a Dask scheduler address",
            hint="give tcp://HOST:PORT (what `dask scheduler` prints) or local:N for N local worker processes",
        )
    return text


def require_distributed() -> None:
    """Fail with how to get Dask when it is not installed (it is an optional extra)."""
    try:
        import distributed  # noqa: F401
    except ImportError as exc:
        raise UsageError(
            f"--cluster needs Dask's `distributed` package, which is not installed ({exc})",
            hint=f"install the cluster extra: {INSTALL_HINT}",
        ) from None


# --- worker side ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RunSetup:
    """What every worker process needs once per run: scattered to the workers, not sent with each chunk."""

    token: str
    initializer: Callable[..., None]
    initargs: tuple


def dask_setup(worker: Any) -> None:
    """Dask's preload hook (this module is a LocalCluster worker's preload): the first chunk is then no
    slower, and the worker ends with the process that started it."""
    import importlib

    from sqltriage.core.processes import die_with_parent

    die_with_parent()  # a LocalCluster's worker: Dask's own pipe watch, and ours on its parent's pid
    for name in WORKER_MODULES:  # the pool's list: what a chunk imports
        with suppress(ImportError):  # a renamed module costs the first chunk its import, never the run
            importlib.import_module(name)


_run_lock = threading.Lock()  # the initialiser fills process-wide state: one run's task at a time
_current_token: list[str] = []


def _initialised_call(setup: RunSetup, fn: Callable[..., Any], *args: Any) -> Any:
    """Run `fn` after this run's initialiser has run in this worker process (once per process and run)."""
    with _run_lock:
        if _current_token != [setup.token]:
            setup.initializer(*setup.initargs)
            _current_token[:] = [setup.token]
        return fn(*args)


def software_view() -> dict[str, str]:
    """Which sqltriage a process runs: results from another version or metric definition do not mix."""
    from sqltriage.core import __version__
    from sqltriage.core.pipeline.options import METRICS_VERSION

    return {"version": __version__, "metrics": METRICS_VERSION}


def worker_view(expected: list[tuple[str, int | None]]) -> dict[str, Any]:
    """Run on each worker: the first database it cannot use as the client does, and its versions."""
    problem = None
    for position, (path, size) in enumerate(expected):
        try:
            st = os.stat(path)
        except OSError as exc:
            problem = (position, f"not found ({exc.strerror or type(exc).__name__})")
            break
        if not os.access(path, os.R_OK):
            problem = (position, "not readable")
            break
        if size is not None and st.st_size != size:
            problem = (position, f"a different file ({st.st_size} bytes; the client's has {size})")
            break
    return {"problem": problem, **software_view()}


# --- client side ---------------------------------------------------------------------------------------


class ClusterExecutor(Executor):
    """A `concurrent.futures` executor over a Dask client, with the process pool's initialiser semantics.

    Constructing it connects (or starts a LocalCluster for `local:N`), checks the workers, and scatters
    the initialiser's arguments; `shutdown` cancels what is left and closes what it opened.
    """

    def __init__(
        self,
        address: str,
        initializer: Callable[..., None],
        initargs: tuple,
        databases: Mapping[str, Path | None],
    ) -> None:
        require_distributed()
        self.address = parse_cluster_address(address)
        self._local: Any = None
        self._client: Any = None
        try:
            self._client = self._connect()
            check_workers(self._client, databases, self.address)
            self._inner = self._client.get_executor(pure=False)
            setup = RunSetup(uuid.uuid4().hex, initializer, initargs)
            self._setup = self._client.scatter(setup, broadcast=True, hash=False)
        except BaseException:
            self._close()
            raise

    def _connect(self) -> Any:
        from distributed import Client

        if self.address.startswith(LOCAL_PREFIX):
            started = _prestarted.pop(self.address, None)
            self._local = started.result() if started else start_local_cluster(self.address)
            return Client(self._local)
        try:
            client = Client(self.address, timeout=CONNECT_TIMEOUT)
        except OSError as exc:
            raise ClusterError(
                f"cannot reach the Dask scheduler at {self.address} ({exc})",
                hint="start one with `dask scheduler` and workers with `dask worker ADDRESS`, then retry",
            ) from None
        try:
            client.wait_for_workers(1, timeout=WORKER_WAIT)
        except TimeoutError:
            client.close()
            raise ClusterError(
                f"no worker joined the Dask scheduler at {self.address} within {WORKER_WAIT:.0f} s",
                hint=f"start workers with `dask worker {self.address}`",
            ) from None
        return client

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        """`fn(*args)` on a worker; the cluster's own failures come back as ClusterError."""
        if kwargs:
            raise TypeError("ClusterExecutor.submit takes positional arguments only")
        inner = self._inner.submit(_initialised_call, self._setup, fn, *args)
        outer: Future = Future()

        def forward(done: Future) -> None:
            try:
                if done.cancelled():  # not by us (that cancels `outer` first): the cluster dropped it
                    outer.set_exception(self._failure("lost the connection to the Dask scheduler"))
                elif (exc := done.exception()) is not None:
                    outer.set_exception(self._translate(exc))
                else:
                    outer.set_result(done.result())
            except InvalidStateError:  # `outer` was cancelled meanwhile: nobody waits for it
                pass

        outer.add_done_callback(lambda f: inner.cancel() if f.cancelled() else None)
        inner.add_done_callback(forward)
        return outer

    def _translate(self, exc: BaseException) -> BaseException:
        from distributed import KilledWorker

        if isinstance(exc, KilledWorker):
            return self._failure(f"a chunk of work was lost with every worker that ran it ({exc})")
        return exc

    def _failure(self, what: str) -> ClusterError:
        return ClusterError(
            f"{what} ({self.address}); the run stopped, every chunk already finished is in the workspace",
            hint="run the same command again to resume once the cluster is healthy",
        )

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if self._client is None:
            return
        try:
            self._inner.shutdown(wait=wait and not cancel_futures)
            self._setup.release()
        finally:
            self._close(background=wait)

    def _close(self, background: bool = False) -> None:
        """Close the client and a cluster this executor started; `background` returns at once.

        Used when every result is written: stopping a LocalCluster's workers (a few tenths of a second)
        then overlaps what the caller does next, and a non-daemon thread keeps the process alive until
        the workers are gone, so none is left behind.
        """
        client, local = self._client, self._local
        self._client = self._local = None

        def close() -> None:
            if client is not None:
                client.close()
            if local is not None:
                local.close()

        if background and local is not None:
            threading.Thread(target=close, name="sqltriage-cluster-stop", daemon=False).start()
        else:
            close()


def start_local_cluster(address: str) -> Any:
    """A LocalCluster of N single-threaded worker processes for `local:N`, importing the evaluation at start."""
    import dask
    from distributed import LocalCluster

    # The workers' statistical profiler samples every thread's stack every 10 ms, for a dashboard page;
    # with one thread per worker it takes the GIL from the chunks. Nannies pass this to their workers.
    with dask.config.set({"distributed.worker.profile.enabled": False}):
        return LocalCluster(
            n_workers=int(address[len(LOCAL_PREFIX) :]),
            threads_per_worker=1,
            processes=True,
            dashboard_address="127.0.0.1:0",  # a free loopback port: several clusters may run at once
            silence_logs=logging.ERROR,
            preload=[__name__],  # runs dask_setup in each worker process
        )


class _Starting:
    """A LocalCluster being started in a background thread; `result()` waits for it (or its error)."""

    def __init__(self, address: str) -> None:
        self._cluster: Any = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._start, args=(address,), name="sqltriage-cluster-start")
        self._thread.daemon = True
        self._thread.start()

    def _start(self, address: str) -> None:
        try:
            self._cluster = start_local_cluster(address)
        except BaseException as exc:  # raised where the cluster is used, as if started there
            self._error = exc

    def result(self) -> Any:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._cluster


_prestarted: dict[str, _Starting] = {}


@contextmanager
def prestarted_cluster(address: str) -> Iterator[None]:
    """Start `local:N`'s LocalCluster now, in the background, for the ClusterExecutor opened inside the block.

    Starting it (importing Dask, spawning the workers) then overlaps what comes before the evaluation.
    A cluster nobody took (the run stopped earlier, or had nothing to do) is stopped on leaving. Does
    nothing for a scheduler address, or when Dask is missing (the executor says how to install it).
    """
    address = parse_cluster_address(address)
    if not address.startswith(LOCAL_PREFIX) or address in _prestarted:
        yield
        return
    import importlib.util

    if importlib.util.find_spec("distributed") is None:
        yield
        return
    _prestarted[address] = _Starting(address)
    try:
        yield
    finally:
        left = _prestarted.pop(address, None)
        if left is not None:
            with suppress(Exception):  # it never started: that error is reported where it is used
                left.result().close()


def open_cluster(
    address: str,
    initializer: Callable[..., None],
    initargs: tuple,
    databases: Mapping[str, Path | None],
) -> ClusterExecutor:
    return ClusterExecutor(address, initializer, initargs, databases)


def with_absolute_paths(dataset: Dataset) -> Dataset:
    """The dataset with absolute database paths: a worker's working folder is not the client's."""
    absolute = {db_id: Path(path).absolute() if path else None for db_id, path in dataset.databases.items()}
    return replace(dataset, databases=absolute)


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def check_workers(client: Any, databases: Mapping[str, Path | None], address: str) -> None:
    """Every worker sees every database at the client's path, and runs the same sqltriage: else say so."""
    from sqltriage.core import __version__
    from sqltriage.core.pipeline.options import METRICS_VERSION

    expected = [(str(path), _size(Path(path))) for _, path in sorted(databases.items()) if path is not None]
    try:
        scheduler = client.run_on_scheduler(software_view)
    except Exception as exc:  # the scheduler unpickles every task: it needs sqltriage as well
        raise ClusterError(
            f"the Dask scheduler at {address} cannot load sqltriage's tasks ({type(exc).__name__}: {exc})",
            hint="install the same sqltriage in the scheduler's environment as on the client and the workers",
        ) from None
    if scheduler != software_view():
        raise ClusterError(
            f"the Dask scheduler at {address} runs sqltriage {scheduler['version']} "
            f"(metrics {scheduler['metrics']}), this machine {__version__} (metrics {METRICS_VERSION})",
            hint="install the same sqltriage version on the scheduler, the workers and this machine",
        )
    try:
        views = client.run(worker_view, expected, on_error="return")
    except Exception as exc:
        raise ClusterError(f"cannot ask the workers of {address} about the databases ({exc})") from None
    if not views:
        raise ClusterError(
            f"the Dask cluster at {address} has no workers",
            hint=f"start workers with `dask worker {address}`",
        )
    for worker, view in sorted(views.items()):
        if isinstance(view, BaseException):
            raise ClusterError(
                f"worker {worker} cannot run sqltriage ({type(view).__name__}: {view})",
                hint="install the same sqltriage (and its dependencies) in every worker's environment",
            )
        if (view["version"], view["metrics"]) != (__version__, METRICS_VERSION):
            raise ClusterError(
                f"worker {worker} runs sqltriage {view['version']} (metrics {view['metrics']}), "
                f"this machine {__version__} (metrics {METRICS_VERSION})",
                hint="install the same sqltriage version on every worker",
            )
    problems = sorted(
        (view["problem"][0], worker, view["problem"][1]) for worker, view in views.items() if view["problem"]
    )
    if problems:
        position, worker, what = problems[0]
        raise ClusterError(
            f"database {what} on worker {worker}; nothing was evaluated",
            path=expected[position][0],
            hint="workers must see the databases at the same path as this machine (a shared filesystem): "
            "mount them there, or point --db-dir at a path every worker shares",
        )
