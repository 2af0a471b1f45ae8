"""CTRF JSON from a run log (`replay --ctrf FILE`, `trailblaze report RUN_DIR --ctrf FILE`).

CTRF (Common Test Report Format, https://ctrf.io) is one JSON document per run that GitHub, GitLab,
Slack and flaky-test dashboards read. Each trail on each device is one test; its earlier attempts
(`--retries`) are its `retryAttempts`, and a trail that passed only on a retry is `flaky`. The
document's `runId` is the CI pipeline's id when there is one, so the shards of one pipeline share it
(CTRF's rule for documents of one logical run); `environment.shardId` says which shard wrote it.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from trailblaze.__about__ import __version__
from trailblaze.common.files import atomic_write
from trailblaze.common.redact import scrub
from trailblaze.common.redact_values import scrub_data
from trailblaze.output._results import epoch_ms, failure_text, trail_key
from trailblaze.output.junit import workspace_path
from trailblaze.output.runlog import RunRecord, TrailRecord

__all__ = ["CtrfReport", "pipeline_run_id", "write_ctrf"]

SPEC_VERSION = "1.0.0"
CtrfStatus = Literal["passed", "failed", "skipped", "pending", "other"]

_PIPELINE_IDS = (
    ("TRAILBLAZE_RUN_ID",),
    ("GITHUB_RUN_ID", "GITHUB_RUN_ATTEMPT"),
    ("CI_PIPELINE_ID",),
    ("BUILDKITE_BUILD_ID",),
    ("CIRCLE_WORKFLOW_ID",),
    ("BUILD_TAG",),
)
"""Where a CI system keeps the id its parallel jobs share (GitHub Actions, GitLab, Buildkite,
CircleCI, Jenkins), `TRAILBLAZE_RUN_ID` first: the first set whose variables are all set wins."""


class _Model(BaseModel):
    # camelCase field names: CTRF's own
    model_config = ConfigDict(extra="forbid", defer_build=True)


class CtrfAttachment(_Model):
    name: str
    contentType: str
    path: str


class CtrfAttempt(_Model):
    attempt: int
    status: CtrfStatus
    duration: int
    start: int
    stop: int
    message: str | None = None
    trace: str | None = None


class CtrfTest(_Model):
    testId: str
    name: str
    status: CtrfStatus
    rawStatus: str
    duration: int
    start: int
    stop: int
    suite: list[str]
    message: str | None = None
    trace: str | None = None
    tags: list[str] = Field(default_factory=list)
    labels: dict[str, str] = Field(default_factory=dict)
    type: str = "e2e"
    filePath: str
    retries: int = 0
    retryAttempts: list[CtrfAttempt] = Field(default_factory=list)
    flaky: bool = False
    device: str
    attachments: list[CtrfAttachment] = Field(default_factory=list)
    extra: dict[str, Any] = Field(default_factory=dict)


class CtrfSummary(_Model):
    tests: int = 0
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    pending: int = 0
    other: int = 0
    flaky: int = 0
    start: int = 0
    stop: int = 0
    duration: int = 0


class CtrfTool(_Model):
    name: str = "trailblaze"
    version: str = __version__


class CtrfEnvironment(_Model):
    reportName: str
    shardId: str | None = None
    osPlatform: str | None = None
    extra: dict[str, Any] = Field(default_factory=dict)


class CtrfResults(_Model):
    tool: CtrfTool = Field(default_factory=CtrfTool)
    summary: CtrfSummary
    tests: list[CtrfTest]
    environment: CtrfEnvironment


class CtrfReport(_Model):
    """The CTRF document (the schema's fields trailblaze fills)."""

    reportFormat: Literal["CTRF"] = "CTRF"
    specVersion: str = SPEC_VERSION
    reportId: str
    runId: str
    timestamp: str
    generatedBy: str = f"trailblaze {__version__}"
    results: CtrfResults


def pipeline_run_id(env: Mapping[str, str], fallback: str) -> str:
    """The CI pipeline's id that every shard job sees alike; `fallback` (the run's own id) outside CI."""
    for names in _PIPELINE_IDS:
        values = [env.get(name, "") for name in names]
        if all(values):
            return "-".join(values)
    return fallback


def write_ctrf(
    run: RunRecord,
    path: str | os.PathLike[str],
    *,
    run_dir: str | os.PathLike[str],
    trails: Iterable[TrailRecord] | None = None,
) -> Path:
    """Writes the run as a CTRF document (atomically) and returns its path.

    Args:
        run: The run log.
        run_dir: The folder the run's artifact paths are relative to (the storyboards' paths).
        trails: The run's trails when they are not in `run` (read one at a time from run.json).

    Raises:
        UsageError: the file cannot be written.
    """
    from trailblaze.errors import UsageError
    from trailblaze.output.rundir import now_iso

    base = Path(run_dir)
    tests = [_test(trail, base) for trail in (run.trails if trails is None else trails)]
    start = epoch_ms(run.started_at)
    stop = max([start, *(t.stop for t in tests)])
    summary = CtrfSummary(tests=len(tests), start=start, stop=stop, duration=stop - start)
    for test in tests:
        setattr(summary, test.status, getattr(summary, test.status) + 1)
        summary.flaky += test.flaky
    report = CtrfReport(
        reportId=str(uuid.uuid4()),
        runId=scrub(pipeline_run_id(os.environ, run.run_id)),
        timestamp=now_iso(),
        results=CtrfResults(
            summary=summary,
            tests=tests,
            environment=CtrfEnvironment(
                reportName="trailblaze",
                shardId=run.shard,
                osPlatform=os.uname().sysname.lower() if hasattr(os, "uname") else None,
                extra=scrub_data({"trailblazeRunId": run.run_id, "device": run.device}),
            ),
        ),
    )
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(target, (report.model_dump_json(exclude_none=True, indent=2) + "\n").encode("utf-8"))
    except OSError as exc:
        raise UsageError(
            f"{target}: cannot write the CTRF file ({exc.strerror or exc}); pick another --ctrf path"
        ) from None
    return target


def _status(status: str) -> CtrfStatus:
    """Passes (healed, AI, flaky) pass; a device or LLM error or an interrupted trail is `other`."""
    if status.startswith("passed"):
        return "passed"
    if status in ("failed", "skipped"):
        return "failed" if status == "failed" else "skipped"
    return "other"


def _test(trail: TrailRecord, base: Path) -> CtrfTest:
    start = epoch_ms(trail.started_at)
    message, trace = failure_text(trail)
    attempts = []
    for n, earlier in enumerate(trail.attempts, 1):
        began = epoch_ms(earlier.started_at)
        said, why = failure_text(earlier)
        took = round(earlier.duration_ms)
        attempts.append(
            CtrfAttempt(
                attempt=n,
                status=_status(earlier.status),
                duration=took,
                start=began,
                stop=began + took,
                message=said,
                trace=why,
            )  # fmt: skip
        )
    labels = {
        "platform": trail.platform,
        "device": trail.device,
        "classifier": trail.classifier,
        "mode": trail.mode,
    }
    if trail.quarantine:
        labels["quarantine"] = trail.quarantine
    storyboard = (
        [
            CtrfAttachment(
                name="storyboard", contentType="image/webp", path=workspace_path(trail.storyboard, base)
            )
        ]
        if trail.storyboard
        else []
    )
    status = _status(trail.status)
    return CtrfTest(
        testId=trail_key(trail),
        name=scrub(trail.title or trail.id or trail.path),
        status=status,
        rawStatus=trail.status,
        duration=round(trail.duration_ms),
        start=start,
        stop=start + round(trail.duration_ms),
        suite=["trailblaze", trail.platform or "-"],
        message=message,
        trace=trace,
        tags=[scrub(t) for t in trail.tags],
        labels={k: scrub(v) for k, v in labels.items() if v},
        filePath=scrub(trail.path),
        retries=len(trail.attempts),
        retryAttempts=attempts,
        flaky=status == "passed" and bool(trail.attempts),
        device=scrub(trail.device or "-"),
        attachments=storyboard,
        extra=scrub_data(
            {"platform": trail.platform, "device": trail.device, "id": trail.id, "directory": trail.directory}
        ),
    )
