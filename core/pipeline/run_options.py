"""An evaluation's options as a caller gives them: checked once, here, for the command line and the API alike.

Also the neighbour setting a workspace remembers, so that evaluating into it again without saying
`neighbours` keeps its `ex_ts` instead of dropping it.
"""

from __future__ import annotations

import difflib
import typing
from collections.abc import Callable, Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from sqltriage.core.errors import UsageError
from sqltriage.core.pipeline.options import NEIGHBOURS_META, START_METHODS, VERIFY_META, EvalOptions


def option_names() -> list[str]:
    """Every option an evaluation takes, in `EvalOptions` order."""
    return [f.name for f in fields(EvalOptions)]


def _accepts(hint: Any, value: Any) -> bool:
    """Whether `value` fits the field type `hint` (an int is a float; a bool is not a number)."""
    for kind in typing.get_args(hint) or (hint,):
        if kind in (int, float):
            numbers = (int, float) if kind is float else (int,)
            if isinstance(value, numbers) and not isinstance(value, bool):
                return True
        elif isinstance(kind, type) and isinstance(value, kind):
            return True
    return False


def eval_options(given: Mapping[str, Any], *, spell: Callable[[str], str] = str) -> EvalOptions:
    """`EvalOptions` from the options set (None = the default), or a UsageError naming the bad one.

    `spell` writes an option's name as the caller's user types it (`--timeout` on the command line).
    """
    valid = option_names()
    unknown = sorted(set(given) - set(valid))
    if unknown:
        close = difflib.get_close_matches(unknown[0], valid, n=1)
        guess = f"did you mean {close[0]!r}? " if close else ""
        raise UsageError(
            f"unknown option{'s' if len(unknown) > 1 else ''} {', '.join(repr(n) for n in unknown)}",
            hint=f"{guess}the options are: {', '.join(valid)}",
        )
    kwargs = {name: value for name, value in given.items() if value is not None}
    hints = typing.get_type_hints(EvalOptions)
    for name, value in kwargs.items():
        if not _accepts(hints[name], value):
            raise UsageError(f"{spell(name)} must be {_type_name(hints[name])}, not {value!r}")
    if "timeout" in kwargs and kwargs["timeout"] <= 0:
        raise UsageError(f"{spell('timeout')} must be a positive number of seconds")
    if "jobs" in kwargs and kwargs["jobs"] < 1:
        raise UsageError(f"{spell('jobs')} must be at least 1")
    if "cluster" in kwargs:
        from sqltriage.core.pipeline.cluster import parse_cluster_address, require_distributed

        if "jobs" in kwargs:
            raise UsageError(
                f"{spell('jobs')} and {spell('cluster')} do not go together: the cluster's workers do the work",
                hint=f"drop {spell('jobs')} (with local:N, N is the number of worker processes)",
            )
        kwargs["cluster"] = parse_cluster_address(kwargs["cluster"])
        require_distributed()
    if "neighbours" in kwargs and kwargs["neighbours"] < 0:
        raise UsageError(f"{spell('neighbours')} must be 0 (off) or a positive number of databases")
    if kwargs.get("verify"):
        from sqltriage.core.verdicts.verify import solver_version

        if solver_version() is None:
            raise UsageError(
                f"{spell('verify')} needs the z3 solver, which is not installed",
                hint='pip install "sqltriage[verify]"',
            )
    if "verify_bound" in kwargs and kwargs["verify_bound"] < 1:
        raise UsageError(f"{spell('verify_bound')} must be at least 1 row per table")
    if "verify_timeout" in kwargs and kwargs["verify_timeout"] <= 0:
        raise UsageError(f"{spell('verify_timeout')} must be a positive number of seconds")
    if "neighbour_cache" in kwargs:
        kwargs["neighbour_cache"] = str(Path(kwargs["neighbour_cache"]).absolute())
    for name in ("max_rows", "chunk_size"):
        if name in kwargs and kwargs[name] < 1:
            raise UsageError(f"{spell(name)} must be at least 1")
    if "ves" in kwargs and kwargs["ves"] < 0:
        raise UsageError(f"{spell('ves')} must be 0 (off) or a positive number of runs")
    if "db_url" in kwargs:
        from sqltriage.core.engines.refs import parse_url

        parse_url(kwargs["db_url"])  # a URL that does not parse is refused here, naming no password
        if "cluster" in kwargs:
            raise UsageError(f"{spell('db_url')} and {spell('cluster')} do not go together yet")
    if "scratch_url" in kwargs:
        _check_scratch_url(kwargs["scratch_url"], kwargs.get("db_url"), spell)
    if "choose" in kwargs and kwargs["choose"] not in ("first", "majority"):
        raise UsageError(f"{spell('choose')} must be first or majority")
    if "start_method" in kwargs and kwargs["start_method"] not in START_METHODS:
        raise UsageError(f"{spell('start_method')} must be one of {', '.join(START_METHODS)}")
    return EvalOptions(**kwargs)


def _check_scratch_url(scratch: str, db_url: str | None, spell: Callable[[str], str]) -> None:
    """The loading login must reach the same server and database as `--db-url`: the evaluating login reads
    the neighbours where it loads them."""
    from sqltriage.core.engines.refs import parse_url

    if db_url is None:
        raise UsageError(f"{spell('scratch_url')} goes with {spell('db_url')}")
    a, b = parse_url(scratch), parse_url(db_url)
    if (a.engine, a.host, a.port, a.dbname) != (b.engine, b.host, b.port, b.dbname):
        raise UsageError(
            f"{spell('scratch_url')} must name the server and database of {spell('db_url')} "
            f"({b.redacted()}), with another login"
        )


def _type_name(hint: Any) -> str:
    kinds = [k for k in typing.get_args(hint) or (hint,) if k is not type(None)]
    names = {int: "a whole number", float: "a number", str: "text", bool: "True or False"}
    return " or ".join(names.get(k, getattr(k, "__name__", str(k))) for k in kinds)


def _stored_meta(workspace: Path, key: str) -> str | None:
    """One remembered setting of an existing workspace; None where there is none or it cannot be read."""
    from sqltriage.core.workspace.store import Workspace

    if not workspace.is_file():
        return None
    try:
        with Workspace.open_for_reading(workspace) as ws:
            return ws.get_meta(key)
    except Exception:  # a workspace that cannot be read is reported where it is opened for real
        return None


def remembered_neighbours(workspace: Path) -> tuple[int, int | None] | None:
    """The K (and seed) of neighbour databases the workspace was last evaluated with, when `ex_ts` was on."""
    stored = _stored_meta(workspace, NEIGHBOURS_META)
    if not stored or ":" not in stored:
        return None
    k, seed = stored.split(":", 1)
    if not (k.isdigit() and int(k) > 0):
        return None
    return int(k), int(seed) if seed.lstrip("-").isdigit() else None


def with_remembered_verify(given: Mapping[str, Any], workspace: Path) -> dict[str, Any]:
    """`given`, with the workspace's remembered --verify (bound, timeout) when `verify` is not set either way,
    so a later run or the app opening it keeps the equivalence columns instead of recomputing without."""
    out = dict(given)
    if out.get("verify") is not None:
        return out
    bound, _, limit = (_stored_meta(workspace, VERIFY_META) or "").partition(":")
    if bound.isdigit():
        out["verify"] = True
        out["verify_bound"] = out.get("verify_bound") or int(bound)
        if limit.replace(".", "", 1).isdigit():
            out["verify_timeout"] = out.get("verify_timeout") or float(limit)
    return out


def with_remembered_neighbours(given: Mapping[str, Any], workspace: Path) -> dict[str, Any]:
    """`given`, with the workspace's remembered neighbours (and seed) when `neighbours` is not set."""
    out = dict(given)
    if out.get("neighbours") is not None:
        return out
    remembered = remembered_neighbours(workspace)
    if remembered is not None:
        out["neighbours"] = remembered[0]
        if out.get("seed") is None and remembered[1] is not None:
            out["seed"] = remembered[1]
    return out
