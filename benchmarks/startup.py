"""Figure: what a fresh `trailblaze` process pays on top of the work (issue 29: ≤ 250 ms; `--help` ≤ 100 ms).

Prints, as medians of N fresh processes:

- the interpreter floor (`python -c pass`), `trailblaze --help` and `trailblaze replay --help`, each
  also net of the floor;
- a whole `trailblaze replay trails/login.trail.yaml` process against a simulated Android phone
  (zero latency, started by this script, reached as `--device android` through
  `ANDROID_ADB_SERVER_PORT`) next to the same command run in this process (`cli.main`, warmed up):
  the difference is the process's start-up — interpreter, imports, driver plugin;
- `trailblaze validate trails/login.trail.yaml` next to its floor, `python -c "import pydantic, yaml,
  click"` (the libraries a validate cannot do without): the difference is ours (issue 39: ≤ +0.1 s);
- what the replay process's imports cost, group by group (CPU, fresh processes importing every
  module the replay loaded): the interpreter, pydantic/yaml/click, rich, trailblaze and its driver
  plugin (with what they import), then the device libraries (uiautomator2, adbutils, requests …);
- the modules `import trailblaze.cli.main` takes longest to import (`python -X importtime`).

Targets (issue 39 item 6): a replay process ≤ +250 ms over in-process, `validate` ≤ +0.1 s over its
floor (docs/adr/0063-start-up.md).

Each figure twice: with a bytecode cache (what an installed package or any second run has) and
without one for trailblaze's own sources (PYTHONDONTWRITEBYTECODE=1, as on the machine the figures
of issue 29 came from: every process compiles the sources again). Wall times are medians; CPU times
(user + system, of the process alone: the simulator runs in a process of its own) are the least of
the runs, the figure a shared machine disturbs least.

Run: python benchmarks/startup.py [--runs N]   (default 9)
To measure another checkout (e.g. main), put its source first: PYTHONPATH=/path/to/checkout python …
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
_TRAIL = _ROOT / "trails" / "login.trail.yaml"
_PASSWORD = "hunter2"  # the demo app's password (trails/login.trail.yaml's secret)
_PYCACHE = str(Path(tempfile.gettempdir()) / "trailblaze-startup-pycache")


def _cached_env() -> dict[str, str]:
    """The environment of a fresh process that reuses compiled bytecode, as an installed package does.

    This machine sets PYTHONDONTWRITEBYTECODE=1, so every process would compile trailblaze's sources
    again; the cache goes to a temporary folder, not into the checkout."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = _PYCACHE
    return env


def _uncached_env() -> dict[str, str]:
    """Bytecode only where the installer wrote it (the standard library, site-packages)."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTHONPYCACHEPREFIX", None)
    return env


def _process(argv: list[str], env: dict[str, str], cwd: Path | None = None) -> tuple[float, float]:
    """(wall ms, CPU ms) of a fresh process, which must exit 0. It runs outside the checkout (unless
    `cwd`), so that `python -m` imports what PYTHONPATH names first, not the checkout it stands in."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd or tempfile.gettempdir(), capture_output=True, check=False)
    wall = (time.perf_counter() - t0) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert done.returncode == 0, f"{' '.join(argv)} exited {done.returncode}: {done.stderr[-300:]!r}"
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu


def _figure(samples: list[tuple[float, float]]) -> tuple[float, float]:
    """Median wall time and the least CPU time: the machine is shared, and CPU time is what the
    process itself costs."""
    return statistics.median(w for w, _ in samples), min(c for _, c in samples)


def _help_rows(runs: int, env: dict[str, str]) -> list[tuple[str, float, float]]:
    py = sys.executable
    rows = [
        (
            "python -c pass (interpreter floor)",
            *_figure([_process([py, "-c", "pass"], env) for _ in range(runs)]),
        )
    ]
    for args in (["--help"], ["replay", "--help"]):
        samples = [_process([py, "-m", "trailblaze", *args], env) for _ in range(runs)]
        rows.append((f"trailblaze {' '.join(args)}", *_figure(samples)))
    return rows


def _validate_rows(runs: int, env: dict[str, str]) -> list[tuple[str, float, float]]:
    """`trailblaze validate` of one trail and its floor: the third-party libraries it needs, imported."""
    py = sys.executable
    floor = [_process([py, "-c", "import pydantic, yaml, click"], env) for _ in range(runs)]
    done = [_process([py, "-m", "trailblaze", "validate", str(_TRAIL)], env) for _ in range(runs)]
    return [
        ("python -c 'import pydantic, yaml, click' (validate floor)", *_figure(floor)),
        ("trailblaze validate trails/login.trail.yaml", *_figure(done)),
    ]


def _start_simulator() -> tuple[subprocess.Popen[str], str]:
    """`trailblaze sim android` in a process of its own, so this process's CPU time is the client's."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "trailblaze", "sim", "android", "--gestures", "instant"],
        stdout=subprocess.PIPE,
        text=True,
        env=_cached_env(),
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    port = line.split("ANDROID_ADB_SERVER_PORT=")[1].split(";")[0]
    return proc, port


_REPLAY_MODULES: list[str] = []
"""The modules the in-process replay imported (filled by `_replay_overhead`'s warm-up)."""


def _replay_overhead(runs: int, env: dict[str, str]) -> tuple[tuple[float, float], tuple[float, float]]:
    """(wall, CPU) ms of `trailblaze replay` as a fresh process and in this process, on one simulator."""
    before = set(sys.modules)
    from trailblaze.cli.main import cli

    sim, port = _start_simulator()
    try:
        with tempfile.TemporaryDirectory() as tmp_name:
            tmp = Path(tmp_name)
            trail = tmp / "login.trail.yaml"
            trail.write_bytes(_TRAIL.read_bytes())
            device_env = {"ANDROID_ADB_SERVER_HOST": "127.0.0.1", "ANDROID_ADB_SERVER_PORT": port}
            args = ["replay", str(trail), "--device", "android", "--secret", f"password={_PASSWORD}"]

            def in_process(n: int) -> tuple[float, float]:
                old = {k: os.environ.get(k) for k in device_env}
                os.environ.update(device_env)
                t0, c0 = time.perf_counter(), time.process_time()
                try:
                    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                        code = cli.main(
                            args=[*args, "--run-dir", str(tmp / f"i{n}")],
                            prog_name="trailblaze",
                            standalone_mode=False,
                        )
                finally:
                    for k, v in old.items():
                        if v is None:
                            os.environ.pop(k, None)
                        else:
                            os.environ[k] = v
                assert code == 0, f"trailblaze replay exited {code}"
                return (time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000

            in_process(-1)  # warm-up: imports, the first connection
            if not _REPLAY_MODULES:
                _REPLAY_MODULES.extend(m for m in sys.modules if m not in before and "__editable__" not in m)
            process, inside = [], []
            for n in range(runs):  # interleaved, so both see the same machine
                cmd = [sys.executable, "-m", "trailblaze", *args, "--run-dir", str(tmp / f"p{n}")]
                process.append(_process(cmd, {**env, **device_env}, cwd=tmp))
                inside.append(in_process(n))
    finally:
        sim.terminate()
        sim.wait()
    return _figure(process), _figure(inside)


_GROUPS: tuple[tuple[str, tuple[str, ...] | None], ...] = (
    ("pydantic, yaml, click (every module of theirs a replay loads)", ("pydantic", "pydantic_core", "yaml", "click")),
    ("rich (the console)", ("rich",)),
    ("trailblaze and its driver plugin, with what they import", ("trailblaze", "trailblaze_android")),
    ("the rest: the device libraries (uiautomator2, adbutils, requests, Pillow …)", None),
)


def _import_costs(runs: int, env: dict[str, str]) -> list[tuple[str, float]]:
    """CPU ms of fresh processes importing, group after group, the modules the replay imported."""
    py = sys.executable
    rows = [("python -c pass", _figure([_process([py, "-c", "pass"], env) for _ in range(runs)])[1])]
    chosen: list[str] = []
    for name, tops in _GROUPS:
        chosen += [m for m in _REPLAY_MODULES if m not in chosen and (tops is None or m.split(".")[0] in tops)]
        script = (
            "import importlib\n"
            f"for m in {chosen!r}:\n"
            "    try:\n        importlib.import_module(m)\n    except Exception:\n        pass\n"
        )
        rows.append((name, _figure([_process([py, "-c", script], env) for _ in range(runs)])[1]))
    return rows


def _slowest_imports(count: int) -> list[tuple[int, str]]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import trailblaze.cli.main"],
        capture_output=True,
        text=True,
        check=True,
    )
    rows: list[tuple[int, str]] = []
    for line in done.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    return sorted(rows, reverse=True)[:count]


def _print(title: str, runs: int, env: dict[str, str]) -> None:
    print(f"{title}:")
    rows = _help_rows(runs, env)
    floor_wall, floor_cpu = rows[0][1], rows[0][2]
    for name, wall, cpu in rows:
        net = (
            ""
            if name.startswith("python")
            else f"   ({wall - floor_wall:+.0f} ms wall, {cpu - floor_cpu:+.0f} ms CPU over the floor)"
        )
        print(f"  {name:36s} {wall:6.0f} ms wall {cpu:6.0f} ms CPU{net}")
    (floor_name, v_floor, v_floor_cpu), (name, v_wall, v_cpu) = _validate_rows(runs, env)
    print(f"  {floor_name:36s} {v_floor:6.0f} ms wall {v_floor_cpu:6.0f} ms CPU")
    print(
        f"  {name:36s} {v_wall:6.0f} ms wall {v_cpu:6.0f} ms CPU"
        f"   ({v_wall - v_floor:+.0f} ms wall, {v_cpu - v_floor_cpu:+.0f} ms CPU over its floor)"
    )
    (p_wall, p_cpu), (i_wall, i_cpu) = _replay_overhead(runs, env)
    print(
        f"  trailblaze replay (login trail, sim android, zero latency): {p_wall:.0f} ms as a process vs {i_wall:.0f} ms "
        f"in-process: start-up {p_wall - i_wall:+.0f} ms wall; CPU {p_cpu:.0f} vs {i_cpu:.0f} ms: {p_cpu - i_cpu:+.0f} ms"
    )
    print("  what the replay process's imports cost (CPU, least of the runs; each group adds to the ones above):")
    last = 0.0
    for name, cpu in _import_costs(runs, env):
        print(f"    {cpu:6.0f} ms  {cpu - last:+5.0f} ms  {name}")
        last = cpu
    print(f"    the rest of the start-up, {p_cpu - i_cpu - last:+.0f} ms CPU: first-use work (pydantic schemas, the first connection …)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--no-cold", action="store_true", help="Skip the runs without a bytecode cache.")
    runs = parser.parse_args().runs
    cached = _cached_env()
    subprocess.run(
        [sys.executable, "-c", "import trailblaze.cli.main, trailblaze_android.driver, trailblaze_sim.runtime"],
        env=cached,
        check=True,
    )  # fills the bytecode cache
    _print("with a bytecode cache (an installed package, or any second run)", runs, cached)
    if not parser.parse_args().no_cold:
        _print(
            "without one (PYTHONDONTWRITEBYTECODE=1: every process compiles the sources)",
            runs,
            _uncached_env(),
        )
    print("slowest imports of `import trailblaze.cli.main` (cumulative µs):")
    for us, name in _slowest_imports(8):
        print(f"  {us:8d}  {name}")
    print(f"(wall: medians of {runs} runs; CPU: the least of them)")


if __name__ == "__main__":
    main()
