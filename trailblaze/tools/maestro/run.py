"""Running Maestro commands on a device session: the `mobile_maestro` tool's engine.

Each command resolves its selector with Maestro's rules (`trailblaze.tools.maestro.select`), acts through
the session (so it settles like every other tool) and answers `(status, message)` with the statuses
of `trailblaze.tools.execute`. A failing command stops the list, unless it is `optional: true` (then the
failure is noted and the next command runs), as in Maestro.

Variables: `${NAME}` is looked up in the `env` of the enclosing `runFlow` / `retry`, then in the run's
memory (the flow's `env` is the trail's `config.memory`); `${maestro.copiedText}` is the text the last
`copyTextFrom` read. They are replaced when the command runs, so a command inside `repeat` sees the
value of that iteration. Trailblaze `{{templates}}` work too.
"""

from __future__ import annotations

import random
import re
import string
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.device.driver import SupportsOpenUrl, SupportsShellStatus
from trailblaze.device.permissions import PermissionRefused, set_permissions
from trailblaze.device.settle import same_screen
from trailblaze.errors import ActionRefused, AppNotInstalledError, UsageError
from trailblaze.screen.patterns import PatternTooSlow
from trailblaze.tools.maestro.commands import CONTAINERS, as_bool, as_int, check, key_code, normalize, summary
from trailblaze.tools.maestro.select import Query, query
from trailblaze.tools.tooldef import Outcome

if TYPE_CHECKING:
    from trailblaze.device.driver import Driver
    from trailblaze.device.session import DeviceSession
    from trailblaze.screen.hierarchy import Hierarchy, Node, Rect
    from trailblaze.tools.tooldef import RunContext

__all__ = ["COPIED_TEXT", "run_commands"]

COPIED_TEXT = "maestro.copiedText"
"""The memory name of the text `copyTextFrom` read (`${maestro.copiedText}`, pasted by `pasteText`)."""

_VAR = re.compile(r"\$\{\s*([^}]*?)\s*\}")
_MAX_SWIPES = 20
_MAX_WHILE = 100
_CONDITION_TIMEOUT_S = 2.0
_NAMES = ("Alex Kim", "Sam Lee", "Jordan Park", "Taylor Reed", "Morgan Hale")


def run_commands(ctx: RunContext, commands: list[Any], env: dict[str, str] | None = None) -> Outcome:
    """Runs Maestro `commands` in order; the first failure that is not optional ends the list.

    Raises:
        DeviceError: the device failed.
    """
    return _Runner(ctx).run_list(commands, dict(env or {}))


@dataclass
class _Runner:
    ctx: RunContext
    notes: list[str] = field(default_factory=list)

    @property
    def session(self) -> DeviceSession:
        return self.ctx.session

    def run_list(self, commands: list[Any], env: dict[str, str]) -> Outcome:
        messages: list[str] = []
        for item in commands:
            status, message = self.run_one(item, env)
            if status != "OK":
                return status, "; ".join([*messages, message]) if len(messages) < 3 else message
            messages.append(message)
        return "OK", "; ".join(messages) if messages else "no commands"

    def run_one(self, item: Any, env: dict[str, str]) -> Outcome:
        problems = check(item)
        if problems:
            return "ERROR", problems[0][1]
        name, fields = normalize(item)
        optional = as_bool(fields.get("optional")) is True
        try:
            if name not in CONTAINERS:
                fields = self._substitute(fields, env)
            status, message = _COMMANDS[name](self, fields, env)
        except (ActionRefused, PatternTooSlow) as exc:
            status, message = "ERROR", exc.message
        except ValueError as exc:
            status, message = "ERROR", f"{name}: {exc}"
        if status != "OK" and optional:
            return "OK", f"optional {summary(item)} did not pass ({status} {message}); continued"
        return status, message

    # --- variables ---------------------------------------------------------------------------------
    def _substitute(self, value: Any, env: dict[str, str]) -> Any:
        if isinstance(value, str):
            text = _VAR.sub(lambda m: self._lookup(m.group(1), env), value)
            return self.ctx.memory.interpolate(text, where="a Maestro command")
        if isinstance(value, dict):
            return {k: v if k == "commands" else self._substitute(v, env) for k, v in value.items()}
        if isinstance(value, list):
            return [self._substitute(v, env) for v in value]
        return value

    def _lookup(self, name: str, env: dict[str, str]) -> str:
        if name in env:
            return env[name]
        found = self.ctx.memory.lookup(name)
        if found is None:
            if name == COPIED_TEXT:
                raise _Unknown("${maestro.copiedText} is empty: run copyTextFrom before using it")
            raise _Unknown(
                f"unknown variable ${{{name}}}: set it in the flow's env or pass --memory {name}=..."
            )
        return found

    # --- finding -----------------------------------------------------------------------------------
    def _query(self, fields: dict[str, Any] | str) -> Query:
        return query({"text": fields} if isinstance(fields, str) else fields, self.ctx.platform)

    def find(self, q: Query, timeout: float | None = None) -> tuple[Node | None, float, Hierarchy]:
        res = self.session.resolve(q.selector, timeout=timeout, until=q.found())
        return q.pick(res.nodes), res.waited_s, res.hierarchy

    def not_found(self, q: Query, waited: float, hierarchy: Hierarchy, status: str = "NOT_FOUND") -> Outcome:
        texts = [
            n for n in hierarchy.visible_nodes() if (n.text or n.label) and hierarchy.window_kind(n) == "app"
        ]
        near = "; ".join(self.ctx.describe(n) for n in texts[:3])
        return status, f"no element matches {q.shown} after {waited:.1f} s" + (
            f"; on screen: {near}" if near else ""
        )

    def timeout(self, fields: dict[str, Any], key: str = "timeout") -> float | None:
        ms = as_int(fields.get(key)) if fields.get(key) is not None else None
        return None if ms is None else max(ms, 0) / 1000

    def condition(self, cond: dict[str, Any]) -> bool:
        platform = cond.get("platform")
        if platform is not None and str(platform).lower() != self.ctx.platform:
            return False
        if "true" in cond and as_bool(cond["true"]) is not True:
            return False
        if cond.get("visible") is not None:
            node, _, _ = self.find(self._query(cond["visible"]), _CONDITION_TIMEOUT_S)
            if node is None:
                return False
        if cond.get("notVisible") is not None:
            q = self._query(cond["notVisible"])
            res = self.session.resolve(
                q.selector, timeout=_CONDITION_TIMEOUT_S, until=lambda n: q.pick(n) is None
            )
            if q.pick(res.nodes) is not None:
                return False
        return True


class _Unknown(UsageError):
    """A `${variable}` with no value: the flow or the command line is wrong."""


# --- commands ------------------------------------------------------------------------------------------

Handler = Callable[[_Runner, dict[str, Any], dict[str, str]], Outcome]


def _app(fields: dict[str, Any], name: str) -> str:
    app = fields.get("appId")
    if not isinstance(app, str) or not app:
        raise ValueError("needs appId (a flow's header gives it to every command)")
    return app


def _launch_app(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    app = _app(f, "launchApp")
    if f.get("arguments"):
        return "UNSUPPORTED", "launchApp arguments: this driver cannot pass launch arguments to the app"
    if as_bool(f.get("clearKeychain")) is True and r.ctx.platform == "ios":
        return "UNSUPPORTED", "launchApp clearKeychain: trailblaze has no access to the iOS keychain"
    clear = as_bool(f.get("clearState")) is True
    stop = as_bool(f.get("stopApp")) is not False
    mode: Any = "CLEAR_STATE" if clear else "FORCE_RESTART" if stop else "RESUME"
    granted = ""
    try:
        permissions = f.get("permissions")
        if permissions:
            driver = r.session.driver
            if r.ctx.platform == "ios" or not isinstance(driver, SupportsShellStatus):
                return (
                    "UNSUPPORTED",
                    f"launchApp permissions: this {r.ctx.platform} driver cannot change an app's permissions",
                )
            # Android resets permissions when it clears data: clear / stop first, set them, then start.
            if mode == "CLEAR_STATE":
                driver.clear_app(app)
            elif mode == "FORCE_RESTART":
                driver.stop_app(app)
            try:
                changes = set_permissions(driver, app, {str(k): str(v) for k, v in permissions.items()})
            except PermissionRefused as exc:
                return "ERROR", str(exc)
            granted, mode = f"; permissions: {', '.join(changes) or 'none changed'}", "RESUME"
        r.session.act(lambda d: d.launch_app(app, mode))
    except AppNotInstalledError as exc:
        r.session.invalidate()
        return "NOT_INSTALLED", exc.message
    r.session.app_logs.app_id = app
    return "OK", f"launched {app}{' with a clear state' if clear else ''}{granted}"


def _tap(kind: str) -> Handler:
    def handler(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
        times = max(as_int(f.get("repeat")) or 1, 1)
        delay = (as_int(f.get("delay")) or 100) / 1000
        if f.get("point") is not None:
            x, y = _point(str(f["point"]), r.session.screen().screen)
            for i in range(times):
                r.ctx.act(_gesture(kind, x, y), (x, y))
                if i + 1 < times:
                    time.sleep(delay)
            return "OK", f"{kind} at ({x:.0f}, {y:.0f})"
        q = r._query(f)
        node, waited, hierarchy = r.find(q)
        if node is None:
            return r.not_found(q, waited, hierarchy)
        if kind != "double-tapped":
            status, message = "OK", ""
            for i in range(times):
                status, message = r.ctx.tap_node(node, kind == "long-pressed")
                if status != "OK":
                    return status, message
                if i + 1 < times:
                    time.sleep(delay)
            return status, message
        if node.covered_by is not None:
            return "NOT_VISIBLE", f"{r.ctx.describe(node)} is covered by {node.covered_by.describe()}"
        x, y = node.center
        r.ctx.act(_gesture(kind, x, y), (x, y))
        return "OK", f"double-tapped {r.ctx.describe(node)}"

    return handler


def _gesture(kind: str, x: float, y: float) -> Callable[[Driver], None]:
    if kind == "long-pressed":
        return lambda d: d.long_press(x, y)
    if kind == "double-tapped":
        return lambda d: d.double_tap(x, y)
    return lambda d: d.tap(x, y)


def _point(text: str, screen: Rect) -> tuple[float, float]:
    """Maestro's `x, y` (pixels) or `x%, y%` (of the screen) as a screen point."""
    xs, ys = (p.strip() for p in text.split(","))

    def one(value: str, size: float, origin: float) -> float:
        if value.endswith("%"):
            return origin + size * float(value[:-1]) / 100
        return float(value)

    return one(xs, screen.width, screen.left), one(ys, screen.height, screen.top)


def _assert_visible(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    q = r._query(f)
    node, waited, hierarchy = r.find(q)
    if node is None:
        return r.not_found(q, waited, hierarchy, "NOT_VISIBLE")
    return "OK", f"{r.ctx.describe(node)} is visible"


def _wait_gone(r: _Runner, q: Query, timeout: float | None) -> Outcome:
    res = r.session.resolve(q.selector, timeout=timeout, until=lambda nodes: q.pick(nodes) is None)
    node = q.pick(res.nodes)
    if node is None:
        return "OK", f"no element matches {q.shown}"
    return "TIMEOUT", f"{r.ctx.describe(node)} ({q.shown}) is still visible after {res.waited_s:.1f} s"


def _assert_not_visible(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    return _wait_gone(r, r._query(f), None)


def _extended_wait(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    timeout = r.timeout(f)
    if f.get("visible") is not None:
        q = r._query(f["visible"])
        node, waited, hierarchy = r.find(q, timeout)
        if node is None:
            return r.not_found(q, waited, hierarchy, "TIMEOUT")
        return "OK", f"{r.ctx.describe(node)} is visible"
    return _wait_gone(r, r._query(f["notVisible"]), timeout)


def _copy_text(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    q = r._query(f)
    node, waited, hierarchy = r.find(q)
    if node is None:
        return r.not_found(q, waited, hierarchy)
    text = node.text or node.label or node.value or node.hint
    r.ctx.memory.remember(COPIED_TEXT, text)
    return "OK", f"copied {text!r} from {r.ctx.describe(node)}"


def _type(r: _Runner, text: str) -> Outcome:
    r.session.act(lambda d: d.input_text(text), observe=False)
    return "OK", f"typed {text!r}"


def _input_text(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    return _type(r, str(f["text"]))


def _paste_text(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    copied = r.ctx.memory.lookup(COPIED_TEXT)
    if copied is None:
        return "ERROR", "pasteText: nothing was copied; run copyTextFrom first"
    return _type(r, copied)


def _random(kind: str) -> Handler:
    def handler(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
        length = as_int(f.get("length")) or 8
        if kind == "text":
            text = "".join(random.choices(string.ascii_lowercase, k=length))
        elif kind == "number":
            text = "".join(random.choices(string.digits, k=length))
        elif kind == "email":
            text = "".join(random.choices(string.ascii_lowercase, k=8)) + "@example.com"
        else:
            text = random.choice(_NAMES)
        return _type(r, text)

    return handler


def _erase_text(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    n = as_int(f.get("charactersToErase")) if f.get("charactersToErase") is not None else None
    r.session.act(lambda d: d.erase_text(n))
    return "OK", "erased the field" if n is None else f"erased {n} characters"


def _press_key(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    key: Any = key_code(str(f["key"]))
    r.ctx.act(lambda d: d.press_key(key))
    return "OK", f"pressed {key}"


def _back(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    r.ctx.act(lambda d: d.press_key("BACK"))
    return "OK", "pressed back"


def _hide_keyboard(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    if not r.session.screen().keyboard_shown:
        return "OK", "the keyboard was not shown"
    r.session.act(lambda d: d.hide_keyboard())
    return "OK", "hid the keyboard"


def _app_area(hierarchy: Hierarchy) -> Rect:
    roots = [n for n in hierarchy.roots if hierarchy.window_kind(n) == "app" and n.visible_bounds.area > 0]
    return max(roots, key=lambda n: n.visible_bounds.area).visible_bounds if roots else hierarchy.screen


def _path(area: Rect, direction: str) -> tuple[float, float, float, float]:
    """A finger path across the middle of `area` moving in `direction`."""
    cx, cy = area.center
    dx, dy = area.width * 0.3, area.height * 0.3
    return {
        "UP": (cx, cy + dy, cx, cy - dy),
        "DOWN": (cx, cy - dy, cx, cy + dy),
        "LEFT": (cx + dx, cy, cx - dx, cy),
        "RIGHT": (cx - dx, cy, cx + dx, cy),
    }[direction]


def _swipe(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    hierarchy = r.session.screen()
    if "start" in f:
        x1, y1 = _point(str(f["start"]), hierarchy.screen)
        x2, y2 = _point(str(f["end"]), hierarchy.screen)
        r.ctx.act(lambda d: d.swipe(x1, y1, x2, y2))
        return "OK", f"swiped from ({x1:.0f}, {y1:.0f}) to ({x2:.0f}, {y2:.0f})"
    direction = str(f["direction"]).upper()
    area, where = _app_area(hierarchy), "the screen"
    if f.get("from") is not None:
        q = r._query(f["from"])
        node, waited, shown = r.find(q)
        if node is None:
            return r.not_found(q, waited, shown)
        area, where = node.visible_bounds, r.ctx.describe(node)
    path = _path(area, direction)
    r.ctx.act(lambda d: d.swipe(*path))
    return "OK", f"swiped {direction} on {where}"


def _scroll(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    path = _path(_scroll_area(r.session.screen()), "UP")
    r.ctx.act(lambda d: d.swipe(*path))
    return "OK", "scrolled down"


def _scroll_area(hierarchy: Hierarchy) -> Rect:
    scrollables = [n for n in hierarchy.visible_nodes() if n.scrollable and hierarchy.window_kind(n) == "app"]
    if not scrollables:
        return _app_area(hierarchy)
    return max(scrollables, key=lambda n: n.visible_bounds.area).visible_bounds


def _scroll_until_visible(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    q = r._query(f["element"])
    need = (as_int(f.get("visibilityPercentage")) if f.get("visibilityPercentage") is not None else 100) or 0
    direction = str(f.get("direction", "DOWN")).upper()
    finger = {"DOWN": "UP", "UP": "DOWN", "LEFT": "RIGHT", "RIGHT": "LEFT"}[direction]
    bound = r.timeout(f) or 20.0
    start = time.monotonic()

    def shown(h: Hierarchy) -> Node | None:
        from trailblaze.screen.resolve import resolve

        node = q.pick(resolve(q.selector, h))
        if node is None:
            return None
        area = node.bounds.area
        return node if area <= 0 or node.visible_bounds.area / area >= need / 100 - 1e-6 else None

    hierarchy = r.session.settle()
    for swipes in range(_MAX_SWIPES + 1):
        node = shown(hierarchy)
        if node is not None:
            return "OK", f"{r.ctx.describe(node)} is visible after {swipes} swipe{'s' * (swipes != 1)}"
        if swipes == _MAX_SWIPES or time.monotonic() - start > bound:
            break
        before = hierarchy
        after = r.session.act(_swiper(_path(_scroll_area(hierarchy), finger)))
        assert after is not None
        hierarchy = after
        if same_screen(hierarchy, before):
            return (
                "NOT_FOUND",
                f"no element matches {q.shown} after {swipes + 1} swipes {direction}: reached the end",
            )
    return "NOT_FOUND", f"no element matches {q.shown} after scrolling {direction}"


def _swiper(path: tuple[float, float, float, float]) -> Callable[[Driver], None]:
    return lambda d: d.swipe(*path)


def _wait_for_animation(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    r.session.invalidate()
    r.session.settle()
    return "OK", "the screen is still"


def _open_link(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    driver = r.session.driver
    if not isinstance(driver, SupportsOpenUrl):
        return "UNSUPPORTED", f"openLink: this {r.ctx.platform} driver cannot open links"
    link = str(f["link"])
    opened: list[bool] = []
    r.session.act(lambda d: opened.append(driver.open_url(link)))
    if opened and opened[0] is False:
        return "ERROR", f"openLink: no app on the device opens {link}"
    return "OK", f"opened {link}"


def _app_action(verb: str) -> Handler:
    def handler(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
        app = _app(f, verb)
        if verb == "clearState":
            r.session.act(lambda d: d.clear_app(app))
            return "OK", f"cleared the state of {app}"
        r.session.act(lambda d: d.stop_app(app))
        return "OK", f"stopped {app}"

    return handler


def _take_screenshot(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    from trailblaze.common.files import atomic_write

    name = str(f["path"])
    target = Path(name if name.endswith(".png") else f"{name}.png")
    png = _as_png(r.session.screenshot())
    try:
        if target.parent != Path():
            target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(target, png)
    except OSError as exc:
        return "ERROR", f"takeScreenshot: cannot write {target}: {exc.strerror or exc}"
    return "OK", f"saved a screenshot to {target}"


def _as_png(image: bytes) -> bytes:
    """The screenshot as PNG, the format Maestro writes (devices may send JPEG)."""
    if image.startswith(b"\x89PNG"):
        return image
    import io

    from PIL import Image

    out = io.BytesIO()
    with Image.open(io.BytesIO(image)) as picture:
        picture.save(out, "PNG")
    return out.getvalue()


def _scoped(env: dict[str, str], f: dict[str, Any], r: _Runner) -> dict[str, str]:
    own = f.get("env") or {}
    return {**env, **{str(k): str(r._substitute(v, env)) for k, v in own.items()}}


def _from_file(r: _Runner, f: dict[str, Any]) -> dict[str, Any]:
    """`f` with a `file:` sub-flow read into `commands` (its env under the command's own), as
    `trailblaze.tools.maestro.flow` does for a flow file; a trail's hand-written `mobile_maestro` may name one."""
    if not isinstance(f.get("file"), str):
        return f
    from trailblaze.tools.maestro.flow import load_flow

    path = (r.ctx.folder or Path()) / str(f["file"])
    sub = load_flow(path)  # TrailFileError (exit 2) names the sub-flow's own problem
    return {
        **f,
        "commands": [*sub.on_start, *sub.commands, *sub.on_complete],
        "env": {**sub.env, **(f.get("env") or {})},
    }


def _run_flow(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    when = f.get("when")
    if isinstance(when, dict) and not r.condition(when):
        return "OK", f"skipped {f.get('label') or 'runFlow'} (its `when` does not hold)"
    f = _from_file(r, f)
    return r.run_list(f.get("commands") or [], _scoped(env, f, r))


def _repeat(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    commands = f.get("commands") or []
    times_raw = f.get("times")
    times = as_int(r._substitute(times_raw, env)) if times_raw is not None else None
    cond = f.get("while")
    count = 0
    while True:
        if times is not None and count >= times:
            break
        if isinstance(cond, dict) and not r.condition(cond):
            break
        if times is None and count >= _MAX_WHILE:
            return "TIMEOUT", f"repeat: its `while` still held after {_MAX_WHILE} rounds"
        status, message = r.run_list(commands, env)
        if status != "OK":
            return status, f"repeat round {count + 1}: {message}"
        count += 1
    return "OK", f"repeated {count} time{'s' * (count != 1)}"


def _retry(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    written = as_int(r._substitute(f.get("maxRetries"), env)) if f.get("maxRetries") is not None else None
    retries = min(max(1 if written is None else written, 0), 3)  # Maestro allows at most 3
    f = _from_file(r, f)
    scoped = _scoped(env, f, r)
    status, message = "OK", ""
    for attempt in range(retries + 1):
        status, message = r.run_list(f.get("commands") or [], scoped)
        if status == "OK":
            return "OK", message if attempt == 0 else f"passed on attempt {attempt + 1}: {message}"
    return status, f"failed {retries + 1} attempts: {message}"


_COMMANDS: dict[str, Handler] = {
    "launchApp": _launch_app,
    "tapOn": _tap("tapped"),
    "doubleTapOn": _tap("double-tapped"),
    "longPressOn": _tap("long-pressed"),
    "assertVisible": _assert_visible,
    "assertNotVisible": _assert_not_visible,
    "extendedWaitUntil": _extended_wait,
    "copyTextFrom": _copy_text,
    "inputText": _input_text,
    "pasteText": _paste_text,
    "inputRandomText": _random("text"),
    "inputRandomNumber": _random("number"),
    "inputRandomEmail": _random("email"),
    "inputRandomPersonName": _random("name"),
    "eraseText": _erase_text,
    "pressKey": _press_key,
    "back": _back,
    "hideKeyboard": _hide_keyboard,
    "swipe": _swipe,
    "scroll": _scroll,
    "scrollUntilVisible": _scroll_until_visible,
    "waitForAnimationToEnd": _wait_for_animation,
    "openLink": _open_link,
    "stopApp": _app_action("stopApp"),
    "killApp": _app_action("killApp"),
    "clearState": _app_action("clearState"),
    "takeScreenshot": _take_screenshot,
    "runFlow": _run_flow,
    "repeat": _repeat,
    "retry": _retry,
}
