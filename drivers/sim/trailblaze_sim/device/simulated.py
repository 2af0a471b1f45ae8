"""`SimulatedDevice`: a phone running one declarative app spec, as the protocol servers see it.

The device interprets an `AppSpec`: a navigation stack of screen instances (each with its own
locals, field values and scroll offsets), the app's persistent state, focus and keyboard, dialogs,
snackbars and blocking delays. `tree()` lays the current screen out (in points) and returns it as
`SimNode`s; actions hit-test against that same tree. All time comes from the injected clock, so a
test advances a `ManualClock` instead of sleeping. Every public method holds the device's RLock.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from typing import Any

from trailblaze.errors import DeviceError
from trailblaze_sim.app.data import AppDataDir, NetworkState
from trailblaze_sim.app.spec import (
    FIELD_ROLES,
    AppSpec,
    Condition,
    ElementSpec,
)
from trailblaze_sim.device.log import DeviceLog
from trailblaze_sim.device.profile import ANDROID_CLASSES, IOS_TYPES, LAUNCHER_ID, PROFILES, DeviceProfile
from trailblaze_sim.device.state import Built, Pending, ScreenInstance
from trailblaze_sim.device.steps import StepInterpreter
from trailblaze_sim.device.tree import TreeBuilder
from trailblaze_sim.faults import Conditions
from trailblaze_sim.model import Alert, AppInfo, Frame, Key, Platform, RealClock, SimClock, SimNode

__all__ = ["ANDROID_CLASSES", "IOS_TYPES", "LAUNCHER_ID", "PROFILES", "DeviceProfile", "SimulatedDevice"]

_PIDS = itertools.count(4211)
_DOUBLE_TAP_S = 0.3  # Android's ViewConfiguration.getDoubleTapTimeout()
_DOUBLE_TAP_SLOP = 24.0  # points, about Android's double-tap slop
_SYSTEM_SERVER_PID = 601





class SimulatedDevice(TreeBuilder, StepInterpreter):
    """A simulated phone running one app spec; implements `trailblaze_sim.model.SimDevice`.

    Args:
        spec: The app to install.
        platform: `android` or `ios`.
        clock: Device time; `RealClock()` by default, `ManualClock()` in tests.
        conditions: Latency and faults shared with the protocol servers (this class reads only
            `animate_after_action_ms`).
        serial: adb serial / UDID.
    """

    def __init__(
        self,
        spec: AppSpec,
        platform: Platform,
        *,
        clock: SimClock | None = None,
        conditions: Conditions | None = None,
        serial: str | None = None,
    ) -> None:
        if platform not in PROFILES:
            raise DeviceError(f"unknown simulated platform {platform!r}; use android or ios")
        self.spec = spec
        self.platform: Platform = platform
        self.profile = PROFILES[platform]
        self.serial = serial or ("emulator-5554" if platform == "android" else "00008120-00SIMULATED0001")
        self.model = self.profile.model
        self.screen_width = self.profile.width
        self.screen_height = self.profile.height
        self._rotation = 0
        self.scale = self.profile.scale
        self.os_version = self.profile.os_version
        self.clipboard = ""
        self.clock: SimClock = clock or RealClock()
        self.conditions = conditions or Conditions()
        self.app = AppInfo(app_id=spec.app_id, name=spec.name, activity=spec.activity)
        self._lock = threading.RLock()
        # Wall-clock time of day for `{clock}`: the real one with a real clock, 09:41:00 otherwise
        # so that tests see stable text.
        if isinstance(self.clock, RealClock):
            local = time.localtime()
            self._tod_base = (
                local.tm_hour * 3600 + local.tm_min * 60 + local.tm_sec + (time.time() % 1) - self.clock.now()
            )
        else:
            self._tod_base = 9 * 3600 + 41 * 60 - self.clock.now()
        self._running = False
        self._foreground = False
        self._pid = 0
        self._launches = 0
        """Cold starts of the app on this device after the one it booted with; clearing the app's
        data does not reset it (`{device.launches}`)."""
        self._stack: list[ScreenInstance] = []
        self._focus = ""
        self._keyboard = False
        self._snackbar: tuple[str, float] | None = None
        self.toast_sink: Callable[[str, float], None] | None = None
        """Where the app's toasts go (Android's SystemUI, set by the u2 server): (text, seconds)."""
        self._pending: Pending | None = None
        self._last_action: float | None = None
        self._last_tap: tuple[float, float, float] | None = None
        self._anim_ticks = 0
        self._last: Built | None = None
        self._png_cache: tuple[str, bytes] | None = None
        self.network = NetworkState()
        """Wi-Fi, mobile data and airplane mode (`device.online` in the spec; `svc` in the shell)."""
        self.app_data = AppDataDir(spec.app_id)
        """The app's data dir: its prefs file and database (`run-as` in the shell)."""
        self.log = DeviceLog()
        """What the app and the system write about it (served by `adb logcat` on Android)."""
        self._reset_data()

    # --- geometry -------------------------------------------------------------------------------
    @property
    def content_frame(self) -> Frame:
        """Where the app draws: below the status bar and above the Android navigation bar; on iOS
        the whole screen (the safe areas are inside it)."""
        if self.platform == "android":
            return self._layout_frame()
        return Frame(0, 0, self.screen_width, self.screen_height)

    def _layout_frame(self) -> Frame:
        p = self.profile
        return Frame(0, p.inset_top, self.screen_width, self.screen_height - p.inset_top - p.inset_bottom)

    @property
    def orientation(self) -> str:
        """`portrait` or `landscape` (what WebDriverAgent reports)."""
        return "landscape" if self._rotation % 2 else "portrait"

    @property
    def rotation(self) -> int:
        """Display rotation in quarter turns (Android `Surface.ROTATION_*`): 0 natural, 1 left, 3 right."""
        return self._rotation

    def rotate(self, orientation: str) -> bool:
        """Turns the device (`portrait` / `landscape`); False when the app spec does not allow it.
        The screen's width and height swap; the app lays itself out again."""
        with self._lock:
            if orientation not in self.spec.orientations:
                return False
            if orientation != self.orientation:
                self.set_rotation(1 if orientation == "landscape" else 0)
            return True

    def set_rotation(self, rotation: int) -> int:
        """Turn the device; the display follows when the app spec allows landscape (never upside
        down, as phones do). Returns the display's rotation afterwards."""
        with self._lock:
            self._action()
            landscape = "landscape" in self.spec.orientations
            turn = rotation % 4
            if turn == 2 or (turn != 0 and not landscape):
                turn = 0 if not landscape else self._rotation
            if turn % 2 != self._rotation % 2:
                self._keyboard = False  # rotating dismisses and re-lays the keyboard; keep it simple
            self._rotation = turn
            wide = turn % 2 == 1
            short, long = sorted((self.profile.width, self.profile.height))
            self.screen_width, self.screen_height = (long, short) if wide else (short, long)
            return turn

    def keyboard_frame(self) -> Frame | None:
        """The on-screen keyboard's frame (points) while it is shown, else None."""
        with self._lock:
            self._tick()
            return self._keyboard_frame()

    def _keyboard_frame(self) -> Frame | None:
        if not (self._keyboard and self._foreground and self._focus):
            return None
        p = self.profile
        bottom = self.screen_height - p.inset_bottom if self.platform == "android" else self.screen_height
        return Frame(0, bottom - p.keyboard_height, self.screen_width, p.keyboard_height)

    def time_of_day(self) -> str:
        """The device's wall clock as HH:MM:SS (what the status bar and `{clock}` show)."""
        with self._lock:
            return self._time_of_day()

    def _time_of_day(self) -> str:
        total = int(self._tod_base + self.clock.now()) % 86400
        return f"{total // 3600:02d}:{total // 60 % 60:02d}:{total % 60:02d}"

    # --- observation ----------------------------------------------------------------------------
    def tree(self) -> SimNode:
        """The current UI of the foreground app (or the launcher) as one root node, in points."""
        with self._lock:
            self._tick()
            if self._animating():
                self._anim_ticks += 1
            return self._build().root

    def screenshot_png(self) -> bytes:
        """A PNG of the current screen at pixel size (points * scale)."""
        from trailblaze_sim.device.render import render_png

        with self._lock:
            self._tick()
            built = self._build()
            status_time = self._time_of_day()[:5]
            keyboard = self._keyboard_frame()
            dark = self._test(Condition(var="state.dark_mode"), None) and self._foreground
            # Agents screenshot an unchanged screen often (before/after a no-op); encoding dominates.
            key = repr((built.root, status_time, keyboard, dark))
            if self._png_cache is not None and self._png_cache[0] == key:
                return self._png_cache[1]
            png = render_png(
                built.root,
                platform=self.platform,
                width=self.screen_width,
                height=self.screen_height,
                scale=self.scale,
                inset_top=self.profile.inset_top,
                inset_bottom=self.profile.inset_bottom,
                status_time=status_time,
                keyboard=keyboard,
                dark=dark,
            )
            self._png_cache = (key, png)
            return png

    def current_app(self) -> AppInfo | None:
        with self._lock:
            self._tick()
            if not self._foreground:
                return None
            return AppInfo(
                app_id=self.app.app_id, name=self.app.name, activity=self._top_activity(), pid=self._pid
            )

    def _app_info(self) -> AppInfo:
        return AppInfo(app_id=self.app.app_id, name=self.app.name, activity=self.app.activity, pid=self._pid)

    def _top_activity(self) -> str:
        """The activity of the screen on top (the app's own activity for screens that name none)."""
        if self._running and self._stack:
            return self.spec.screens[self._stack[-1].name].activity or self.app.activity
        return self.app.activity

    def _full_activity(self, activity: str) -> str:
        return self.app.app_id + activity if activity.startswith(".") else activity

    def start_activity(self, app_id: str, activity: str) -> bool:
        with self._lock:
            self._action()
            self._check_app(app_id)
            wanted = self._full_activity(activity)
            if wanted == self._full_activity(self.app.activity):
                self._launch()
                return True
            screen = next(
                (
                    n
                    for n, s in self.spec.screens.items()
                    if s.activity and self._full_activity(s.activity) == wanted
                ),
                None,
            )
            if screen is None:
                return False
            # a standard-launch-mode activity: a new instance on top of the task (the task alone when cold)
            fresh = not self._running
            self._launch(screen)
            if not fresh:
                self._navigate(lambda: self._stack.append(self._instance(screen, {})))
            return True

    def installed_apps(self) -> list[AppInfo]:
        with self._lock:
            return [self._app_info()]

    def app_state(self, app_id: str) -> int:
        """XCUIApplicationState: 1 not running, 2 background suspended, 4 running foreground."""
        with self._lock:
            self._tick()
            if app_id == LAUNCHER_ID[self.platform]:
                return 2 if self._foreground else 4
            if app_id != self.app.app_id or not self._running:
                return 1
            return 4 if self._foreground else 2

    def editing(self) -> bool:
        """Whether a text field of the app in front has input focus (an IME has a connection to type into)."""
        with self._lock:
            self._tick()
            return self._focused_field() is not None

    def keyboard_shown(self) -> bool:
        with self._lock:
            self._tick()
            return self._keyboard_frame() is not None

    def alert(self) -> Alert | None:
        with self._lock:
            self._tick()
            dialog = self._dialog_spec()
            if dialog is None:
                return None
            text = dialog.title + (f"\n{dialog.message}" if dialog.message else "")
            return Alert(text=text, buttons=tuple(b.text for b in dialog.buttons))

    @property
    def screen_name(self) -> str | None:
        """The spec name of the screen on top (None on the launcher); for tests and reports."""
        with self._lock:
            self._tick()
            return self._stack[-1].name if self._foreground and self._stack else None

    @property
    def state(self) -> dict[str, Any]:
        """A copy of the app's persistent state (`state.*`)."""
        with self._lock:
            return dict(self._state)

    # --- actions --------------------------------------------------------------------------------
    def tap(self, x: float, y: float) -> None:
        """A tap; a second one within 0.3 s (device time) and 24 pt of the last is a double tap
        when the element under it has `on_double_tap` (how Android clients send double taps)."""
        with self._lock:
            self._action()
            now = self.clock.now()
            last, self._last_tap = self._last_tap, (now, x, y)
            if (
                last is not None
                and now - last[0] <= _DOUBLE_TAP_S
                and abs(x - last[1]) < _DOUBLE_TAP_SLOP
                and abs(y - last[2]) < _DOUBLE_TAP_SLOP
                and self._double_tap_handler(x, y)
            ):
                self._last_tap = None
                return
            self._touch(x, y, long=False)

    def long_press(self, x: float, y: float, duration: float = 0.5) -> None:
        with self._lock:
            self._action()
            self._touch(x, y, long=True)

    def double_tap(self, x: float, y: float) -> None:
        """An element's `on_double_tap` when it has one (the deepest under the finger), else two taps."""
        with self._lock:
            self._action()
            self._last_tap = None
            if self._double_tap_handler(x, y):
                return
            self._touch(x, y, long=False)
            self._tick()
            self._touch(x, y, long=False)

    def _double_tap_handler(self, x: float, y: float) -> bool:
        """Runs the `on_double_tap` of the deepest element under (x, y) that has one."""
        if self._pending is not None or not self._foreground:
            return False
        kb = self._keyboard_frame()
        if kb is not None and kb.contains(x, y):
            return False
        built = self._build()
        for node in reversed(self._hit_path(built, x, y)):
            binding = built.bindings.get(id(node))
            if binding is not None and binding.double_steps:
                self._run(list(binding.double_steps), binding.item)
                return True
        return False

    def pinch(self, x: float, y: float, scale: float) -> None:
        """Two fingers around (x, y); no app element zooms, so only the action itself registers."""
        with self._lock:
            self._action()

    def swipe(self, x1: float, y1: float, x2: float, y2: float, duration: float = 0.2) -> None:
        """A finger moving from (x1, y1) to (x2, y2); scrolls the list under the start point."""
        with self._lock:
            self._action()
            if self._pending is not None or not self._foreground:
                return
            built = self._build()
            path = self._hit_path(built, x1, y1)
            for node in reversed(path):
                binding = built.bindings.get(id(node))
                if binding is not None and binding.list_key:
                    top = self._stack[-1]
                    offset = top.scroll.get(binding.list_key, 0.0) + (y1 - y2)
                    top.scroll[binding.list_key] = min(max(0.0, offset), binding.max_scroll)
                    return

    def type_text(self, text: str) -> None:
        """Types into the focused field (no-op when nothing is focused)."""
        with self._lock:
            self._action()
            field_spec = self._focused_field()
            if field_spec is None:
                return
            if field_spec.role != "multiline_field":
                text = text.replace("\n", "")
            fields = self._stack[-1].fields
            fields[self._focus] = fields.get(self._focus, "") + text

    def clear_text(self) -> None:
        """Clears the focused field."""
        with self._lock:
            self._action()
            if self._focused_field() is not None:
                self._stack[-1].fields[self._focus] = ""

    def set_text(self, node: SimNode, text: str) -> None:
        """Focuses `node` (a field from the latest `tree()`) and replaces its text."""
        with self._lock:
            self._action()
            field_id = self._field_of(node)
            if field_id is None:
                raise DeviceError(
                    f"cannot set text on {node.role} {node.id or node.text!r}: it is not a text field on screen"
                )
            self._focus = field_id
            self._keyboard = True
            self._stack[-1].fields[field_id] = text

    def press_key(self, key: Key) -> None:
        with self._lock:
            self._action()
            if key == "home":
                self._go_home()
            elif key == "recent":
                self._go_home()
            elif key == "back":
                # iOS has no back key: apps offer a navigation-bar Back button instead.
                if self.platform == "android":
                    self._back_key()
            elif key in ("enter", "delete", "tab"):
                self._edit_key(key)

    def hide_keyboard(self) -> None:
        with self._lock:
            self._action()
            self._keyboard = False

    def alert_press(self, button: str) -> None:
        """Presses a button of the current dialog by its label."""
        with self._lock:
            self._action()
            dialog = self._dialog_spec()
            if dialog is None:
                raise DeviceError("no dialog is on screen; check alert() before pressing its buttons")
            for b in dialog.buttons:
                if b.text == button:
                    self._run(list(b.on_tap), None)
                    return
            raise DeviceError(
                f"dialog {dialog.title!r} has no button {button!r}; its buttons are {', '.join(x.text for x in dialog.buttons)}"
            )

    def launch(self, app_id: str, *, stop_first: bool = False, boot: bool = False) -> None:
        """`boot`: the app the phone starts with, which `{device.launches}` does not count."""
        with self._lock:
            self._action()
            self._check_app(app_id)
            if stop_first:
                self._terminate()
            self._launch()
            if boot:
                self._launches = 0

    def terminate(self, app_id: str) -> None:
        with self._lock:
            self._action()
            self._check_app(app_id)
            self._terminate()

    def clear_app_data(self, app_id: str) -> None:
        """Stops the app and resets its state to a fresh install (signed out, all messages back)."""
        with self._lock:
            self._action()
            self._check_app(app_id)
            self._terminate()
            self._reset_data()

    def go_home(self) -> None:
        with self._lock:
            self._action()
            self._go_home()

    # --- app lifecycle --------------------------------------------------------------------------
    def _check_app(self, app_id: str) -> None:
        if app_id != self.app.app_id:
            raise DeviceError(
                f"app {app_id!r} is not installed on {self.serial}; installed: {self.app.app_id}"
            )

    def _reset_data(self) -> None:
        self._state: dict[str, Any] = dict(self.spec.state)
        self._data: dict[str, list[dict[str, str]]] = {k: v.generate() for k, v in self.spec.data.items()}
        self.app_data.reset(self._data)

    def _launch(self, screen: str | None = None) -> None:
        if not self._running:
            self._running = True
            self._launches += 1
            self._pid = next(_PIDS)
            self._stack = [self._instance(screen or self.spec.launch, {})]
            app_id = self.app.app_id
            self._write_log(
                "I",
                "ActivityManager",
                f"Start proc {self._pid}:{app_id}/u0a190 for top-activity {{{app_id}/{app_id}{self.app.activity}}}",
                pid=_SYSTEM_SERVER_PID,
            )
            self._write_log("I", self._log_tag(), f"{self.app.name} started (screen {self.spec.launch})")
        self._foreground = True

    def _log_tag(self) -> str:
        return self.app.name.replace(" ", "") or "App"

    def _write_log(self, level: str, tag: str, message: str, *, pid: int | None = None) -> None:
        self.log.write(self._tod_base + self.clock.now(), self._pid if pid is None else pid, level, tag, message)

    def _terminate(self) -> None:
        if self._running:
            self._write_log(
                "I", "ActivityManager", f"Force stopping {self.app.app_id} appid=10190 user=0", pid=_SYSTEM_SERVER_PID
            )
        self._running = False
        self._foreground = False
        self._pid = 0
        self._stack = []
        self._focus = ""
        self._keyboard = False
        self._snackbar = None
        self._pending = None

    def _go_home(self) -> None:
        self._foreground = False
        self._keyboard = False

    def _instance(self, name: str, params: dict[str, Any]) -> ScreenInstance:
        return ScreenInstance(name=name, locals={"name": name, "error": "", **params})

    # --- time -----------------------------------------------------------------------------------
    def _tick(self) -> None:
        now = self.clock.now()
        while self._pending is not None and now >= self._pending.due:
            pending, self._pending = self._pending, None
            self._run(pending.steps, pending.item)
        if self._snackbar is not None and now >= self._snackbar[1]:
            self._snackbar = None

    def _action(self) -> None:
        self._tick()
        self._last_action = self.clock.now()

    def animating(self) -> bool:
        with self._lock:
            return self._animating()

    def _animating(self) -> bool:
        ms = self.conditions.animate_after_action_ms
        return ms > 0 and self._last_action is not None and (self.clock.now() - self._last_action) * 1000 < ms

    # --- fields and focus -----------------------------------------------------------------------
    def _fields_of(self, screen: str) -> list[ElementSpec]:
        out: list[ElementSpec] = []

        def visit(el: ElementSpec) -> None:
            if self.platform not in el.platforms:
                return
            if el.role in FIELD_ROLES:
                out.append(el)
            for child in el.children:
                visit(child)

        for el in self.spec.screens[screen].elements:
            visit(el)
        return out

    def _focused_field(self) -> ElementSpec | None:
        if not (self._foreground and self._stack and self._focus) or self._pending is not None:
            return None
        for f in self._fields_of(self._stack[-1].name):
            if f.id == self._focus:
                return f
        return None

    def _field_of(self, node: SimNode) -> str | None:
        built = self._last if self._last is not None else self._build()
        binding = built.bindings.get(id(node))
        if binding is None:
            # A copy of a node: find the same field in a fresh tree.
            built = self._build()
            for candidate in built.root.walk():
                if candidate.role == node.role and candidate.id == node.id and candidate.frame == node.frame:
                    binding = built.bindings.get(id(candidate))
                    break
        return binding.field_id if binding is not None and binding.field_id else None

    def _dialog_spec(self) -> Any:
        if not (self._foreground and self._stack and self._stack[-1].dialog):
            return None
        return self.spec.screens[self._stack[-1].name].dialogs.get(self._stack[-1].dialog or "")

    # --- touch ----------------------------------------------------------------------------------
    def _touch(self, x: float, y: float, *, long: bool) -> None:
        if self._pending is not None and self._foreground:
            return  # a blocking progress indicator swallows touches
        kb = self._keyboard_frame()
        if kb is not None and kb.contains(x, y):
            return
        built = self._build()
        path = self._hit_path(built, x, y)
        for node in reversed(path):
            binding = built.bindings.get(id(node))
            if binding is None:
                continue
            if binding.launch:
                if not long:
                    self._launch()
                return
            if binding.field_id:
                self._focus = binding.field_id
                self._keyboard = True
                return
            # A switch's own `on_tap` replaces its toggle (a switch wired to the wrong setting).
            if binding.bind and not long and not binding.steps:
                self._assign(binding.bind, not self._lookup(binding.bind, binding.item), binding.item)
                return
            steps = binding.long_steps if long else binding.steps
            if steps:
                self._run(list(steps), binding.item)
                return
            if node.clickable and not long:
                return

    def _hit_path(self, built: Built, x: float, y: float) -> list[SimNode]:
        """The nodes under (x, y) from the root down to the deepest, honouring clipping and modals."""
        root = built.modal if built.modal is not None else built.root

        def descend(node: SimNode, clip: Frame) -> list[SimNode] | None:
            if not node.visible or not node.frame.contains(x, y) or not clip.contains(x, y):
                return None
            inner = _intersect(clip, node.frame) if node.scrollable else clip
            for child in reversed(node.children):
                found = descend(child, inner)
                if found is not None:
                    return [node, *found]
            return [node]

        screen = Frame(0, 0, self.screen_width, self.screen_height)
        return descend(root, screen) or []



def _intersect(a: Frame, b: Frame) -> Frame:
    x, y = max(a.x, b.x), max(a.y, b.y)
    return Frame(x, y, max(0.0, min(a.right, b.right) - x), max(0.0, min(a.bottom, b.bottom) - y))
