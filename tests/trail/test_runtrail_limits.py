"""Bounds on `runTrail` (issue 31, items 6 and 7): validate walks each sub-trail file once however
many calls reach it and caps the expanded step count, and one nesting limit holds for validate,
replay and report alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import trailblaze
from trailblaze.common.limits import MAX_EXPANDED_STEPS, MAX_RUNTRAIL_DEPTH
from trailblaze.engine import preflight
from trailblaze.errors import UsageError
from trailblaze.output.runlog import RunRecord, StepRecord, TrailRecord, load_run
from trailblaze.trail.model import ToolCall, load_trail
from trailblaze.trail.subtrail import open_subtrail, trail_key
from trailblaze.trail.variables import build_memory

LEAF = "trail:\n  - step: Go back\n    recording:\n      android:\n        - pressBack: {}\n"


def _chain(folder: Path, depth: int, calls: int = 1) -> Path:
    """t0 → t1 → … → t{depth-1}: each runs the next `calls` times; the last presses Back."""
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(depth):
        if i == depth - 1:
            body = LEAF
        else:
            runs = "".join(f"        - runTrail: {{path: t{i + 1}.trail.yaml}}\n" for _ in range(calls))
            body = f"trail:\n  - step: Run the next trail\n    recording:\n      android:\n{runs}"
        (folder / f"t{i}.trail.yaml").write_text(body)
    return folder / "t0.trail.yaml"


def _validate(path: Path) -> list[preflight.Finding]:
    return preflight.validate_trails([(path, load_trail(path))])


def test_validate_loads_each_sub_trail_once_however_many_calls_reach_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads: list[str] = []
    real = preflight.load_trail

    def counting(path: Path) -> object:
        loads.append(str(path))
        return real(path)

    monkeypatch.setattr(preflight, "load_trail", counting)
    top = _chain(tmp_path, 10, calls=2)  # 2**9 = 512 calls of the last trail
    assert _validate(top) == []
    # twice: once per platform that validate checks; before, 2 * (2 + 4 + … + 512) = 2044
    assert len(loads) <= 2 * 9


def test_a_fan_out_past_the_expanded_step_cap_is_refused(tmp_path: Path) -> None:
    top = _chain(tmp_path, 15, calls=2)  # 2**14 = 16,384 steps of the last trail alone
    messages = [f.message for f in _validate(top)]
    assert any(f"more than {MAX_EXPANDED_STEPS:,} steps" in m for m in messages), messages


def test_validate_refuses_a_chain_deeper_than_the_limit(tmp_path: Path) -> None:
    ok = _chain(tmp_path / "ok", MAX_RUNTRAIL_DEPTH)
    assert _validate(ok) == []
    deep = _chain(tmp_path / "deep", MAX_RUNTRAIL_DEPTH + 1)
    messages = [f.message for f in _validate(deep)]
    assert any(f"trails nested more than {MAX_RUNTRAIL_DEPTH} deep" in m for m in messages), messages


def test_a_sub_trail_walked_once_near_the_top_is_still_refused_when_reached_too_deep(tmp_path: Path) -> None:
    _chain(tmp_path, 3)  # t0 → t1 → t2: t1 is two trails tall
    links = MAX_RUNTRAIL_DEPTH - 2
    for i in range(links):  # d0 → … → d{links-1} → t1
        target = f"d{i + 1}" if i < links - 1 else "t1"
        (tmp_path / f"d{i}.trail.yaml").write_text(
            f"trail:\n  - step: Next\n    recording:\n      android:\n        - runTrail: {{path: {target}.trail.yaml}}\n"
        )
    top = tmp_path / "top.trail.yaml"
    top.write_text(
        "trail:\n  - step: Both\n    recording:\n      android:\n"
        "        - runTrail: {path: t1.trail.yaml}\n        - runTrail: {path: d0.trail.yaml}\n"
    )  # top + d0…d13 + t1 + t2: one more than the limit, found although t1 was walked already
    messages = [f.message for f in _validate(top)]
    assert any(f"trails nested more than {MAX_RUNTRAIL_DEPTH} deep" in m for m in messages), messages


def test_the_replayer_refuses_to_nest_deeper_than_the_limit(tmp_path: Path) -> None:
    top = _chain(tmp_path, 2)
    trail = load_trail(top)
    chain = [trail_key(tmp_path / f"x{i}.trail.yaml") for i in range(MAX_RUNTRAIL_DEPTH)]
    call = ToolCall(name="runTrail", params={"path": "t1.trail.yaml"})
    with pytest.raises(UsageError, match=f"trails nested more than {MAX_RUNTRAIL_DEPTH} deep"):
        open_subtrail(trail, call, build_memory(trail), chain)
    assert open_subtrail(trail, call, build_memory(trail), chain[1:]).trail.path is not None


def _nested(depth: int) -> TrailRecord:
    trail = TrailRecord(path=f"t{depth}.trail.yaml", status="passed")
    if depth > 1:
        step = StepRecord(index=0, kind="step", text="run", status="passed")
        step.subtrails.append(_nested(depth - 1))
        trail.steps.append(step)
    return trail


def test_report_reads_the_deepest_run_replay_writes_and_refuses_deeper(tmp_path: Path) -> None:
    for depth, ok in ((MAX_RUNTRAIL_DEPTH, True), (MAX_RUNTRAIL_DEPTH + 1, False)):
        folder = tmp_path / str(depth)
        folder.mkdir()
        run = RunRecord(run_id="r", started_at="2026-01-01T00:00:00Z", trails=[_nested(depth)])
        (folder / "run.json").write_text(json.dumps(run.model_dump(mode="json")))
        if ok:
            assert load_run(folder).trails[0].path == f"t{depth}.trail.yaml"
        else:
            with pytest.raises(
                UsageError, match=f"runTrail trails nested more than {MAX_RUNTRAIL_DEPTH} deep"
            ):
                load_run(folder)


@pytest.mark.slow
def test_replay_of_the_deepest_chain_passes_and_its_run_reports(tmp_path: Path) -> None:
    top = _chain(tmp_path / "trails", MAX_RUNTRAIL_DEPTH)
    out = tmp_path / "run"
    done = trailblaze("replay", str(top), "--device", "sim:android", "--run-dir", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    report = trailblaze("report", str(out))
    assert report.returncode == 0, report.stdout + report.stderr
    deeper = _chain(tmp_path / "deeper", MAX_RUNTRAIL_DEPTH + 1)
    refused = trailblaze("replay", str(deeper), "--device", "sim:android")
    assert refused.returncode == 2
    assert f"trails nested more than {MAX_RUNTRAIL_DEPTH} deep" in refused.stdout + refused.stderr
