"""Replay of the TodoMVC web trail ÷ a hand-written Playwright script doing the same actions (goal ≤ 1.3).

Both run on the vendored TodoMVC app (tests/data/web/todomvc) served from a local http.server, in
the same process, on the same system Chromium with the same flags, after a warm-up. Browser start
is excluded from both: the trail replays on an open session (`replay_trail`), the script on an open
page. Each side runs N times on a fresh page (fresh localStorage), the two sides taking turns so a
shared machine's load falls on both alike; the medians are compared, and the median of the
per-turn ratios is printed too. The replay's own settling (one in-page wait plus DOM walk per
action, docs/adr/0035-web-settle-in-the-page.md) is counted: frames waited, and how many of them
found the page still busy.

Run: python benchmarks/web_vs_playwright.py [N]   (needs Debian's `chromium`; N=20 gives the 20/20 figure)
"""

from __future__ import annotations

import functools
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from trailblaze_web.driver import BROWSER_ARGS, WebDriver, find_browser

from trailblaze.device.devices import open_device
from trailblaze.engine.replay import ReplayOptions, replay_trail

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "web"
TRAIL = ROOT / "trails" / "web" / "todomvc-active-filter.trail.yaml"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return None


def _playwright_script(page: object, url: str) -> None:
    """What a person would write by hand with Playwright for the same trail."""
    from playwright.sync_api import Page, expect

    assert isinstance(page, Page)
    page.goto(url, wait_until="load")
    box = page.get_by_role("textbox", name="What needs to be done?")
    for text in ("Buy milk", "Walk the dog", "Write the report"):
        box.fill(text)
        box.press("Enter")
    page.locator("#todo-list li:nth-child(2) .toggle").click()
    page.get_by_role("link", name="Active").click()
    expect(page.get_by_text("Buy milk")).to_be_visible()
    expect(page.get_by_text("Write the report")).to_be_visible()
    expect(page.locator("#todo-count")).to_have_text("2 items left")


class _ScriptRunner:
    """The hand-written script's own Playwright and browser, used from one thread."""

    def start(self) -> None:
        from playwright.sync_api import sync_playwright

        self._pw = sync_playwright().start()
        self._browser = self._pw.chromium.launch(executable_path=find_browser({}), args=list(BROWSER_ARGS))

    def run(self, url: str) -> float:
        """One run of the script on a fresh page; its time in seconds."""
        page = self._browser.new_page(viewport={"width": 1280, "height": 800})
        start = time.perf_counter()
        _playwright_script(page, url)
        took = time.perf_counter() - start
        page.close()
        return took

    def stop(self) -> None:
        self._browser.close()
        self._pw.stop()


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(DATA)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    url = f"{base}/todomvc/index.html"
    trail_text = TRAIL.read_text(encoding="utf-8").replace("../../tests/data/web", base)
    ours: list[float] = []
    theirs: list[float] = []
    passed = 0
    settles = frames = busy = 0
    # The script's Playwright lives in a thread of its own: one thread cannot run two sync Playwrights,
    # and the turns must interleave with the replay's.
    script = _ScriptRunner()
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(max_workers=1) as thread:
        path = Path(tmp) / "todomvc.trail.yaml"
        path.write_text(trail_text, encoding="utf-8")
        thread.submit(script.start).result()
        for i in range(runs + 1):
            with open_device("web") as session:
                driver = session.driver
                assert isinstance(driver, WebDriver)
                counted = _count_idle_waits(driver)
                start = time.perf_counter()
                record = replay_trail(path, session, options=ReplayOptions())
                elapsed = time.perf_counter() - start
            took = thread.submit(script.run, url).result()
            if i:  # the first turn warms both up
                ours.append(elapsed)
                theirs.append(took)
                passed += record.status == "passed"
                settles += len(counted)
                frames += sum(c["frames"] for c in counted)
                busy += sum(c["busy"] for c in counted)
        thread.submit(script.stop).result()
    server.shutdown()
    a, b = statistics.median(ours), statistics.median(theirs)
    paired = statistics.median(o / t for o, t in zip(ours, theirs, strict=True))
    print(f"trailblaze replay (web trail, 5 steps, 12 tools): median {a * 1000:.0f} ms over {runs} runs")
    print(f"hand-written Playwright script (same actions):     median {b * 1000:.0f} ms over {runs} runs")
    print(f"replay settling: {settles / runs:.0f} idle waits per run, {frames / runs:.0f} frames waited "
          f"in the page, {busy / runs:.0f} of them busy")  # fmt: skip
    print(f"ratio replay / Playwright: {a / b:.2f} (goal <= 1.3; median of per-turn ratios {paired:.2f}); "
          f"replay passed {passed}/{runs}")  # fmt: skip


def _count_idle_waits(driver: WebDriver) -> list[dict[str, int]]:
    """Wraps the driver's idle wait to collect its in-page counts; the list fills as the replay runs."""
    seen: list[dict[str, int]] = []
    wait = driver.wait_for_idle

    def counted(timeout: float) -> bool:
        idle = wait(timeout)
        seen.append(dict(driver.idle_stats))
        return idle

    driver.wait_for_idle = counted  # type: ignore[method-assign]
    return seen

if __name__ == "__main__":
    main()
