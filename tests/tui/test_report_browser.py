"""`sqltriage report` opened in a real headless Chromium: no network request, every figure drawn, small.

The page is loaded from a file:// URL over the DevTools protocol with network events on: every request
the page makes is recorded and none may leave the file. The figures are counted in the rendered DOM
(inline <svg> elements with a drawn size). Skips, saying why, only when Chromium or the data is missing.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import Evaluated
from .test_serve import CHROMIUM, DevTools, devtools  # noqa: F401 - the fixture starts Chromium

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium package is not installed (.ci/run installs it with apt-get)"
)

COUNT_FIGURES = """
(() => {
  const svgs = [...document.querySelectorAll('figure svg')];
  const drawn = svgs.filter(s => { const r = s.getBoundingClientRect(); return r.width > 50 && r.height > 50; });
  const refs = [...document.querySelectorAll('[src],[href]')].map(e => e.getAttribute('src') || e.getAttribute('href'));
  return JSON.stringify({figures: drawn.length, refs, images: document.images.length,
                         scripts: document.scripts.length, title: document.title});
})()
"""


def _report(workspace: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MPLCONFIGDIR": str(out.parent / "mpl")}
    cmd = [
        sys.executable,
        "-m",
        "sqltriage.tui.cli",
        "report",
        "--workspace",
        str(workspace),
        "--out",
        str(out),
    ]
    return subprocess.run([*cmd, *extra], capture_output=True, text=True, env=env)


async def _open(devtools_url: str, page: Path) -> tuple[dict, list[str]]:  # type: ignore[type-arg]
    import aiohttp

    requests: list[str] = []
    async with aiohttp.ClientSession() as http, http.ws_connect(devtools_url, max_msg_size=0) as ws:
        cdp = DevTools(ws)
        target = await cdp.call("Target.createTarget", url="about:blank")
        attached = await cdp.call("Target.attachToTarget", targetId=target["targetId"], flatten=True)
        cdp.session = attached["sessionId"]
        await cdp.call("Network.enable")
        await cdp.call("Page.enable")
        await cdp.call("Page.navigate", url=page.as_uri())
        loaded = False
        while not loaded:  # read events until the page has loaded, recording each request
            message = json.loads((await ws.receive(timeout=60)).data)
            if message.get("method") == "Network.requestWillBeSent":
                requests.append(message["params"]["request"]["url"])
            loaded = message.get("method") == "Page.loadEventFired"
        await asyncio.sleep(0.5)  # anything a late element would fetch
        while True:
            try:
                message = json.loads((await ws.receive(timeout=0.2)).data)
            except TimeoutError:
                break
            if message.get("method") == "Network.requestWillBeSent":
                requests.append(message["params"]["request"]["url"])
        result = await cdp.call("Runtime.evaluate", expression=COUNT_FIGURES, returnByValue=True)
        return json.loads(result["result"]["value"]), requests


def _check_page(devtools_url: str, page: Path, min_figures: int) -> dict:  # type: ignore[type-arg]
    shown, requests = asyncio.run(_open(devtools_url, page))
    assert requests and all(url.startswith(("file://", "data:")) for url in requests), requests  # inline only
    assert shown["figures"] >= min_figures, shown
    assert shown["scripts"] == 0 and shown["images"] == 0
    assert not [r for r in shown["refs"] if r and not r.startswith(("#", "data:"))], shown["refs"]
    return shown


def test_report_of_the_sample_opens_offline(sample_ws: Evaluated, devtools: str, tmp_path: Path) -> None:  # noqa: F811
    out = tmp_path / "report.html"
    figures = tmp_path / "figures"
    before = sample_ws.workspace.read_bytes()
    done = _report(sample_ws.workspace, out, "--figures", str(figures))
    assert done.returncode == 0, done.stderr
    assert sample_ws.workspace.read_bytes() == before  # the report only reads
    text = out.read_text(encoding="utf-8")
    for model in ("atlas-7b", "beacon-gpt4"):
        assert model in text
    assert "Pairwise significance" in text and "top slices" in text
    shown = _check_page(devtools, out, 6)
    svgs, pdfs = sorted(figures.glob("*.svg")), sorted(figures.glob("*.pdf"))
    assert len(svgs) == len(pdfs) == shown["figures"]
    assert all(p.read_bytes().startswith(b"%PDF") for p in pdfs)


@pytest.mark.slow
@pytest.mark.xdist_group("spider_dev_ts")  # with the other readers of the shared evaluation
def test_report_of_spider_dev_times_8(
    spider_dev_ts: tuple[Path, Path],
    devtools: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    """The issue's case: Spider dev × 8 systems, at least 6 figures, under 5 MB, no request. The workspace
    is the run's shared evaluation of the 8 systems (`sqltriage eval`'s columns, neighbours included)."""
    ws = tmp_path / "spider8.sqltriage.db"
    shutil.copy(spider_dev_ts[1], ws)
    out = tmp_path / "report.html"
    done = _report(ws, out)
    assert done.returncode == 0, done.stderr
    assert out.stat().st_size < 5_000_000
    _check_page(devtools, out, 6)


def test_report_without_matplotlib_says_what_to_install(sample_ws: Evaluated, tmp_path: Path) -> None:
    """matplotlib made unimportable in a child interpreter: a clear error, exit 2, no file."""
    out = tmp_path / "r.html"
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "from sqltriage.tui.cli import main\n"
        f"sys.exit(main(['report', '--workspace', {str(sample_ws.workspace)!r}, '--out', {str(out)!r}]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 2
    assert 'pip install "sqltriage[report]"' in done.stderr and "matplotlib" in done.stderr
    assert not out.exists()
