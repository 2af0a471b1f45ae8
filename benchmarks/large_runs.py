"""Issue 38 item 7: a run of 1,000 trails — the report's size and first paint, replay's memory, validate.

1. **Report bytes per trail**: a synthetic run directory of `--trails` trails (the five trails of
   tests/support/report.py, over and over, with real simulator captures) rendered by
   `write_html_report`: the page with its pictures beside it (the default) and `single_file`.
2. **First paint**: that page opened in headless Chromium (Debian's `chromium`, driven by Playwright):
   first contentful paint, DOMContentLoaded and load, the median of three.
3. **Replay's peak RSS**: `trailblaze replay` of `--small` and then `--trails` copies of a 2-step trail
   on `sim:android` (zero latency) in one process each, with `--report` and `--junit`; the child's
   own peak resident memory (`wait4`), and their ratio.
4. **validate**: `trailblaze validate` of `--trails` copies of trails/search.trail.yaml (6 steps, both
   platforms), wall time of the command.

Targets: at most 20 KB of HTML per trail, first paint within 2 s, peak RSS at 1,000 trails at most
1.2 x that at 100, validate of 1,000 files within 10 s. The replay part takes about five minutes
(`--skip-replay` leaves it out).

Run: python benchmarks/large_runs.py [--trails 1000] [--small 100] [--skip-replay]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(_ROOT))

from tests.support.report import build_many_trails  # noqa: E402 — the repo root goes on sys.path first

_TWO_STEPS = """\
config:
  id: bench/two-{n}
  title: Two steps {n}
  target: dev.trailblaze.demo
trail:
  - step: Launch the demo app with a clean state
    recording:
      android:
        - launchApp:
            appId: dev.trailblaze.demo
            launchMode: CLEAR_STATE
  - step: Type user@example.com into the Email field
    recording:
      android:
        - tapOnElementBySelector:
            nodeSelector:
              androidAccessibility:
                resourceIdRegex: dev.trailblaze.demo:id/email
        - inputText:
            text: user@example.com
"""

_PAINT = """() => new Promise(resolve => {
  new PerformanceObserver(list => {
    for (const e of list.getEntries()) if (e.name === 'first-contentful-paint') resolve(e.startTime);
  }).observe({type: 'paint', buffered: true});
  setTimeout(() => resolve(null), 60000);
})"""


def _report(work: Path, trails: int) -> Path:
    from trailblaze.output.report import write_html_report

    run_dir = work / "synthetic"
    build_many_trails(run_dir, trails)
    t0 = time.perf_counter()
    page = write_html_report(run_dir)
    beside_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    single = write_html_report(run_dir, work / "single.html", single_file=True)
    single_s = time.perf_counter() - t0
    for label, path, took in (("pictures beside it", page, beside_s), ("--report-single-file", single, single_s)):
        size = path.stat().st_size
        print(f"  report, {label:<22} {size / trails / 1024:7.1f} KB per trail ({size / 1e6:6.1f} MB, written in {took:.1f} s)")
    return page


def _first_paint(page: Path) -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("  first paint: needs Playwright (pip install -e ./drivers/web)")
        return
    if browser is None:
        print("  first paint: needs Chromium (apt-get install chromium)")
        return
    runs: list[tuple[float, float, float]] = []
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=browser, args=["--no-sandbox"])
        for _ in range(3):
            tab = chromium.new_page(viewport={"width": 1280, "height": 900})
            tab.goto(page.as_uri(), wait_until="commit", timeout=300_000)
            paint = tab.evaluate(_PAINT)
            tab.wait_for_load_state("load", timeout=300_000)
            ready, loaded = tab.evaluate(
                "() => { const n = performance.getEntriesByType('navigation')[0]; "
                "return [n.domContentLoadedEventEnd, n.loadEventEnd] }"
            )
            runs.append((float(paint or 0), float(ready), float(loaded)))
            tab.close()
        chromium.close()
    paint, ready, loaded = (statistics.median(r[i] for r in runs) / 1000 for i in range(3))
    print(f"  first paint in headless Chromium: {paint:.2f} s (DOMContentLoaded {ready:.2f} s, load {loaded:.2f} s)")


def _peak_rss_mb(args: list[str], cwd: Path) -> tuple[float, float]:
    """The command's own peak resident memory (MB) and its wall time (s)."""
    t0 = time.perf_counter()
    child = subprocess.Popen(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    took = time.perf_counter() - t0
    if child.returncode != 0:
        err = child.stderr.read().decode() if child.stderr else ""
        sys.exit(f"{' '.join(args)} exited {child.returncode}: {err[-2000:]}")
    return usage.ru_maxrss / 1024, took


def _replay_memory(work: Path, counts: tuple[int, ...]) -> None:
    peaks = []
    for count in counts:
        folder = work / f"trails-{count}"
        folder.mkdir()
        for n in range(count):
            (folder / f"two-{n:04d}.trail.yaml").write_text(_TWO_STEPS.format(n=f"{n:04d}"))
        run = work / f"run-{count}"
        peak, took = _peak_rss_mb(
            [sys.executable, "-m", "trailblaze", "replay", str(folder), "--device", "sim:android",
             "--run-dir", str(run), "--report", str(run / "report.html"), "--junit", str(run / "junit.xml")],
            work,
        )  # fmt: skip
        peaks.append(peak)
        print(f"  replay of {count:>5} trails: peak RSS {peak:6.0f} MB ({took:.0f} s)")
    print(f"  peak RSS at {counts[-1]} ÷ at {counts[0]}: {peaks[-1] / peaks[0]:.2f}")


def _validate(work: Path, count: int) -> None:
    folder = work / "validate"
    folder.mkdir()
    text = (_ROOT / "trails" / "search.trail.yaml").read_text()
    for n in range(count):
        (folder / f"s{n:04d}.trail.yaml").write_text(text.replace("demo/search", f"demo/search-{n}"))
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "trailblaze", "validate", str(folder)], capture_output=True, text=True)
    took = time.perf_counter() - t0
    if done.returncode != 0:
        sys.exit(done.stdout + done.stderr)
    print(f"  validate of {count} files: {took:.1f} s ({done.stdout.strip().splitlines()[-1].split(',')[0]})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trails", type=int, default=1000, help="trails of the large run (default 1000)")
    parser.add_argument("--small", type=int, default=100, help="trails of the small replay (default 100)")
    parser.add_argument("--skip-replay", action="store_true", help="leave out the replays (about five minutes)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        print(f"a run of {args.trails} trails:")
        _first_paint(_report(work, args.trails))
        if not args.skip_replay:
            _replay_memory(work, (args.small, args.trails))
        _validate(work, args.trails)


if __name__ == "__main__":
    main()
