"""P1: framework CPU milliseconds per replayed tap (goal ≤ 5 ms) on a 300-node screen.

What is measured: everything trailblaze does for one `tapOnElementBySelector` step — validate and
interpolate the params, poll-resolve the selector, act, settle (dumps parsed, fingerprinted and
compared) — excluding the device. The device is a driver with no phone behind it: it hands back
pre-rendered uiautomator2-format dumps of 300 nodes (their parse is ours and is counted, through
the same `DumpCache` the real drivers use) and its gestures do nothing else. `time.process_time()`
brackets the step, so sleeps do not count and no simulator thread shares the process. Settle's
pause between dumps is set to 0 (it is a sleep, not CPU, either way).

Two scenarios:

- **tap changes the screen** (the realistic one): the tapped row becomes selected, so the settle
  sees a new dump (parsed), then the same dump again (equal bytes: not re-parsed) and stops;
- **tap leaves the screen as it was**: the settled screen before the tap counts as the first sample,
  so one (identical, unparsed) dump settles it.

Run: python benchmarks/p1_framework_ms.py
"""

from __future__ import annotations

import statistics
import time
from types import TracebackType

from trailblaze.device.driver import DeviceInfo, Key, LaunchMode
from trailblaze.device.session import DeviceSession
from trailblaze.screen.hierarchy import DumpCache, Hierarchy, parse_hierarchy
from trailblaze.tools.execute import run_recorded_tool
from trailblaze.tools.memory import Memory
from trailblaze.trail.model import parse_tool

_ROWS = 99  # 99 rows x 3 nodes + 3 containers = 300 nodes


def _node(attrs: str, bounds: str, inner: str = "", selected: bool = False) -> str:
    base = (
        f'<node index="0" {attrs} package="com.example" content-desc="" checkable="false" checked="false" '
        f'enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" '
        f'password="false" selected="{str(selected).lower()}" visible-to-user="true" bounds="{bounds}"'
    )
    return f"{base}>{inner}</node>" if inner else base + " />"


def _dump(selected: int = -1) -> str:
    rows = []
    for i in range(_ROWS):
        top = 200 + i * 24
        title = _node(f'text="Row {i}" resource-id="com.example:id/title" class="android.widget.TextView" '
                      'clickable="false"', f"[0,{top}][1080,{top + 12}]")
        sub = _node(f'text="Detail {i}" resource-id="com.example:id/sub" class="android.widget.TextView" '
                    'clickable="false"', f"[0,{top + 12}][1080,{top + 24}]")
        rows.append(_node(f'text="" resource-id="com.example:id/row_{i}" class="android.widget.LinearLayout" '
                          'clickable="true"', f"[0,{top}][1080,{top + 24}]", title + sub, i == selected))
    lst = _node('text="" resource-id="com.example:id/list" class="androidx.recyclerview.widget.RecyclerView" '
                'clickable="false"', "[0,200][1080,2400]", "".join(rows))
    frame = _node('text="" resource-id="" class="android.widget.FrameLayout" clickable="false"',
                  "[0,0][1080,2400]", _node('text="" resource-id="" class="android.widget.LinearLayout" '
                                            'clickable="false"', "[0,0][1080,2400]", lst))
    return f'<?xml version=\'1.0\' encoding=\'UTF-8\' standalone=\'yes\' ?>\r\n<hierarchy rotation="0">{frame}</hierarchy>'


class _FixedScreen:
    """A driver with no device behind it: dumps are pre-rendered strings, a tap selects the row under it.

    With `changing=False` every dump is the same string (a tap changes nothing).
    """

    def __init__(self, changing: bool) -> None:
        self.changing = changing
        self.screens = {-1: _dump()}
        self.xml = self.screens[-1]
        self.dumps = DumpCache()
        self.taps = 0

    @property
    def info(self) -> DeviceInfo:
        return DeviceInfo("android", "android-phone", "bench", "bench", 1080, 2400, 1.0)

    def hierarchy(self) -> Hierarchy:
        return self.dumps.parse(self.xml, "android")

    def screenshot(self) -> bytes:
        return b""

    def tap(self, x: float, y: float) -> None:
        self.taps += 1
        if self.changing:
            row = int((y - 200) // 24)
            if row not in self.screens:  # rendered outside the measured step on the first tap only
                self.screens[row] = _dump(row)
            self.xml = self.screens[row]

    def long_press(self, x: float, y: float, duration: float = 0.8) -> None: ...
    def double_tap(self, x: float, y: float) -> None: ...
    def swipe(self, x1: float, y1: float, x2: float, y2: float, duration: float = 0.3) -> None: ...
    def input_text(self, text: str) -> None: ...
    def erase_text(self, characters: int | None = None) -> None: ...
    def hide_keyboard(self) -> None: ...
    def press_key(self, key: Key) -> None: ...
    def launch_app(self, app_id: str, mode: LaunchMode = "FORCE_RESTART") -> None: ...
    def stop_app(self, app_id: str) -> None: ...
    def clear_app(self, app_id: str) -> None: ...
    def current_app(self) -> str | None:
        return "com.example"

    def close(self) -> None: ...

    def __enter__(self) -> _FixedScreen:
        return self

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None: ...


def _measure(changing: bool) -> tuple[list[float], float, int]:
    driver = _FixedScreen(changing)
    session = DeviceSession(driver, poll_interval=0.0)
    nodes = len(session.screen().nodes)
    tools = [parse_tool(f"tapOnElementBySelector: {{nodeSelector: {{androidAccessibility: "
                        f"{{resourceIdRegex: '.*row_{i}'}}}}}}") for i in (3, 50, 90)]
    memory = Memory()
    for tool in tools:  # warm caches (regex compile, imports) and render every screen variant
        run_recorded_tool(session, tool, memory)
    dumps0, parses0 = session.stats.dumps, driver.dumps.misses
    samples: list[float] = []
    for _ in range(60):
        for tool in tools:
            t0 = time.process_time()
            result = run_recorded_tool(session, tool, memory)
            samples.append((time.process_time() - t0) * 1000)
            assert result.ok, result
    per_tap = (session.stats.dumps - dumps0) / len(samples)
    parsed = (driver.dumps.misses - parses0) / len(samples)
    print(f"  {'tap changes the screen' if changing else 'tap leaves the screen as it was':32}"
          f"median {statistics.median(samples):.2f} ms, best {min(samples):.2f} ms, "
          f"p90 {statistics.quantiles(samples, n=10)[-1]:.2f} ms over {len(samples)} taps "
          f"({per_tap:.1f} dumps, {parsed:.1f} parsed per tap)")
    return samples, per_tap, nodes


def main() -> None:
    xml = _dump()
    nodes = len(parse_hierarchy(xml, "android").nodes)
    print(f"P1 — framework CPU per replayed tap on a {nodes}-node screen (goal ≤ 5 ms)")
    _measure(changing=True)
    _measure(changing=False)
    parse_samples: list[float] = []
    for _ in range(100):
        t0 = time.process_time()
        parse_hierarchy(xml, "android")
        parse_samples.append((time.process_time() - t0) * 1000)
    print(f"  parsing one dump (cold): median {statistics.median(parse_samples):.2f} ms, "
          f"best {min(parse_samples):.2f} ms")


if __name__ == "__main__":
    main()
