"""The engine's policies (record, re-record, replay, self-heal, proof) and its two observers (the run
directory, the in-memory recorder) — docs/adr/0045-engine-policies.md."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import ROOT
from trailblaze.device.devices import open_device
from trailblaze.device.session import DeviceSession
from trailblaze.engine.policy import (
    AgentSettings,
    EnginePolicy,
    HealPolicy,
    ProofPolicy,
    RecordPolicy,
    ReplayPolicy,
    RerecordPolicy,
)
from trailblaze.engine.replay import replay_trail
from trailblaze.output.rundir import RunDir
from trailblaze.output.runlog import TrailRecord
from trailblaze.tools.memory import Memory

# policy → (solves step 3, solves the trailhead, heals, writes, defers the save, agent status,
#           words of the failure hint for step 3, the sub-trail's policy class)
TABLE: list[tuple[EnginePolicy, tuple[Any, ...]]] = [
    (ReplayPolicy(), (False, False, False, True, False, "passed-ai", "--self-heal", ReplayPolicy)),
    (
        ReplayPolicy(write_back=False),
        (False, False, False, False, False, "passed-ai", "--self-heal", ReplayPolicy),
    ),
    (HealPolicy(), (False, False, True, True, False, "passed-ai", "--self-heal", HealPolicy)),
    (ProofPolicy(), (False, False, False, False, False, "passed-ai", "re-record --step 4", ProofPolicy)),
    (RecordPolicy(), (False, False, False, True, True, "passed", "--rerecord", RecordPolicy)),
    (
        RecordPolicy(solve=frozenset({3})),
        (True, False, False, True, True, "passed", "--rerecord", RecordPolicy),
    ),
    (RerecordPolicy(), (True, True, False, True, True, "passed", "--rerecord", RecordPolicy)),
]


@pytest.mark.parametrize(
    ("policy", "expected"), TABLE, ids=lambda v: type(v).__name__ if isinstance(v, EnginePolicy) else ""
)
def test_each_policy_answers_the_engines_questions(policy: EnginePolicy, expected: tuple[Any, ...]) -> None:
    solves, trailhead, heals, writes, defers, status, hint, sub = expected
    assert policy.solves(3) is solves
    assert policy.solves(-1, trailhead=True) is trailhead
    assert policy.heals() is heals
    assert policy.writes() is writes
    assert policy.defers_save() is defers
    assert policy.agent_status() == status
    assert hint in policy.failure_hint(3)
    assert type(policy.for_subtrail()) is sub


def test_a_sub_trail_of_a_record_solves_only_its_own_unrecorded_steps() -> None:
    """`--step` / `--rerecord` name the caller's steps, not the sub-trail's."""
    agent = AgentSettings(max_llm_calls=7)
    for policy in (RecordPolicy(agent=agent, solve=frozenset({0})), RerecordPolicy(agent=agent)):
        sub = policy.for_subtrail()
        assert not sub.solves(0) and not sub.solves(-1, trailhead=True)
        assert sub.agent.max_llm_calls == 7


def test_the_trailhead_hint_differs_from_a_steps() -> None:
    assert "never healed" in ReplayPolicy().failure_hint(-1)
    assert "the trailhead" in ProofPolicy().failure_hint(-1)


@pytest.fixture(scope="module")
def session() -> Iterator[DeviceSession]:
    with open_device("sim:android", latency="zero", resolve_timeout=0.5) as s:
        yield s


def _shape(record: TrailRecord) -> list[Any]:
    """What a reader of the record sees, without times and file names."""
    out: list[Any] = [record.status, record.error]
    for step in record.steps:
        tools = [(t.name, t.status, t.source, t.params) for t in step.tools]
        out.append((step.index, step.kind, step.mode, step.status, step.error, tools))
        out.extend(_shape(sub) for sub in step.subtrails)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", ["open-message.trail.yaml", "compose-validation.trail.yaml"])
def test_the_run_directory_and_memory_keep_the_same_records(
    session: DeviceSession, tmp_path: Path, name: str
) -> None:
    """One bookkeeping path: the same replay, observed by a run directory or kept in memory, gives
    the same trail, step and tool records (sub-trails nested under their step in both)."""
    for file in ("login.trail.yaml", name):
        shutil.copy(ROOT / "trails" / file, tmp_path / file)
    trail = tmp_path / name
    secrets = {"password": "hunter2"}

    in_memory = replay_trail(trail, session, memory=Memory(secrets=secrets))
    rundir = RunDir(tmp_path / "run", Memory(secrets=secrets), command=["test"], device="sim:android")
    on_disk = replay_trail(trail, session, memory=Memory(secrets=secrets), rundir=rundir)
    rundir.finish()

    assert in_memory.status.startswith("passed"), in_memory.error
    assert _shape(in_memory) == _shape(on_disk)
    assert all(step.duration_ms > 0 for step in in_memory.steps if step.status != "skipped")
    assert in_memory.duration_ms > 0 and on_disk.duration_ms > 0
    if name == "open-message.trail.yaml":
        assert len(in_memory.steps[0].subtrails) == 1 and in_memory.steps[0].subtrails[0].steps
    assert "hunter2" not in repr(_shape(in_memory))
