"""`SimulatedDevice`: a phone running one declarative app spec, as the protocol servers see it.

The device interprets an `AppSpec`: a navigation stack of screen instances (each with its own
locals, field values and scroll offsets), the app's persistent state, focus and keyboard, dialogs,
snackbars and blocking delays. `tree()` lays the current screen out (in points) and returns it as
`SimNode`s; actions hit-test against that same tree. All time comes from the injected clock, so a
test advances a `ManualClock` instead of sleeping. Every public method holds the device's RLock.

The class is split by concern into halves it inherits: the app's lifecycle (`lifecycle`), touches
(`touch`), laying out the tree (`tree`) and running the spec's steps (`steps`); all share the
state `SimulatedDevice.__init__` sets up. Geometry, observation, text input and time stay here.
"""

from __future__ import annotations

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
from trailblaze_sim.device.lifecycle import AppLifecycle
from trailblaze_sim.device.log import DeviceLog
from trailblaze_sim.device.profile import ANDROID_CLASSES, IOS_TYPES, LAUNCHER_ID, PROFILES, DeviceProfile
from trailblaze_sim.device.state import Built, Pending, ScreenInstance
from trailblaze_sim.device.steps import StepInterpreter
from trailblaze_sim.device.touch import TouchInput
from trailblaze_sim.device.tree import TreeBuilder
from trailblaze_sim.faults import Conditions
from trailblaze_sim.model import Alert, AppInfo, Frame, Key, Platform, RealClock, SimClock, SimNode

__all__ = ["ANDROID_CLASSES", "IOS_TYPES", "LAUNCHER_ID", "PROFILES", "DeviceProfile", "SimulatedDevice"]


class SimulatedDevice(AppLifecycle, TouchInput, TreeBuilder, StepInterpreter):
    """A simulated phone running one app spec; implements `trailblaze_sim.model.SimDevice`.

    Args:
        spec: The app to install.
        platform: `android` or `ios`.
        clock: Device time; `RealClock()` by default, `ManualClock()` in tests.
        conditions: Latency and faults shared with the protocol servers (this class reads only
            `animate_after_action_ms`).
        serial: adb serial / UDID.
        profile: The device's geometry and settings (`trailblaze_sim.device.profile.device_profile`);
            default the platform's phone (`PROFILES`).
    """

    def __init__(
        self,
        spec: AppSpec,
        platform: Platform,
        *,
        clock: SimClock | None = None,
        conditions: Conditions | None = None,
        serial: str | None = None,
        profile: DeviceProfile | None = None,
    ) -> None:
        if platform not in PROFILES:
            raise DeviceError(f"unknown simulated platform {platform!r}; use android or ios")
        self.spec = spec
        self.platform: Platform = platform
        self.profile = profile or PROFILES[platform]
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
        if self.profile.landscape:  # a portrait-only app keeps the display upright, as on a phone
            self.rotate("landscape")

    # --- geometry -------------------------------------------------------------------------------
    @property
    def font_scale(self) -> float:
        return self.profile.font_scale

    @property
    def dark(self) -> bool:
        return self.profile.dark

    @property
    def tablet(self) -> bool:
        return self.profile.tablet

    @property
    def status_bar(self) -> float:
        return self.profile.inset_top

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
            # the app's own theme setting, or the system's dark theme (the `dark` profile), which apps follow
            dark = (self._test(Condition(var="state.dark_mode"), None) and self._foreground) or self.profile.dark
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
    def type_text(self, text: str) -> None:
        """Types into the focused field (no-op when nothing is focused)."""
        with self._lock:
            self._action()
            field_spec = self._focused_field()
            if field_spec is None:
                return
            if field_spec.role != "multiline_field":
                text = text.replace("\n", "")
            owner = self._focus_owner()
            if owner is not None:
                owner.fields[self._focus] = owner.fields.get(self._focus, "") + text

    def clear_text(self) -> None:
        """Clears the focused field."""
        with self._lock:
            self._action()
            owner = self._focus_owner()
            if self._focused_field() is not None and owner is not None:
                owner.fields[self._focus] = ""

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
            owner = self._focus_owner()
            if owner is not None:
                owner.fields[field_id] = text

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
                    self._run(list(b.on_tap), None, self._dialog_owner())
                    return
            raise DeviceError(
                f"dialog {dialog.title!r} has no button {button!r}; its buttons are {', '.join(x.text for x in dialog.buttons)}"
            )

    # --- time -----------------------------------------------------------------------------------
    def _tick(self) -> None:
        now = self.clock.now()
        while self._pending is not None and now >= self._pending.due:
            pending, self._pending = self._pending, None
            self._run(pending.steps, pending.item, pending.screen)
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
        owner = self._focus_owner()
        if owner is None or self._pending is not None:
            return None
        return next(f for f in self._fields_of(owner.name) if f.id == self._focus)

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
        owner = self._dialog_owner()
        if owner is None:
            return None
        return self.spec.screens[owner.name].dialogs.get(owner.dialog or "")
