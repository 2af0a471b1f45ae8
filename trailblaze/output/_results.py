"""What the Allure and CTRF writers read alike from a trail's record: times and the failure's text."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

from trailblaze.common.redact import scrub
from trailblaze.output._html import step_label
from trailblaze.output.runlog import TrailRecord


def epoch_ms(iso: str) -> int:
    """run.json's ISO time in milliseconds since the epoch (now when it is missing or unreadable)."""
    try:
        parsed = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        parsed = datetime.now(UTC)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return round(parsed.timestamp() * 1000)


def failure_text(trail: TrailRecord) -> tuple[str | None, str | None]:
    """(one-line message, trace) of a trail that did not pass, scrubbed: the failing step and its
    error, and the closest elements on screen; (None, None) for a pass."""
    if trail.status.startswith("passed"):
        return None, None
    step = next((s for s in trail.steps if s.status == "failed"), None)
    if step is None:
        return scrub(trail.error or trail.status), None
    error = step.error or trail.error or "step failed"
    lines = [f"{trail.path}, {step_label(step.index)}: {step.text}", error]
    if step.candidates:
        lines += ["closest elements on screen:", *(f"  {c}" for c in step.candidates)]
    return scrub(f"{step_label(step.index)}: {step.text} — {error}"), scrub("\n".join(lines))


def trail_key(trail: TrailRecord) -> str:
    """The same for one trail on one device in every run (its id, else its path, and the device):
    Allure's `historyId`, CTRF's `testId`."""
    key = f"{trail.id or trail.path}\0{trail.device}"
    return hashlib.md5(key.encode(), usedforsecurity=False).hexdigest()
