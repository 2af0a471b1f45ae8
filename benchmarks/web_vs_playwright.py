"""Replay of the TodoMVC web trail ÷ a hand-written Playwright script doing the same actions (goal ≤ 1.3).

Both run on the vendored TodoMVC app (tests/data/web/todomvc) served from a local http.server, in
the same process, on the same system Chromium with the same flags, after a warm-up. Browser start
is excluded from both: the trail replays on an open session (`replay_trail`), the script on an open
page. Each side runs N times on a fresh page (fresh localStorage) and the medians are compared.

Run: python benchmarks/web_vs_playwright.py [N]   (needs Debian's `chromium`; N=20 gives the 20/20 figure)
"""

from __future__ import annotations

import functools
import statistics
import sys
import tempfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from trailblaze_web.driver import BROWSER_ARGS, find_browser

from trailblaze.devices import open_device
from trailblaze.runner import ReplayOptions, replay_trail

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


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(DATA)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    url = f"{base}/todomvc/index.html"
    trail_text = TRAIL.read_text(encoding="utf-8").replace("tests/data/web", base)
    ours: list[float] = []
    passed = 0
    theirs: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "todomvc.trail.yaml"
        path.write_text(trail_text, encoding="utf-8")
        for i in range(runs + 1):
            with open_device("web") as session:
                start = time.perf_counter()
                record = replay_trail(path, session, options=ReplayOptions())
                elapsed = time.perf_counter() - start
            if i:
                ours.append(elapsed)
                passed += record.status == "passed"
        from playwright.sync_api import sync_playwright

        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=find_browser({}), args=list(BROWSER_ARGS))
            for i in range(runs + 1):
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                start = time.perf_counter()
                _playwright_script(page, url)
                elapsed = time.perf_counter() - start
                page.close()
                if i:
                    theirs.append(elapsed)
            browser.close()
    server.shutdown()
    a, b = statistics.median(ours), statistics.median(theirs)
    print(f"trailblaze replay (web trail, 5 steps, 12 tools): median {a * 1000:.0f} ms over {runs} runs")
    print(f"hand-written Playwright script (same actions):     median {b * 1000:.0f} ms over {runs} runs")
    print(f"ratio replay / Playwright: {a / b:.2f} (goal <= 1.3); replay passed {passed}/{runs}")


if __name__ == "__main__":
    main()
