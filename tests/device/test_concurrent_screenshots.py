"""A step's screenshot rides along with the settle's dump (ADR 0036): two requests in flight on a
device that serves them at once (uiautomator2), never on one that queues them (WebDriverAgent).

The simulator's request log is the witness, never the clock: `_Pairing` makes a dump and a
screenshot wait (boundedly) for each other at the server's door, so a pair is only recorded when both
requests were inside the server at the same time."""

from __future__ import annotations

import io
import re
import threading
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support.cli import copy_example
from tests.support.device import Rig, rig
from trailblaze.agent.loop import Agent
from trailblaze.engine.replay import build_memory, replay_trail
from trailblaze.llm.client import ImageBlock, LLMRequest
from trailblaze.output.rundir import RunDir
from trailblaze.output.runlog import TrailRecord
from trailblaze.screen.compact import compact_view
from trailblaze.testing import ScriptedLLM, tool
from trailblaze.testing.demo_policy import parse_screen
from trailblaze.tools.memory import Memory
from trailblaze.trail.model import load_trail
from trailblaze_sim.faults import Conditions, FaultKind, RequestKind

_BOUND = 1.0
"""How long a dump or screenshot waits at the door for its partner (only reached when none comes)."""


@dataclass
class _Pairing(Conditions):
    """Conditions that log every request by kind and pair dumps with screenshots in flight together."""

    log: list[str] = field(default_factory=list)
    """Request kinds in arrival order; a dump or screenshot that met its partner is logged `dump+shot`
    once for the pair."""
    pairing: bool = True
    _door: threading.Condition = field(default_factory=threading.Condition, repr=False)
    _waiting: dict[str, int] = field(default_factory=lambda: {"dump": 0, "screenshot": 0}, repr=False)
    _met: dict[str, int] = field(default_factory=lambda: {"dump": 0, "screenshot": 0}, repr=False)

    def before_request(self, kind: RequestKind) -> FaultKind | None:
        if kind in ("dump", "screenshot") and self.pairing:
            self._meet(kind)
        else:
            with self._door:
                self.log.append(kind)
        return super().before_request(kind)

    def _meet(self, kind: str) -> None:
        other = "screenshot" if kind == "dump" else "dump"
        with self._door:
            if self._waiting[other] > 0:  # the partner is inside, waiting for us: a pair
                self._waiting[other] -= 1
                self._met[other] += 1
                self.log.append("dump+shot")
                self._door.notify_all()
                return
            self._waiting[kind] += 1
            met = self._door.wait_for(lambda: self._met[kind] > 0, timeout=_BOUND)
            if met:
                self._met[kind] -= 1
            else:
                self._waiting[kind] -= 1
                self.log.append(kind)


@pytest.fixture(scope="module")
def android() -> Iterator[tuple[Rig, _Pairing]]:
    conditions = _Pairing()
    with rig("android", conditions=conditions, settle_timeout=3.0, loading_timeout=5.0) as r:
        yield r, conditions


def _replay(r: Rig, tmp_path: Path, mode: str = "steps") -> tuple[RunDir, TrailRecord]:
    trail = load_trail(copy_example("login.trail.yaml", tmp_path))
    run = RunDir(tmp_path / "run", Memory(), command=["test"], device="sim:android", screenshots=mode)  # type: ignore[arg-type]
    r.session.invalidate()
    record = replay_trail(
        trail, r.session, memory=build_memory(trail, secrets={"password": "hunter2"}), rundir=run, device="sim:android"
    )
    run.finish()
    return run, record


def _changed_box(a: bytes, b: bytes, *, top: int = 0) -> tuple[int, int, int, int] | None:
    """The box of pixels that differ between two pictures below row `top` (None: none)."""
    from PIL import Image, ImageChops

    with Image.open(io.BytesIO(a)) as first, Image.open(io.BytesIO(b)) as second:
        diff = ImageChops.difference(first.convert("RGB"), second.convert("RGB"))
        diff.paste((0, 0, 0), (0, 0, diff.width, top))
        box: tuple[int, int, int, int] | None = diff.getbbox()
    return box


def _last(log: list[str], kind: str) -> int:
    return len(log) - 1 - log[::-1].index(kind)


def _image(request: LLMRequest) -> object:
    """The screenshot block of a request's last user message."""
    return next((b for b in request.messages[-1].content if isinstance(b, ImageBlock)), None)


def test_the_u2_simulator_serves_a_screenshot_while_a_dump_runs(android: tuple[Rig, _Pairing]) -> None:
    r, conditions = android
    conditions.log.clear()
    shot = threading.Thread(target=r.driver.screenshot)
    shot.start()
    r.driver.hierarchy()
    shot.join()
    assert conditions.log == ["dump+shot"]  # both inside the server at once: latency is per request


@pytest.mark.slow
def test_the_wda_simulator_queues_requests_like_wdas_main_queue() -> None:
    """WebDriverAgent routes every request on its main queue; the simulator must not be faster than
    that, or a concurrent screenshot would look free on iOS when it is not."""
    conditions = _Pairing()
    with rig("ios", conditions=conditions) as r:
        base = r.sim.device_specs()[0][0].rstrip("/")
        conditions.log.clear()

        def get(path: str) -> None:
            with urllib.request.urlopen(base + path, timeout=10) as response:
                response.read()

        shot = threading.Thread(target=get, args=("/screenshot",))
        shot.start()
        get("/source?format=json")
        shot.join()
    assert sorted(conditions.log) == ["dump", "screenshot"]  # one after the other: never a pair


@pytest.mark.slow
def test_each_steps_picture_is_taken_with_its_settled_dump(android: tuple[Rig, _Pairing], tmp_path: Path) -> None:
    r, conditions = android
    conditions.log.clear()
    stats = r.session.stats.copy()
    run, record = _replay(r, tmp_path)
    assert record.status == "passed", record.error
    log = conditions.log
    # Every dump had its screenshot in flight beside it, and no picture cost a round trip of its own.
    assert "screenshot" not in log and "dump" not in log, log
    shots = r.session.stats.screenshots - stats.screenshots
    assert shots == log.count("dump+shot") == r.session.stats.dumps - stats.dumps
    # The trailhead's "before" comes first; every later pair follows the idle wait (`waitForIdle`, an
    # `other` request) of the settle it ends, so the picture shows the settled screen, not a moving one.
    pairs = [i for i, kind in enumerate(log) if kind == "dump+shot"]
    assert pairs[0] == 0 and all(log[i - 1] == "other" for i in pairs[1:]), " ".join(log)
    assert log[-1] == "dump+shot"  # the Inbox, settled after "Sign in"; the verify step asks nothing
    afters = [(run.root / str(s.screenshot_after)).read_bytes() for s in record.steps]
    # login screen, email typed, password typed, Inbox — four different screens, each its own picture
    assert len(set(afters[:4])) == 4
    assert afters[4] == afters[3]  # the verify step acts on nothing: its "after" is the Inbox again
    # … which is what the device shows now, but for the Inbox's ticking clock (JPEG blocks around it)
    # and the status bar's HH:MM (a loaded machine can cross a minute), which is left out here
    bar = round(r.device.profile.inset_top * r.device.scale)
    changed = _changed_box(afters[3], r.driver.screenshot(), top=bar)
    clock = next(n.bounds for n in r.session.refresh().nodes if re.fullmatch(r"\d+:\d\d:\d\d", n.text))
    assert changed is None or (
        changed[0] >= clock.left - 16 and changed[1] >= clock.top - 16
        and changed[2] <= clock.right + 16 and changed[3] <= clock.bottom + 16
    ), (changed, clock)
    # The run directory leaves the session as it found it: no pictures beside later dumps.
    assert r.session.screenshot_with_dump is False


@pytest.mark.slow
def test_a_failing_step_still_has_its_picture_of_the_failure(tmp_path: Path) -> None:
    conditions = _Pairing(pairing=False)  # the order of requests is the witness here
    with rig("android", "demo@v2", conditions=conditions, resolve_timeout=0.3, settle_timeout=3.0) as r:
        for mode in ("steps", "failures"):
            conditions.log.clear()
            (tmp_path / mode).mkdir()
            run, record = _replay(r, tmp_path / mode, mode)
            failed = [s for s in record.steps if s.status == "failed"]
            assert record.status == "failed" and len(failed) == 1
            shot = failed[0].screenshot_after
            assert shot is not None and (run.root / shot).read_bytes().startswith(b"\xff\xd8\xff"), mode
            # the failing step's picture shows the screen it failed on: taken after its last action
            log = conditions.log
            assert _last(log, "screenshot") > _last(log, "action"), " ".join(log)
            if mode == "failures":
                # no picture beside any dump; the failing step's one picture is taken on its own
                assert conditions.log.count("screenshot") == 1 and "dump+shot" not in conditions.log


def test_an_agent_iteration_gets_its_picture_with_the_dump(android: tuple[Rig, _Pairing]) -> None:
    """Record: the model's picture after an action is taken beside the settle's dump, and only while
    the agent runs (a replay on the same session takes none)."""
    r, conditions = android
    session = r.session
    conditions.pairing = False
    try:
        conditions.log.clear()
        session.act(lambda d: d.launch_app("dev.trailblaze.demo", "CLEAR_STATE"))
        session.screen()
        assert "screenshot" not in conditions.log  # nobody asked for pictures
        email = next(e.ref for e in parse_screen(compact_view(session.screen()).text) if e.label == "Email")
    finally:
        conditions.pairing = True
    session.invalidate()  # the step starts on a screen nobody has looked at yet
    conditions.log.clear()
    shots = session.stats.screenshots
    llm = ScriptedLLM(
        [
            tool("tap", ref=email, reasoning="focus the email field"),
            tool("objectiveStatus", status="COMPLETED", explanation="focused"),
        ]
    )
    result = Agent(llm, session, Memory()).run_step("Tap the Email field")
    assert result.status == "COMPLETED"
    assert all(isinstance(b, ImageBlock) for b in (_image(q) for q in llm.requests))
    # two iterations, two pictures, each beside its dump (the second after the tap's idle wait)
    log = conditions.log
    assert log.count("dump+shot") == 2 and "screenshot" not in log and "dump" not in log, log
    assert session.stats.screenshots == shots + 2
    assert log.index("action") < len(log) - 1 - log[::-1].index("dump+shot")
    assert session.screenshot_with_dump is False
