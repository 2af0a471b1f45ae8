"""Allure results from a run log (`replay --allure-dir DIR`, `trailblaze report RUN_DIR --allure-dir DIR`).

Allure (2 and 3) reads a folder of `<uuid>-result.json` files, one per test execution, and the
attachments they name (`<uuid>-attachment.<ext>`). Each trail on each device is one result; each of
its steps is an Allure step with its screenshot attached, and the storyboard is attached to the
result. A retried trail (`--retries`) writes one result per attempt with the same `historyId`, which
is how Allure shows retries. Allure 3 links a test across runs by its `fullName` and parameters,
Allure 2 by `historyId`: both stay the same from run to run for one trail on one device.

The screenshots are copied from the run directory, which holds them masked already; every text
value is scrubbed of registered secrets as it is written.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from trailblaze.common.files import atomic_write
from trailblaze.common.redact import scrub
from trailblaze.output._html import step_label
from trailblaze.output._results import epoch_ms, failure_text, trail_key
from trailblaze.output.runlog import RunRecord, StepRecord, TrailRecord

__all__ = ["AllureResult", "write_allure"]

AllureStatus = Literal["passed", "failed", "broken", "skipped"]
_NAMESPACE = uuid.UUID("5b0e2c52-7f0e-4d7a-9a55-3f0c2d1b7a11")
_TYPES = {".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png", ".webp": "image/webp"}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


class AllureLabel(_Model):
    name: str
    value: str


class AllureParameter(_Model):
    name: str
    value: str


class AllureAttachment(_Model):
    name: str
    source: str
    """The attachment's file name in the results folder."""
    type: str


class AllureStatusDetails(_Model):
    message: str | None = None
    trace: str | None = None
    flaky: bool = False
    muted: bool = False
    """A quarantined trail: its failure does not fail the build."""


class AllureStep(_Model):
    name: str
    status: AllureStatus
    statusDetails: AllureStatusDetails | None = None
    stage: Literal["finished"] = "finished"
    start: int
    stop: int
    attachments: list[AllureAttachment] = Field(default_factory=list)
    steps: list[AllureStep] = Field(default_factory=list)


class AllureResult(_Model):
    """One `<uuid>-result.json`: Allure's test result schema (the fields trailblaze fills; camelCase
    as Allure spells them)."""

    uuid: str
    historyId: str
    testCaseId: str
    name: str
    fullName: str
    status: AllureStatus
    statusDetails: AllureStatusDetails = Field(default_factory=AllureStatusDetails)
    stage: Literal["finished"] = "finished"
    start: int
    stop: int
    labels: list[AllureLabel] = Field(default_factory=list)
    parameters: list[AllureParameter] = Field(default_factory=list)
    attachments: list[AllureAttachment] = Field(default_factory=list)
    steps: list[AllureStep] = Field(default_factory=list)


def write_allure(
    run: RunRecord,
    directory: str | os.PathLike[str],
    *,
    run_dir: str | os.PathLike[str],
    trails: Iterable[TrailRecord] | None = None,
) -> Path:
    """Writes the run's Allure results into `directory` (created; files already there are kept, so
    several runs or shards can share it), with `environment.properties` and, in CI, `executor.json`
    (`trailblaze.output.allure_env`), and returns it.

    Args:
        run: The run log.
        run_dir: The folder the run's artifact paths are relative to (the screenshots copied).
        trails: The run's trails when they are not in `run` (read one at a time from run.json).

    Raises:
        UsageError: the folder cannot be written.
    """
    from trailblaze.errors import UsageError
    from trailblaze.output.allure_env import write_environment, write_executor

    target, base = Path(directory), Path(run_dir)
    devices: dict[tuple[str, str], None] = {}  # in the order met, each once
    try:
        target.mkdir(parents=True, exist_ok=True)
        for n, trail in enumerate(run.trails if trails is None else trails):
            devices[(trail.platform, trail.device)] = None
            for k, attempt in enumerate([*trail.attempts, trail]):
                _write_result(
                    _Writer(target, base, f"{run.run_id}\0{run.started_at}\0{n}\0{k}"), attempt, trail
                )
        write_environment(target, run, devices)
        write_executor(target, os.environ)
    except OSError as exc:
        raise UsageError(
            f"{target}: cannot write the Allure results ({exc.strerror or exc}); pick another --allure-dir"
        ) from None
    return target


class _Writer:
    """Writes one result and its attachments."""

    def __init__(self, target: Path, base: Path, key: str) -> None:
        """`key`: the run, the trail's place in it and the attempt's number."""
        self.target, self.base = target, base
        self.uuid = str(uuid.uuid5(_NAMESPACE, key))  # the same file again when a run is written again
        self._count = 0

    def attach(self, name: str, relative: str | None) -> list[AllureAttachment]:
        """The run directory's file copied in as an attachment (none when it is missing)."""
        if not relative:
            return []
        source = self.base / relative
        if not source.is_file():
            return []
        self._count += 1
        suffix = source.suffix.lower()
        file = f"{self.uuid}-{self._count}-attachment{suffix}"
        shutil.copyfile(source, self.target / file)
        return [AllureAttachment(name=name, source=file, type=_TYPES.get(suffix, "application/octet-stream"))]


def _write_result(out: _Writer, record: TrailRecord, final: TrailRecord) -> None:
    """One attempt of `final` (the trail's last attempt, which holds the earlier ones) as a result."""
    start = epoch_ms(record.started_at)
    steps, _ = _steps(out, record.steps, start)
    status = _status(record.status)
    message, trace = failure_text(record)
    labels = [
        ("framework", "trailblaze"),
        ("host", socket.gethostname() or "localhost"),
        ("parentSuite", "trailblaze"),
        ("suite", record.platform or "-"),
        ("subSuite", record.device or "-"),
        ("platform", record.platform or "-"),
        ("device", record.device or "-"),
        *(("tag", tag) for tag in record.tags),
    ]
    result = AllureResult(
        uuid=out.uuid,
        historyId=trail_key(final),
        testCaseId=hashlib.md5((final.id or final.path).encode(), usedforsecurity=False).hexdigest(),
        name=scrub(final.title or final.id or final.path),
        fullName=scrub(final.id or final.path),
        status=status,
        statusDetails=AllureStatusDetails(
            message=message,
            trace=trace,
            flaky=record is final and bool(final.attempts) and status == "passed",
            muted=bool(final.quarantine),
        ),
        start=start,
        stop=start + round(record.duration_ms),
        labels=[AllureLabel(name=n, value=scrub(v)) for n, v in labels],
        parameters=[AllureParameter(name="device", value=scrub(record.device or "-"))],
        attachments=out.attach("storyboard", record.storyboard),
        steps=steps,
    )
    text = result.model_dump_json(exclude_none=True, indent=2)
    atomic_write(out.target / f"{out.uuid}-result.json", text.encode("utf-8"))


def _steps(out: _Writer, records: list[StepRecord], start: int) -> tuple[list[AllureStep], int]:
    """The steps as Allure steps, one after the other from `start`; and when the last one stopped.
    A `runTrail` step holds the steps of the trail it ran."""
    steps: list[AllureStep] = []
    at = start
    for step in records:
        inner: list[AllureStep] = []
        for sub in step.subtrails:
            more, _ = _steps(out, sub.steps, at)
            inner.extend(more)
        stop = at + round(step.duration_ms)
        label = step_label(step.index)
        shots = [
            *out.attach(f"{label} before", step.screenshot_before),
            *out.attach(f"{label} after", step.screenshot_after),
        ]
        steps.append(
            AllureStep(
                name=scrub(f"{label}: {step.text}"),
                status=_step_status(step),
                statusDetails=AllureStatusDetails(message=scrub(step.error)) if step.error else None,
                start=at,
                stop=stop,
                attachments=shots,
                steps=inner,
            )
        )
        at = stop
    return steps, at


def _status(status: str) -> AllureStatus:
    """Passes (healed, AI) pass; a device or LLM failure (or an interrupted run) is `broken`."""
    if status.startswith("passed"):
        return "passed"
    if status in ("failed", "skipped"):
        return "failed" if status == "failed" else "skipped"
    return "broken"


def _step_status(step: StepRecord) -> AllureStatus:
    if step.status.startswith("passed"):
        return "passed"
    return "failed" if step.status == "failed" else "skipped"
