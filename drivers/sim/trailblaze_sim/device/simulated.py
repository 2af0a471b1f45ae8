"""`SimulatedDevice`: a phone running one declarative app spec, as the protocol servers see it.

The device interprets an `AppSpec`: a navigation stack of screen instances (each with its own
locals, field values and scroll offsets), the app's persistent state, focus and keyboard, dialogs,
snackbars and blocking delays. `tree()` lays the current screen out (in points) and returns it as
`SimNode`s; actions hit-test against that same tree. All time comes from the injected clock, so a
test advances a `ManualClock` instead of sleeping. Every public method holds the device's RLock.

The device is made of components, each owning its own state and holding the others it needs: the
display (`display`), what is on screen (`screen`), the app's process (`lifecycle`), the steps and
the app's state (`steps`), laying out the tree (`tree`) and touches (`touch`). The public methods
here take the lock, advance time and delegate; text input, keys and screenshots stay here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from trailblaze.errors import DeviceError
from trailblaze_sim.app.data import AppDataDir, NetworkState
from trailblaze_sim.app.spec import AppSpec, Condition
from trailblaze_sim.device.display import Display
from trailblaze_sim.device.lifecycle import AppLifecycle
from trailblaze_sim.device.log import DeviceLog
from trailblaze_sim.device.profile import ANDROID_CLASSES, IOS_TYPES, LAUNCHER_ID, PROFILES, DeviceProfile
from trailblaze_sim.device.screen import Screen
from trailblaze_sim.device.state import Animation, ScreenInstance
from trailblaze_sim.device.steps import StepInterpreter
from trailblaze_sim.device.touch import TouchInput
from trailblaze_sim.device.tree import TreeBuilder
from trailblaze_sim.device.wallclock import WallClock
from trailblaze_sim.faults import Conditions
from trailblaze_sim.model import Alert, AppInfo, Frame, Key, Platform, RealClock, SimClock, SimNode

__all__ = ["ANDROID_CLASSES", "IOS_TYPES", "LAUNCHER_ID", "PROFILES", "DeviceProfile", "SimulatedDevice"]


class SimulatedDevice:
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
        self.scale = self.profile.scale
        self.os_version = self.profile.os_version
        # The profile's settings the servers read (fixed for the device's life, like the model).
        self.font_scale = self.profile.font_scale
        self.dark = self.profile.dark
        self.tablet = self.profile.tablet
        self.status_bar = self.profile.inset_top
        self.clipboard = ""
        self.clock: SimClock = clock or RealClock()
        self.conditions = conditions or Conditions()
        self._lock = threading.RLock()
        self._png_cache: tuple[str, bytes] | None = None
        self.network = NetworkState()
        """Wi-Fi, mobile data and airplane mode (`device.online` in the spec; `svc` in the shell)."""
        self.app_data = AppDataDir(spec.app_id)
        """The app's data dir: its prefs file and database (`run-as` in the shell)."""
        self.log = DeviceLog()
        """What the app and the system write about it (served by `adb logcat` on Android)."""
        self._wall = WallClock(self.clock)
        self._display = Display(self.profile, platform)
        self._screen = Screen(spec, self._display)
        self._animation = Animation(self.clock, self.conditions)
        self._apps = AppLifecycle(spec, platform, self.serial, self._screen, self.log, self._wall)
        self.app: AppInfo = self._apps.app
        self._steps = StepInterpreter(
            spec, self.clock, self._screen, self._apps, self.network, self.app_data, self._wall
        )
        self._tree = TreeBuilder(spec, self.app, self._screen, self._steps, self._animation)
        self._touch = TouchInput(self.clock, self._screen, self._tree, self._steps, self._apps)
        if self.profile.landscape:  # a portrait-only app keeps the display upright, as on a phone
            self.rotate("landscape")

    # --- geometry ----------------------------------------------------------------------------------
    @property
    def screen_width(self) -> int:
        """Points, as the display is turned."""
        return self._display.screen_width

    @property
    def screen_height(self) -> int:
        """Points, as the display is turned."""
        return self._display.screen_height

    def set_toast_sink(self, sink: Callable[[str, float], None] | None) -> None:
        """Where the app's toasts go (Android's SystemUI, set by the u2 server): (text, seconds)."""
        self._steps.toast_sink = sink

    @property
    def content_frame(self) -> Frame:
        """Where the app draws: below the status bar and above the Android navigation bar; on iOS
        the whole screen (the safe areas are inside it)."""
        return self._display.content_frame()

    @property
    def orientation(self) -> str:
        """`portrait` or `landscape` (what WebDriverAgent reports)."""
        return self._display.orientation

    @property
    def rotation(self) -> int:
        """Display rotation in quarter turns (Android `Surface.ROTATION_*`): 0 natural, 1 left, 3 right."""
        return self._display.rotation

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
            current = self._display.rotation
            turn = rotation % 4
            if turn == 2 or (turn != 0 and not landscape):
                turn = 0 if not landscape else current
            if turn % 2 != current % 2:
                self._screen.keyboard = False  # rotating dismisses and re-lays the keyboard; keep it simple
            self._display.turn(turn)
            return turn

    def keyboard_frame(self) -> Frame | None:
        """The on-screen keyboard's frame (points) while it is shown, else None."""
        with self._lock:
            self._steps.tick()
            return self._screen.keyboard_frame()

    def time_of_day(self) -> str:
        """The device's wall clock as HH:MM:SS (what the status bar and `{clock}` show)."""
        with self._lock:
            return self._wall.text()

    # --- observation -------------------------------------------------------------------------------
    def tree(self) -> SimNode:
        """The current UI of the foreground app (or the launcher) as one root node, in points."""
        with self._lock:
            self._steps.tick()
            if self._animation.running():
                self._animation.ticks += 1
            return self._tree.build().root

    def screenshot_png(self) -> bytes:
        """A PNG of the current screen at pixel size (points * scale)."""
        from trailblaze_sim.device.render import render_png

        with self._lock:
            self._steps.tick()
            built = self._tree.build()
            status_time = self._wall.text()[:5]
            keyboard = self._screen.keyboard_frame()
            # the app's own theme setting, or the system's dark theme (the `dark` profile), which apps follow
            dark = (self._steps.test(Condition(var="state.dark_mode"), None) and self._screen.foreground) or self.profile.dark
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
            self._steps.tick()
            return self._screen.focused_field() is not None

    def keyboard_shown(self) -> bool:
        with self._lock:
            self._steps.tick()
            return self._screen.keyboard_frame() is not None

    def alert(self) -> Alert | None:
        with self._lock:
            self._steps.tick()
            dialog = self._screen.dialog_spec()
            if dialog is None:
                return None
            text = dialog.title + (f"\n{dialog.message}" if dialog.message else "")
            return Alert(text=text, buttons=tuple(b.text for b in dialog.buttons))

    @property
    def screen_name(self) -> str | None:
        """The spec name of the screen on top (None on the launcher); for tests and reports."""
        with self._lock:
            self._steps.tick()
            stack = self._screen.stack
            return stack[-1].name if self._screen.foreground and stack else None

    @property
    def state(self) -> dict[str, Any]:
        """A copy of the app's persistent state (`state.*`)."""
        with self._lock:
            return dict(self._steps.state)

    # --- the app -----------------------------------------------------------------------------------
    def current_app(self) -> AppInfo | None:
        with self._lock:
            self._steps.tick()
            return self._apps.current_app()

    def installed_apps(self) -> list[AppInfo]:
        with self._lock:
            return [self._apps.app_info()]

    def start_activity(self, app_id: str, activity: str) -> bool:
        with self._lock:
            self._action()
            self._apps.check_app(app_id)
            screen = self._apps.activity_screen(activity)
            if screen is None:
                return False
            if not screen:  # the app's own activity
                self._apps.launch()
                return True
            # a standard-launch-mode activity: a new instance on top of the task (the task alone when cold)
            fresh = not self._apps.running
            self._apps.launch(screen)
            if not fresh:
                stack = self._screen.stack
                self._steps.navigate(lambda: stack.append(ScreenInstance.new(screen, {})))
            return True

    def app_state(self, app_id: str) -> int:
        """XCUIApplicationState: 1 not running, 2 background suspended, 4 running foreground."""
        with self._lock:
            self._steps.tick()
            return self._apps.app_state(app_id)

    def launch(self, app_id: str, *, stop_first: bool = False, boot: bool = False) -> None:
        """`boot`: the app the phone starts with, which `{device.launches}` does not count."""
        with self._lock:
            self._action()
            self._apps.check_app(app_id)
            if stop_first:
                self._apps.terminate()
            self._apps.launch()
            if boot:
                self._apps.launches = 0

    def terminate(self, app_id: str) -> None:
        with self._lock:
            self._action()
            self._apps.check_app(app_id)
            self._apps.terminate()

    def clear_app_data(self, app_id: str) -> None:
        """Stops the app and resets its state to a fresh install (signed out, all messages back)."""
        with self._lock:
            self._action()
            self._apps.check_app(app_id)
            self._apps.terminate()
            self._steps.reset_data()

    def go_home(self) -> None:
        with self._lock:
            self._action()
            self._apps.go_home()

    # --- touches -----------------------------------------------------------------------------------
    def tap(self, x: float, y: float) -> None:
        """A tap; a second one within 0.3 s (device time) and 24 pt of the last is a double tap
        when the element under it has `on_double_tap` (how Android clients send double taps)."""
        with self._lock:
            self._action()
            self._touch.tap(x, y)

    def long_press(self, x: float, y: float, duration: float = 0.5) -> None:
        with self._lock:
            self._action()
            self._touch.long_press(x, y)

    def double_tap(self, x: float, y: float) -> None:
        """An element's `on_double_tap` when it has one (the deepest under the finger), else two taps."""
        with self._lock:
            self._action()
            self._touch.double_tap(x, y)

    def pinch(self, x: float, y: float, scale: float) -> None:
        """Two fingers around (x, y); no app element zooms, so only the action itself registers."""
        with self._lock:
            self._action()

    def swipe(self, x1: float, y1: float, x2: float, y2: float, duration: float = 0.2) -> None:
        """A finger moving from (x1, y1) to (x2, y2); scrolls the list under the start point."""
        with self._lock:
            self._action()
            self._touch.swipe(x1, y1, x2, y2)

    # --- text and keys -----------------------------------------------------------------------------
    def type_text(self, text: str) -> None:
        """Types into the focused field (no-op when nothing is focused)."""
        with self._lock:
            self._action()
            field_spec = self._screen.focused_field()
            if field_spec is None:
                return
            if field_spec.role != "multiline_field":
                text = text.replace("\n", "")
            owner = self._screen.focus_owner()
            if owner is not None:
                owner.fields[self._screen.focus] = owner.fields.get(self._screen.focus, "") + text

    def clear_text(self) -> None:
        """Clears the focused field."""
        with self._lock:
            self._action()
            owner = self._screen.focus_owner()
            if self._screen.focused_field() is not None and owner is not None:
                owner.fields[self._screen.focus] = ""

    def set_text(self, node: SimNode, text: str) -> None:
        """Focuses `node` (a field from the latest `tree()`) and replaces its text."""
        with self._lock:
            self._action()
            field_id = self._tree.field_of(node)
            if field_id is None:
                raise DeviceError(
                    f"cannot set text on {node.role} {node.id or node.text!r}: it is not a text field on screen"
                )
            self._screen.focus = field_id
            self._screen.keyboard = True
            owner = self._screen.focus_owner()
            if owner is not None:
                owner.fields[field_id] = text

    def press_key(self, key: Key) -> None:
        with self._lock:
            self._action()
            if key == "home":
                self._apps.go_home()
            elif key == "recent":
                self._apps.go_home()
            elif key == "back":
                # iOS has no back key: apps offer a navigation-bar Back button instead.
                if self.platform == "android":
                    self._steps.back_key()
            elif key in ("enter", "delete", "tab"):
                self._steps.edit_key(key)

    def hide_keyboard(self) -> None:
        with self._lock:
            self._action()
            self._screen.keyboard = False

    def alert_press(self, button: str) -> None:
        """Presses a button of the current dialog by its label."""
        with self._lock:
            self._action()
            dialog = self._screen.dialog_spec()
            if dialog is None:
                raise DeviceError("no dialog is on screen; check alert() before pressing its buttons")
            for b in dialog.buttons:
                if b.text == button:
                    self._steps.run(list(b.on_tap), None, self._screen.dialog_owner())
                    return
            raise DeviceError(
                f"dialog {dialog.title!r} has no button {button!r}; its buttons are {', '.join(x.text for x in dialog.buttons)}"
            )

    # --- time --------------------------------------------------------------------------------------
    def _action(self) -> None:
        self._steps.tick()
        self._animation.acted()

    def animating(self) -> bool:
        with self._lock:
            return self._animation.running()
