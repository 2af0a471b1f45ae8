"""A Maestro sub-flow run twice (inside `retry`, `repeat`, `runFlow: commands`, a `when`, or at the top)
validates and replays; a problem found in a flow's converted text is told at a line of the flow (issue 45)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tests.support.cli import trailblaze
from trailblaze.cli.main import cli
from trailblaze.common.yaml_lines import dump_block, parse_document

SUB = """appId: dev.trailblaze.demo
---
- assertVisible: Welcome back
- runFlow:
    when:
      visible: Welcome back
    commands:
      - assertVisible:
          id: welcome
"""

FLOW = """appId: dev.trailblaze.demo
---
- launchApp:
    clearState: true
- runFlow: sub.yaml
- runFlow: sub.yaml
- retry:
    maxRetries: 2
    commands:
      - runFlow: sub.yaml
      - runFlow: sub.yaml
- repeat:
    times: 2
    commands:
      - runFlow: sub.yaml
      - runFlow: sub.yaml
- runFlow:
    commands:
      - runFlow: sub.yaml
      - runFlow: sub.yaml
- runFlow:
    when:
      visible: Welcome back
    commands:
      - runFlow: sub.yaml
      - runFlow: sub.yaml
"""


def _write(folder: Path) -> Path:
    (folder / "sub.yaml").write_text(SUB, encoding="utf-8")
    flow = folder / "flow.yaml"
    flow.write_text(FLOW, encoding="utf-8")
    return flow


def test_a_sub_flow_used_twice_in_every_container_validates_and_imports(tmp_path: Path) -> None:
    flow = _write(tmp_path)
    result = CliRunner().invoke(cli, ["validate", str(flow)])
    assert result.exit_code == 0, result.output
    imported = CliRunner().invoke(cli, ["import", "maestro", str(flow)])
    assert imported.exit_code == 0, imported.output
    text = (tmp_path / "flow.trail.yaml").read_text(encoding="utf-8")
    assert "&id" not in text and "*id" not in text  # written out in full, no anchors or aliases
    again = CliRunner().invoke(cli, ["validate", str(tmp_path / "flow.trail.yaml")])
    assert again.exit_code == 0, again.output


def test_a_sub_flow_used_twice_in_every_container_replays(tmp_path: Path) -> None:
    flow = _write(tmp_path)
    ran = trailblaze("replay", str(flow), "--device", "sim:android", "--element-timeout", "0.5", cwd=tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "Traceback" not in ran.stdout + ran.stderr


def test_a_problem_in_the_converted_flow_is_told_at_a_line_of_the_flow(tmp_path: Path) -> None:
    # 4,000 commands read in are within the flow's bound, but their trail is too many YAML values
    lines = "".join(f"- assertVisible: t{i}\n" for i in range(100))
    (tmp_path / "sub.yaml").write_text("appId: a.b\n---\n" + lines, encoding="utf-8")
    flow = tmp_path / "flow.yaml"
    flow.write_text("appId: a.b\n---\n- tapOn: x\n" + "- runFlow: sub.yaml\n" * 40, encoding="utf-8")
    result = CliRunner().invoke(cli, ["validate", str(flow)])
    assert result.exit_code == 2, result.output
    first = result.output.splitlines()[0]
    assert first.startswith(f"{flow}:") and "YAML values" in first
    line = int(first[len(f"{flow}:") :].split(":")[0])
    assert 4 <= line <= 43  # one of the runFlow lines, not a line of text the user does not have


def test_the_yaml_writer_writes_an_object_used_twice_in_full() -> None:
    shared = {"assertVisible": {"text": "Sign in"}}
    text = dump_block([shared, shared])
    assert "&" not in text and "*" not in text
    assert parse_document(text).data == [shared, shared]
