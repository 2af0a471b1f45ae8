"""The Playwright adapter: `WebDriver` (one browser page) and `WebPlugin` (open).

The browser is the system Chromium (Debian's `chromium`), driven through Playwright's
`executable_path`: Playwright's own browser download is not needed (`--browser firefox` needs
Playwright's Firefox build; `trailblaze_web.launch` picks the browser and the page's settings).
Coordinates are CSS pixels of the viewport, the space of the DOM walk's bounds and of Playwright's
mouse.

Settling uses the page's own signals, read in the page by one script per settle (settle.js, with
the DOM walk in the same round trip): no fetch / XHR in flight, and the DOM and input quiet, either
for a quiet window or, when the page has no short timer or frame callback pending, for one animation
frame (agent.js, an init script installed before any page script runs, keeps those signals). When
nothing at all is queued (no timer, frame or idle callback, posted message, request, URL change or
running animation), one task turn replaces the frame.
Requests Playwright sees (images, scripts, frames) must be over too. Bounded, so a page that
animates forever is still acted on.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from importlib.resources import files
from typing import TYPE_CHECKING, Any

from trailblaze.device.driver import DeviceInfo, DeviceListing, Key, LaunchMode
from trailblaze.errors import DeviceError, TrailblazeError, UsageError
from trailblaze.screen.web_hierarchy import parse_web_dump
from trailblaze_web.css import css_orders
from trailblaze_web.launch import BROWSER_ARGS, find_browser, plan_launch

if TYPE_CHECKING:
    from types import TracebackType

    from trailblaze.screen.hierarchy import Hierarchy

__all__ = ["BROWSER_ARGS", "WebDriver", "WebPlugin", "find_browser"]

_KEYS = {"ENTER": "Enter", "BACKSPACE": "Backspace", "TAB": "Tab"}
_QUIET_MS = 60
_SETTLE_BOUND_S = 5.0


def _script(name: str) -> str:
    return files("trailblaze_web").joinpath(name).read_text(encoding="utf-8").strip()


_OBSERVER = f"({_script('agent.js')})();"
_WALK = _script("walk.js")
_SETTLE = _script("settle.js").replace("__AGENT__", _script("agent.js")).replace("__WALK__", _WALK)
_GONE = ("Execution context was destroyed", "navigat", "frame was detached")


class WebDriver:
    """One page of a browser (headless Chromium unless told otherwise). Every method raises
    `DeviceError` on failure."""

    def __init__(self, playwright: Any, browser: Any, page: Any, start_url: str | None) -> None:
        self._pw = playwright
        self._browser = browser
        self._page = page
        self._start_url = start_url
        self._inflight = 0
        self._tracing = False
        self._walks = 0
        self._info: DeviceInfo | None = None
        self._idle_dump: str | None = None
        self.idle_stats: dict[str, int] = {}
        """How the last idle wait went: `frames` waited in the page (0: nothing was queued, one task
        turn was enough) and `busy` frames among them that were not yet quiet."""
        page.on("request", self._request_started)
        page.on("requestfinished", self._request_ended)
        page.on("requestfailed", self._request_ended)

    def __repr__(self) -> str:
        return f"<WebDriver {self._page.url}>"

    def _request_started(self, _request: Any) -> None:
        self._inflight += 1

    def _request_ended(self, _request: Any) -> None:
        self._inflight = max(0, self._inflight - 1)

    def _do(self, what: str, action: Any, *, looks: bool = False) -> Any:
        if not looks:  # anything done to the page outdates the walk the idle wait took
            self._idle_dump = None
        try:
            return action()
        except TrailblazeError:
            raise
        except Exception as exc:
            line = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
            raise DeviceError(f"{what} failed in the browser: {line}") from exc

    # --- observation -----------------------------------------------------------------------------
    @property
    def info(self) -> DeviceInfo:
        if self._info is None:
            size = self._page.viewport_size or {"width": 1280, "height": 800}
            self._info = DeviceInfo(
                platform="web",
                classifier=f"web-{self._browser.browser_type.name}",
                serial=self._start_url or "about:blank",
                model=f"{self._browser.browser_type.name.capitalize()} {self._browser.version}",
                width=int(size["width"]),
                height=int(size["height"]),
                scale=float(self._page.evaluate("() => window.devicePixelRatio") or 1.0),
            )
        return self._info

    def wait_for_idle(self, timeout: float) -> bool:
        """Waits until the page is idle (see the module docstring) and walks the DOM in the same
        round trip; the next `hierarchy()` returns that walk. False when `timeout` passes first."""
        deadline = time.monotonic() + min(timeout, _SETTLE_BOUND_S)
        while True:
            left_ms = max(0.0, deadline - time.monotonic()) * 1000
            result = self._settle_script(left_ms)
            if result["quiet"] and self._inflight == 0:
                self._idle_dump = result["dump"]
                return True
            if time.monotonic() >= deadline:
                self._idle_dump = result["dump"]
                return False
            if result["quiet"]:  # a request only Playwright sees (an image, a script) is still loading
                self._do("waiting for the page's requests", lambda: self._page.wait_for_timeout(10))

    def _settle_script(self, bound_ms: float) -> dict[str, Any]:
        arg = {"quietMs": _QUIET_MS, "boundMs": bound_ms, "walk": True}
        for _ in range(3):
            try:
                result = self._do("waiting for the page to settle", lambda: self._page.evaluate(_SETTLE, arg))
            except DeviceError as exc:
                if not any(g in str(exc) for g in _GONE):
                    raise
                # The action navigated: the script died with its document; wait for the new one.
                self._do("waiting for the next page", lambda: self._page.wait_for_load_state("load"))
                continue
            self.idle_stats = {"frames": int(result["frames"]), "busy": int(result["busy"])}
            self._walks += 1  # the script walked the DOM: earlier captures' node orders are gone
            return dict(result)
        raise DeviceError("waiting for the page to settle failed: the page kept navigating; retry")

    def hierarchy(self) -> Hierarchy:
        text, self._idle_dump = self._idle_dump, None
        if text is None:
            text = self._do("reading the page (DOM walk)", lambda: self._page.evaluate(_WALK))
            self._walks += 1
        return self._with_css(parse_web_dump(str(text)))

    def screenshot(self) -> bytes:
        return bytes(self._do("taking a screenshot", lambda: self._page.screenshot(type="png"), looks=True))

    def current_app(self) -> str | None:
        return str(self._page.url) or None

    def calls_from_any_thread(self) -> bool:
        return False  # Playwright's sync API answers only the thread that started it

    # --- gestures ----------------------------------------------------------------------------------
    def tap(self, x: float, y: float) -> None:
        self._do(f"clicking at ({x:g}, {y:g})", lambda: self._page.mouse.click(x, y))

    def long_press(self, x: float, y: float, duration: float = 0.8) -> None:
        def press() -> None:
            self._page.mouse.move(x, y)
            self._page.mouse.down()
            self._page.wait_for_timeout(duration * 1000)
            self._page.mouse.up()

        self._do(f"long-pressing at ({x:g}, {y:g})", press)

    def double_tap(self, x: float, y: float) -> None:
        self._do(f"double-clicking at ({x:g}, {y:g})", lambda: self._page.mouse.dblclick(x, y))

    def swipe(self, x1: float, y1: float, x2: float, y2: float, duration: float = 0.3) -> None:
        # A finger moving up scrolls the content down: the wheel turns the other way round.
        def wheel() -> None:
            self._page.mouse.move(x1, y1)
            self._page.mouse.wheel(x1 - x2, y1 - y2)

        self._do(f"scrolling from ({x1:g}, {y1:g}) to ({x2:g}, {y2:g})", wheel)

    def scroll(self, dx: float, dy: float, at: tuple[float, float] | None = None) -> None:
        """Turns the mouse wheel by (dx, dy) CSS pixels over `at` (default the viewport's centre)."""
        x, y = at or (self.info.width / 2, self.info.height / 2)

        def wheel() -> None:
            self._page.mouse.move(x, y)
            self._page.mouse.wheel(dx, dy)

        self._do("scrolling", wheel)

    # --- keyboard ----------------------------------------------------------------------------------
    def input_text(self, text: str) -> None:
        # Inserted as one edit, as Playwright's `fill` does (one `input` event, no key events per
        # character): what Trailblaze's web_type does, and a hand-written script would.
        self._do("typing text", lambda: self._page.keyboard.insert_text(text))

    def erase_text(self, characters: int | None = None) -> None:
        def erase() -> None:
            if characters is None:
                self._page.keyboard.press("ControlOrMeta+A")
                self._page.keyboard.press("Backspace")
            else:
                for _ in range(characters):
                    self._page.keyboard.press("Backspace")

        self._do("erasing text", erase)

    def hide_keyboard(self) -> None:
        return None  # a desktop browser has no on-screen keyboard

    def press_key(self, key: Key) -> None:
        if key == "BACK":
            self.navigate("BACK", "")
        elif key == "HOME":
            self.navigate("GOTO", self._start_url or "about:blank")
        elif key in _KEYS:
            self.press(_KEYS[key])
        else:
            raise UsageError(f"unknown key {key!r}: use BACK, HOME, ENTER, BACKSPACE or TAB")

    def press(self, key: str) -> None:
        """Presses a Playwright key or chord (`Enter`, `Escape`, `Control+A`)."""
        self._do(f"pressing {key}", lambda: self._page.keyboard.press(key))

    # --- web extras (trailblaze.tools.catalog.web_tools.SupportsWeb) --------------------------------------------------
    def navigate(self, action: str, url: str) -> None:
        """GOTO `url`, or BACK / FORWARD in the history; waits for the load event."""
        if action == "BACK":
            self._do("going back", lambda: self._page.go_back(wait_until="load"))
        elif action == "FORWARD":
            self._do("going forward", lambda: self._page.go_forward(wait_until="load"))
        else:
            self._do(f"opening {url}", lambda: self._page.goto(url, wait_until="load"))

    def css_nodes(self, css: str) -> list[int]:
        """Orders (in the last hierarchy) of the walked elements `css` matches, or of their nearest
        walked ancestor; empty when nothing matches (`trailblaze_web.css`)."""
        return css_orders(self._page, css)

    def _with_css(self, hierarchy: Hierarchy) -> Hierarchy:
        """Lets the resolver match `cssSelector` on this capture while it is the page's latest walk
        (`_walks` counts every walk, the idle wait's too: each one renumbers `window.__tbNodes`)."""
        walk = self._walks

        def query(css: str) -> list[int]:
            # After another walk, the page's node orders are another capture's: match nothing (a
            # resolver polling the page captures again).
            return self.css_nodes(css) if walk == self._walks else []

        hierarchy.css_query = query
        return hierarchy

    def select_option(self, order: int, values: list[str]) -> list[str]:
        """Selects the options of the `<select>` walked at `order` whose value or label is in
        `values`; the values it selected."""
        script = """([i, want]) => { const e = (window.__tbNodes || [])[i];
          if (!e || e.tagName !== "SELECT") return null; const got = [];
          for (const o of e.options) { const on = want.includes(o.value) || want.includes(o.text.trim());
            if (e.multiple) o.selected = on; else if (on && !got.length) o.selected = true;
            if (on) got.push(o.value); }
          e.dispatchEvent(new Event("input", {bubbles: true}));
          e.dispatchEvent(new Event("change", {bubbles: true})); return got; }"""
        got = self._do("selecting an option", lambda: self._page.evaluate(script, [order, values]))
        if got is None:
            raise UsageError("web_selectOption needs a <select> element")
        return [str(v) for v in got]

    def inner_text(self, order: int) -> str:
        """The rendered text of the element walked at `order`, whitespace collapsed."""
        script = "(i) => { const e = (window.__tbNodes || [])[i]; return e ? e.innerText || e.textContent || '' : ''; }"
        value = self._do("reading an element's text", lambda: self._page.evaluate(script, order))
        return " ".join(str(value).split())

    def input_value(self, order: int) -> str:
        """The `value` of the form control walked at `order` (a `<select>`'s selected option value)."""
        script = "(i) => { const e = (window.__tbNodes || [])[i]; return e && 'value' in e ? String(e.value) : ''; }"
        return str(self._do("reading an element's value", lambda: self._page.evaluate(script, order)))

    def attribute(self, order: int, name: str) -> str | None:
        """The attribute `name` of the element walked at `order` (None when it has none)."""
        script = "([i, n]) => { const e = (window.__tbNodes || [])[i]; return e ? e.getAttribute(n) : null; }"
        value = self._do(f"reading attribute {name}", lambda: self._page.evaluate(script, [order, name]))
        return None if value is None else str(value)

    # --- Playwright trace (trailblaze.device.driver.SupportsTrace) -----------------------------------------
    def start_trace(self) -> None:
        """Starts a trace chunk for the next trail (the tracer itself starts once, at the first)."""
        tracing = self._page.context.tracing
        if not self._tracing:
            self._do("starting a trace", lambda: tracing.start(screenshots=True, snapshots=True))
            self._tracing = True
        else:
            self._do("starting a trace", lambda: tracing.start_chunk())

    def stop_trace(self, path: str | None) -> None:
        if not self._tracing:
            return
        tracing = self._page.context.tracing
        if path is None:
            self._do("discarding a trace", lambda: tracing.stop_chunk())
        else:
            self._do(f"saving a trace to {path}", lambda: tracing.stop_chunk(path=path))

    # --- apps (a web page has none: launching opens the start URL) ----------------------------------
    def launch_app(self, app_id: str, mode: LaunchMode = "FORCE_RESTART") -> None:
        url = app_id if "://" in app_id else self._start_url
        if mode == "CLEAR_STATE":
            self._do("clearing cookies", lambda: self._page.context.clear_cookies())
        if url:
            self.navigate("GOTO", url)
            if mode == "CLEAR_STATE":
                self._do("clearing storage", lambda: self._page.evaluate("() => localStorage.clear()"))
                self.navigate("GOTO", url)

    def stop_app(self, app_id: str) -> None:
        self.navigate("GOTO", "about:blank")

    def clear_app(self, app_id: str) -> None:
        self._do(
            "clearing storage",
            lambda: self._page.evaluate("() => { try { localStorage.clear(); } catch (e) {} }"),
        )

    def open_url(self, url: str) -> bool:
        self.navigate("GOTO", url)
        return True

    # --- lifecycle ---------------------------------------------------------------------------------
    def close(self) -> None:
        try:
            self._browser.close()
        finally:
            self._pw.stop()

    def __enter__(self) -> WebDriver:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class WebPlugin:
    """The `web` entry of the `trailblaze.drivers` group."""

    platform = "web"

    def open(self, target: str | None, options: Mapping[str, str]) -> WebDriver:
        """Starts the browser the options name (`trailblaze_web.launch`) with one page, at `target`
        if given."""
        from playwright.sync_api import sync_playwright

        target = _start_url(target)
        pw = sync_playwright().start()
        plan = None
        try:
            plan = plan_launch(pw, options)
            browser = getattr(pw, plan.browser).launch(**plan.launch)
            page = browser.new_page(**plan.context)
            page.add_init_script(_OBSERVER)
            driver = WebDriver(pw, browser, page, target)
            if target:
                driver.navigate("GOTO", target)
        except TrailblazeError:
            pw.stop()
            raise
        except Exception as exc:
            pw.stop()
            line = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
            what = plan.executable if plan is not None else "the browser"
            raise DeviceError(f"starting {what} failed: {line}; check that it is a working browser") from exc
        return driver

    def list_devices(self, options: Mapping[str, str]) -> list[DeviceListing]:
        try:
            path = find_browser(options)
        except DeviceError:
            return []
        return [DeviceListing(spec="web", platform="web", state="ready", description=f"Chromium at {path}")]


def _start_url(target: str | None) -> str | None:
    """`web:URL`'s page: a URL without a scheme is a file path (from the working directory), as
    `web_navigate` takes it, so `--device web:site/index.html` opens the file.

    Raises:
        UsageError: no such file.
    """
    import re
    from pathlib import Path

    if not target or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
        return target
    path = Path(target).expanduser().resolve()
    if not path.is_file():
        raise UsageError(
            f"--device web:{target}: no file {path}; pass a URL (https://…, file://…) or a path to an .html file"
        )
    return path.as_uri()
