"""P3: how much smaller the compact view is than the raw dump, per real-world fixture.

Run: `python benchmarks/p3_compaction.py [DIR]` (default: tests/data/hierarchy). Tokens are
estimated as characters / 4.
"""

from __future__ import annotations

import sys
from pathlib import Path

from trailblaze.screen.compact import compact_view
from trailblaze.screen.hierarchy import parse_hierarchy

GOAL = 15.0


def main(argv: list[str]) -> int:
    root = (
        Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parents[1] / "tests/data/hierarchy"
    )
    paths = sorted(root.glob("*/*.xml")) + sorted(root.glob("*/*.json"))
    if not paths:
        print(f"no fixtures under {root}", file=sys.stderr)
        return 2
    header = f"{'fixture':40} {'raw B':>8} {'compact B':>10} {'ratio':>6} {'nodes':>6} {'lines':>6} {'raw tok':>8} {'cmp tok':>8}"
    print(header)
    print("-" * len(header))
    ratios = []
    for path in paths:
        raw = path.read_bytes()
        h = parse_hierarchy(raw)
        view = compact_view(h)
        size = len(view.text.encode("utf-8"))
        ratio = len(raw) / max(1, size)
        ratios.append(ratio)
        flag = "" if ratio >= GOAL else "  < goal"
        name = f"{path.parent.name}/{path.name}"
        print(
            f"{name:40} {len(raw):8d} {size:10d} {ratio:6.1f} {len(h.nodes):6d} {view.lines:6d} "
            f"{len(raw.decode('utf-8', 'replace')) // 4:8d} {len(view.text) // 4:8d}{flag}"
        )
    below = sum(1 for r in ratios if r < GOAL)
    print(
        f"\nmedian ratio {sorted(ratios)[len(ratios) // 2]:.1f}x, min {min(ratios):.1f}x; {below} of {len(ratios)} below {GOAL:g}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
