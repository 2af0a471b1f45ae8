"""Device faults mid-replay. One transient fault is survived (ADR 0057): the replay passes and counts
it. A lasting one — every dump empty, the device gone — is a clear error naming the step (exit 3),
with the report still written and the trail byte-identical. The simulator injects each fault on the
wire; the real clients see it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import ROOT
from trailblaze.device.devices import open_device
from trailblaze.engine.commands import run_replay_command
from trailblaze.engine.options import DeviceChoice, ReplayRun, RunInputs, RunOutput
from trailblaze.engine.replay import build_memory, replay_trail
from trailblaze.errors import DeviceError
from trailblaze.trail.model import load_trail
from trailblaze_sim.faults import Conditions

pytestmark = pytest.mark.slow
TRANSIENT = ["drop_connection_on_request", "rpc_error_on_request"]
LASTING = ["empty_dump", "offline_after_request"]


# The Nth request after connecting lands on one the clients do not retry: typing on Android (u2's
# clipboard paste), the dump before the Password tap on iOS.
_NTH = {"android": 8, "ios": 7}


def arm(conditions: Conditions, fault: str, platform: str) -> None:
    """Inject `fault` a few requests into the replay (after the session has connected)."""
    if fault == "empty_dump":
        conditions.empty_dump = True
    else:
        setattr(conditions, fault, conditions.requests + _NTH[platform])


@pytest.mark.parametrize("fault", TRANSIENT)
@pytest.mark.parametrize("platform", ["android", "ios"])
def test_a_transient_fault_is_survived_and_counted(platform: str, fault: str, tmp_path: Path) -> None:
    path = tmp_path / "login.trail.yaml"
    path.write_bytes((ROOT / "trails" / "login.trail.yaml").read_bytes())
    before = path.read_bytes()
    conditions = Conditions()
    with open_device(f"sim:{platform}", latency=conditions, resolve_timeout=1.0) as session:  # type: ignore[arg-type]
        arm(conditions, fault, platform)
        trail = load_trail(path)
        record = replay_trail(trail, session, memory=build_memory(trail, secrets={"password": "hunter2"}))
    assert record.status == "passed", record.error
    assert record.hiccups == 1
    assert path.read_bytes() == before


@pytest.mark.parametrize("fault", LASTING)
@pytest.mark.parametrize("platform", ["android", "ios"])
def test_a_lasting_fault_names_the_step_and_keeps_the_trail(platform: str, fault: str, tmp_path: Path) -> None:
    path = tmp_path / "login.trail.yaml"
    path.write_bytes((ROOT / "trails" / "login.trail.yaml").read_bytes())
    before = path.read_bytes()
    conditions = Conditions()
    with open_device(f"sim:{platform}", latency=conditions, resolve_timeout=1.0) as session:  # type: ignore[arg-type]
        arm(conditions, fault, platform)
        trail = load_trail(path)
        # the session sends each dump again a few times, then gives up: the replay must stop
        with pytest.raises(DeviceError) as caught:
            replay_trail(trail, session, memory=build_memory(trail, secrets={"password": "hunter2"}))
    assert caught.value.exit_code == 3
    assert re.search(r"login.trail.yaml:\d+ step ", caught.value.message)
    assert path.read_bytes() == before


def test_device_dying_mid_run_still_writes_report_and_junit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import trailblaze.device.devices

    trail = tmp_path / "login.trail.yaml"
    trail.write_bytes((ROOT / "trails" / "login.trail.yaml").read_bytes())
    before = trail.read_bytes()
    real_open = trailblaze.device.devices.open_device

    def open_with_fault(spec: str, **kwargs: Any) -> Any:
        conditions = Conditions()
        session = real_open(spec, latency=conditions, resolve_timeout=1.0)  # type: ignore[arg-type]
        conditions.offline_after_request = conditions.requests + 12
        return session

    monkeypatch.setattr(trailblaze.device.devices, "open_device", open_with_fault)
    with pytest.raises(DeviceError) as caught:
        run_replay_command(
            ReplayRun(
                paths=(str(trail),),
                device=DeviceChoice.parse("sim:android"),
                inputs=RunInputs(secrets={"password": "hunter2"}),
                output=RunOutput(str(tmp_path / "run"), junit=str(tmp_path / "j.xml"), report=str(tmp_path / "out")),
            )
        )
    assert re.search(r"login.trail.yaml:\d+ step", caught.value.message)
    assert (tmp_path / "out" / "report.html").is_file()
    junit = (tmp_path / "j.xml").read_text()
    assert "<error" in junit or "<failure" in junit
    assert trail.read_bytes() == before
