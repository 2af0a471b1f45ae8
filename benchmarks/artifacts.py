"""Issue 19 item 4: what the run directory's artifacts cost, and whether a long run grows quadratically.

Three figures, each on the simulated demo app through the real clients:

1. **Replay**: the example trails in `trails/` replayed by the CLI with the default run directory,
   by the CLI with `--screenshots off` (when the CLI has the option), and by the library
   (`replay_trail`, no run directory), on the realistic latency profile. Per trail: the sum of the
   trails' `duration_ms` from run.json (library: measured around `replay_trail`), so process and
   simulator start-up do not count; plus the CLI's wall time.
   1b. **The run directory's own cost**, in one process: three example trails replayed on one session
   with no run directory and with one in each screenshot mode, interleaved (load drift hits all alike).
2. **Record**: framework time per agent iteration with the model excluded — `trailblaze record
   --no-verify` of NL-only copies of some example trails against the local Messages-API fake with the
   demo policy; for the agent-solved steps, (step time − model call time) ÷ model calls, from run.json.
   Also the parts: one `driver.screenshot()` and one model image build (`agent.model_image`).
3. **Scale**: a folder of N copies of the login trail vs one of 5 (zero latency), CLI replay: the mean
   trail duration of each, and of the last 5 trails of the long run (a quadratic term shows as growth).
   3b. **The run log alone**: N trails of 6 steps through `RunDir` with no device, ms per trail at the
   start and at the end of the run.

Run: python benchmarks/artifacts.py [--platform android] [--reps 1] [--scale 50] [--skip replay,rundir,record,scale,log]
To measure another checkout (e.g. main), put its source first: PYTHONPATH=/path/to/checkout python …
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

_ROOT = Path(__file__).resolve().parents[1]
_SECRET = "password=hunter2"
_RECORD_TRAILS = ("login.trail.yaml", "search.trail.yaml", "settings-dark-mode.trail.yaml")


def _closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def _cli(*args: str, base_url: str | None = None) -> tuple[subprocess.CompletedProcess[str], float]:
    env = {**os.environ, "ANTHROPIC_BASE_URL": base_url or _closed_port_url(), "COLUMNS": "200"}
    env.pop("ANTHROPIC_API_KEY", None)
    t0 = time.perf_counter()
    # run from a neutral folder: `python -m` puts the working directory first on sys.path, which would
    # shadow a checkout given by PYTHONPATH with a trailblaze/ folder in the current directory
    done = subprocess.run(
        [sys.executable, "-m", "trailblaze", *args],
        env=env,
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
    )
    return done, time.perf_counter() - t0


def _trails(run_dir: Path) -> list[dict[str, Any]]:
    trails: list[dict[str, Any]] = json.loads((run_dir / "run.json").read_text())["trails"]
    return trails


def _has_screenshots_option() -> bool:
    done, _ = _cli("replay", "--help")
    return "--screenshots" in done.stdout


# --- 1. replay ----------------------------------------------------------------------------------------


def _cli_replay(platform: str, latency: str, run_dir: Path, *extra: str) -> tuple[float, float, int]:
    """(seconds per trail from run.json, wall seconds, trails) of one CLI replay of trails/."""
    done, wall = _cli("replay", str(_ROOT / "trails"), "--device", f"sim:{platform}", "--latency", latency,
                      "--secret", _SECRET, "--run-dir", str(run_dir), *extra)  # fmt: skip
    trails = _trails(run_dir)
    bad = [t["path"] for t in trails if not t["status"].startswith("passed")]
    if done.returncode != 0 or bad:
        print(f"    (replay exit {done.returncode}; not passed: {bad}) {done.stdout[-300:]}")
    return sum(t["duration_ms"] for t in trails) / 1000 / len(trails), wall, len(trails)


def _library_replay(platform: str, latency: str) -> float:
    """Seconds per trail of `replay_trail` with no run directory, every example trail, one session."""
    from trailblaze.device.devices import open_device
    from trailblaze.engine.replay import build_memory, replay_trail
    from trailblaze.trail.model import find_trail_files, load_trail

    files, _ = find_trail_files([_ROOT / "trails"], platform)
    total = 0.0
    with open_device(f"sim:{platform}", latency=latency) as session:
        for file in files:
            trail = load_trail(file)
            memory = build_memory(trail, None, None, {"password": "hunter2"})
            session.invalidate()
            t0 = time.perf_counter()
            record = replay_trail(trail, session, memory=memory, device=f"sim:{platform}")
            total += time.perf_counter() - t0
            if not record.status.startswith("passed"):
                print(f"    (library replay of {file}: {record.status} {record.error})")
    return total / len(files)


def _replay(platforms: list[str], reps: int, tmp: Path) -> None:
    print("\n1. replay of the example trails, realistic profile (seconds per trail, median of "
          f"{reps}; CLI wall time for all trails in brackets)")  # fmt: skip
    off = _has_screenshots_option()
    for platform in platforms:
        rows: dict[str, list[tuple[float, float]]] = {"CLI, default run dir": [], "CLI, --screenshots off": [],
                                                      "library replay_trail": []}  # fmt: skip
        for rep in range(reps):
            per, wall, _ = _cli_replay(platform, "realistic", tmp / f"replay-{platform}-{rep}")
            rows["CLI, default run dir"].append((per, wall))
            if off:
                per, wall, _ = _cli_replay(
                    platform, "realistic", tmp / f"off-{platform}-{rep}", "--screenshots", "off"
                )
                rows["CLI, --screenshots off"].append((per, wall))
            rows["library replay_trail"].append((_library_replay(platform, "realistic"), 0.0))
        library = statistics.median(p for p, _ in rows["library replay_trail"])
        for label, values in rows.items():
            if not values:
                print(f"  sim:{platform:<8} {label:<26} (no --screenshots option in this checkout)")
                continue
            per = statistics.median(p for p, _ in values)
            wall = statistics.median(w for _, w in values)
            walls = f" [{wall:.1f} s]" if wall else ""
            print(
                f"  sim:{platform:<8} {label:<26} {per:6.2f} s/trail  ×{per / library:.2f} of library{walls}"
            )


def _rundir_cost(platforms: list[str], reps: int, latency: str, tmp: Path) -> None:
    """The run directory's own cost: the same trails replayed in one process on one session, with no
    run directory and with one per screenshot mode, interleaved so the machine's load drifts alike."""
    import inspect

    from trailblaze.device.devices import open_device
    from trailblaze.engine.replay import build_memory, replay_trail
    from trailblaze.output.rundir import RunDir
    from trailblaze.tools.memory import Memory
    from trailblaze.trail.model import load_trail

    modes: list[str | None] = [None, "steps"]
    if "screenshots" in inspect.signature(RunDir).parameters:
        modes += ["failures", "off"]
    names = ("login.trail.yaml", "search.trail.yaml", "settings-dark-mode.trail.yaml")
    print(f"\n1b. the run directory's cost in-process, {latency} profile, {', '.join(names)} interleaved "
          f"{reps}× (median seconds per trail; screenshot round trips per trail)")  # fmt: skip
    for platform in platforms:
        times: dict[str | None, list[float]] = {m: [] for m in modes}
        shots: dict[str | None, list[int]] = {m: [] for m in modes}
        with open_device(f"sim:{platform}", latency=latency) as session:
            for rep in range(reps):
                for mode in modes:
                    run = None
                    if mode is not None:
                        kwargs: dict[str, Any] = {} if len(modes) == 2 else {"screenshots": mode}
                        root = tmp / f"rd-{platform}-{mode}-{rep}"
                        run = RunDir(root, Memory(), command=["bench"], device=f"sim:{platform}", **kwargs)
                    before = session.stats.screenshots
                    t0 = time.perf_counter()
                    for name in names:
                        trail = load_trail(_ROOT / "trails" / name)
                        memory = build_memory(trail, None, None, {"password": "hunter2"})
                        session.invalidate()
                        record = replay_trail(
                            trail, session, memory=memory, rundir=run, device=f"sim:{platform}"
                        )
                        if not record.status.startswith("passed"):
                            print(f"    ({name} {mode}: {record.status} {record.error})")
                    if run is not None:
                        run.finish()
                    times[mode].append((time.perf_counter() - t0) / len(names))
                    shots[mode].append(session.stats.screenshots - before)
        base = statistics.median(times[None])
        for mode in modes:
            label = "no run directory" if mode is None else f"run directory, {mode}"
            per = statistics.median(times[mode])
            print(f"  sim:{platform:<8} {label:<28} {per:6.2f} s/trail  +{(per - base) * 1000:5.0f} ms/trail  "
                  f"{statistics.median(shots[mode]) / len(names):.1f} screenshots/trail")  # fmt: skip


# --- 2. record ----------------------------------------------------------------------------------------


def _nl_copy(source: Path, target: Path) -> None:
    data = yaml.safe_load(source.read_text())
    for step in data["trail"]:
        step.pop("recording", None)
    target.write_text(yaml.safe_dump(data, sort_keys=False))


def _parts(platform: str, latency: str) -> tuple[float, float, str]:
    """(ms per session.screenshot(), ms per model image build, image format) on the login screen."""
    from trailblaze.agent import loop as agent
    from trailblaze.device.devices import open_device
    from trailblaze.screen.compact import compact_view

    with open_device(f"sim:{platform}", latency=latency) as session:
        session.act(lambda d: d.launch_app("dev.trailblaze.demo", "CLEAR_STATE"))
        hierarchy = session.screen()
        view = compact_view(hierarchy)
        shots = []
        image = b""
        for _ in range(8):
            session.invalidate()  # a fresh picture each time, as after an action
            session.refresh()
            t0 = time.perf_counter()
            # the device round trip plus what the driver does to the bytes
            image = session.driver.screenshot()
            shots.append(time.perf_counter() - t0)
        builds = []
        for _ in range(8):
            t0 = time.perf_counter()
            agent.model_image(image, view, hierarchy)
            builds.append(time.perf_counter() - t0)
    kind = "JPEG" if image[:3] == b"\xff\xd8\xff" else "PNG" if image[:4] == b"\x89PNG" else "?"
    return statistics.median(shots) * 1000, statistics.median(builds) * 1000, kind


def _oldmodel_image(png: bytes, view: Any, hierarchy: Any) -> bytes:
    """The model image as main built it before issue 19: five codec passes (for comparison)."""
    import io

    from PIL import Image

    from trailblaze.screen.compact import draw_set_of_mark

    with Image.open(io.BytesIO(png)) as src:
        image = src.convert("RGB")
    short, long = sorted(image.size)
    factor = min(1.0, 768 / short, 1024 / long)
    if factor < 1.0:
        image = image.resize((max(1, round(image.width * factor)), max(1, round(image.height * factor))))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    marked = draw_set_of_mark(buffer.getvalue(), view, hierarchy.scale * factor)
    with Image.open(io.BytesIO(marked)) as final:
        out = io.BytesIO()
        final.convert("RGB").save(out, format="JPEG", quality=75)
    return out.getvalue()


def _codec_compare(platform: str, rounds: int = 15) -> None:
    """Client CPU for one screenshot's way to the model, old pipeline vs new, interleaved on the same
    picture: old = the Android driver's JPEG→PNG re-encode + five codec passes; new = one pass."""
    import io

    from PIL import Image

    from trailblaze.agent import loop as agent
    from trailblaze.device.devices import open_device
    from trailblaze.screen.compact import compact_view

    with open_device(f"sim:{platform}", latency="zero") as session:
        session.act(lambda d: d.launch_app("dev.trailblaze.demo", "CLEAR_STATE"))
        hierarchy = session.screen()
        view = compact_view(hierarchy)
        shot = session.driver.screenshot()
    old_ms: list[float] = []
    new_ms: list[float] = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        png = shot
        if shot[:3] == b"\xff\xd8\xff":  # what the Android driver did with u2's JPEG
            with Image.open(io.BytesIO(shot)) as decoded:
                out = io.BytesIO()
                decoded.save(out, format="PNG", compress_level=1)
                png = out.getvalue()
        _oldmodel_image(png, view, hierarchy)
        old_ms.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        agent.model_image(shot, view, hierarchy)
        new_ms.append((time.perf_counter() - t0) * 1000)
    old, new = statistics.median(old_ms), statistics.median(new_ms)
    print(f"  sim:{platform:<8} client CPU from device bytes to the model's JPEG, interleaved {rounds}x: "
          f"old {old:.0f} ms, new {new:.0f} ms (x{old / new:.1f} less)")  # fmt: skip


def _record(platforms: list[str], tmp: Path) -> None:
    from trailblaze.testing import FakeMessagesAPI
    from trailblaze.testing.demo_policy import demo_policy

    print(
        "\n2. record: framework time per agent iteration, model excluded, realistic profile (goal ≤ 250 ms)"
    )
    with FakeMessagesAPI(policy=demo_policy) as api:
        for platform in platforms:
            work = tmp / f"record-{platform}"
            work.mkdir()
            for name in _RECORD_TRAILS:
                _nl_copy(_ROOT / "trails" / name, work / name)
            # the demo's own tools, which the examples' config.tools offer the agent
            shutil.copytree(
                _ROOT / "trails" / "tools", work / "tools", ignore=shutil.ignore_patterns("__pycache__")
            )
            run_dir = tmp / f"record-run-{platform}"
            done, wall = _cli("record", *(str(work / n) for n in _RECORD_TRAILS), "--device", f"sim:{platform}",
                              "--latency", "realistic", "--secret", _SECRET, "--no-verify", "--run-dir", str(run_dir),
                              base_url=api.url)  # fmt: skip
            if done.returncode != 0:
                print(f"    (record exit {done.returncode}) {(done.stdout + done.stderr)[-400:]}")
            step_ms = model_ms = tool_ms = 0.0
            calls = 0
            for trail in _trails(run_dir):
                for step in trail["steps"]:
                    if step["mode"] != "agent":
                        continue
                    step_ms += step["duration_ms"]
                    model_ms += sum(c["duration_ms"] for c in step["llm_calls"])
                    tool_ms += sum(t["duration_ms"] for t in step["tools"])
                    calls += len(step["llm_calls"])
            shot, build, kind = _parts(platform, "realistic")
            per = (step_ms - model_ms) / calls if calls else float("nan")
            print(f"  sim:{platform:<8} {calls} iterations: {per:6.0f} ms framework per iteration "
                  f"(model {model_ms / max(1, calls):.0f} ms per call excluded) [record wall {wall:.1f} s]")  # fmt: skip
            rest = (step_ms - model_ms - tool_ms) / max(1, calls)
            print(f"  sim:{platform:<8} of which tools (action + settle) {tool_ms / max(1, calls):.0f} ms, "
                  f"the rest (screen capture, model image, request, run directory) {rest:.0f} ms")  # fmt: skip
            print(f"  sim:{platform:<8} parts: driver.screenshot() {shot:.0f} ms ({kind} bytes), "
                  f"model image build {build:.1f} ms")  # fmt: skip
            _codec_compare(platform)


# --- 3. scale -----------------------------------------------------------------------------------------


def _scale(platform: str, big: int, tmp: Path) -> None:
    print(
        f"\n3. a folder of {big} trails vs one of 5, CLI replay, zero latency, sim:{platform} (seconds per trail)"
    )
    results: dict[int, list[float]] = {}
    walls: dict[int, float] = {}
    for n in (5, big):
        folder = tmp / f"scale-{n}"
        folder.mkdir()
        source = (_ROOT / "trails" / "login.trail.yaml").read_text()
        for i in range(n):
            (folder / f"login-{i:03d}.trail.yaml").write_text(
                source.replace("id: demo/login", f"id: demo/login-{i}")
            )
        run_dir = tmp / f"scale-run-{n}"
        done, walls[n] = _cli("replay", str(folder), "--device", f"sim:{platform}", "--latency", "zero",
                              "--secret", _SECRET, "--run-dir", str(run_dir))  # fmt: skip
        if done.returncode != 0:
            print(f"    (replay of {n} exit {done.returncode}) {done.stdout[-300:]}")
        results[n] = [t["duration_ms"] / 1000 for t in _trails(run_dir)]
    for n, durations in results.items():
        print(f"  {n:>3} trails: mean {statistics.mean(durations):.3f} s/trail, first 5 "
              f"{statistics.mean(durations[:5]):.3f}, last 5 {statistics.mean(durations[-5:]):.3f}; "
              f"wall {walls[n]:.1f} s = {walls[n] / n:.3f} s/trail")  # fmt: skip
    small, large = statistics.mean(results[5]), statistics.mean(results[big])
    print(f"  {big}-trail mean ÷ 5-trail mean: ×{large / small:.3f}; last 5 ÷ first 5 of the {big}: "
          f"×{statistics.mean(results[big][-5:]) / statistics.mean(results[big][:5]):.3f}")  # fmt: skip


def _log_cost(trails: int, tmp: Path) -> None:
    """The run log's own cost per trail, device excluded: a run of `trails` trails of 6 steps (3 tools
    each) recorded through `RunDir` with no session, timing every `RunDir` call of each trail."""
    from trailblaze.output.rundir import RunDir
    from trailblaze.output.runlog import StepRecord, ToolRecord, TrailRecord
    from trailblaze.tools.memory import Memory

    run = RunDir(tmp / "log-cost", Memory(), command=["bench"], device="sim:android")
    per_trail: list[float] = []
    for i in range(trails):
        t0 = time.perf_counter()
        run.start_trail(TrailRecord(path=f"t{i:03d}.trail.yaml", device="sim:android", platform="android"))
        for j in range(6):
            step = run.start_step(StepRecord(index=j, kind="step", text=f"Step {j} of trail {i}"), None)
            for k in range(3):
                step.tools.append(ToolRecord(name="tapOnElementBySelector", params={"k": k}, status="OK"))
            run.finish_step(None, time.monotonic())
        run.finish_trail("passed", None, time.monotonic())
        per_trail.append((time.perf_counter() - t0) * 1000)
    run.finish()
    first, last = statistics.mean(per_trail[:5]), statistics.mean(per_trail[-5:])
    print(f"\n3b. the run log's own cost, no device: {trails} trails x 6 steps through RunDir (ms per trail)")
    print(f"  trails 1-5: {first:.1f} ms, trails {trails - 4}-{trails}: {last:.1f} ms (x{last / first:.2f}), "
          f"total {sum(per_trail) / 1000:.2f} s")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platform", action="append", choices=("android", "ios"))
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--scale", type=int, default=50)
    parser.add_argument("--skip", default="", help="comma-separated: replay, rundir, record, scale, log")
    parser.add_argument("--rundir-latency", choices=("zero", "realistic"), default="realistic")
    args = parser.parse_args()
    platforms = args.platform or ["android", "ios"]
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    import trailblaze

    print(f"trailblaze from {Path(trailblaze.__file__).parent}")
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        if "replay" not in skip:
            _replay(platforms, args.reps, tmp)
        if "rundir" not in skip:
            _rundir_cost(platforms, max(3, args.reps), args.rundir_latency, tmp)
        if "record" not in skip:
            _record(platforms, tmp)
        if "scale" not in skip:
            _scale(platforms[0], args.scale, tmp)
        if "log" not in skip:
            _log_cost(args.scale, tmp)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
