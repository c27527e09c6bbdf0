"""`sqltriage serve`: the app in web browsers, through textual-serve, for a team on a shared machine.

The models given are evaluated here first, once; then every browser that connects gets its own app
process on the same workspace, opened as a workspace alone (nothing left to evaluate). Workspace
writes are transactions, so several people can tag at once, each under their own annotator name.
With --users FILE a browser must give its token and its app runs as that annotator (tui/serve_auth.py);
without it the server listens on loopback only, unless --no-auth says that anyone who reaches the
port may read and tag everything in the workspace, and run read-only SQL on its databases.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path


def served_command(workspace: Path, args: argparse.Namespace) -> list[str]:
    """The command each browser session runs: `sqltriage open --workspace FILE` with this interpreter."""
    cmd = [sys.executable, "-m", "sqltriage.tui.cli", "open", "--workspace", str(workspace.resolve())]
    if getattr(args, "db_dir", None):
        cmd += ["--db-dir", str(Path(args.db_dir).resolve())]
    if getattr(args, "timeout", None) is not None:
        cmd += ["--timeout", str(args.timeout)]
    for flag in ("blind", "adjudicate"):
        if getattr(args, flag, False):
            cmd.append(f"--{flag}")
    return cmd


def run(args: argparse.Namespace) -> int:
    from sqltriage.core.errors import UsageError
    from sqltriage.core.pipeline.evaluate import evaluate
    from sqltriage.core.workspace.store import Workspace
    from sqltriage.tui.commands.eval_cmd import options_from, remember_neighbours
    from sqltriage.tui.commands.open_cmd import resolve
    from sqltriage.tui.serve_auth import LOOPBACK, read_users

    users = read_users(Path(args.users)) if args.users else None
    if users is None and args.host not in LOOPBACK and not args.no_auth:
        raise UsageError(
            f"--host {args.host} would let anyone who reaches port {args.port} tag as anyone",
            hint="give --users FILE (one `NAME TOKEN` per line), or --no-auth to allow it knowingly",
        )
    inputs, workspace, note = resolve(args)
    remember_neighbours(args, workspace)
    if note:
        print(f"sqltriage serve: {note}", file=sys.stderr)
    if inputs.predictions:
        print(f"evaluating into {workspace} (what is stored already is reused)…", file=sys.stderr)
        with Workspace.open(workspace) as ws:
            summary = evaluate(inputs.dataset, inputs.predictions, ws, options_from(args))
            from sqltriage.core.reporting.views import ensure_views

            ensure_views(ws)  # the `evaluations` view, as `sqltriage eval` leaves it
        print(f"  {summary.computed} pairs evaluated", file=sys.stderr)
    import os

    from textual_serve.server import Server  # only this command needs the web server

    from sqltriage.core.processes import PARENT_ENV

    os.environ[PARENT_ENV] = str(os.getpid())  # each session (started through a shell) ends with this server
    command = served_command(workspace, args)
    settings = {"host": args.host, "port": args.port, "title": "sqltriage", "public_url": args.public_url}
    if users is not None:
        from sqltriage.tui.serve_auth import token_server

        server = token_server(command, users, **settings)
        print(f"sqltriage serve: {len(users)} annotators may sign in with their token", file=sys.stderr)
        server.serve()
        return 0
    if args.annotator:
        command += ["--annotator", args.annotator]
    server = Server(shlex.join(command), **settings)
    if args.host not in LOOPBACK:
        print(
            f"sqltriage serve: listening on {args.host}: anyone who reaches port {args.port} can read and tag "
            "this workspace and run read-only SQL on its databases, without logging in",
            file=sys.stderr,
        )
    server.serve()
    return 0
