"""Replays on a device that hiccups (ADR 0057): a seeded share of the requests faulted on the wire, the
trails still pass, and every trail says how many faults it survived — in run.json, the HTML report
and JUnit."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.support.device import Arming
from tests.support.paths import ROOT
from trailblaze.device.devices import open_device
from trailblaze.engine.commands import run_replay_command
from trailblaze.engine.options import DeviceChoice, ReplayRun, RunInputs, RunOutput
from trailblaze.engine.replay import build_memory, replay_trail
from trailblaze.trail.model import load_trail
from trailblaze_sim.faults import Conditions

pytestmark = pytest.mark.slow


def _examples(tmp_path: Path, *names: str) -> list[Path]:
    shutil.copytree(ROOT / "trails" / "tools", tmp_path / "tools", ignore=shutil.ignore_patterns("__pycache__"))
    out = []
    for name in names:
        (tmp_path / name).write_bytes((ROOT / "trails" / name).read_bytes())
        out.append(tmp_path / name)
    return out


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_trails_pass_on_a_device_that_faults_one_request_in_ten(platform: str, tmp_path: Path) -> None:
    # three times the benchmark's rate, so that a short run still meets every kind of fault
    conditions = Conditions(fault_rate=0.1, seed=3, stall_s=0.2)
    trails = _examples(tmp_path, "login.trail.yaml", "compose-validation.trail.yaml", "archive-message.trail.yaml")
    survived = 0
    with open_device(f"sim:{platform}", latency=conditions) as session:  # type: ignore[arg-type]
        for path in trails:
            before = path.read_bytes()
            trail = load_trail(path)
            record = replay_trail(trail, session, memory=build_memory(trail, secrets={"password": "hunter2"}))
            assert record.status == "passed", record.error
            assert path.read_bytes() == before
            survived += record.hiccups
    assert {"drop_connection", "rpc_error"} <= set(conditions.injected)
    assert survived >= conditions.injected["drop_connection"] // 2  # the clients absorb a few themselves


def test_the_hiccups_of_a_trail_are_in_run_json_the_report_and_junit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import trailblaze.device.devices

    (trail,) = _examples(tmp_path, "login.trail.yaml")
    real_open = trailblaze.device.devices.open_device

    def open_flaky(spec: str, **kwargs: Any) -> Any:
        conditions = Arming(armed_kind="dump")
        session = real_open(spec, latency=conditions, resolve_timeout=1.0)  # type: ignore[arg-type]
        conditions.armed = "rpc_error"  # the first dump of the replay: sent again, one hiccup
        return session

    monkeypatch.setattr(trailblaze.device.devices, "open_device", open_flaky)
    run_dir, report, junit = tmp_path / "run", tmp_path / "out", tmp_path / "junit.xml"
    code = run_replay_command(
        ReplayRun(
            paths=(str(trail),),
            device=DeviceChoice.parse("sim:android"),
            inputs=RunInputs(secrets={"password": "hunter2"}),
            output=RunOutput(str(run_dir), junit=str(junit), report=str(report)),
        )
    )
    assert code == 0
    (record,) = json.loads((run_dir / "run.json").read_text())["trails"]
    assert record["status"] == "passed" and record["hiccups"] == 1
    assert "<dt>Hiccups</dt><dd>device hiccups: 1 retried</dd>" in (report / "report.html").read_text()
    props = {p.get("name"): p.get("value") for p in ET.parse(junit).iter("property")}
    assert props["trailblaze.device_hiccups"] == "1"
