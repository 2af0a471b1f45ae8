"""The bookkeeping of a run without a run directory, and the record of a replayed tool both keepers write.

The engine (`trailblaze.engine.steps`) reports trails, steps and tools to the run's `RunEvents`
(`trailblaze.output.events`) and keeps no records of its own. `RunDir` (trailblaze.output.rundir) is
the bookkeeper of a run with a run directory: it writes run.json, screenshots and transcripts as the
run goes. `MemoryRecorder` is the bookkeeper of a run without one (`replay_trail(..., rundir=None)`,
pytest, MCP): it fills the same `TrailRecord`s in memory. Either way the engine has one bookkeeping
path (docs/adr/0045-engine-policies.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.output.events import RunEvents
from trailblaze.output.runlog import StepRecord, ToolRecord, TrailRecord, UsageTotals

if TYPE_CHECKING:
    from trailblaze.device.session import DeviceSession
    from trailblaze.output.step_result import StepResult
    from trailblaze.tools.execute import ToolResult
    from trailblaze.tools.memory import Memory
    from trailblaze.trail.model import ToolCall

__all__ = ["MemoryRecorder", "replayed_record"]


def replayed_record(
    call: ToolCall, result: ToolResult, duration_ms: float, auto: bool, redact: Callable[[Any], Any]
) -> ToolRecord:
    """The record of a recorded tool that ran (`auto`: one the engine added, e.g. hideKeyboard)."""
    return ToolRecord(
        name=call.name,
        params=redact(call.params),
        status=result.status,
        message=redact(result.message),
        source="auto" if auto else "recording",
        no_change=result.no_change,
        ai=result.ai,
        duration_ms=duration_ms,
    )


class MemoryRecorder(RunEvents):
    """The bookkeeper of a run with no run directory: the records are filled in memory only."""

    def __init__(self) -> None:
        self._trails: list[tuple[TrailRecord, Memory]] = []
        self._step: StepRecord | None = None
        self._steps: list[StepRecord | None] = []

    def begin_trail(
        self,
        record: TrailRecord,
        memory: Memory,
        *,
        proof_of: TrailRecord | None = None,
        within: StepRecord | None = None,
    ) -> None:
        if within is not None:
            within.subtrails.append(record)
        elif proof_of is not None:
            proof_of.proof = record
        self._trails.append((record, memory))
        self._steps.append(self._step)
        self._step = None

    def end_trail(
        self, record: TrailRecord, error: str | None, started: float, *, memory: Memory, sub: bool
    ) -> None:
        record.error = memory.redact(error) if error else None
        for step in record.steps:
            record.usage.add(step.usage)
        record.duration_ms = (time.monotonic() - started) * 1000
        if self._trails and self._trails[-1][0] is record:
            self._trails.pop()
            self._step = self._steps.pop()

    def resume_trail(self, record: TrailRecord) -> None:
        return None  # nothing is current between trails in memory

    def start_step(self, record: StepRecord, session: DeviceSession | None) -> StepRecord:
        trail, _ = self._trails[-1]
        trail.steps.append(record)
        self._step = record
        return record

    def finish_step(self, session: DeviceSession | None, started: float) -> None:
        if self._step is not None:
            self._step.duration_ms = (time.monotonic() - started) * 1000

    def add_replayed(
        self, call: ToolCall, result: ToolResult, duration_ms: float, *, auto: bool = False
    ) -> None:
        assert self._step is not None
        self._step.tools.append(replayed_record(call, result, duration_ms, auto, self._trails[-1][1].redact))

    def step_solved(self, record: StepRecord, result: StepResult, *, healing: bool) -> None:
        memory = self._trails[-1][1]
        u = result.usage
        record.usage = UsageTotals(
            llm_calls=result.llm_calls,
            input_tokens=u.input_tokens,
            output_tokens=u.output_tokens,
            cache_creation_input_tokens=u.cache_creation_input_tokens,
            cache_read_input_tokens=u.cache_read_input_tokens,
            cost_usd=result.cost_usd,
        )
        for run in result.runs:
            calls = run.outcome.recorded
            name, params = (calls[0].name, calls[0].params) if calls else (run.use.name, dict(run.use.input))
            record.tools.append(
                ToolRecord(
                    name=name,
                    params=memory.redact({k: v for k, v in params.items() if k != "reasoning"}),
                    status=run.outcome.status,
                    message=memory.redact(run.outcome.message),
                    source="self-heal" if healing else "agent",
                    llm_tool=run.use.name,
                    duration_ms=run.duration_ms,
                )
            )

    def mark_recorded(self) -> None:
        return None  # the step's `recording_written` is set by the engine; nothing else is kept

    def trail_folder(self, record: TrailRecord) -> Path | None:
        return None
