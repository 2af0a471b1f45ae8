"""P1: framework CPU milliseconds per replayed tap (goal ≤ 5 ms) on a 300-node screen.

What is measured: everything trailblaze does for one `tapOnElementBySelector` step — validate and
interpolate the params, poll-resolve the selector, act, settle (two dumps parsed, fingerprinted and
compared) — excluding the device. The device is a recording driver that hands back a fixed
uiautomator2-format dump of 300 nodes (the parse of that dump is ours and is counted) and whose
gestures do nothing. `time.process_time()` brackets the step, so sleeps do not count and no
simulator thread shares the process. Settle's pause between dumps is set to 0 (it is a sleep, not
CPU, either way).

Run: python benchmarks/p1_framework_ms.py
"""

from __future__ import annotations

import statistics
import time
from types import TracebackType

from trailblaze.driver import DeviceInfo, Key, LaunchMode
from trailblaze.execute import run_recorded_tool
from trailblaze.hierarchy import Hierarchy, parse_hierarchy
from trailblaze.memory import Memory
from trailblaze.session import DeviceSession
from trailblaze.trail import parse_tool

_ROWS = 99  # 99 rows x 3 nodes + 3 containers = 300 nodes


def _node(attrs: str, bounds: str, inner: str = "") -> str:
    base = (
        f'<node index="0" {attrs} package="com.example" content-desc="" checkable="false" checked="false" '
        f'enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" '
        f'password="false" selected="false" visible-to-user="true" bounds="{bounds}"'
    )
    return f"{base}>{inner}</node>" if inner else base + " />"


def _dump() -> str:
    rows = []
    for i in range(_ROWS):
        top = 200 + i * 24
        title = _node(f'text="Row {i}" resource-id="com.example:id/title" class="android.widget.TextView" '
                      'clickable="false"', f"[0,{top}][1080,{top + 12}]")
        sub = _node(f'text="Detail {i}" resource-id="com.example:id/sub" class="android.widget.TextView" '
                    'clickable="false"', f"[0,{top + 12}][1080,{top + 24}]")
        rows.append(_node(f'text="" resource-id="com.example:id/row_{i}" class="android.widget.LinearLayout" '
                          'clickable="true"', f"[0,{top}][1080,{top + 24}]", title + sub))
    lst = _node('text="" resource-id="com.example:id/list" class="androidx.recyclerview.widget.RecyclerView" '
                'clickable="false"', "[0,200][1080,2400]", "".join(rows))
    frame = _node('text="" resource-id="" class="android.widget.FrameLayout" clickable="false"',
                  "[0,0][1080,2400]", _node('text="" resource-id="" class="android.widget.LinearLayout" '
                                            'clickable="false"', "[0,0][1080,2400]", lst))
    return f'<?xml version=\'1.0\' encoding=\'UTF-8\' standalone=\'yes\' ?>\r\n<hierarchy rotation="0">{frame}</hierarchy>'


class _FixedScreen:
    """A driver with no device behind it: dumps are a fixed string, gestures are no-ops."""

    def __init__(self, xml: str) -> None:
        self.xml = xml
        self.taps = 0

    @property
    def info(self) -> DeviceInfo:
        return DeviceInfo("android", "android-phone", "bench", "bench", 1080, 2400, 1.0)

    def hierarchy(self) -> Hierarchy:
        return parse_hierarchy(self.xml, "android")

    def screenshot(self) -> bytes:
        return b""

    def tap(self, x: float, y: float) -> None:
        self.taps += 1

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


def main() -> None:
    xml = _dump()
    driver = _FixedScreen(xml)
    session = DeviceSession(driver, poll_interval=0.0)
    nodes = len(session.screen().nodes)
    tools = [parse_tool(f"tapOnElementBySelector: {{nodeSelector: {{androidAccessibility: "
                        f"{{resourceIdRegex: '.*row_{i}'}}}}}}") for i in (3, 50, 90)]
    memory = Memory()
    for tool in tools:  # warm caches (regex compile, imports)
        run_recorded_tool(session, tool, memory)
    samples: list[float] = []
    parse_samples: list[float] = []
    for _ in range(60):
        for tool in tools:
            t0 = time.process_time()
            result = run_recorded_tool(session, tool, memory)
            samples.append((time.process_time() - t0) * 1000)
            assert result.ok, result
        t0 = time.process_time()
        parse_hierarchy(xml, "android")
        parse_samples.append((time.process_time() - t0) * 1000)
    per_step_dumps = session.stats.dumps / (len(samples) + len(tools))
    print(f"P1 — framework CPU per replayed tap on a {nodes}-node screen (goal ≤ 5 ms)")
    print(f"  median {statistics.median(samples):.2f} ms, p90 {statistics.quantiles(samples, n=10)[-1]:.2f} ms "
          f"over {len(samples)} taps ({per_step_dumps:.1f} dumps parsed per tap)")
    print(f"  of which parsing one dump: median {statistics.median(parse_samples):.2f} ms")


if __name__ == "__main__":
    main()
