"""Replay next to a hand-written client script: the login trail, side by side on one simulator.

The yardstick for a replay is what a careful engineer's raw script does with the same client on the
same device: the same six actions, waiting for each element the way the client's docs say
(`d(...).click()` waits with `waitForExists` on uiautomator2, `s(...).click()` polls `/elements` on
facebook-wda). Four ways to run `trails/login.trail.yaml`, one process, one simulator per platform:

- `raw`: the hand-written script below (uiautomator2 / facebook-wda, nothing from trailblaze);
- `library`: `trailblaze.engine.replay.replay_trail` on an open `DeviceSession`;
- `cli`: `trailblaze replay` with its default run directory (screenshots, report files);
- `cli CI=true`: the same under `CI=true`, i.e. the CI defaults (a failing step's screenshot only).

Latency profiles `realistic` (dumps 150–400 ms, actions 30–80 ms, screenshots 80–200 ms, other
calls 5–20 ms) and `zero`. Every request the simulator serves is counted by kind (`dump`, `action`,
`screenshot`, `other`); hierarchy dumps per action are the `dump` requests divided by the trail's six
actions. The CLI line also gives CLI ÷ library (what the run directory, opening the device and the
report cost on top of the library) and the screenshots it took. On the zero profile the library
replay also runs under cProfile and prints the seconds the framework itself spent in `time.sleep`
(the simulator's threads are not profiled: their sleeps are the latency).

The CLI is measured in-process (`cli.main`), so interpreter start-up and imports are not in it; they
are printed separately first: `trailblaze --version` as a process, and a whole `trailblaze replay`
process on a running simulator next to the same command in-process (the difference is what a fresh
process pays: interpreter, imports, driver plugin).

Run: python benchmarks/replay_vs_raw.py [--runs N]   (medians of N runs, default 5)
To measure another checkout (e.g. main), put its source first: PYTHONPATH=/path/to/checkout python …
"""

from __future__ import annotations

import contextlib
import cProfile
import io
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trailblaze.device.devices import open_device
from trailblaze.engine.replay import build_memory, replay_trail
from trailblaze.trail.model import load_trail
from trailblaze_sim.faults import LATENCY_PROFILES, Conditions, FaultKind, RequestKind
from trailblaze_sim.runtime import Simulator, start_simulator

_ROOT = Path(__file__).resolve().parents[1]
_TRAIL = _ROOT / "trails" / "login.trail.yaml"
_APP = "dev.trailblaze.demo"
_EMAIL = "user@example.com"
_PASSWORD = "hunter2"
_ACTIONS = 6  # launch, tap, type, tap, type, tap (the final check is not an action)


@dataclass
class _Counting(Conditions):
    """Conditions that also count the requests the simulator serves, by kind."""

    kinds: Counter[str] = field(default_factory=Counter)

    def before_request(self, kind: RequestKind) -> FaultKind | None:
        self.kinds[kind] += 1
        return super().before_request(kind)


# --- the hand-written scripts ----------------------------------------------------------------------


def _raw_android(port: int) -> Callable[[], None]:
    import adbutils
    import uiautomator2

    d = uiautomator2.connect(adbutils.AdbClient(host="127.0.0.1", port=port).device("emulator-5554"))
    rid = f"{_APP}:id/"

    def script() -> None:
        d.app_clear(_APP)
        d.app_start(_APP, stop=True)
        d(resourceId=rid + "email").click(timeout=10)
        d.send_keys(_EMAIL, clear=False)
        d(resourceId=rid + "password").click(timeout=10)
        d.send_keys(_PASSWORD, clear=False)
        d(resourceId=rid + "sign_in").click(timeout=10)
        assert d(text="Inbox", clickable=False).wait(timeout=10), "Inbox did not show"

    return script


def _raw_ios(url: str) -> Callable[[], None]:
    import wda

    s = wda.Client(url).session()

    def script() -> None:
        s.app_terminate(_APP)
        s.app_launch(_APP, environment={"TRAILBLAZE_CLEAR_STATE": "1"})
        s(id="email").click(timeout=10)
        s.send_keys(_EMAIL)
        s(id="password").click(timeout=10)
        s.send_keys(_PASSWORD)
        s(id="sign_in").click(timeout=10)
        assert s(label="Inbox", className="XCUIElementTypeStaticText").wait(timeout=10), "Inbox did not show"

    return script


# --- the library and the CLI -----------------------------------------------------------------------


def _device_spec(sim: Simulator) -> tuple[str, dict[str, str]]:
    if sim.platform == "android":
        return "android:emulator-5554", {
            "ANDROID_ADB_SERVER_PORT": str(sim.port),
            "ANDROID_ADB_SERVER_HOST": "127.0.0.1",
        }
    return f"ios:http://127.0.0.1:{sim.port}", {}


@contextlib.contextmanager
def _library(
    sim: Simulator, tmp: Path
) -> Iterator[tuple[Callable[[], None], Callable[[], dict[str, float]]]]:
    spec, env = _device_spec(sim)
    path = tmp / "login.trail.yaml"
    path.write_bytes(_TRAIL.read_bytes())
    with open_device(spec, env={**os.environ, **env}) as session:

        def run() -> None:
            trail = load_trail(path)
            record = replay_trail(trail, session, memory=build_memory(trail, secrets={"password": _PASSWORD}))
            assert record.status == "passed", record.error

        def stats() -> dict[str, float]:
            return {"dumps": session.stats.dumps, "actions": session.stats.actions}

        yield run, stats


def _cli_args(sim: Simulator, tmp: Path) -> tuple[list[str], dict[str, str]]:
    spec, env = _device_spec(sim)
    path = tmp / "login.trail.yaml"
    path.write_bytes(_TRAIL.read_bytes())
    return ["replay", str(path), "--device", spec, "--secret", f"password={_PASSWORD}"], env


def _cli(sim: Simulator, tmp: Path, *, ci: bool = False) -> Callable[[], None]:
    """`trailblaze replay` in-process; `ci`: with CI=true, i.e. the CI defaults (trailblaze.engine.ci_defaults)."""
    from trailblaze.cli.main import cli

    args, env = _cli_args(sim, tmp)
    env = {**env, "CI": "true" if ci else "false"}
    runs = tmp / "runs"

    def run() -> None:
        old = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                code = cli.main(
                    args=[*args, "--run-dir", str(runs / str(time.monotonic_ns()))],
                    prog_name="trailblaze", standalone_mode=False,
                )  # fmt: skip
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        assert code == 0, f"trailblaze replay exited {code}"

    return run


# --- measuring -------------------------------------------------------------------------------------


def _process(args: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> float:
    """Wall seconds of `python -m trailblaze ARGS` as a fresh process (it must exit 0)."""
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "trailblaze", *args],
        env={**os.environ, **(env or {})}, cwd=cwd, capture_output=True, text=True, check=False,
    )  # fmt: skip
    seconds = time.perf_counter() - t0
    assert done.returncode == 0, f"trailblaze {' '.join(args)} exited {done.returncode}: {done.stderr[-300:]}"
    return seconds


def _startup(repeats: int) -> None:
    """What a fresh CLI process pays before (and around) the work: interpreter, imports, plugins."""
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        version = statistics.median(_process(["--version"], cwd=tmp) for _ in range(max(3, repeats)))
        sim = start_simulator("android", "demo", latency="realistic")
        try:
            args, env = _cli_args(sim, tmp)
            inproc = _cli(sim, tmp)
            inproc()  # warm-up: imports, connections
            process, inside = [], []
            for n in range(repeats):
                process.append(_process([*args, "--run-dir", str(tmp / f"p{n}")], env, cwd=tmp))
                t0 = time.perf_counter()
                inproc()
                inside.append(time.perf_counter() - t0)
        finally:
            sim.stop()
        report = statistics.median(_report_s(run) for run in sorted((tmp / "runs").iterdir())[-3:])
    p, i = statistics.median(process), statistics.median(inside)
    print(
        f"CLI start-up: `trailblaze --version` {version * 1000:.0f} ms as a process; `trailblaze replay` "
        f"(android, realistic) {p:.2f} s as a process vs {i:.2f} s in-process: {(p - i) * 1000:+.0f} ms "
        f"for interpreter, imports and plugin loading; the HTML report of that run (`--report`) {report * 1000:.0f} ms"
    )


def _report_s(run_dir: Path) -> float:
    from trailblaze.output.report import write_html_report

    t0 = time.perf_counter()
    write_html_report(run_dir, run_dir / "report.html")
    return time.perf_counter() - t0


@dataclass
class _Figures:
    seconds: float
    requests: float
    dumps: float
    screenshots: float = 0.0


def _measure(run: Callable[[], None], cond: _Counting, repeats: int) -> _Figures:
    run()  # warm-up: connections, imports, caches
    times: list[float] = []
    requests: list[int] = []
    dumps: list[int] = []
    shots: list[int] = []
    for _ in range(repeats):
        before_n, before_d, before_s = cond.requests, cond.kinds["dump"], cond.kinds["screenshot"]
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
        requests.append(cond.requests - before_n)
        dumps.append(cond.kinds["dump"] - before_d)
        shots.append(cond.kinds["screenshot"] - before_s)
    return _Figures(
        statistics.median(times), statistics.median(requests), statistics.median(dumps), statistics.median(shots)
    )


def _framework_sleep_s(run: Callable[[], None]) -> tuple[float, int, float, int]:
    """Seconds and calls of `time.sleep` made by trailblaze's own code (not the simulator's) in one run,
    then the same for the drivers (WDA has no server-side element wait: the iOS driver polls)."""
    prof = cProfile.Profile()
    prof.runcall(run)
    stats: Any = pstats.Stats(prof)
    total, calls, driver_s, driver_calls = 0.0, 0, 0.0, 0
    for func, (_cc, _nc, _tt, _ct, callers) in stats.stats.items():
        if func[2] != "<built-in method time.sleep>":
            continue
        for caller, (_ccc, ncalls, tt, _ct2) in callers.items():
            where = caller[0].replace("\\", "/")
            if "/trailblaze/" in where:  # the core; the simulator lives in trailblaze_sim/
                total += tt
                calls += ncalls
            elif "/trailblaze_android/" in where or "/trailblaze_ios/" in where:
                driver_s += tt
                driver_calls += ncalls
    return total, calls, driver_s, driver_calls


def _platform(platform: str, profile: str, repeats: int) -> None:
    cond = _Counting(latency=LATENCY_PROFILES[profile], seed=11)
    sim = start_simulator(platform, "demo", latency=cond)
    try:
        with tempfile.TemporaryDirectory() as tmp_name:
            tmp = Path(tmp_name)
            raw = _measure(
                _raw_android(sim.port) if platform == "android" else _raw_ios(f"http://127.0.0.1:{sim.port}"),
                cond,
                repeats,
            )
            with _library(sim, tmp) as (lib_run, lib_stats):
                s0 = lib_stats()
                lib = _measure(lib_run, cond, repeats)
                s1 = lib_stats()
                session_dumps = (s1["dumps"] - s0["dumps"]) / (repeats + 1)
                sleeps = _framework_sleep_s(lib_run) if profile == "zero" else (0.0, 0, 0.0, 0)
            cli = _measure(_cli(sim, tmp), cond, repeats)
            cli_ci = _measure(_cli(sim, tmp, ci=True), cond, repeats)
    finally:
        sim.stop()
    print(
        f"{platform:<8} {profile:<10} raw {raw.seconds:5.2f} s ({raw.requests:3.0f} req, {raw.dumps:2.0f} dumps)  "
        f"library {lib.seconds:5.2f} s ({lib.requests:3.0f} req, {lib.dumps:2.0f} dumps) ×{lib.seconds / raw.seconds:4.2f}  "
        f"cli {cli.seconds:5.2f} s ({cli.requests:3.0f} req, {cli.dumps:2.0f} dumps, {cli.screenshots:2.0f} shots) "
        f"×{cli.seconds / raw.seconds:4.2f} (cli ÷ library {cli.seconds / lib.seconds:4.2f})  "
        f"cli CI=true {cli_ci.seconds:5.2f} s ({cli_ci.requests:3.0f} req, {cli_ci.screenshots:2.0f} shots) "
        f"(÷ library {cli_ci.seconds / lib.seconds:4.2f})  "
        f"dumps/action {session_dumps / _ACTIONS:4.2f}"
        + (
            f"  framework sleep {sleeps[0] * 1000:4.0f} ms in {sleeps[1]} calls"
            f" (driver polls {sleeps[2] * 1000:4.0f} ms in {sleeps[3]})"
            if profile == "zero"
            else ""
        )
    )


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description="Replay next to a hand-written client script (login trail).")
    parser.add_argument("--runs", type=int, default=5, help="repetitions per mode (medians; default 5)")
    repeats = parser.parse_args().runs
    print(
        f"Replay vs a hand-written client script — trails/login.trail.yaml, medians of {repeats} runs; "
        "× = ÷ raw (goal: library ≤ 1.15 realistic, cli ≤ 1.3, cli CI=true ÷ library ≤ 1.15, dumps/action ≤ 1.2, "
        "no framework sleep on zero)"
    )
    import trailblaze

    print(f"trailblaze from {Path(trailblaze.__file__).parent}")
    _startup(repeats)
    for profile in ("realistic", "zero"):
        for platform in ("android", "ios"):
            _platform(platform, profile, repeats)


if __name__ == "__main__":
    main()
