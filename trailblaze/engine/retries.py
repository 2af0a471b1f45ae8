"""Re-running a failed trail from its start (`replay --retries N`, pytest `--trailblaze-retries N`).

Only a trail that *failed* is retried: a pass, a skip or an infrastructure error (exit 3, raised)
is final. Before a retry the app under test (`config.target`) is stopped, so the attempt starts
from a cold launch as the first one did, not from the screen the failure left. Every attempt keeps
its own run-directory folder and record; the last attempt's record holds the earlier ones in
`attempts`, which is what makes a late pass read as `flaky` (`trailblaze.output.ci_policy`, ADR 0044).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from trailblaze.output.runlog import TrailRecord

if TYPE_CHECKING:
    from trailblaze.device.session import DeviceSession
    from trailblaze.engine.options import RunInputs
    from trailblaze.engine.replay import ReplayOptions
    from trailblaze.llm.client import LLMClient
    from trailblaze.output.events import RunEvents
    from trailblaze.output.rundir import RunDir
    from trailblaze.trail.model import Trail

__all__ = ["MAX_RETRIES", "clean_launch", "run_with_retries"]

MAX_RETRIES = 10
"""More re-runs than this hide a broken trail rather than a flaky one, and cost a CI hour."""


def run_with_retries(
    run_once: Callable[[], TrailRecord],
    *,
    retries: int,
    rundir: RunDir | None,
    before_retry: Callable[[int, TrailRecord], None] | None = None,
) -> TrailRecord:
    """Runs a trail up to `retries + 1` times, until an attempt does not fail.

    Args:
        run_once: Runs the trail once from its start and returns its record.
        retries: Re-runs allowed after a failed attempt.
        rundir: The run directory the attempts are logged in (each in its own folder).
        before_retry: Called with the next attempt's number (2, 3, …) and the failed attempt's
            record, before that attempt starts (prints the retry, relaunches the app).

    Returns:
        The last attempt's record, the earlier (failed) attempts in its `attempts`.
    """
    earlier: list[TrailRecord] = []
    record = run_once()
    while record.status == "failed" and len(earlier) < retries:
        earlier.append(record)
        attempt = len(earlier) + 1
        if rundir is not None:
            rundir.retry_trail(record, attempt)
        if before_retry is not None:
            before_retry(attempt, record)
        record = run_once()
    if earlier:
        record.attempts = earlier
        if rundir is not None:
            rundir.write()
    return record


def clean_launch(session: DeviceSession, target: str | None) -> None:
    """Stops the app under test so the retry's first launch is a cold start, as the first attempt's was.

    Nothing to stop (no `config.target`, a web page, an app that is not running) is fine: the
    trail's own first step launches what it needs.
    """
    if not target:
        return
    try:
        session.act(lambda driver: driver.stop_app(target), settle=False)
    except Exception:  # a stop that fails leaves the trail's own launch step to do the work
        pass


def replay_with_retries(
    trail: Trail,
    session: DeviceSession,
    *,
    options: ReplayOptions,
    inputs: RunInputs,
    retries: int,
    llm_factory: Callable[[], LLMClient] | None = None,
    rundir: RunDir | None = None,
    device: str = "",
    progress: RunEvents | None = None,
) -> TrailRecord:
    """Replays `trail` on an open session, a failed attempt again from a clean launch up to `retries`
    times: how `trailblaze replay` replays each of its trails and how pytest's `trail_runner.replay`
    replays one (docs/adr/0046-run-options.md). Each attempt gets its memory afresh from `inputs`;
    `progress` hears the steps and each retry.

    Returns:
        The record of the last attempt, the failed ones in its `attempts`.
    """
    from trailblaze.engine.replay import replay_trail
    from trailblaze.trail.variables import build_memory

    def attempt() -> TrailRecord:  # one attempt, from the trail's start
        return replay_trail(
            trail,
            session,
            options=options,
            memory=build_memory(trail, inputs.memory, inputs.args, inputs.secrets, flags=inputs.flags),
            llm_factory=llm_factory,
            rundir=rundir,
            device=device,
            progress=progress,
        )

    target = trail.config.target if trail.config else None

    def before_retry(number: int, failed: TrailRecord) -> None:
        if progress is not None:
            progress.retrying(number, retries)
        clean_launch(session, target)  # the retry launches the app cold, as the first attempt did

    return run_with_retries(attempt, retries=retries, rundir=rundir, before_retry=before_retry)
