"""The CI verdict of a run (`trailblaze.output.ci_policy`), `config.quarantine` in the trail format and
schema, and the simulator's `{device.launches}` that the retry tests' deterministic flake rests on."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest

from tests.support.paths import DATA
from tests.support.sim_phone import Phone
from trailblaze.errors import TrailFileError
from trailblaze.output.ci_policy import CiPolicy, heals, verdict
from trailblaze.output.runlog import RunRecord, StepRecord, TrailRecord
from trailblaze.trail.model import loads_trail
from trailblaze.trail.schema import trail_json_schema


def _trail(name: str, status: str, *, attempts: int = 0, quarantine: str | None = None) -> TrailRecord:
    failed = TrailRecord(
        path=f"{name}.trail.yaml", id=name, status="failed", error=f"{name} broke", directory=name
    )
    return TrailRecord(
        path=f"{name}.trail.yaml",
        id=name,
        status=status,  # type: ignore[arg-type]
        attempts=[failed.model_copy() for _ in range(attempts)],
        quarantine=quarantine,
        directory=f"{name}-attempt-{attempts + 1}" if attempts else name,
    )


def _run(*trails: TrailRecord) -> RunRecord:
    return RunRecord(run_id="r", started_at="", command=[], device="sim:android", trails=list(trails))


def test_a_clean_run_passes_with_nothing_to_say() -> None:
    result = verdict(_run(_trail("a", "passed"), _trail("b", "skipped")), CiPolicy())
    assert (result.code, result.lines) == (0, [])


def test_a_late_pass_is_flaky_and_fails_only_with_fail_on_flaky() -> None:
    run = _run(_trail("a", "passed", attempts=1))
    lenient = verdict(run, CiPolicy(retries=1))
    assert lenient.code == 0
    assert lenient.lines == ["flaky: a passed on attempt 2 of 2; attempt 1 failed: a broke"]
    strict = verdict(run, CiPolicy(retries=1, fail_on_flaky=True))
    assert strict.code == 1 and strict.lines[-1] == "--fail-on-flaky: 1 flaky trail fail the run"


def test_a_trail_that_failed_every_attempt_fails_and_is_not_flaky() -> None:
    result = verdict(_run(_trail("a", "failed", attempts=2)), CiPolicy(retries=2))
    assert result.code == 1 and not any(line.startswith("flaky") for line in result.lines)


def test_a_quarantined_failure_does_not_fail_the_run_but_is_listed_with_its_reason() -> None:
    run = _run(
        _trail("a", "passed"),
        _trail("b", "failed", quarantine="JIRA-1"),
        _trail("c", "passed", quarantine="JIRA-2"),
    )
    result = verdict(run, CiPolicy())
    assert result.code == 0
    assert result.lines == ["quarantined: b failed (JIRA-1)", "quarantined: c passed (JIRA-2)"]
    assert verdict(_run(_trail("b", "failed")), CiPolicy()).code == 1


def _healed(name: str, *steps: str) -> TrailRecord:
    record = _trail(name, "passed-with-self-heal")
    record.heal_diff = "--- a\n+++ b\n"
    record.steps = [StepRecord(index=i, kind="step", text=f"step {i}", status=s) for i, s in enumerate(steps)]  # type: ignore[arg-type]
    return record


def test_the_heal_budget_counts_healed_steps_and_lists_each_with_its_diff() -> None:
    run = _run(
        _healed("a", "passed", "passed-with-self-heal"),
        _healed("b", "passed-with-self-heal", "passed-with-self-heal"),
    )
    assert [(h.trail, h.step, h.diff) for h in heals(run)] == [
        ("a", 2, "a/trail.diff"),
        ("b", 1, "b/trail.diff"),
        ("b", 2, "b/trail.diff"),
    ]
    within = verdict(run, CiPolicy(max_heals=3), Path("/runs/1"))
    assert within.code == 0
    assert within.lines[0] == "healed: a step 2 (step 1) — diff /runs/1/a/trail.diff"
    over = verdict(run, CiPolicy(max_heals=2))
    assert over.code == 1
    assert over.lines[-1] == "heal budget exceeded: 3 steps needed healing, --max-heals 2: the run fails"
    assert verdict(run, CiPolicy()).code == 0  # no budget: healed passes pass, but are still listed
    assert len(verdict(run, CiPolicy()).lines) == 3


_QUARANTINED = """\
config:
  id: q
  quarantine: "JIRA-7: flaky backend"
trail:
  - step: Tap Sign in
"""


def test_config_quarantine_loads_and_the_schema_knows_it() -> None:
    trail = loads_trail(_QUARANTINED)
    assert trail.config is not None and trail.config.quarantine == "JIRA-7: flaky backend"
    schema = trail_json_schema()
    validator = jsonschema.Draft202012Validator(schema)
    import yaml

    assert not list(validator.iter_errors(yaml.safe_load(_QUARANTINED)))
    empty = yaml.safe_load(_QUARANTINED.replace('"JIRA-7: flaky backend"', '""'))
    assert list(validator.iter_errors(empty))
    with pytest.raises(TrailFileError, match="quarantine"):
        loads_trail(_QUARANTINED.replace('"JIRA-7: flaky backend"', '""'))


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_device_launches_counts_cold_starts_after_boot_and_survives_clearing_data(platform: str) -> None:
    phone = Phone(platform, str(DATA / "sim" / "second_launch.yaml"))
    app = "dev.trailblaze.secondlaunch"
    assert not phone.has("ready")  # booted with the app: launch 0
    phone.d.clear_app_data(app)
    phone.d.launch(app)
    assert not phone.has("ready")  # launch 1
    phone.d.launch(app)
    assert not phone.has("ready")  # already running: not a cold start
    phone.d.clear_app_data(app)
    phone.d.launch(app)
    assert phone.find("ready").text == "Ready"  # launch 2, although the data was cleared
    phone.d.terminate(app)
    phone.d.launch(app)
    assert not phone.has("ready")  # launch 3
