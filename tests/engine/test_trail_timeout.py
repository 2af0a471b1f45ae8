"""Every trail has a wall-clock budget (`--trail-timeout`, `config.timeout`), and nested repeats are
bounded at validate (issue 45, ADR 0070)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support.cli import trailblaze
from trailblaze.cli.main import cli
from trailblaze.common import deadline

BUSY = "var t = Date.now(); while (Date.now() - t < 4900) {}\n"
"""One evaluation of 4.9 s: within the script's own 5 s limit, past a trail budget of a second."""

SCRIPT_FLOW = """appId: dev.trailblaze.demo
---
- repeat:
    times: 1000
    commands:
      - runScript: busy.js
- assertVisible: Welcome back
"""

LOOP_FLOW = """appId: dev.trailblaze.demo
---
- repeat:
    times: 100
    commands:
      - repeat:
          times: 100
          commands:
            - assertVisible:
                text: Nothing like this
                optional: true
"""

OK_FLOW = "appId: dev.trailblaze.demo\n---\n- launchApp\n- assertVisible: Welcome back\n"

LOWERED = """config:
  id: lowered
  timeout: 0.5
trail:
  - step: Think for a while
    recording:
      android:
        - mobile_maestro:
            commands:
              - runScript: busy.js
"""

NESTED = """appId: dev.trailblaze.demo
---
- launchApp
- repeat:
    times: 1000
    commands:
      - repeat:
          times: 1000
          commands:
            - repeat:
                times: 1000
                commands:
                  - evalScript: ${1 + 1}
"""


def _validate(path: Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["validate", str(path)])
    return result.exit_code, result.output


def test_nested_repeats_past_the_bound_are_refused_at_validate(tmp_path: Path) -> None:
    flow = tmp_path / "nested.yaml"
    flow.write_text(NESTED, encoding="utf-8")
    code, output = _validate(flow)
    assert code == 2, output
    first = output.splitlines()[0]
    assert first.startswith(
        f"{flow}:8:11: repeat: nested repeats run their commands 1,000 × 1,000 = 1,000,000"
    )
    assert "more than 10,000" in first and len(output.splitlines()) == 2  # said once, not at every level


def test_nested_repeats_across_sub_flows_are_refused_at_the_inner_repeat(tmp_path: Path) -> None:
    inner = tmp_path / "inner.yaml"
    inner.write_text(
        "appId: dev.trailblaze.demo\n---\n- repeat:\n    times: 100\n    commands:\n      - tapOn: x\n",
        encoding="utf-8",
    )
    flow = tmp_path / "outer.yaml"
    flow.write_text(
        "appId: dev.trailblaze.demo\n---\n- repeat:\n    times: 1000\n    commands:\n      - runFlow: inner.yaml\n",
        encoding="utf-8",
    )
    code, output = _validate(flow)
    assert code == 2, output
    assert output.startswith(
        f"{inner}:4:12: repeat: nested repeats run their commands 1,000 × 100 = 100,000 "
    )
    assert "(with the repeats around the runFlow of this file)" in output
    assert "1 invalid with 1 problem" in output


def test_repeats_within_the_bound_validate(tmp_path: Path) -> None:
    flow = tmp_path / "fine.yaml"
    flow.write_text(LOOP_FLOW, encoding="utf-8")
    assert _validate(flow)[0] == 0


@pytest.mark.slow
def test_trails_past_their_budget_fail_at_the_step_reached_and_the_others_run(tmp_path: Path) -> None:
    trails = tmp_path / "trails"
    trails.mkdir()
    (trails / "busy.js").write_text(BUSY, encoding="utf-8")
    (trails / "script.yaml").write_text(SCRIPT_FLOW, encoding="utf-8")
    (trails / "loop.yaml").write_text(LOOP_FLOW, encoding="utf-8")
    (trails / "ok.yaml").write_text(OK_FLOW, encoding="utf-8")
    (trails / "lowered.trail.yaml").write_text(LOWERED, encoding="utf-8")
    ran = trailblaze(
        "replay", str(trails), "--device", "sim:android", "--trail-timeout", "1.5", "--element-timeout", "0.2",
        "--run-dir", str(tmp_path / "run"), cwd=tmp_path,
    )  # fmt: skip
    out = ran.stdout + ran.stderr
    assert ran.returncode == 1, out
    assert "Traceback" not in out
    # one blocking script is cut off at the trail's budget, not left to its own 5 s limit
    assert (
        "script.yaml:3 step 1 ('repeat (1 command)'): timed out: the trail ran past its 1.5 s budget at the "
        "script busy.js in repeat round 1 of 1000; make it shorter, or raise --trail-timeout SECONDS"
    ) in out
    # a loop of short commands is stopped between them
    loop = out.split(
        "loop.yaml:3 step 1 ('repeat (1 command)'): timed out: the trail ran past its 1.5 s budget"
    )
    assert len(loop) == 2 and "in repeat round" in loop[1].splitlines()[0]
    # a trail's config.timeout lowers the run's, and says it is the one to raise
    lowered = out.split(
        "lowered.trail.yaml:5 step 1 ('Think for a while'): timed out: the trail ran past its 0.5 s"
    )
    assert len(lowered) == 2 and "raise config.timeout" in lowered[1].splitlines()[0]
    statuses = {
        t["id"]: t["status"] for t in json.loads((tmp_path / "run" / "run.json").read_text())["trails"]
    }
    assert statuses == {"script": "failed", "loop": "failed", "ok": "passed", "lowered": "failed"}


def test_a_budget_inside_a_longer_one_keeps_the_sooner_end() -> None:
    deadline.check("nothing")  # outside a budget: no bound
    assert deadline.remaining() is None
    with deadline.trail_budget(0.0001, "config.timeout"):
        with deadline.trail_budget(3600):
            left = deadline.remaining()
            assert left is not None and left < 1
        with deadline.trail_budget(None):
            assert deadline.remaining() is not None
    assert deadline.remaining() is None
