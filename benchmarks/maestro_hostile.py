"""Issue 37: a hostile tree of Maestro flows fails fast in validate, replay's load and import.

Twelve small files (5.7 KB in all), each running the next one 25 times: expanded, 25^11 commands.
Before the budgets, reading it ran past 300 s and 1.9 GB; now the count of commands produced while
sub-flows are read in stops it at `MAX_FLOW_COMMANDS`. Prints the size of the files, then the time and
the peak Python memory of loading it as `validate` / `replay` do and of importing it, and the one-line
error each gave.

Run: python benchmarks/maestro_hostile.py
"""

from __future__ import annotations

import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from trailblaze.errors import TrailblazeError
from trailblaze.maestro.importer import import_flow
from trailblaze.trail.model import load_trail

FILES = 12
FAN_OUT = 25


def write_tree(folder: Path) -> Path:
    """The hostile flows in `folder`; the first one's path."""
    for i in range(FILES):
        body = (
            "".join(f"- runFlow: f{i + 1:02d}.yaml\n" for _ in range(FAN_OUT))
            if i < FILES - 1
            else "- back\n"
        )
        (folder / f"f{i:02d}.yaml").write_text("appId: x\n---\n" + body, encoding="utf-8")
    (folder / ".git").mkdir()  # the project: sub-flows stay inside it
    return folder / "f00.yaml"


def measure(what: str, action: Callable[[], object]) -> tuple[float, float, str]:
    """Seconds (timed on its own), peak MB of Python memory (a second run, traced) and the first line
    of the error `action` raised."""

    def run() -> str:
        try:
            action()
        except TrailblazeError as exc:
            return exc.message.splitlines()[0]
        return "no error"

    start = time.perf_counter()
    said = run()
    seconds = time.perf_counter() - start
    tracemalloc.start()
    run()
    peak = tracemalloc.get_traced_memory()[1] / (1024 * 1024)
    tracemalloc.stop()
    print(f"{what}: {seconds:.2f} s, peak {peak:.1f} MB: {said}")
    return seconds, peak, said


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        top = write_tree(folder)
        size = sum(p.stat().st_size for p in folder.glob("*.yaml"))
        print(f"{FILES} flows, {size / 1024:.1f} KB, each running the next {FAN_OUT} times")
        measure("validate / replay (load_trail)", lambda: load_trail(top))
        measure("import maestro", lambda: import_flow(top, folder / "out"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
