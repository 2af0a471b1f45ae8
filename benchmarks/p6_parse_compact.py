"""P6: parse + compact time of a synthetic 2,000-node uiautomator2 dump (goal ≤ 20 ms median).

Every run is a cold parse: `parse_hierarchy` keeps no state (the drivers' `DumpCache`, which skips
re-parsing an identical dump, is deliberately not used here).

Run: `python benchmarks/p6_parse_compact.py [RUNS]`.
"""

from __future__ import annotations

import statistics
import sys
import time

from trailblaze.screen.compact import compact_view
from trailblaze.screen.hierarchy import parse_hierarchy

GOAL_MS = 20.0
_ATTRS = (
    'index="{i}" text="{text}" resource-id="{rid}" class="{cls}" package="com.example.app" content-desc="{desc}" '
    'checkable="false" checked="false" clickable="{click}" enabled="true" focusable="{click}" focused="false" '
    'scrollable="{scroll}" long-clickable="false" password="false" selected="false" visible-to-user="true" '
    'bounds="[{l},{t}][{r},{b}]" drawing-order="{i}" hint="" display-id="0"'
)


def synthetic_dump(target: int = 2000) -> bytes:
    """A u2-style dump: a scrolling list of rows (layout + title + subtitle + button + icon)."""
    lines = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>", '<hierarchy rotation="0">']
    count = 0

    def node(
        depth: int,
        i: int,
        cls: str,
        box: tuple[int, int, int, int],
        *,
        text: str = "",
        rid: str = "",
        desc: str = "",
        click: bool = False,
        scroll: bool = False,
        close: bool = True,
    ) -> None:
        nonlocal count
        count += 1
        attrs = _ATTRS.format(
            i=i,
            text=text,
            rid=rid,
            cls=cls,
            desc=desc,
            click=str(click).lower(),
            scroll=str(scroll).lower(),
            l=box[0],
            t=box[1],
            r=box[2],
            b=box[3],
        )
        lines.append(f"{'  ' * depth}<node {attrs}{' />' if close else '>'}")

    node(1, 0, "android.widget.FrameLayout", (0, 0, 1080, 2400), close=False)
    node(2, 0, "androidx.recyclerview.widget.RecyclerView", (0, 0, 1080, 2400), rid="com.example.app:id/list",
         scroll=True, close=False)  # fmt: skip
    row = 0
    while count < target - 5:
        top = row * 120
        box = (0, min(top, 2400), 1080, min(top + 120, 2400))
        node(3, row, "android.widget.LinearLayout", box, click=True, close=False)
        node(4, 0, "android.widget.TextView", box, text=f"Item {row}", rid="com.example.app:id/title")
        node(
            4, 1, "android.widget.TextView", box, text=f"Subtitle of item {row}", rid="com.example.app:id/sub"
        )
        node(4, 2, "android.widget.ImageButton", box, desc="More", rid="com.example.app:id/more", click=True)
        node(4, 3, "android.widget.ImageView", box)
        lines.append("      </node>")
        row += 1
    lines += ["    </node>", "  </node>", "</hierarchy>"]
    return "\r\n".join(lines).encode("utf-8")


_COVERS = (
    # A dialog window over the activity and the keyboard (IME) window: the occlusion pass's worst case
    # (every node of the activity window is marked covered).
    '  <node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.example.app" '
    'content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" '
    'focused="false" scrollable="false" long-clickable="false" password="false" selected="false" '
    'visible-to-user="true" bounds="[72,900][1008,1300]" drawing-order="0" hint="" display-id="0">\r\n'
    '    <node index="0" text="Sign out?" resource-id="android:id/alertTitle" class="android.widget.TextView" '
    'package="com.example.app" content-desc="" checkable="false" checked="false" clickable="false" '
    'enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" '
    'selected="false" visible-to-user="true" bounds="[120,950][960,1050]" drawing-order="1" hint="" display-id="0" />\r\n'
    '    <node index="1" text="OK" resource-id="android:id/button1" class="android.widget.Button" '
    'package="com.example.app" content-desc="" checkable="false" checked="false" clickable="true" '
    'enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" '
    'selected="false" visible-to-user="true" bounds="[700,1150][960,1280]" drawing-order="2" hint="" display-id="0" />\r\n'
    "  </node>\r\n"
    '  <node index="0" text="" resource-id="" class="android.widget.FrameLayout" '
    'package="com.google.android.inputmethod.latin" content-desc="" checkable="false" checked="false" '
    'clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" '
    'password="false" selected="false" visible-to-user="true" bounds="[0,1400][1080,2400]" drawing-order="0" '
    'hint="" display-id="0" />\r\n'
)


def with_covers(dump: bytes) -> bytes:
    """`dump` with a dialog window and the IME window added after the app window."""
    head, _, tail = dump.rpartition(b"</hierarchy>")
    return head + _COVERS.encode() + b"</hierarchy>" + tail


def _timed(data: bytes, runs: int) -> tuple[list[float], list[float], list[float]]:
    parse_ms, compact_ms, total_ms = [], [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        h = parse_hierarchy(data)
        t1 = time.perf_counter()
        compact_view(h)
        t2 = time.perf_counter()
        parse_ms.append((t1 - t0) * 1000)
        compact_ms.append((t2 - t1) * 1000)
        total_ms.append((t2 - t0) * 1000)
    return parse_ms, compact_ms, total_ms


def main(argv: list[str]) -> int:
    runs = int(argv[1]) if len(argv) > 1 else 30
    data = synthetic_dump()
    h = parse_hierarchy(data)
    view = compact_view(h)
    parse_ms, compact_ms, total_ms = _timed(data, runs)
    median = statistics.median(total_ms)
    print(f"synthetic u2 dump: {len(data)} bytes, {len(h.nodes)} nodes, {view.lines} compact lines")
    print(f"parse   median {statistics.median(parse_ms):6.2f} ms (best {min(parse_ms):.2f})")
    print(f"compact median {statistics.median(compact_ms):6.2f} ms (best {min(compact_ms):.2f})")
    print(f"total   median {median:6.2f} ms over {runs} runs (min {min(total_ms):.2f}, goal <= {GOAL_MS:g} ms)"
          f" -> {'OK' if median <= GOAL_MS else 'SLOW'}")  # fmt: skip
    covered = with_covers(data)
    view = compact_view(parse_hierarchy(covered))
    _, _, covered_ms = _timed(covered, runs)
    print(f"with a dialog + IME window ({view.text.splitlines()[0]}): total median "
          f"{statistics.median(covered_ms):6.2f} ms (min {min(covered_ms):.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
