"""What the mutation proof (ADR 0038) costs: per assertion offline, and as a share of a record.

1. Per assertion: on every screen of the demo app (both simulated platforms), every element in the
   compact view is asserted as the agent would (`assertions.pin_assertion`) and then proven
   (`mutation.prove_assertion`: evaluated on the screen and on each one-fact mutation of it). Prints
   the count, the mean / median / max ms per assertion, and how many were shown to fail.
2. Share of a record: an NL-only copy of each example trail with verify steps is recorded in-process
   (`record_trail`, the keyless demo model, a zero-latency simulator), timing the whole record and the
   time spent checking its assertions — at each verify step's COMPLETED (`assertion_gate`) and after
   the proof replay (`proof.assertion_proof`), both wrapped with a timer here.

Run: python benchmarks/assertion_proof.py
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # `tests.support`, as `python -m pytest` from the root sees it


def per_assertion() -> None:
    from tests.support.demo_screens import SCREENS, demo_screen
    from trailblaze.mutation.mutants import prove_assertion
    from trailblaze.screen.compact import compact_view
    from trailblaze.tools.assertions import pin_assertion
    from trailblaze.trail.model import ToolCall

    times: list[float] = []
    shown = weak = 0
    for platform in ("android", "ios"):
        for screen in SCREENS:
            h = demo_screen(screen, platform)
            for node in compact_view(h).refs.values():
                pinned = pin_assertion(node, h)
                if pinned.params is None:
                    continue
                call = ToolCall(name="assertVisibleBySelector", params=pinned.params)
                t0 = time.perf_counter()
                verdict = prove_assertion(call, h)
                times.append((time.perf_counter() - t0) * 1000)
                shown += verdict.status == "can-fail"
                weak += verdict.status == "cannot-fail"
    print(
        f"per assertion: {len(times)} assertions on {len(SCREENS)} screens x 2 platforms; "
        f"mean {statistics.mean(times):.2f} ms, median {statistics.median(times):.2f} ms, max {max(times):.2f} ms; "
        f"{shown} shown to fail, {weak} cannot fail"
    )


def record_share() -> None:
    import trailblaze.engine.proof as proof
    import trailblaze.mutation.gate as gate
    from trailblaze.device.devices import open_device
    from trailblaze.engine.record import record_trail
    from trailblaze.testing.demo_policy import demo_llm

    spent = [0.0]

    def timer(original):  # type: ignore[no-untyped-def]
        def timed(*args, **kwargs):  # type: ignore[no-untyped-def]
            t0 = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                spent[0] += time.perf_counter() - t0

        return timed

    # after the proof replay (record's summary) and at each verify step's COMPLETED (the agent's gate)
    proof.assertion_proof = timer(proof.assertion_proof)
    gate.completion_refusal = timer(gate.completion_refusal)
    total = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for src in sorted((ROOT / "trails").glob("*.trail.yaml")):
            data = yaml.safe_load(src.read_text())
            if not any("verify" in s for s in data["trail"]):
                continue
            for step in data["trail"]:
                step.pop("recording", None)
            copy = Path(tmp) / src.name
            copy.write_text(yaml.safe_dump(data, sort_keys=False))
            for tool in (ROOT / "trails").glob("*.trail.yaml"):  # runTrail targets
                if tool.name != src.name and not (Path(tmp) / tool.name).exists():
                    (Path(tmp) / tool.name).write_text(tool.read_text())
            tools = ROOT / "trails" / "tools"
            if not (Path(tmp) / "tools").exists():
                import shutil

                shutil.copytree(tools, Path(tmp) / "tools")
            for platform in ("android", "ios"):
                with open_device(f"sim:{platform}", latency="zero") as session:
                    t0 = time.perf_counter()
                    record_trail(copy, session, demo_llm, secrets={"password": "hunter2"})
                    total += time.perf_counter() - t0
                copy.write_text(yaml.safe_dump(data, sort_keys=False))
    print(
        f"record share: {total:.2f} s recording NL-only copies on both platforms, {spent[0] * 1000:.1f} ms of it "
        f"in the fact checks and mutation proofs ({spent[0] / total * 100:.2f} %)"
    )


if __name__ == "__main__":
    per_assertion()
    record_share()
