"""A green replay means the app does what the trail says: every app mutant (tests/data/mutants/, one
fact a verify step states changed) fails the trails that state that fact, at that verify step; the
restyled demo (same facts, another layout) passes them all.

The replays run once per module, concurrently, each on its own simulator (tests/support/mutants.py);
benchmarks/mutant_kills.py runs the full cross product and prints the kill table.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from tests.support.mutants import (
    EXAMPLES_DIR,
    MUTANTS_DIR,
    PLATFORMS,
    RESTYLED,
    Contradiction,
    Job,
    Outcome,
    example_trails,
    load_manifest,
    mutant_path,
    outcome_of,
    run_jobs,
    verdict,
)
from tests.support.sim_phone import Phone
from trailblaze.output.runlog import StepRecord, TrailRecord
from trailblaze.trail.model import load_trail
from trailblaze_sim import load_app_spec

MANIFEST = load_manifest()
PAIRS = [(name, c, p) for name, c in MANIFEST.pairs() for p in PLATFORMS]
RESTYLED_CASES = [(t.name, p) for t in example_trails() for p in PLATFORMS]


def _job(app: str, trail: str, platform: str) -> Job:
    return Job(EXAMPLES_DIR / trail, app, platform)


@pytest.fixture(scope="module")
def outcomes() -> dict[Job, Outcome]:
    jobs = [_job(str(mutant_path(n)), c.trail, p) for n, c, p in PAIRS]
    jobs += [_job(RESTYLED, t, p) for t, p in RESTYLED_CASES]
    return run_jobs(dict.fromkeys(jobs))


# --- the manifest describes real mutants ------------------------------------------------------------


def test_manifest_lists_every_mutant_file_and_real_verify_steps() -> None:
    files = {p.stem for p in MUTANTS_DIR.glob("*.yaml")} - {"manifest"}
    assert files == set(MANIFEST.mutants)
    assert len(files) >= 14
    for name, entry in MANIFEST.mutants.items():
        spec = load_app_spec(mutant_path(name))
        assert spec.app_id == "dev.trailblaze.demo", name
        assert entry.fact and "\n" not in entry.fact
        for c in entry.contradicts:
            steps = load_trail(EXAMPLES_DIR / c.trail).steps
            step = steps[c.step - 1]
            if c.sub_step is None:
                assert step.kind == "verify", c.label
            else:  # a verify step of the trail this step runs with runTrail
                sub = load_trail(EXAMPLES_DIR / _run_trail_path(step)).steps
                assert sub[c.sub_step - 1].kind == "verify", c.label


def _run_trail_path(step: Any) -> str:
    for calls in (step.recording or {}).values():
        for call in calls:
            if call.name == "runTrail":
                return str(call.params["path"])
    raise AssertionError(f"step {step.text!r} runs no trail")


def test_every_fact_stating_verify_step_has_a_mutant() -> None:
    contradicted = {(c.trail, c.step) for _, c in MANIFEST.pairs() if c.sub_step is None}
    for path in example_trails():
        for i, step in enumerate(load_trail(path).steps, start=1):
            if step.kind == "verify":
                assert (path.name, i) in contradicted, f"no mutant contradicts {path.name} step {i}"


# --- what counts as a kill -------------------------------------------------------------------------


def _record(*statuses: str, sub: tuple[str, ...] = ()) -> TrailRecord:
    steps = [
        StepRecord.model_validate({"index": i, "kind": "verify", "text": f"s{i + 1}", "status": st})
        for i, st in enumerate(statuses)
    ]
    if sub:
        inner = _record(*sub)
        steps[0] = steps[0].model_copy(update={"subtrails": [inner]})
    failed = "failed" in statuses
    return TrailRecord(path="t.trail.yaml", status="failed" if failed else "passed", steps=steps)


@pytest.mark.parametrize(
    ("record", "expected", "verdict_"),
    [
        (_record("passed", "passed", "passed"), Contradiction(trail="t", step=2), "survived"),
        (_record("passed", "failed", "not-run"), Contradiction(trail="t", step=2), "killed"),
        (_record("failed", "not-run", "not-run"), Contradiction(trail="t", step=2), "broke early"),
        (_record("passed", "passed", "failed"), Contradiction(trail="t", step=2), "failed later"),
        (
            _record("failed", "not-run", sub=("passed", "failed")),
            Contradiction(trail="t", step=1, sub_step=2),
            "killed",
        ),
        (
            _record("failed", "not-run", sub=("failed", "not-run")),
            Contradiction(trail="t", step=1, sub_step=2),
            "broke early",
        ),
        (_record("failed", "not-run"), Contradiction(trail="t", step=1, sub_step=2), "broke early"),
    ],
)
def test_a_kill_is_a_failure_at_the_contradicted_step(
    record: TrailRecord, expected: Contradiction, verdict_: str
) -> None:
    assert verdict(outcome_of(record), expected) == verdict_


def test_a_replay_that_could_not_run_is_not_a_kill() -> None:
    assert (
        verdict(Outcome("error", (), "DeviceError: gone"), Contradiction(trail="t", step=1)) == "broke early"
    )


# --- each mutant changes exactly its fact (on the simulator, without trailblaze) ----------------------


def _detail(p: Phone, n: int) -> tuple[str | None, str | None]:
    p.open(f"Message {n}")
    seen = (p.text_of("message_title"), p.text_of("message_body"))
    p.back()
    return seen


def _inbox(p: Phone) -> object:
    p.sign_in("user@example.com")
    return p.headings()


def _details(p: Phone) -> object:
    p.sign_in("user@example.com")
    return [_detail(p, n) for n in (2, 3, 4)]


def _detail_8(p: Phone) -> object:
    p.sign_in("user@example.com")
    return _detail(p, 8)


def _archive(p: Phone) -> object:
    p.sign_in("user@example.com")
    p.open("Message 3")
    p.tap("archive")
    return p.d.screen_name, p.text_of("snackbar_text"), "Message 3" in p.row_titles()


def _compose(p: Phone) -> object:
    p.sign_in("user@example.com")
    p.tap("compose")
    p.type_into("subject", "Hello")
    p.tap("send")
    error = p.text_of("error")
    p.type_into("to", "friend@example.com")
    p.tap("send")
    return error, p.d.screen_name, p.text_of("snackbar_text")


def _search(p: Phone) -> object:
    p.sign_in("user@example.com")
    p.tap("tab_search")
    p.type_into("query", "Message 12")
    found = p.row_titles()
    p.d.clear_text()
    p.d.type_text("zzz")
    return found, p.text_of("empty")


def _settings(p: Phone) -> object:
    p.sign_in("user@example.com")
    p.tap("tab_settings")
    before = (p.find("dark_mode").checked, p.find("notifications").checked)
    p.tap("dark_mode")
    return before, (p.find("dark_mode").checked, p.find("notifications").checked)


def _sign_out(p: Phone) -> object:
    fresh = (p.text_of("welcome"), p.text_of("sign_in"))
    p.sign_in("user@example.com")
    p.tap("tab_settings")
    p.tap("sign_out")
    p.tap("confirm_sign_out")
    return fresh, p.d.screen_name, p.text_of("welcome"), p.text_of("sign_in")


_DEMO_DETAILS = [
    ("Message 2", "This is message 2."),
    ("Message 3", "This is message 3."),
    ("Message 4", "This is message 4."),
]
_FRESH = ("Welcome back", "Sign in")

# mutant: (scenario, what the demo shows, what the mutant shows)
FACTS: dict[str, tuple[Callable[[Phone], object], object, object]] = {
    "inbox-heading": (_inbox, ["Inbox"], ["Mailbox"]),
    "detail-heading-3": (
        _details,
        _DEMO_DETAILS,
        [_DEMO_DETAILS[0], ("Message 8", "This is message 3."), _DEMO_DETAILS[2]],
    ),
    "detail-body-3": (
        _details,
        _DEMO_DETAILS,
        [_DEMO_DETAILS[0], ("Message 3", "This is message 33."), _DEMO_DETAILS[2]],
    ),
    "detail-body-2": (
        _details,
        _DEMO_DETAILS,
        [("Message 2", "This is message 22."), *_DEMO_DETAILS[1:]],
    ),
    "detail-body-8": (_detail_8, ("Message 8", "This is message 8."), ("Message 8", "This is message 88.")),
    "archive-snackbar": (_archive, ("inbox", "Message archived", False), ("inbox", "Message deleted", False)),
    "archive-keeps-row": (
        _archive,
        ("inbox", "Message archived", False),
        ("inbox", "Message archived", True),
    ),
    "recipient-error": (
        _compose,
        ("Recipient required", "inbox", "Message sent"),
        ("Recipient missing", "inbox", "Message sent"),
    ),
    "sent-snackbar": (
        _compose,
        ("Recipient required", "inbox", "Message sent"),
        ("Recipient required", "inbox", "Message queued"),
    ),
    "send-stays-on-compose": (
        _compose,
        ("Recipient required", "inbox", "Message sent"),
        ("Recipient required", "compose", "Message sent"),
    ),
    "search-shows-sender": (
        _search,
        (["Message 12"], "No results"),
        (["From: user12@example.com"], "No results"),
    ),
    "search-matches-sender": (_search, (["Message 12"], "No results"), ([], "No results")),
    "search-empty-text": (_search, (["Message 12"], "No results"), (["Message 12"], "Nothing found")),
    "dark-mode-default-on": (_settings, ((False, True), (True, True)), ((True, True), (False, True))),
    "notifications-default-off": (_settings, ((False, True), (True, True)), ((False, False), (True, False))),
    "dark-mode-switch-miswired": (_settings, ((False, True), (True, True)), ((False, True), (False, False))),
    "sign-out-welcome": (
        _sign_out,
        (_FRESH, "login", "Welcome back", "Sign in"),
        (_FRESH, "login", "Welcome", "Sign in"),
    ),
    "sign-out-button": (
        _sign_out,
        (_FRESH, "login", "Welcome back", "Sign in"),
        (_FRESH, "login", "Welcome back", "Log in"),
    ),
    "sign-out-stays": (
        _sign_out,
        (_FRESH, "login", "Welcome back", "Sign in"),
        (_FRESH, "settings", None, None),
    ),
}


def test_every_mutant_has_a_fact_check() -> None:
    assert set(FACTS) == set(MANIFEST.mutants)


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("mutant", sorted(FACTS))
def test_mutant_changes_exactly_its_fact(mutant: str, platform: str) -> None:
    scenario, on_demo, on_mutant = FACTS[mutant]
    assert scenario(Phone(platform, "demo")) == on_demo
    assert scenario(Phone(platform, mutant_path(mutant))) == on_mutant


# --- replays: killed at the contradicted step; restyled passes --------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mutant", "contradiction", "platform"), PAIRS, ids=[f"{n}-{c.label}-{p}" for n, c, p in PAIRS]
)
def test_mutant_fails_the_trail_at_the_contradicted_verify_step(
    mutant: str, contradiction: Contradiction, platform: str, outcomes: dict[Job, Outcome]
) -> None:
    out = outcomes[_job(str(mutant_path(mutant)), contradiction.trail, platform)]
    assert out.status == "failed", f"{mutant} survived {contradiction.label} on {platform}"
    assert verdict(out, contradiction) == "killed", (
        f"{mutant} failed {contradiction.trail} at step {out.failed_at}, not {contradiction.path}: {out.error}"
    )
    # the trail and the step, at the step's line in the trail file
    assert re.search(rf"{re.escape(contradiction.trail)}:\d+ step {contradiction.step} ", out.error), out.error
    if contradiction.sub_step is not None:
        assert f"step {contradiction.sub_step} " in out.error.split(f"step {contradiction.step} ", 1)[1]


@pytest.mark.slow  # shares the module fixture that replays every mutant
@pytest.mark.parametrize(("trail", "platform"), RESTYLED_CASES)
def test_restyled_demo_passes_every_trail(trail: str, platform: str, outcomes: dict[Job, Outcome]) -> None:
    out = outcomes[_job(RESTYLED, trail, platform)]
    assert out.status == "passed", out.error
