"""Running Maestro commands on a device session: the `mobile_maestro` tool's engine.

Each command resolves its selector with Maestro's rules (`trailblaze.maestro.select`), acts through
the session (so it settles like every other tool) and answers `(status, message)` with the statuses
of `trailblaze.tools.execute`. A failing command stops the list, unless it is `optional: true` (then the
failure is noted and the next command runs), as in Maestro.

Variables: `${NAME}` is looked up in the `env` of the enclosing `runFlow` / `retry`, then in the run's
memory (the flow's `env` is the trail's `config.memory`); `${maestro.copiedText}` is the text the last
`copyTextFrom` read. They are replaced when the command runs, so a command inside `repeat` sees the
value of that iteration. Trailblaze `{{templates}}` work too.
"""

from __future__ import annotations

import os
import re
import string
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.common import deadline
from trailblaze.device.driver import SupportsAddMedia, SupportsOpenUrl, SupportsShellStatus
from trailblaze.device.permissions import PermissionRefused, set_permissions
from trailblaze.errors import ActionRefused, AppNotInstalledError, TrailFailed, TrailTimedOut, UsageError
from trailblaze.maestro.commands import (
    ANDROID_KEYCODES,
    CONTAINERS,
    as_bool,
    as_int,
    check,
    key_code,
    normalize,
    summary,
)
from trailblaze.maestro.script_check import INLINE
from trailblaze.maestro.scripts import SEED_ENV, ScriptError, Scripts, run_scripts, scripts_for, truthy
from trailblaze.maestro.select import Query, query
from trailblaze.screen.patterns import PatternTooSlow
from trailblaze.tools.gestures import app_area, scroll_area, scroll_until, swipe_path
from trailblaze.tools.tooldef import ToolResult

if TYPE_CHECKING:
    from trailblaze.device.driver import Driver
    from trailblaze.device.session import DeviceSession
    from trailblaze.screen.hierarchy import Hierarchy, Node, Rect
    from trailblaze.tools.lookup import ToolContext

__all__ = ["COPIED_TEXT", "run_commands"]

Outcome = tuple[Any, str]
"""What one Maestro command answers, `(status, message)`; the flow's first failure, or its OK, is
the `mobile_maestro` tool's `ToolResult`."""

COPIED_TEXT = "maestro.copiedText"
"""The memory name of the text `copyTextFrom` read (`${maestro.copiedText}`, pasted by `pasteText`)."""

_ESCAPED = re.compile(r"\\(\$\{[^$]*\})")
_NAME = re.compile(r"\s*([A-Za-z_][\w-]*)\s*")
_MAX_SWIPES = 20
_REACH = 0.3
"""Maestro's swipes go 30% of the area each way from its centre, farther than the core tools' (the
shared `gestures.REACH`): the runner has always swiped so, and the flows replay as they did."""
_MAX_WHILE = 100
_CONDITION_TIMEOUT_S = 2.0
_NAMES = ("Alex Kim", "Sam Lee", "Jordan Park", "Taylor Reed", "Morgan Hale")


def run_commands(ctx: ToolContext, commands: list[Any], env: dict[str, str] | None = None) -> ToolResult:
    """Runs Maestro `commands` in order; the first failure that is not optional ends the list.

    Raises:
        DeviceError: the device failed.
    """
    status, message = _Runner(ctx).run_list(commands, dict(env or {}))
    return ToolResult(status, message)


@dataclass
class _Runner:
    ctx: ToolContext
    notes: list[str] = field(default_factory=list)
    said: bool = False
    """Whether this tool's messages said the seed already."""

    @property
    def session(self) -> DeviceSession:
        return self.ctx.session

    def scripts(self) -> Scripts:
        """The run's JavaScript context (and the seed of its random values)."""
        return scripts_for(self.ctx.memory, self.ctx.platform, self.ctx.folder)[0]

    def _seed_note(self, failed: bool) -> str | None:
        """The seed, said by the first step that drew random values and by a failure after one did:
        a run that drew none has nothing for the seed to repeat."""
        found = run_scripts(self.ctx.memory)
        if found is None or not found.drew or self.said or (found.told and not failed):
            return None
        found.told = self.said = True  # once per tool: a container's failure holds its command's
        return f"random values seeded with {found.seed} ({SEED_ENV}={found.seed} repeats them)"

    def run_list(self, commands: list[Any], env: dict[str, str]) -> Outcome:
        messages: list[str] = []
        for item in commands:
            deadline.check(summary(item))
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
        in_trail = asserted = False
        try:
            if name not in CONTAINERS and name not in _RAW:
                fields = self._substitute(fields, env)
            status, message = _COMMANDS[name](self, fields, env)
        except (PatternTooSlow, ScriptError) as exc:  # the flow's own code or pattern, not the screen
            status, message, in_trail = "ERROR", exc.message, True
        except _Untrue as exc:  # the flow's own assertion: its expression and value say it all
            status, message, in_trail, asserted = "ERROR", exc.message, True, True
        except ActionRefused as exc:
            status, message = "ERROR", exc.message
        except ValueError as exc:
            status, message = "ERROR", f"{name}: {exc}"
        seed = self._seed_note(status != "OK")
        if seed is not None:
            self.notes.append(seed)
        if self.notes:  # a failure first: it is what the reader came for
            message = "; ".join([*self.notes, message] if status == "OK" else [message, *self.notes])
            self.notes.clear()
        if status != "OK" and optional:
            return "OK", f"optional {summary(item)} did not pass ({status} {message}); continued"
        # whether the list's failure is the flow's own: a container's is its last command's
        if status == "OK" or in_trail or name not in CONTAINERS:
            self.ctx.in_trail = status != "OK" and in_trail
            self.ctx.asserted = self.ctx.in_trail and asserted
        return status, message

    # --- variables ---------------------------------------------------------------------------------
    def _substitute(self, value: Any, env: dict[str, str]) -> Any:
        if isinstance(value, str):
            text = INLINE.sub(lambda m: self._evaluate(m.group(1), env), value)
            text = _ESCAPED.sub(lambda m: m.group(1), text)
            return self.ctx.memory.interpolate(text, where="a Maestro command")
        if isinstance(value, dict):
            return {k: v if k == "commands" else self._substitute(v, env) for k, v in value.items()}
        if isinstance(value, list):
            return [self._substitute(v, env) for v in value]
        return value

    def _evaluate(self, source: str, env: dict[str, str], where: str = "") -> str:
        """The text of `${source}`: a variable's value, or the JavaScript evaluated as Maestro does."""
        if not source.strip():
            return ""
        plain = _NAME.fullmatch(source)
        if plain is not None and (
            plain.group(1) in env or self.ctx.memory.lookup(plain.group(1)) is not None
        ):
            return self._lookup(plain.group(1), env)
        return self.script(source, env, where or f"`${{{source.strip()}}}`")

    def script(self, source: str, env: dict[str, str], where: str) -> str:
        """`source` run in the run's JavaScript context, with `env` and the run's values as globals."""
        scripts = self.scripts()
        copied = self.ctx.memory.lookup(COPIED_TEXT)
        if copied is not None:
            scripts.set_copied_text(copied)
        value = scripts.evaluate(source, where, lambda n: env.get(n, self.ctx.memory.lookup(n)))
        self.notes.extend(scripts.drain())
        return value

    def _lookup(self, name: str, env: dict[str, str]) -> str:
        if name in env:
            return env[name]
        found = self.ctx.memory.lookup(name)
        if found is None:
            if name == COPIED_TEXT:
                raise _Unknown("${maestro.copiedText} is empty: run copyTextFrom before using it")
            raise _Unknown(
                f"unknown variable ${{{name}}}: pass --env {name}=VALUE, or set it in the flow's env:"
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
        ) + (f"; {q.hint}" if q.hint else "")

    def timeout(self, fields: dict[str, Any], key: str = "timeout") -> float | None:
        ms = as_int(fields.get(key)) if fields.get(key) is not None else None
        return None if ms is None else max(ms, 0) / 1000

    def condition(self, cond: dict[str, Any], env: dict[str, str] | None = None) -> bool:
        platform = cond.get("platform")
        if platform is not None and str(platform).lower() != self.ctx.platform:
            return False
        if "true" in cond:
            value = cond["true"]
            text = str(value).lower() if isinstance(value, bool) else self._substitute(str(value), env or {})
            if not truthy(text):
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


class _Untrue(TrailFailed):
    """A false `assertTrue`: the flow's own assertion over its values, not a screen that differs."""


# --- commands ------------------------------------------------------------------------------------------

Handler = Callable[[_Runner, dict[str, Any], dict[str, str]], Outcome]


def _app(fields: dict[str, Any], name: str) -> str:
    app = fields.get("appId")
    if not isinstance(app, str) or not app:
        raise ValueError("needs appId (a flow's header gives it to every command)")
    return app


def _launch_app(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    app = _app(f, "launchApp")
    if "://" in app and r.ctx.platform != "web":
        return "UNSUPPORTED", f"launchApp {app}: a Maestro web flow (`url:`) runs in a browser: use --device web"
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
        # as launchApp: whether a launch that failed happened is its app in the foreground
        r.session.act(lambda d: d.launch_app(app, mode), took_effect=lambda: r.session.current_app() == app)
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
                deadline.check(f"{kind} {i + 1} of {times}")
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
                deadline.check(f"{kind} {i + 1} of {times}")
                tapped = r.ctx.tap_node(node, kind == "long-pressed")
                status, message = tapped.status, tapped.message
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
    hint = f"; {q.hint}" if q.hint else ""
    return "TIMEOUT", f"{r.ctx.describe(node)} ({q.shown}) is still visible after {res.waited_s:.1f} s{hint}"


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


def _eval_script(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    script = str(f["script"])
    value = r._substitute(script, env) if "${" in script else r.script(script, env, "evalScript")
    return "OK", f"evaluated: {value}"


def _run_script(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    when = f.get("when")
    if isinstance(when, dict) and not r.condition(when, env):
        return "OK", f"skipped runScript {f['file']} (its `when` does not hold)"
    source = f.get("source")
    name = str(f["file"])
    if not isinstance(source, str):  # a hand-written `mobile_maestro`: the script beside the trail
        from trailblaze.common.text_files import read_trail_text

        source = read_trail_text(str((r.ctx.folder or Path()) / name))
    own = {str(k): str(r._substitute(str(v), env)) for k, v in (f.get("env") or {}).items()}
    r.script(source, {**env, **own}, name)
    return "OK", f"ran {name}"


def _assert_true(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    written = f["condition"]
    value = str(written).lower() if isinstance(written, bool) else r._substitute(str(written), env)
    if truthy(value):
        return "OK", f"assertTrue {written!s} holds"
    raise _Untrue(f"assertTrue {written!s} is false (it evaluated to {value.strip() or 'an empty text'})")


def _ai(kind: str) -> Handler:
    def handler(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
        if r.ctx.llm is None:
            return "UNSUPPORTED", (
                f"{kind} asks a model on every run and none is configured; pass --model PROVIDER:MODEL "
                "(or set ANTHROPIC_API_KEY)"
            )
        from trailblaze.tools.catalog.ask_screen import ask_screen

        r.ctx.ai = True
        # an LLM failure is infrastructure (LLMError, exit 3), as in the agent: it propagates
        if kind == "extractTextWithAI":
            answer = ask_screen(r.ctx.llm(), r.session, str(f["query"]))
            variable = str(f.get("outputVariable") or "aiOutput")
            r.scripts().evaluate(
                f"output[{variable!r}] = __tb_value", "extractTextWithAI", {"__tb_value": answer.value}.get
            )
            return "OK", f"AI: {variable} = {answer.value!r}"
        prompt = str(f.get("assertion") or _NO_DEFECTS)
        answer = ask_screen(r.ctx.llm(), r.session, prompt, verdict=True)
        return ("OK" if answer.passed else "NOT_VISIBLE"), f"AI: {answer.explanation or prompt}"

    return handler


_NO_DEFECTS = "The screen shows no visual defects (cut-off text, overlapping or misaligned elements)"


def _set_permissions(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    app = _app(f, "setPermissions")
    driver = r.session.driver
    if r.ctx.platform == "ios" or not isinstance(driver, SupportsShellStatus):
        return (
            "UNSUPPORTED",
            f"setPermissions: this {r.ctx.platform} driver cannot change an app's permissions",
        )
    try:
        changes = set_permissions(driver, app, {str(k): str(v) for k, v in f["permissions"].items()})
    except PermissionRefused as exc:
        return "ERROR", str(exc)
    return "OK", f"permissions of {app}: {', '.join(changes) or 'none changed'}"


def _add_media(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    """Each file (read from the trail's folder, inside its project) into the device's gallery."""
    from trailblaze.common.project import project_of
    from trailblaze.device.media import MAX_MEDIA_BYTES

    driver = r.session.driver
    if not isinstance(driver, SupportsAddMedia):
        return "UNSUPPORTED", f"addMedia: this {r.ctx.platform} driver cannot add media to the device's gallery"
    folder = r.ctx.folder or Path()
    project = project_of(folder / "trail")  # a file in the trail's folder: the project is the trail's
    files: list[Path] = []
    for written in f["files"]:
        path = folder / str(written)
        if not Path(os.path.realpath(path)).is_relative_to(project):  # a link out is out
            return "ERROR", f"addMedia {written}: outside this trail's project {project}"
        if not path.is_file():
            return "ERROR", f"addMedia {written}: no such file (looked in {folder})"
        if path.stat().st_size > MAX_MEDIA_BYTES:
            return "ERROR", f"addMedia {written}: larger than {MAX_MEDIA_BYTES // (1024 * 1024)} MB"
        files.append(path)
    added = [driver.add_media(os.fspath(path), path.name) for path in files]
    return "OK", f"added {len(added)} media file{'s' * (len(added) != 1)} to the gallery: {', '.join(added)}"


def _clear_keychain(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    if r.ctx.platform == "ios":
        return "UNSUPPORTED", "clearKeychain: trailblaze has no access to the iOS keychain"
    return "OK", "clearKeychain: Android has no keychain to clear"


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
        scripts = r.scripts()
        scripts.drew = True
        random = scripts.rng  # seeded per run: a failure's values come back with its seed
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
    if key is None:  # a key the drivers do not name: Android takes its key code
        code = ANDROID_KEYCODES.get(str(f["key"]).strip().lower())
        driver = r.session.driver
        if code is None or r.ctx.platform != "android" or not isinstance(driver, SupportsShellStatus):
            return "UNSUPPORTED", f"pressKey {f['key']}: this {r.ctx.platform} driver has no such key"
        r.ctx.act(lambda d: driver.shell_status(f"input keyevent {code}"))
        return "OK", f"pressed {f['key']} (key code {code})"
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


def _swipe(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    hierarchy = r.session.screen()
    if "start" in f:
        x1, y1 = _point(str(f["start"]), hierarchy.screen)
        x2, y2 = _point(str(f["end"]), hierarchy.screen)
        r.ctx.act(lambda d: d.swipe(x1, y1, x2, y2))
        return "OK", f"swiped from ({x1:.0f}, {y1:.0f}) to ({x2:.0f}, {y2:.0f})"
    direction = str(f["direction"]).upper()
    area, where = app_area(hierarchy), "the screen"
    if f.get("from") is not None:
        q = r._query(f["from"])
        node, waited, shown = r.find(q)
        if node is None:
            return r.not_found(q, waited, shown)
        area, where = node.visible_bounds, r.ctx.describe(node)
    path = swipe_path(area, direction, _REACH)
    r.ctx.act(lambda d: d.swipe(*path))
    return "OK", f"swiped {direction} on {where}"


def _scroll(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    path = swipe_path(scroll_area(r.session.screen()), "UP", _REACH)
    r.ctx.act(lambda d: d.swipe(*path))
    return "OK", "scrolled down"


def _scroll_until_visible(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    q = r._query(f["element"])
    need = (as_int(f.get("visibilityPercentage")) if f.get("visibilityPercentage") is not None else 100) or 0
    direction = str(f.get("direction", "DOWN")).upper()
    bound = r.timeout(f) or 20.0
    start = time.monotonic()

    def shown(h: Hierarchy) -> Node | None:
        from trailblaze.screen.resolve import resolve

        node = q.pick(resolve(q.selector, h))
        if node is None:
            return None
        area = node.bounds.area
        return node if area <= 0 or node.visible_bounds.area / area >= need / 100 - 1e-6 else None

    def go_on(swipes: int) -> bool:
        if time.monotonic() - start > bound:
            return False
        deadline.check(f"scrollUntilVisible swipe {swipes + 1}")
        return True

    scrolled = scroll_until(r.session, shown, direction, max_swipes=_MAX_SWIPES, reach=_REACH, go_on=go_on)
    if scrolled.node is not None:
        swipes = scrolled.swipes
        return "OK", f"{r.ctx.describe(scrolled.node)} is visible after {swipes} swipe{'s' * (swipes != 1)}"
    if scrolled.reached_end:
        return (
            "NOT_FOUND",
            f"no element matches {q.shown} after {scrolled.swipes} swipes {direction}: reached the end",
        )
    return "NOT_FOUND", f"no element matches {q.shown} after scrolling {direction}"


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
    if any(secret in name for secret in r.ctx.memory.secret_values):
        return "ERROR", "takeScreenshot: the path holds a secret's value; name the file without it"
    written = Path(name if name.endswith(".png") else f"{name}.png")
    base = r.session.files_dir or Path()
    target = base / written
    if written.is_absolute() or not os.path.realpath(target).startswith(os.path.realpath(base) + os.sep):
        return "ERROR", (
            f"takeScreenshot {name}: outside the run's folder {base}; give a relative path without `..`"
        )
    from trailblaze.screen.mask import Unmaskable, mask_shown_secrets

    hierarchy = r.session.screen()  # the dump the picture shows: where a secret is, to black it out
    try:
        png = _as_png(
            mask_shown_secrets(r.session.screenshot(), hierarchy, lambda t: str(r.ctx.memory.redact(t)))
        )
    except Unmaskable as exc:
        return (
            "ERROR",
            f"takeScreenshot: {name} not saved: {exc}, so it cannot be masked; move it off the screen first",
        )
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
    `trailblaze.maestro.flow` does for a flow file; a trail's hand-written `mobile_maestro` may name one."""
    if not isinstance(f.get("file"), str):
        return f
    from trailblaze.maestro.flow import load_flow

    folder = r.ctx.folder or Path()
    path = folder / str(f["file"])
    # the trail's project bounds its sub-flows as a flow's do (`top`: a file in the trail's folder)
    sub = load_flow(path, top=folder / "trail")  # TrailFileError (exit 2) names the sub-flow's own problem
    return {
        **f,
        "commands": [*sub.on_start, *sub.commands, *sub.on_complete],
        "env": {**sub.env, **(f.get("env") or {})},
    }


def _run_flow(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    when = f.get("when")
    if isinstance(when, dict) and not r.condition(when, env):
        return "OK", f"skipped {f.get('label') or 'runFlow'} (its `when` does not hold)"
    f = _from_file(r, f)
    return r.run_list(f.get("commands") or [], _scoped(env, f, r))


def _repeat(r: _Runner, f: dict[str, Any], env: dict[str, str]) -> Outcome:
    commands = f.get("commands") or []
    times_raw = f.get("times")
    times = as_int(r._substitute(times_raw, env)) if times_raw is not None else None
    cond = f.get("while")
    count = 0
    of = f" of {times}" if times is not None else ""
    while True:
        if times is not None and count >= times:
            break
        if isinstance(cond, dict) and not r.condition(cond, env):
            break
        if times is None and count >= _MAX_WHILE:
            return "TIMEOUT", f"repeat: its `while` still held after {_MAX_WHILE} rounds"
        deadline.check(f"repeat round {count + 1}{of}")
        try:
            status, message = r.run_list(commands, env)
        except TrailTimedOut as exc:  # said with the round it reached: 3 of 1000 tells how far off it was
            raise deadline.timed_out(f"{exc.at} in repeat round {count + 1}{of}") from None
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
        deadline.check(f"retry attempt {attempt + 1} of {retries + 1}")
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
    "evalScript": _eval_script,
    "runScript": _run_script,
    "assertTrue": _assert_true,
    "assertWithAI": _ai("assertWithAI"),
    "assertNoDefectsWithAI": _ai("assertNoDefectsWithAI"),
    "extractTextWithAI": _ai("extractTextWithAI"),
    "setPermissions": _set_permissions,
    "addMedia": _add_media,
    "clearKeychain": _clear_keychain,
}
_RAW = frozenset({"evalScript", "runScript", "assertTrue"})
"""Commands whose scripts are evaluated by their handler, once (not substituted before it)."""
