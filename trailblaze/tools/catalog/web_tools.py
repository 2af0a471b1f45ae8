"""Trailblaze's `web_*` tools (its Playwright driver's names and params), run on our hierarchy.

A `ref` is what Trailblaze's web tools take: a ref of the current compact view (`oiz`), an ARIA
descriptor (`button "Clear completed"`, role and exact accessible name; a bare role matches any
name) or `css=<selector>`; a `nodeSelector` (Trailblaze's `web` selector branch) may stand next to
it or instead of it, and then is what replay resolves (`trailblaze.tools.catalog.web_target`). The element
is found on the settled page (polling up to the session's element timeout) and acted on by
coordinates like any other tap, so occlusion (a modal dialog over it) and settling work as on a
phone. Tools that need the browser itself (navigation, `css=`, `<select>`, attributes) use the
driver's `SupportsWeb` methods; other platforms answer `UNSUPPORTED`.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

from pydantic import Field

from trailblaze.errors import DeviceUnsupported
from trailblaze.screen.compact import compact_view
from trailblaze.screen.resolve import resolve
from trailblaze.screen.selector import NodeSelector
from trailblaze.tools.catalog.web_target import WebTargetParams, describe_target
from trailblaze.tools.catalog.web_text import node_showing
from trailblaze.tools.catalog.web_urls import project_folder, url_to_open
from trailblaze.tools.lookup import ToolContext
from trailblaze.tools.params import RecordedToolParams
from trailblaze.tools.tooldef import Kind, Platform, ToolDef, ToolResult, defines

if TYPE_CHECKING:
    from trailblaze.device.driver import Driver
    from trailblaze.screen.hierarchy import Hierarchy, Node

__all__ = ["SupportsWeb"]


@runtime_checkable
class SupportsWeb(Protocol):
    """A browser page: what Trailblaze's `web_*` tools need of a driver beyond taps and keys. The tools
    declare it, not the device layer: a driver that drives a browser (trailblaze_web's) has these
    methods, and the core knows no driver by name (docs/adr/0081-drivers-own-their-options.md).

    `order` is a node's `Node.order` in the driver's latest hierarchy."""

    def navigate(self, action: str, url: str) -> None: ...

    def press(self, key: str) -> None: ...

    def scroll(self, dx: float, dy: float, at: tuple[float, float] | None = None) -> None: ...

    def css_nodes(self, css: str) -> list[int]: ...

    def select_option(self, order: int, values: list[str]) -> list[str]: ...

    def inner_text(self, order: int) -> str: ...

    def input_value(self, order: int) -> str: ...

    def attribute(self, order: int, name: str) -> str | None: ...

_WEB: frozenset[Platform] = frozenset(("web",))


_NEEDS_BROWSER = "web tools need a browser (--device web); this device is {platform}"


def _web_tool(
    params: type[RecordedToolParams], kind: Kind, *, browser: bool = False
) -> Callable[[Callable[..., ToolResult]], ToolDef]:
    """`browser`: the tool drives the browser itself; the run answers UNSUPPORTED on another device
    (the tools that read the screen only run anywhere)."""
    return defines(params, kind, source="web", platforms=_WEB, unsupported=_NEEDS_BROWSER if browser else "")


_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_DESCRIPTOR = re.compile(r'^\s*([a-z]+)(?:\s+"(.*)")?\s*$', re.DOTALL)


class WebNavigate(RecordedToolParams):
    """Go to a URL (GOTO), or move BACK/FORWARD in browser history."""

    tool_name = "web_navigate"
    action: Literal["GOTO", "BACK", "FORWARD"] = "GOTO"
    url: str = ""


class WebClick(WebTargetParams):
    """Click a web element: a ref (`oiz`), an ARIA descriptor (`button "Submit"`) or `css=<selector>`,
    or a `nodeSelector` (`{web: {ariaRole: button, ariaNameRegex: Submit}}`)."""

    tool_name = "web_click"


class WebType(WebTargetParams):
    """Type text into a web input. Clears the field first unless clearFirst is false."""

    tool_name = "web_type"
    text: str
    clearFirst: bool = True


class WebPressKey(RecordedToolParams):
    """Press a keyboard key or chord (`Enter`, `Escape`, `Control+A`)."""

    tool_name = "web_pressKey"
    key: str = Field(min_length=1)


class WebScroll(WebTargetParams):
    """Scroll the page, or the container given by ref or nodeSelector."""

    tool_name = "web_scroll"
    needs_target = False
    direction: Literal["UP", "DOWN", "LEFT", "RIGHT"] = "DOWN"
    amount: int = Field(default=500, ge=1)


class WebSelectOption(WebTargetParams):
    """Select one or more options (values or visible labels) in a `<select>` dropdown."""

    tool_name = "web_selectOption"
    values: list[str] = Field(min_length=1)


class WebSnapshot(RecordedToolParams):
    """Capture the page under `screenName` (kept in the run's report), as `takeSnapshot` does."""

    tool_name = "web_snapshot"
    screenName: str = Field(min_length=1)


class WebVerifyTextVisible(RecordedToolParams):
    """Verify that the text is visible on the page."""

    tool_name = "web_verifyTextVisible"
    text: str = Field(min_length=1)


class WebVerifyElementVisible(WebTargetParams):
    """Verify that the element is visible on the page."""

    tool_name = "web_verifyElementVisible"


class WebVerifyValue(WebTargetParams):
    """Verify an element's text (TEXT, the default: contains `expected`, else its input value does),
    input value (VALUE, equal) or attribute (ATTRIBUTE, equal). Without `ref` or `nodeSelector`, TEXT
    looks at the page."""

    tool_name = "web_verifyValue"
    needs_target = False
    expected: str
    type: Literal["VALUE", "TEXT", "ATTRIBUTE"] = "TEXT"
    attribute: str | None = None


def _web(run: ToolContext) -> SupportsWeb | None:
    driver = run.session.driver
    return driver if isinstance(driver, SupportsWeb) else None


def _browser(run: ToolContext) -> SupportsWeb:
    """The browser of a tool run on the web platform (the run checked it)."""
    web = _web(run)
    if web is None:  # a web device whose driver drives no browser
        raise DeviceUnsupported(_NEEDS_BROWSER.format(platform=run.platform))
    return web


def _match(run: ToolContext, target: NodeSelector | str, screen: Hierarchy) -> list[Node]:
    if isinstance(target, NodeSelector):
        return resolve(target, screen)
    ref = target
    if ref.startswith("css="):
        web = _web(run)
        if web is None:
            return []
        orders = set(web.css_nodes(ref[4:].strip()))
        return [n for n in screen.nodes if n.order in orders and n.on_screen]
    found = _DESCRIPTOR.match(ref)
    if found and found.group(1) not in compact_view(screen).refs:
        role, name = found.group(1), found.group(2)
        return [
            n
            for n in screen.visible_nodes()
            if n.class_name == role and (name is None or " ".join(n.label.split()) == " ".join(name.split()))
        ]
    view = compact_view(screen)
    key = ref.strip().strip("[]")
    node = view.refs.get(key) or view.covered.get(key)
    return [] if node is None else [node]


def _find(
    run: ToolContext, target: NodeSelector | str, until: Callable[[list[Node]], bool] = bool
) -> list[Node]:
    """The nodes `target` (a selector or a ref) names on the settled page, polling until `until`
    holds or the element timeout."""
    deadline = time.monotonic() + run.session.resolve_timeout
    while True:
        nodes = _match(run, target, run.session.settle())
        if until(nodes) or time.monotonic() >= deadline:
            return nodes
        run.session.invalidate()


def _not_found(target: NodeSelector | str) -> ToolResult:
    return ToolResult("NOT_FOUND", f"no element {describe_target(target)} on the page")


def _target(p: WebTargetParams) -> NodeSelector | str:
    target = p.target
    assert target is not None  # WebTargetParams refuses a tool that needs one and has none
    return target


def _local_file(url: str, folder: Path | None) -> Path:
    """A URL without a scheme is a file path from the trail's folder, as `runTrail` paths are, so a
    trail replays from any working directory; Trailblaze reads it from the working directory, which
    is still tried when the trail's folder has no such file."""
    path = Path(url).expanduser()
    if folder is None or path.is_absolute():
        return path.resolve()
    beside = (folder / path).resolve()
    return beside if beside.is_file() or not path.resolve().is_file() else path.resolve()


@_web_tool(WebNavigate, "action", browser=True)
def _navigate(run: ToolContext, p: WebNavigate) -> ToolResult:
    web = _browser(run)
    if p.action == "GOTO" and not p.url:
        return ToolResult("ERROR", "web_navigate GOTO needs a url")
    url = p.url
    if p.action == "GOTO":
        if not _SCHEME.match(url):  # a path: from the trail's folder (else the working directory)
            path = _local_file(url, run.folder)
            if not path.is_file():
                where = f"the trail's folder {run.folder}" if run.folder is not None else Path.cwd()
                return ToolResult(
                    "NOT_FOUND",
                    f"web_navigate: no file {path} (a url without a scheme is a path from {where})",
                )
            url = str(path)
        opened, refused = url_to_open(url)  # inside the working directory's project, or the trail's
        if opened is None and run.folder is not None and "outside the project" in refused:
            opened, refused = url_to_open(url, project=project_folder(run.folder))
        if opened is None:
            return ToolResult("NOT_FOUND" if refused.startswith("no file ") else "ERROR", f"web_navigate: {refused}")
        url = opened
    run.act(lambda _d: web.navigate(p.action, url))
    return ToolResult("OK", f"navigated {p.action} {url}".rstrip())


@_web_tool(WebClick, "action")
def _click(run: ToolContext, p: WebClick) -> ToolResult:
    nodes = _find(run, _target(p))
    return _not_found(_target(p)) if not nodes else run.tap_node(nodes[0], False)


@_web_tool(WebType, "action")
def _type(run: ToolContext, p: WebType) -> ToolResult:
    nodes = _find(run, _target(p))
    if not nodes:
        return _not_found(_target(p))
    tapped = run.tap_node(nodes[0], False)
    if not tapped.ok:
        return tapped

    def type_text(driver: Driver) -> None:
        if p.clearFirst:
            driver.erase_text(None)
        driver.input_text(p.text)

    run.act(type_text)
    return ToolResult("OK", f"typed {p.text!r} into {run.describe(nodes[0])}")


@_web_tool(WebPressKey, "action", browser=True)
def _press_key(run: ToolContext, p: WebPressKey) -> ToolResult:
    web = _browser(run)
    run.act(lambda _d: web.press(p.key))
    return ToolResult("OK", f"pressed {p.key}")


@_web_tool(WebScroll, "action", browser=True)
def _scroll(run: ToolContext, p: WebScroll) -> ToolResult:
    web = _browser(run)
    at: tuple[float, float] | None = None
    if p.target is not None:
        nodes = _find(run, p.target)
        if not nodes:
            return _not_found(p.target)
        at = nodes[0].center
    dx, dy = {"UP": (0, -p.amount), "DOWN": (0, p.amount), "LEFT": (-p.amount, 0), "RIGHT": (p.amount, 0)}[
        p.direction
    ]
    run.act(lambda _d: web.scroll(dx, dy, at))
    return ToolResult("OK", f"scrolled {p.direction} {p.amount}px")


@_web_tool(WebSelectOption, "action", browser=True)
def _select_option(run: ToolContext, p: WebSelectOption) -> ToolResult:
    web = _browser(run)
    nodes = _find(run, _target(p))
    if not nodes:
        return _not_found(_target(p))
    got: list[str] = []
    run.act(lambda _d: got.extend(web.select_option(nodes[0].order, p.values)))
    if not got:
        return ToolResult("NOT_FOUND", f"no option {p.values} in {run.describe(nodes[0])}")
    return ToolResult("OK", f"selected {', '.join(repr(v) for v in got)} in {run.describe(nodes[0])}")


@_web_tool(WebSnapshot, "other", browser=True)
def _snapshot(run: ToolContext, p: WebSnapshot) -> ToolResult:
    _browser(run)
    shot = run.session.screenshot()
    return ToolResult("OK", f"snapshot '{p.screenName}' captured ({len(shot)} bytes)")


@_web_tool(WebVerifyTextVisible, "assertion")
def _verify_text(run: ToolContext, p: WebVerifyTextVisible) -> ToolResult:
    web = _web(run)
    deadline = time.monotonic() + run.session.resolve_timeout
    while True:
        screen = run.session.settle()
        if node_showing(screen, p.text, None if web is None else web.inner_text) is not None:
            return ToolResult("OK", f"{p.text!r} is visible")
        if time.monotonic() >= deadline:
            return ToolResult("NOT_VISIBLE", f"text {p.text!r} is not visible on the page")
        run.session.invalidate()


@_web_tool(WebVerifyElementVisible, "assertion")
def _verify_element(run: ToolContext, p: WebVerifyElementVisible) -> ToolResult:
    nodes = _find(run, _target(p))
    if not nodes:
        return ToolResult("NOT_VISIBLE", f"element {describe_target(_target(p))} is not visible on the page")
    return ToolResult("OK", f"{run.describe(nodes[0])} is visible")


@_web_tool(WebVerifyValue, "assertion", browser=True)
def _verify_value(run: ToolContext, p: WebVerifyValue) -> ToolResult:
    web = _browser(run)
    if p.type == "ATTRIBUTE" and not p.attribute:
        return ToolResult("ERROR", "web_verifyValue type ATTRIBUTE needs `attribute`")
    target = p.target
    if target is None:
        if p.type != "TEXT":
            return ToolResult("ERROR", f"web_verifyValue type {p.type} needs `ref` or `nodeSelector`")
        verified: ToolResult = _verify_text(run, WebVerifyTextVisible(text=p.expected))
        return verified
    actual: str | None = None

    def value_of(nodes: list[Node]) -> str | None:
        if not nodes:
            return None
        node = nodes[0]
        if p.type == "ATTRIBUTE":
            assert p.attribute is not None
            return web.attribute(node.order, p.attribute)
        if p.type == "TEXT":
            # As in Trailblaze: the element's text contains `expected`, else its input value does.
            text = web.inner_text(node.order)
            if text is not None and p.expected in text:
                return text
            return web.input_value(node.order) or text
        return web.input_value(node.order)

    def matches(value: str | None) -> bool:
        if p.type == "TEXT":
            return value is not None and p.expected in value
        return value == p.expected

    def holds(nodes: list[Node]) -> bool:
        nonlocal actual
        actual = value_of(nodes)
        return matches(actual)

    nodes = _find(run, target, holds)
    if not nodes:
        return _not_found(target)
    if not matches(actual):
        return ToolResult(
            "NOT_VISIBLE",
            f"{run.describe(nodes[0])} has {p.type.lower()} {actual!r}, expected {p.expected!r}",
        )
    return ToolResult("OK", f"{run.describe(nodes[0])} has {p.type.lower()} {p.expected!r}")
