"""`sqltriage serve` in a real headless Chromium: the page loads, the browse screen shows the sample's
rows, and a key typed in the browser changes the screen.

The browser is Debian's `chromium` package, driven over the DevTools protocol with aiohttp (which
textual-serve already brings). The terminal in the page is xterm.js drawing on a canvas, so the test
reads what it shows from xterm's own screen buffer: a script added before the page loads keeps a
reference to the terminal the page creates. Skips, saying why, only when Chromium is not installed.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import Evaluated

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium package is not installed (.ci/run installs it with apt-get)"
)
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1600,1000",
    "--remote-debugging-port=0",
)
# Keep the xterm.js terminal the page creates (`this.terminal = new Terminal(...)`) where the test can read it.
KEEP_TERMINAL = """
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  get() { return undefined; },
  set(value) {
    Object.defineProperty(this, "terminal", {value, writable: true, configurable: true, enumerable: true});
    if (value && value.buffer) { window.__terminal = value; }
  },
});
"""
READ_SCREEN = """
(() => {
  const t = window.__terminal;
  if (!t) { return ""; }
  const b = t.buffer.active, lines = [];
  for (let y = 0; y < t.rows; y++) {
    const line = b.getLine(b.viewportY + y);
    lines.push(line ? line.translateToString(true) : "");
  }
  return lines.join("\\n");
})()
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(what: str, ready, timeout: float) -> object:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = ready()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"{what} did not happen within {timeout:.0f} s")


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as reply:
            return reply.status == 200
    except OSError:
        return False


def _stop(proc: subprocess.Popen) -> None:  # type: ignore[type-arg]
    """End a process we started and everything it started (its own process group)."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)


@pytest.fixture
def server(sample_ws: Evaluated, tmp_path: Path) -> Iterator[str]:
    workspace = tmp_path / "served.sqltriage.db"
    shutil.copyfile(sample_ws.workspace, workspace)  # already evaluated: the server starts at once
    port = _free_port()
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)}
    log = (tmp_path / "serve.log").open("wb")
    cmd = [
        sys.executable,
        "-m",
        "sqltriage.tui.cli",
        "serve",
        "--workspace",
        str(workspace),
        "--port",
        str(port),
    ]
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}/"
    try:
        _wait("the server answering", lambda: _answers(url) or proc.poll() is not None, 60)
        assert proc.poll() is None, (tmp_path / "serve.log").read_text()
        yield url
    finally:
        _stop(proc)
        log.close()


@pytest.fixture
def devtools(tmp_path: Path) -> Iterator[str]:
    profile = tmp_path / "chromium-profile"
    cmd = [CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)  # type: ignore[list-item]
    active = profile / "DevToolsActivePort"
    try:
        _wait(
            "Chromium opening its DevTools port",
            lambda: active.exists() and active.read_text().count("\n"),
            30,
        )
        port, path = active.read_text().split("\n")[:2]
        yield f"ws://127.0.0.1:{port}{path}"
    finally:
        _stop(proc)


class DevTools:
    """The few DevTools protocol calls the test needs, on one page (flattened session)."""

    def __init__(self, ws) -> None:  # type: ignore[no-untyped-def]
        self.ws, self.next_id, self.session = ws, 0, None

    async def call(self, method: str, **params: object) -> dict:  # type: ignore[type-arg]
        self.next_id += 1
        message: dict[str, object] = {"id": self.next_id, "method": method, "params": params}
        if self.session is not None:
            message["sessionId"] = self.session
        await self.ws.send_str(json.dumps(message))
        while True:
            reply = json.loads((await self.ws.receive(timeout=30)).data)
            if reply.get("id") == self.next_id:
                assert "error" not in reply, f"{method}: {reply['error']}"
                return reply.get("result", {})

    async def screen(self) -> str:
        result = await self.call("Runtime.evaluate", expression=READ_SCREEN, returnByValue=True)
        return str(result["result"].get("value") or "")

    async def until_shown(self, *texts: str, timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        shown = ""
        while time.monotonic() < deadline:
            shown = await self.screen()
            if all(t in shown for t in texts):
                return shown
            await asyncio.sleep(0.2)
        raise AssertionError(f"the browser never showed {texts}; it shows:\n{shown}")

    async def type_key(self, char: str) -> None:
        for kind in ("keyDown", "keyUp"):
            extra = {"text": char} if kind == "keyDown" else {}
            await self.call(
                "Input.dispatchKeyEvent",
                type=kind,
                key=char,
                code=f"Key{char.upper()}",
                windowsVirtualKeyCode=ord(char.upper()),
                **extra,
            )


async def _in_browser(devtools_url: str, page_url: str, rows: int) -> tuple[str, str]:
    import aiohttp

    async with aiohttp.ClientSession() as http, http.ws_connect(devtools_url, max_msg_size=0) as ws:
        cdp = DevTools(ws)
        target = await cdp.call("Target.createTarget", url="about:blank")
        attached = await cdp.call("Target.attachToTarget", targetId=target["targetId"], flatten=True)
        cdp.session = attached["sessionId"]
        await cdp.call("Page.enable")
        await cdp.call("Page.addScriptToEvaluateOnNewDocument", source=KEEP_TERMINAL)
        await cdp.call("Page.navigate", url=page_url)
        # the rows come first, the sidebar's facets once the frame is read
        browse = await cdp.until_shown(
            f"{rows} of {rows}", "How many books does the library catalogue", "▾ hardness"
        )
        await cdp.call("Runtime.evaluate", expression="window.__terminal.focus()")
        await cdp.type_key("m")  # the summary screen
        summary = await cdp.until_shown("Metrics", "Compare")
        return browse, summary


def test_served_app_in_chromium(server: str, devtools: str, sample_ws: Evaluated) -> None:
    rows = sample_ws.frame.height
    browse, summary = asyncio.run(_in_browser(devtools, server, rows))
    assert "atlas-7b" in browse and "▾ hardness" in browse  # the sidebar and the table, in the page
    assert f"{rows} of {rows}" not in summary  # the key press replaced the browse screen
