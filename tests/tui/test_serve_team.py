"""`sqltriage serve --users FILE` in a real headless Chromium: no token, no app; a token, the app as that
annotator; two annotators tagging the same rows at once lose nothing. One server, one browser, for speed.

Each annotator gets a browser context of their own (their own cookie jar), as two people on two machines.
"""

from __future__ import annotations

import asyncio
import http.client
import os
import shutil
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from . import test_serve
from .conftest import Evaluated
from .test_serve import (
    CHROMIUM,
    KEEP_TERMINAL,
    DevTools,
    _free_port,
    _stop,
    _wait,
)

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium package is not installed (.ci/run installs it with apt-get)"
)
devtools = test_serve.devtools  # the browser fixture, shared
TOKENS = {"ann": "ann-secret-token-1", "bob": "bob-secret-token-2"}
TAGGED = "Table: missing"  # the default taxonomy's quick key t2


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sqltriage.tui.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


@pytest.fixture
def team_server(sample_ws: Evaluated, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    workspace = tmp_path / "served.sqltriage.db"
    shutil.copyfile(sample_ws.workspace, workspace)
    users = tmp_path / "users.txt"
    users.write_text("# the team\n" + "".join(f"{n} {t}\n" for n, t in TOKENS.items()), encoding="utf-8")
    port = _free_port()
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)}
    log = (tmp_path / "serve.log").open("wb")
    cmd = [sys.executable, "-m", "sqltriage.tui.cli", "serve", "--workspace", str(workspace)]
    cmd += ["--port", str(port), "--users", str(users)]
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}/"
    try:
        _wait("the server answering", lambda: _status(url) == 401 or proc.poll() is not None, 60)
        assert proc.poll() is None, (tmp_path / "serve.log").read_text()
        yield url, workspace
    finally:
        _stop(proc)
        log.close()


def _status(url: str) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
    except OSError:
        return None


def _first_reply(url: str) -> http.client.HTTPResponse:
    """The server's own reply, redirects not followed."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    conn.request("GET", f"{parts.path}?{parts.query}")
    reply = conn.getresponse()
    reply.read()
    conn.close()
    return reply


async def _key(cdp: DevTools, key: str, code: str, vk: int, text: str) -> None:
    await cdp.call(
        "Input.dispatchKeyEvent", type="keyDown", key=key, code=code, windowsVirtualKeyCode=vk, text=text
    )
    await cdp.call("Input.dispatchKeyEvent", type="keyUp", key=key, code=code, windowsVirtualKeyCode=vk)


async def _page(http, devtools_url: str):  # type: ignore[no-untyped-def]
    """A page in a browser context of its own (its own cookies)."""
    ws = await http.ws_connect(devtools_url, max_msg_size=0)
    cdp = DevTools(ws)
    context = await cdp.call("Target.createBrowserContext")
    target = await cdp.call(
        "Target.createTarget", url="about:blank", browserContextId=context["browserContextId"]
    )
    attached = await cdp.call("Target.attachToTarget", targetId=target["targetId"], flatten=True)
    cdp.session = attached["sessionId"]
    await cdp.call("Page.enable")
    await cdp.call("Page.addScriptToEvaluateOnNewDocument", source=KEEP_TERMINAL)
    return ws, cdp


async def _tag_first_row(cdp: DevTools, url: str, rows: int) -> None:
    await cdp.call("Page.navigate", url=url)
    await cdp.until_shown(f"{rows} of {rows}", timeout=60)
    await cdp.call("Runtime.evaluate", expression="window.__terminal.focus()")
    await cdp.type_key("t")  # the tag picker
    await cdp.until_shown("tag #")
    await cdp.type_key("t")
    await _key(cdp, "2", "Digit2", 50, "2")
    await _key(cdp, "Enter", "Enter", 13, "\r")
    await cdp.until_shown("saved: tagged")


async def _team(devtools_url: str, url: str, rows: int) -> tuple[str, str]:
    import aiohttp

    async with aiohttp.ClientSession() as http:
        try:
            await http.ws_connect(url.replace("http", "ws") + "ws")
            raise AssertionError("the websocket opened without a token")
        except aiohttp.WSServerHandshakeError as exc:
            assert exc.status == 403
        stranger_ws, stranger = await _page(http, devtools_url)
        await stranger.call("Page.navigate", url=url)
        login: dict = {}  # type: ignore[type-arg]
        for _ in range(100):  # until the page has loaded
            login = await stranger.call(
                "Runtime.evaluate",
                expression="(document.body ? document.body.innerText : '') + '|' + !!window.__terminal",
                returnByValue=True,
            )
            if "token" in str(login["result"].get("value")):
                break
            await asyncio.sleep(0.1)
        await stranger_ws.close()
        pages = [await _page(http, devtools_url) for _ in TOKENS]
        await asyncio.gather(  # both annotators tag the same first row at the same time
            *(
                _tag_first_row(cdp, f"{url}?token={token}", rows)
                for (_, cdp), token in zip(pages, TOKENS.values(), strict=True)
            )
        )
        ann = pages[0][1]  # the summary's Agreement tab, after both tags: one shared row, the same tag
        await ann.type_key("m")
        await ann.until_shown("Metrics")
        await _key(ann, "5", "Digit5", 53, "5")
        agreement = await ann.until_shown("ann × bob")
        for ws, _ in pages:
            await ws.close()
        return str(login["result"]["value"]), agreement


def test_served_to_a_team_with_tokens(
    team_server: tuple[str, Path], devtools: str, sample_ws: Evaluated
) -> None:
    url, workspace = team_server
    assert _status(url) == 401 and _status(f"{url}?token=wrong-token-000") == 403
    signed_in = _first_reply(f"{url}?token={TOKENS['ann']}")
    assert signed_in.status == 302 and signed_in.getheader("Location") == url.rstrip("/") + "/"
    assert "sqltriage_token=" in (signed_in.getheader("Set-Cookie") or "")  # kept as a cookie, not in the URL
    login, agreement = asyncio.run(_team(devtools, url, sample_ws.frame.height))
    assert "ann × bob: 1 rows both decided · pooled κ undefined · raw agreement 1.000" in agreement
    assert "give your token" in login and login.endswith("|false")  # the login form, no terminal
    first = sample_ws.frame.row(0, named=True)
    with sqlite3.connect(workspace) as db:
        given = set(
            db.execute(
                "SELECT annotator FROM annotations WHERE idx = ? AND model = ? AND tag = ?",
                [first["index"], first["model"], TAGGED],
            )
        )
        final = {
            t
            for (t,) in db.execute(
                "SELECT tag FROM tags WHERE idx = ? AND model = ?", [first["index"], first["model"]]
            )
        }
    assert given == {("ann",), ("bob",)}  # each tag carries its annotator; neither write was lost
    assert TAGGED in final


def test_serve_refuses_bad_users_files_and_open_hosts(
    tmp_path: Path, sample_ws: Evaluated, capsys: pytest.CaptureFixture[str]
) -> None:
    from sqltriage.tui.cli import main

    users = tmp_path / "users.txt"
    users.write_text("ann token-aaaaaaaa\nbob token-bbbbbbbb\nann token-cccccccc\n", encoding="utf-8")
    assert main(["serve", "--workspace", str(sample_ws.workspace), "--users", str(users)]) == 2
    err = capsys.readouterr().err
    assert f"{users}" in err and "line 3: the name 'ann' is on line 1 already" in err
    assert main(["serve", "--workspace", str(sample_ws.workspace), "--host", "0.0.0.0"]) == 2
    err = capsys.readouterr().err
    assert "--users FILE" in err and "--no-auth" in err
