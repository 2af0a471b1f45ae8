"""`runTrail {path, args}`: a trail running another trail's steps (ADR 0021).

End to end through `trailblaze replay` / `record` in a subprocess, on the simulators driven by the
unmodified uiautomator2 / facebook-wda clients; preflight and validate refuse cycles and missing
files before the device; a trail using runTrail round-trips through load → save unchanged.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.cli import trailblaze
from tests.support.paths import ROOT
from trailblaze.testing import FakeMessagesAPI
from trailblaze.testing.demo_policy import demo_policy
from trailblaze.trail.model import ToolCall, Trail, TrailStep, load_trail, loads_trail

SIGN_IN_ARGS = """config:
  id: flows/sign-in
  args:
    email:
      type: string
"""


def sign_in_flow(folder: Path) -> Path:
    """The example login trail as a reusable flow: the email is a required arg."""
    text = (ROOT / "trails" / "login.trail.yaml").read_text()
    body = text[text.index("trail:\n") :].replace("text: user@example.com", "text: '{{args.email}}'")
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "sign-in.trail.yaml"
    target.write_text(SIGN_IN_ARGS + "\n" + body)
    return target


def caller(folder: Path, path: str = "../flows/sign-in.trail.yaml", *, name: str = "inbox.trail.yaml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    target.write_text(
        f"""config:
  id: suite/inbox
  memory:
    user: user@example.com
trail:
  - step: Sign in with the shared flow
    recording:
      android:
        - runTrail:
            path: {path}
            args:
              email: '{{{{user}}}}'
      ios:
        - runTrail:
            path: {path}
            args:
              email: '{{{{user}}}}'
  - verify: The inbox lists Message 1
    recording:
      android:
        - assertVisibleWithText:
            text: Message 1
      ios:
        - assertVisibleWithText:
            text: Message 1
"""
    )
    return target


@pytest.mark.slow
@pytest.mark.parametrize("platform", ["android", "ios"])
def test_replay_runs_the_sub_trail_then_continues(platform: str, tmp_path: Path) -> None:
    sign_in_flow(tmp_path / "flows")
    trail = caller(tmp_path / "suite")
    before = trail.read_bytes()
    run = tmp_path / "run"
    done = trailblaze(
        "replay", str(trail), "--device", f"sim:{platform}", "--secret", "password=hunter2",
        "--run-dir", str(run), "--report", str(tmp_path / "report.html"),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 trail: 1 passed" in done.stdout and "2/2" in done.stdout
    assert "replayed 1 tool (runTrail sign-in.trail.yaml: 5/5 steps passed)" in done.stdout
    record = json.loads((run / "run.json").read_text())
    assert record["usage"]["llm_calls"] == 0
    (only,) = record["trails"]
    first = only["steps"][0]
    assert [t["name"] for t in first["tools"]] == ["runTrail"] and first["tools"][0]["status"] == "OK"
    (sub,) = first["subtrails"]
    assert Path(sub["path"]).name == "sign-in.trail.yaml" and sub["status"] == "passed"
    assert [s["status"] for s in sub["steps"]] == ["passed"] * 5
    typed = [t["params"] for s in sub["steps"] for t in s["tools"] if t["name"] == "inputText"]
    assert typed[0] == {"text": "{{args.email}}", "reason": "next: type user@example.com"}
    assert typed[1]["text"] == "{{password}}"
    assert sub["directory"].startswith(only["directory"] + "/sub-01-sign-in")
    assert (run / sub["steps"][0]["screenshot_after"]).is_file()
    html = (tmp_path / "report.html").read_text()
    assert "sign-in.trail.yaml" in html and html.count('class="subtrail"') == 1
    assert "hunter2" not in html and "hunter2" not in (run / "run.json").read_text()
    assert trail.read_bytes() == before


@pytest.mark.slow
def test_a_failing_sub_step_fails_the_calling_step_naming_both(tmp_path: Path) -> None:
    flow = sign_in_flow(tmp_path / "flows")
    flow.write_text(flow.read_text().replace("resourceIdRegex: dev.trailblaze.demo:id/sign_in", "resourceIdRegex: nope"))
    trail = caller(tmp_path / "suite")
    done = trailblaze(
        "replay", str(trail), "--device", "sim:android", "--secret", "password=hunter2",
        "--element-timeout", "0.5", "--run-dir", str(tmp_path / "run"),
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    out = " ".join(done.stdout.split())
    assert re.search(r"inbox.trail.yaml:\d+ step 1", out) and "runTrail failed" in out
    assert re.search(r"sign-in.trail.yaml:\d+ step 4", out) and "nope" in out
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    sub = record["trails"][0]["steps"][0]["subtrails"][0]
    assert sub["status"] == "failed" and [s["status"] for s in sub["steps"]][3:] == ["failed", "skipped"]
    assert record["trails"][0]["steps"][1]["status"] == "skipped"


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI(policy=demo_policy) as server:
        yield server


@pytest.mark.slow
def test_record_solves_a_sub_trails_unrecorded_step_and_writes_it_after_the_proof(
    api: FakeMessagesAPI, tmp_path: Path
) -> None:
    flow = sign_in_flow(tmp_path / "flows")
    data = yaml.safe_load(flow.read_text())
    data["trail"][-1].pop("recording")  # the sub-trail's verify step is not recorded yet
    flow.write_text(yaml.safe_dump(data, sort_keys=False))
    trail = caller(tmp_path / "suite")
    caller_before = trail.read_bytes()
    common = ["--device", "sim:android", "--secret", "password=hunter2"]
    done = trailblaze("record", str(trail), *common, "--run-dir", str(tmp_path / "run"), base_url=api.url)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "recorded 1 step · verified by replay" in " ".join(done.stdout.split())
    assert trail.read_bytes() == caller_before  # the caller had nothing new
    verify = load_trail(flow).steps[-1]
    assert verify.kind == "verify" and [c.name for c in verify.recording_for("android") or []] == [
        "assertVisibleBySelector"
    ]
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    (rec,) = run["trails"]
    assert rec["verification"] == "verified" and "sign-in.trail.yaml" in rec["heal_diff"]
    sub = rec["steps"][0]["subtrails"][0]
    assert sub["steps"][-1]["recording_written"] and sub["steps"][-1]["mode"] == "agent"
    assert rec["proof"]["steps"][0]["subtrails"][0]["status"] == "passed"
    calls = len(api.requests)
    again = trailblaze("replay", str(trail), *common, "--run-dir", str(tmp_path / "run2"))
    assert again.returncode == 0, again.stdout + again.stderr
    assert len(api.requests) == calls


@pytest.mark.slow
def test_a_failed_proof_writes_neither_the_trail_nor_its_sub_trail(api: FakeMessagesAPI, tmp_path: Path) -> None:
    flow = sign_in_flow(tmp_path / "flows")
    data = yaml.safe_load(flow.read_text())
    data["trail"][-1].pop("recording")
    data["trail"][0]["recording"]["android"][0]["launchApp"]["launchMode"] = "RESUME"
    flow.write_text(yaml.safe_dump(data, sort_keys=False))
    flow_before = flow.read_bytes()
    trail = caller(tmp_path / "suite")
    caller_before = trail.read_bytes()
    # record signs in from the fresh app; the proof's RESUME finds it still signed in: no Email field
    done = trailblaze(
        "record", str(trail), "--device", "sim:android", "--secret", "password=hunter2",
        "--run-dir", str(tmp_path / "run"), "--element-timeout", "0.5", base_url=api.url,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    out = " ".join(done.stdout.split())
    assert "NOT verified" in out and "nothing was written" in out
    assert flow.read_bytes() == flow_before and trail.read_bytes() == caller_before
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    rec = run["trails"][0]
    assert rec["verification"] == "failed" and "sign-in.trail.yaml" in rec["heal_diff"]
    assert not any(s["recording_written"] for s in rec["steps"][0]["subtrails"][0]["steps"])


@pytest.mark.parametrize(
    ("layout", "expected"),
    [
        ("self", r"inbox.trail.yaml:10:19: runTrail [^ ]+: a cycle \(inbox.trail.yaml → inbox.trail.yaml\)"),
        # found where the cycle closes
        ("pair", r"back.trail.yaml:10:19: runTrail [^ ]+: a cycle \(inbox.trail.yaml → back.trail.yaml → inbox.trail.yaml\)"),
        ("missing", r"inbox.trail.yaml:10:19: runTrail [^ ]+: no trail file at .*nowhere.trail.yaml"),
    ],
)
def test_cycles_and_missing_files_are_refused_before_the_device(layout: str, expected: str, tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    if layout == "self":
        trail = caller(suite, "inbox.trail.yaml")
    elif layout == "pair":
        trail = caller(suite, "back.trail.yaml")
        caller(suite, "./inbox.trail.yaml", name="back.trail.yaml")
    else:
        trail = caller(suite, "../flows/nowhere.trail.yaml")
    for command in ("replay", "validate"):
        extra = ["--device", "sim:android", "--run-dir", str(tmp_path / "run")] if command == "replay" else []
        done = trailblaze(command, str(trail), *extra)
        assert done.returncode == 2, done.stdout + done.stderr
        out = " ".join((done.stdout + done.stderr).split())
        assert re.search(expected, out), out
        assert "Traceback" not in out
    assert not (tmp_path / "run").exists()  # refused before the device and before any run directory


def test_a_required_sub_trail_arg_not_given_is_refused(tmp_path: Path) -> None:
    sign_in_flow(tmp_path / "flows")
    trail = caller(tmp_path / "suite")
    trail.write_text(trail.read_text().replace("email: '{{user}}'", "mail: '{{user}}'"))
    done = trailblaze("validate", str(trail))
    assert done.returncode == 2, done.stdout + done.stderr
    out = " ".join(done.stdout.split())
    assert "inbox.trail.yaml:10:19: runTrail ../flows/sign-in.trail.yaml:" in out
    assert "its config.args.email has no default; give `email: VALUE` under this runTrail's `args:`" in out


def test_run_trail_params_are_checked_on_load() -> None:
    bad = "trail:\n  - step: a\n    recording:\n      android:\n        - runTrail: {args: {x: 1}}\n"
    with pytest.raises(Exception, match=r"path"):
        loads_trail(bad)
    assert loads_trail(bad.replace("{args", "{path: a.trail.yaml, args")).steps[0].recording_for("android") == [
        ToolCall(name="runTrail", params={"path": "a.trail.yaml", "args": {"x": 1}})
    ]


_name = st.from_regex(r"\A[a-z][a-z0-9_-]{0,12}\Z")
_value = st.one_of(st.text(min_size=0, max_size=12), st.integers(-5, 5000), st.booleans())
_run_trail = st.builds(
    lambda path, args, reason: ToolCall(
        name="runTrail",
        params={"path": path, **({"args": args} if args else {}), **({"reason": reason} if reason else {})},
    ),
    st.from_regex(r"\A(\.\./)?[a-z][a-z0-9/-]{0,20}\.trail\.(yaml|md)\Z"),
    st.dictionaries(_name, _value, max_size=3),
    st.one_of(st.none(), st.text(max_size=20)),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(["android", "ios", "android-phone"]), st.lists(_run_trail, min_size=1, max_size=2)), min_size=1, max_size=3))
def test_a_trail_using_run_trail_round_trips(recordings: list[tuple[str, list[ToolCall]]]) -> None:
    steps = [TrailStep(kind="step", text=f"step {i}", recording={c: tools}) for i, (c, tools) in enumerate(recordings)]
    trail = Trail(steps=steps)
    text = trail.to_yaml()
    loaded = loads_trail(text)
    assert loaded == trail
    assert loaded.to_yaml() == text


def test_load_save_keeps_the_bytes(tmp_path: Path) -> None:
    trail_path = caller(tmp_path / "suite")
    before = trail_path.read_bytes()
    trail = load_trail(trail_path)
    trail.save()
    assert trail_path.read_bytes() == before
    copy = tmp_path / "copy.trail.yaml"
    loads_trail(Trail(steps=trail.steps, config=trail.config).to_yaml()).save(copy)
    assert load_trail(copy) == trail


@pytest.mark.slow
def test_the_library_replay_nests_without_a_run_dir_and_refuses_a_cycle_at_run_time(tmp_path: Path) -> None:
    from trailblaze.device.devices import open_device
    from trailblaze.engine.replay import replay_trail
    from trailblaze.errors import UsageError
    from trailblaze.trail.variables import build_memory

    sign_in_flow(tmp_path / "flows")
    trail = load_trail(caller(tmp_path / "suite"))
    loop = load_trail(caller(tmp_path / "suite", "loop.trail.yaml", name="loop.trail.yaml"))  # no preflight here
    with open_device("sim:android", latency="zero", resolve_timeout=1.0) as session:
        record = replay_trail(trail, session, memory=build_memory(trail, secrets={"password": "hunter2"}))
        assert record.status == "passed"
        (sub,) = record.steps[0].subtrails
        assert sub.status == "passed" and len(sub.steps) == 5 and sub.duration_ms > 0
        with pytest.raises(UsageError, match=r"loop.trail.yaml:\d+ step 1 .*a cycle \(loop.trail.yaml → loop.trail.yaml\)"):
            replay_trail(loop, session)


def test_a_sub_trails_template_with_no_value_is_refused_before_the_device(tmp_path: Path) -> None:
    sign_in_flow(tmp_path / "flows")
    trail = caller(tmp_path / "suite")
    done = trailblaze("replay", str(trail), "--device", "sim:android", "--run-dir", str(tmp_path / "run"))
    assert done.returncode == 2, done.stdout + done.stderr
    out = " ".join((done.stdout + done.stderr).split())
    assert re.search(r"sign-in.trail.yaml:\d+:\d+: \{\{password\}\} has no value \(and 1 more place\); pass --secret password=VALUE", out), out
    assert "{{args.email}}" not in out  # given by the runTrail's args
    assert not (tmp_path / "run").exists()
    assert trailblaze("validate", str(trail)).returncode == 0  # a value to pass at run time: a note
