"""The locator strategies of appium-uiautomator2-server 10.x (`POST /session/:id/element(s)`):
`id`, `accessibility id`, `class name`, `xpath` and `-android uiautomator`.

- `id` is an exact `resource-id`; a bare name (`email`) is first completed to
  `<package>:id/email` with the session's `appPackage` capability, or, without one, the
  instrumentation's own target package (`io.appium.uiautomator2.server`), which matches nothing in
  the app: real servers behave the same.
- `accessibility id` is an exact `content-desc`, `class name` an exact class (a leading `.` means
  `android.widget`).
- `xpath` runs over the page source of the searched roots (the server uses XPath 2.0 by default;
  this is lxml's XPath 1.0, which covers what clients send in practice).
- `-android uiautomator` is UiAutomator Java code: `new UiSelector()` chains (the prefix may be
  left out), several statements separated by `;` (their matches, deduplicated), and `new
  UiScrollable(container).scrollIntoView(selector)` and its `scrollTextIntoView` /
  `scrollDescriptionIntoView` forms, which scroll before the selector is looked up.

Searches cover the given roots in document order, roots included, like UiAutomator's matchers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from lxml import etree

from trailblaze_sim.android.hierarchy import AxNode
from trailblaze_sim.appium.uia2_source import Display, WindowNode, render_source

__all__ = [
    "InvalidSelector",
    "Locator",
    "UiSelector",
    "complete_id",
    "find",
    "parse_uiautomator",
]

STRATEGIES = ("id", "xpath", "accessibility id", "class name", "-android uiautomator")
_RESOURCE_ID = re.compile(r"^[a-zA-Z_][a-zA-Z0-9._]*:[^/]+/\S+$")


class InvalidSelector(Exception):
    """The server's `invalid selector` error (HTTP 400)."""


@dataclass(frozen=True)
class Locator:
    strategy: str
    selector: str


def complete_id(locator: str, package: str) -> str:
    """`ElementLocationHelpers.rewriteIdLocator`: `name` → `package:id/name`."""
    return locator if _RESOURCE_ID.match(locator) else f"{package}:id/{locator}"


def _walk(roots: Sequence[AxNode]) -> list[AxNode]:
    return [n for root in roots for n in root.walk()]


def find(
    locator: Locator,
    roots: Sequence[WindowNode],
    *,
    package: str | None,
    display: Display,
    scroll: Callable[[AxNode, str, bool], bool] | None = None,
    search: Callable[[], Sequence[WindowNode]] | None = None,
) -> list[AxNode]:
    """Every node `locator` matches under `roots`, in document order.

    Args:
        package: What a bare `id` is completed with; None leaves it as it is (the
            `disableIdLocatorAutocompletion` setting).
        display: For the page source an XPath runs over.
        scroll: Swipes a scrollable one step (`forward` or `backward`, horizontally or not); True if
            its content moved. Needed by `UiScrollable.scrollIntoView`.
        search: The roots again after a scroll.
    """
    nodes = [r.node for r in roots]
    if locator.strategy == "id":
        wanted = locator.selector if package is None else complete_id(locator.selector, package)
        return [n for n in _walk(nodes) if n.resource_id == wanted]
    if locator.strategy == "accessibility id":
        return [n for n in _walk(nodes) if n.content_desc == locator.selector]
    if locator.strategy == "class name":
        cls = "android.widget" + locator.selector if locator.selector.startswith(".") else locator.selector
        return [n for n in _walk(nodes) if n.class_name == cls]
    if locator.strategy == "xpath":
        return _xpath(locator.selector, roots, display)
    if locator.strategy == "-android uiautomator":
        found: list[AxNode] = []
        for statement in parse_uiautomator(locator.selector):
            if statement.scroll_into is not None and scroll is not None and search is not None:
                roots = _scroll_into_view(statement, roots, scroll, search)
                nodes = [r.node for r in roots]
            for node in statement.selector.matches(nodes):
                if all(node is not f for f in found):
                    found.append(node)
        return found
    raise InvalidSelector(
        f"Selector strategy '{locator.strategy}' is not supported. Only the following selector "
        f"strategies are supported: [{', '.join(STRATEGIES)}]"
    )


def _xpath(expression: str, roots: Sequence[WindowNode], display: Display) -> list[AxNode]:
    indexed: list[AxNode] = []
    xml = render_source(roots, display, indexed=indexed)
    doc = etree.fromstring(xml.encode("utf-8"))
    try:
        result = doc.xpath(expression)
    except etree.XPathError as exc:
        raise InvalidSelector(f"{exc}: {expression}") from exc
    found: list[AxNode] = []
    for item in result if isinstance(result, list) else []:
        if isinstance(item, etree._Element) and item.get("uiElementIndex") is not None:
            found.append(indexed[int(str(item.get("uiElementIndex")))])
    return found


# --- UiSelector -------------------------------------------------------------------------------

Check = Callable[[AxNode], bool]


def _equals(get: Callable[[AxNode], str], value: str) -> Check:
    return lambda n: get(n) == value


def _contains(get: Callable[[AxNode], str], value: str) -> Check:
    return lambda n: value in get(n)


def _starts_with(get: Callable[[AxNode], str], value: str) -> Check:
    return lambda n: get(n).startswith(value)


def _matches(get: Callable[[AxNode], str], rx: re.Pattern[str]) -> Check:
    return lambda n: rx.fullmatch(get(n)) is not None


def _flag(attr: str, value: bool) -> Check:
    return lambda n: bool(getattr(n, attr)) == value


def _at_index(value: int) -> Check:
    return lambda n: n.index == value


_STRING_FIELDS: dict[str, Callable[[AxNode], str]] = {
    "text": lambda n: n.text,
    "description": lambda n: n.content_desc,
    "className": lambda n: n.class_name,
    "resourceId": lambda n: n.resource_id,
    "packageName": lambda n: n.package,
}
_BOOL_FIELDS = {
    "checkable": "checkable", "checked": "checked", "clickable": "clickable", "enabled": "enabled",
    "focusable": "focusable", "focused": "focused", "longClickable": "long_clickable",
    "scrollable": "scrollable", "selected": "selected",
}  # fmt: skip


@dataclass
class UiSelector:
    """A UiSelector: criteria on one node, then `instance`, `childSelector` and `fromParent`."""

    checks: list[Check] = field(default_factory=list)
    instance: int | None = None
    child: UiSelector | None = None
    sibling: UiSelector | None = None

    def _own(self, node: AxNode) -> bool:
        return all(check(node) for check in self.checks)

    def matches(self, roots: Sequence[AxNode]) -> list[AxNode]:
        found = [n for n in _walk(roots) if self._own(n)]
        if self.child is not None or self.sibling is not None:
            if self.instance is not None:
                found = found[self.instance : self.instance + 1]
            nested: list[AxNode] = []
            for node in found:
                if self.child is not None:
                    scope = [c for c in node.children]
                    nested += self.child.matches(scope)
                if self.sibling is not None and node.parent is not None:
                    nested += self.sibling.matches([c for c in node.parent.children if c is not node])
            unique: list[AxNode] = []
            for node in nested:
                if all(node is not u for u in unique):
                    unique.append(node)
            return unique
        if self.instance is not None:
            return found[self.instance : self.instance + 1]
        return found


@dataclass
class Statement:
    selector: UiSelector
    scroll_into: UiSelector | None = None
    """The scrollable container of a `UiScrollable(...).scrollIntoView(...)` statement."""
    horizontal: bool = False


def parse_uiautomator(expression: str) -> list[Statement]:
    """The statements of a `-android uiautomator` locator. Raises InvalidSelector."""
    text = expression.strip()
    if not text:
        raise InvalidSelector(
            f"Could not parse selector expression `{expression}`: Tried to parse an empty string. Expected "
            "to see a string consisting of text to be interpreted as UiAutomator java code."
        )
    statements = [s.strip() for s in _split_top(text.rstrip(";"), ";") if s.strip()]
    return [_Parser(s, expression).statement() for s in statements]


def _split_top(text: str, sep: str) -> list[str]:
    """`text` split at `sep` outside string literals and parentheses."""
    parts: list[str] = []
    depth = 0
    quoted = False
    start = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and quoted:
            i += 2
            continue
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch == "(":
            depth += 1
        elif not quoted and ch == ")":
            depth -= 1
        elif not quoted and depth == 0 and ch == sep:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return parts


class _Parser:
    """A recursive-descent reader of one statement: `[new] UiSelector()`, `.method(args)` calls."""

    def __init__(self, text: str, whole: str) -> None:
        self.text = text
        self.whole = whole
        self.pos = 0

    def _error(self, message: str) -> InvalidSelector:
        return InvalidSelector(f"Could not parse selector expression `{self.whole}`: {message}")

    def _skip(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def _take(self, word: str) -> bool:
        self._skip()
        if self.text.startswith(word, self.pos):
            self.pos += len(word)
            return True
        return False

    def statement(self) -> Statement:
        self._skip()
        if self.text.startswith(("new UiScrollable", "UiScrollable"), self.pos):
            return self._scrollable()
        return Statement(self._selector())

    def _selector(self) -> UiSelector:
        self._take("new ")
        if self._take("UiSelector"):
            if not (self._take("(") and self._take(")")):
                raise self._error("UiSelector has no suitable constructor")
        elif not self.text.startswith(".", self.pos):
            # a bare method chain: `text("x")` is read as `new UiSelector().text("x")`
            self.text = self.text[: self.pos] + "." + self.text[self.pos :]
        sel = UiSelector()
        while True:
            self._skip()
            if self.pos >= len(self.text) or self.text[self.pos] in ",)":
                return sel
            if not self._take("."):
                raise self._error(f'Expected "." at position {self.pos}')
            name, args = self._call()
            self._apply(sel, name, args)

    def _call(self) -> tuple[str, list[object]]:
        self._skip()
        match = re.match(r"[A-Za-z_]\w*", self.text[self.pos :])
        if match is None:
            raise self._error(f"Missing method name at position {self.pos}")
        name = match.group(0)
        self.pos += len(name)
        if not self._take("("):
            raise self._error(f"No opening parenthesis after method name at position {self.pos}")
        args: list[object] = []
        while not self._take(")"):
            args.append(self._argument())
            self._skip()
            if self.pos >= len(self.text):
                raise self._error("Unclosed paren in expression")
            self._take(",")
        return name, args

    def _argument(self) -> object:
        self._skip()
        rest = self.text[self.pos :]
        if rest.startswith('"'):
            i = 1
            out = []
            while i < len(rest) and rest[i] != '"':
                if rest[i] == "\\" and i + 1 < len(rest):
                    i += 1
                out.append(rest[i])
                i += 1
            if i >= len(rest):
                raise self._error("Unclosed string literal")
            self.pos += i + 1
            return "".join(out)
        if rest.startswith(("new UiSelector", "UiSelector", ".")):
            return self._selector()
        match = re.match(r"true|false|-?\d+(\.\d+)?", rest)
        if match is None:
            raise self._error(f"Could not parse argument at position {self.pos}")
        self.pos += len(match.group(0))
        word = match.group(0)
        if word in ("true", "false"):
            return word == "true"
        return float(word) if "." in word else int(word)

    def _apply(self, sel: UiSelector, name: str, args: list[object]) -> None:
        if len(args) != 1:
            raise self._error(f"`UiSelector` doesn't have suitable method `{name}` with arguments {args}")
        arg = args[0]
        check = self._string_check(name, arg) if isinstance(arg, str) else None
        if check is not None:
            sel.checks.append(check)
        elif name in _BOOL_FIELDS and isinstance(arg, bool):
            sel.checks.append(_flag(_BOOL_FIELDS[name], arg))
        elif name == "index" and isinstance(arg, int):
            sel.checks.append(_at_index(arg))
        elif name == "instance" and isinstance(arg, int):
            sel.instance = arg
        elif name == "childSelector" and isinstance(arg, UiSelector):
            sel.child = arg
        elif name == "fromParent" and isinstance(arg, UiSelector):
            sel.sibling = arg
        else:
            raise self._error(f"UiSelector has no `{name}` method taking {arg!r}")

    def _string_check(self, name: str, arg: str) -> Check | None:
        """The check of `text(…)`, `textContains(…)`, `classNameMatches(…)` and the like."""
        for base, getter in _STRING_FIELDS.items():
            suffix = name[len(base) :] if name.startswith(base) else None
            if suffix == "":
                if base == "className" and arg.startswith("."):
                    arg = "android.widget" + arg
                return _equals(getter, arg)
            if suffix == "Contains":
                return _contains(getter, arg)
            if suffix == "StartsWith":
                return _starts_with(getter, arg)
            if suffix == "Matches":
                try:
                    return _matches(getter, re.compile(arg))
                except re.error as exc:
                    raise self._error(f"Invalid regular expression {arg!r}: {exc}") from exc
        return None

    def _scrollable(self) -> Statement:
        self._take("new ")
        self._take("UiScrollable")
        if not self._take("("):
            raise self._error("UiScrollable has no suitable constructor")
        container = self._selector()
        if not self._take(")"):
            raise self._error("Unclosed paren in expression")
        target: UiSelector | None = None
        horizontal = False
        while self._take("."):
            name, args = self._call()
            if name == "setAsHorizontalList":
                horizontal = True
            elif name == "setAsVerticalList":
                horizontal = False
            elif name in ("scrollIntoView", "getChildByText", "getChildByDescription") and args:
                first = args[0]
                if isinstance(first, UiSelector):
                    target = first
                    if name != "scrollIntoView" and len(args) > 1 and isinstance(args[1], str):
                        field_name = "text" if name == "getChildByText" else "description"
                        inner = UiSelector(checks=[_equals(_STRING_FIELDS[field_name], args[1])])
                        target = UiSelector(checks=list(first.checks), child=inner)
            elif (
                name in ("scrollTextIntoView", "scrollDescriptionIntoView")
                and args
                and isinstance(args[0], str)
            ):
                field_name = "text" if name == "scrollTextIntoView" else "description"
                target = UiSelector(checks=[_equals(_STRING_FIELDS[field_name], args[0])])
        if target is None:
            raise self._error(
                "At least one method called on a UiScrollable object must return an UiObject instance"
            )
        return Statement(target, container, horizontal)


def _scroll_into_view(
    statement: Statement,
    roots: Sequence[WindowNode],
    scroll: Callable[[AxNode, str, bool], bool],
    search: Callable[[], Sequence[WindowNode]],
) -> Sequence[WindowNode]:
    """UiScrollable.scrollIntoView: if the target is not on screen, scroll the container back to its
    beginning, then forward step by step until the target shows up or the content stops moving."""
    container = statement.scroll_into
    assert container is not None
    for direction in ("backward", "forward"):
        for _ in range(30):
            nodes = [r.node for r in roots]
            if statement.selector.matches(nodes):
                return roots
            holders = container.matches(nodes)
            if not holders:
                return roots
            moved = scroll(holders[0], direction, statement.horizontal)
            roots = search()
            if not moved:
                break
    return roots
