"""Who may tag through `sqltriage serve --users FILE`: a token per annotator, and each session runs as them.

The users file holds one `NAME TOKEN` per line (blank lines and `#` comments skipped). A browser
presents its token as `?token=…` in the address or on the login page the server shows without one;
a valid token is kept in an HttpOnly cookie (and the address loses it) for the page's websocket, and the app that websocket
starts runs with `--annotator NAME`. Without a valid token the page is the login form and the
websocket is refused before any app process starts.
"""

from __future__ import annotations

import asyncio
import hmac
import html
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sqltriage.core.errors import UsageError

COOKIE = "sqltriage_token"
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def read_users(path: Path) -> dict[str, str]:
    """token → annotator name from the users file; a repeated name or token is an error with its line."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the users file ({exc})", path=path) from None
    names: dict[str, int] = {}
    tokens: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        fields = stripped.split()
        if len(fields) != 2:
            raise UsageError(
                f"line {number}: expected `NAME TOKEN` (two words), found {len(fields)}",
                path=path,
                hint="one annotator per line: a name without spaces, a space, then their token",
            )
        name, token = fields
        if name in names:
            raise UsageError(
                f"line {number}: the name {name!r} is on line {names[name]} already",
                path=path,
                hint="give each annotator one line",
            )
        if token in tokens:
            raise UsageError(
                f"line {number}: this token is {tokens[token]!r}'s already",
                path=path,
                hint="every annotator needs a token of their own",
            )
        if len(token) < 8:
            raise UsageError(
                f"line {number}: {name!r}'s token is shorter than 8 characters",
                path=path,
                hint="use long random tokens (e.g. `python -c 'import secrets; print(secrets.token_urlsafe())'`)",
            )
        names[name] = number
        tokens[token] = name
    if not tokens:
        raise UsageError(
            "the users file names nobody", path=path, hint="add one `NAME TOKEN` line per annotator"
        )
    return tokens


def who(users: Mapping[str, str], token: str | None) -> str | None:
    """The annotator whose token this is (compared in constant time), or None."""
    if not token:
        return None
    found = None
    for known, name in users.items():
        if hmac.compare_digest(known.encode(), token.encode()):
            found = name
    return found


LOGIN_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>sqltriage: sign in</title></head>
<body style="font-family: sans-serif; margin: 3em">
<h1>sqltriage</h1>
<p>{message}</p>
<form method="get" action="{action}">
<label>Your token: <input type="password" name="token" autofocus></label>
<button type="submit">Open</button>
</form>
</body></html>
"""


def token_server(command: Sequence[str], users: Mapping[str, str], **server_args: Any) -> Any:
    """A textual-serve server that asks for a token and runs each session's app as its annotator."""
    import aiohttp_jinja2
    import jinja2
    from aiohttp import web
    from textual_serve.app_service import AppService
    from textual_serve.server import Server, to_int

    log = logging.getLogger("textual-serve")

    class TokenServer(Server):  # type: ignore[misc]
        def _login(self, message: str, status: int) -> web.Response:
            page = LOGIN_PAGE.format(message=html.escape(message), action=f"{self.public_url}/")
            return web.Response(text=page, content_type="text/html", status=status)

        async def _make_app(self) -> web.Application:
            """textual-serve's routes, with the page behind the token."""
            app = web.Application()
            aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
            app.add_routes(
                [
                    web.get("/", self._index_or_login, name="index"),
                    web.get("/ws", self.handle_websocket, name="websocket"),
                    web.get("/download/{key}", self.handle_download, name="download"),
                    web.static("/static", self.statics_path, show_index=True, name="static"),
                ]
            )
            app.on_startup.append(self.on_startup)
            app.on_shutdown.append(self.on_shutdown)
            return app

        async def _index_or_login(self, request: web.Request) -> web.StreamResponse:
            given = request.query.get("token")
            if given is not None:
                if who(users, given) is None:
                    return self._login("That token is not known here. Ask for yours.", 403)
                # the token goes into a cookie and out of the address (history, screenshots, Referer)
                reply = web.HTTPFound(f"{self.public_url}/")
                reply.set_cookie(COOKIE, given, httponly=True, samesite="Strict")
                return reply
            if who(users, request.cookies.get(COOKIE)) is not None:
                return await self.handle_index(request)
            return self._login("This workspace is shared by invitation: give your token.", 401)

        async def handle_websocket(self, request: web.Request) -> web.StreamResponse:
            name = who(users, request.cookies.get(COOKIE))
            if name is None:
                return web.Response(status=403, text="no valid token: open the page with ?token=…")
            websocket = web.WebSocketResponse(heartbeat=15)
            width = to_int(request.query.get("width", "80"), 80)
            height = to_int(request.query.get("height", "24"), 24)
            app_service: AppService | None = None
            try:
                await websocket.prepare(request)
                app_service = AppService(
                    _join([*command, "--annotator", name]),
                    write_bytes=websocket.send_bytes,
                    write_str=websocket.send_str,
                    close=websocket.close,
                    download_manager=self.download_manager,
                    debug=self.debug,
                )
                await app_service.start(width, height)
                try:
                    await self._process_messages(websocket, app_service)
                finally:
                    await app_service.stop()
            except asyncio.CancelledError:
                await websocket.close()
            except Exception as error:  # as textual-serve's own handler: logged, the server goes on
                log.exception(error)
            finally:
                if app_service is not None:
                    await app_service.stop()
            return websocket

    return TokenServer(_join(command), **server_args)


def _join(command: Sequence[str]) -> str:
    import shlex

    return shlex.join(command)
