"""The step engine record, replay and the proof replay share.

For the trailhead and then every step, the engine picks what to run on this device:

- a recording for the device's classifier (closest first) → its tools run in order through the
  trail's `ToolSet` (element tools poll-resolve, act, settle); `[]` is a deliberate no-op;
- no recording, `recordable: false`, or a step the policy gives the agent (`record --step`,
  `--rerecord`) → the agent solves the step;
- a recorded tool fails → the step fails with diagnostics (trail, step, tool, selector, the closest
  candidates on screen); under a healing policy only that step goes to the agent, seeded with what
  already succeeded and the failure, and the next step tries its own recording again.

What differs between record, re-record, replay, self-heal and the proof replay is a policy object
(`trailblaze.engine.policy`); who keeps the records is the run's bookkeeper, told through the run's
events (`trailblaze.output.events`): the run directory, or an in-memory recorder. No LLM client is
constructed until a step needs the agent (`llm_factory` is called lazily). A step whose recording
changed is set with `Trail.set_recording`; replay saves it atomically at once, record leaves the saving
to `trailblaze.engine.proof` after the proof replay — so a failed or interrupted step never touches the
file.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from trailblaze.common import deadline
from trailblaze.common.files import write_text
from trailblaze.device.driver import SupportsRemoteSession, SupportsTrace
from trailblaze.engine.policy import EnginePolicy
from trailblaze.errors import (
    InfrastructureError,
    TrailblazeError,
    TrailConflictError,
    TrailTimedOut,
    UsageError,
)
from trailblaze.output.observer import MemoryRecorder
from trailblaze.output.runlog import StepRecord, TrailRecord
from trailblaze.tools.memory import Memory
from trailblaze.trail.discovery import folder_trail_id, recordings_file
from trailblaze.trail.model import ToolCall, Trail, TrailStep, closest_classifier, form_factor_of
from trailblaze.trail.subtrail import SubTrails, trail_key

if TYPE_CHECKING:
    from trailblaze.agent.loop import Agent
    from trailblaze.device.session import DeviceSession
    from trailblaze.llm.client import LLMClient
    from trailblaze.output.events import RunEvents
    from trailblaze.port.solver import PortSolver
    from trailblaze.tools.execute import ToolResult
    from trailblaze.tools.toolset import ToolSet

__all__ = ["StepEngine", "run_engine", "skip_reason", "start_record"]


def skip_reason(trail: Trail, classifier: str) -> str | None:
    """Why `config.skip` skips this trail on a device classifier (closest first), or None."""
    skip = trail.config.skip if trail.config else None
    if skip is None or skip is False:
        return None
    if skip is True:
        return "config.skip is set"
    if isinstance(skip, str):
        return skip or "config.skip is set"
    key = closest_classifier(skip, classifier)
    return None if key is None else skip[key] or f"config.skip names {key}"


_HIDE_KEYBOARD = ToolCall(name="hideKeyboard")


@dataclass
class _Failure:
    done: list[tuple[ToolCall, ToolResult]]
    call: ToolCall
    result: ToolResult


class StepEngine:
    """Runs one trail's trailhead and steps on a session, filling a `TrailRecord` as it goes."""

    def __init__(
        self,
        trail: Trail,
        session: DeviceSession,
        memory: Memory,
        policy: EnginePolicy,
        *,
        llm_factory: Callable[[], LLMClient] | None,
        observer: RunEvents | None = None,
        progress: RunEvents | None = None,
        chain: tuple[str, ...] | None = None,
        subtrails: SubTrails | None = None,
    ) -> None:
        self.trail, self.session, self.memory, self.policy = trail, session, memory, policy
        self.llm_factory, self.progress = llm_factory, progress
        self.observer: RunEvents = observer if observer is not None else MemoryRecorder()
        # the trails running now, outermost first (this one last): a runTrail back into one is a cycle
        self.chain = chain if chain is not None else ((trail_key(trail.path),) if trail.path else ())
        self.subtrails: SubTrails = subtrails if subtrails is not None else {}
        self.platform = session.info.platform
        self.classifier = session.info.classifier
        self._agent: Agent | None = None
        self._tools: ToolSet | None = None
        self._device = ""
        self._own_form_factor: set[int] = set()
        """Steps recorded for this device's form factor: their platform recording failed here."""

    @property
    def tools(self) -> ToolSet:
        """The trail's one tool set (docs/adr/0059-one-tool-set-per-run.md): the built-in tools,
        the project's from the trail's tools folder (docs/adr/0020-custom-tools.md), those of them
        `config.tools` offers the model, and `askUser` when the policy has someone to ask."""
        if self._tools is None:
            from trailblaze.tools.discovery import tools_for
            from trailblaze.tools.toolset import ToolSet

            found = tools_for(self.trail.path)
            if found.problems:  # `replay` / `record` report these before the device (preflight)
                raise UsageError("\n".join(found.problems))
            ask = self.policy.agent.ask
            if ask is not None:  # the model's tools are imported only when there is a model to offer them
                from trailblaze.agent.ask import ask_user_tool
            self._tools = ToolSet(
                found.tools.custom(),
                offer=self.trail.config.tools or () if self.trail.config else (),
                model_only=(ask_user_tool(ask),) if ask is not None else (),
            )
        return self._tools

    @property
    def agent(self) -> Agent:
        # Built on first use: a fully recorded trail never constructs an LLM client.
        if self._agent is None:
            from trailblaze.agent.loop import Agent

            assert self.llm_factory is not None
            self._agent = Agent(
                self.llm_factory(),
                self.session,
                self.memory,
                tools=self.tools,
                context=self.trail.config.context if self.trail.config else None,
                max_llm_calls=self.policy.agent.max_llm_calls,
                screenshots=self.policy.agent.screenshots,
                observer=self.observer,
            )
        return self._agent

    # --- the trail ---------------------------------------------------------------------------------
    def run(self, record: TrailRecord) -> None:
        self._device = record.device
        steps: list[tuple[int, str, TrailStep | None]] = []
        if self.trail.trailhead is not None:
            steps.append((-1, self.trail.trailhead.text, None))
        steps += [(i, s.text, s) for i, s in enumerate(self.trail.steps)]
        failed = False
        for index, text, step in steps:
            kind = "trailhead" if step is None else step.kind
            rec = StepRecord(index=index, kind=kind, text=self.memory.redact(text))
            if failed:
                rec.status = "skipped"
                self._add_skipped(rec)
                continue
            self._run_one(rec, step, text, record)
            failed = rec.status == "failed"
        record.status = "failed" if failed else self._passed_status(record)

    def _passed_status(self, record: TrailRecord) -> Literal["passed", "passed-with-self-heal", "passed-ai"]:
        statuses = {s.status for s in record.steps}
        if "passed-with-self-heal" in statuses:
            return "passed-with-self-heal"
        if self.policy.name == "replay" and "passed-ai" in statuses:
            return "passed-ai"
        return "passed"

    def _add_skipped(self, rec: StepRecord) -> None:
        """A step that does not run (an earlier one failed, or `config.skip`) goes into the trail's record."""
        self.observer.start_step(rec, None)

    # --- one step ----------------------------------------------------------------------------------
    def _run_one(self, rec: StepRecord, step: TrailStep | None, text: str, record: TrailRecord) -> None:
        started = time.monotonic()
        try:
            self.observer.start_step(rec, self.session)
            deadline.check("its start")
            recorded = self._recorded_tools(step, rec.index)
            if recorded is None:
                rec.mode = "agent"
                self._solve(rec, step, text, None, device=record.device)
            elif not recorded:  # an empty recording; `noop` is its name in run.json, which readers know
                rec.mode, rec.status = "noop", "passed"
            else:
                rec.mode = "replay"
                failure = self._replay(rec, recorded)
                # trailhead failures are always fatal; a sub-trail mends its own steps; no agent can
                # install a missing app, nor mend a script that throws
                mendable = (
                    failure is not None
                    and step is not None
                    and failure.call.name != "runTrail"
                    and failure.result.status != "NOT_INSTALLED"
                    and not failure.result.in_trail
                )
                if failure is None:
                    rec.status = "passed"
                elif mendable and self._records_form_factor(step):
                    # `record` on a tablet: the phone's recording does not fit, so this form factor gets its own
                    rec.mode = "agent"
                    self._own_form_factor.add(rec.index)
                    self._solve(rec, step, text, failure)
                elif mendable and self.policy.heals():
                    rec.mode = "self-heal"
                    self._solve(rec, step, text, failure)
                else:
                    self._fail_replay(rec, failure, recorded)
        except KeyboardInterrupt:
            rec.status, rec.error = (
                "failed",
                "interrupted (Ctrl-C); the trail file was not changed by this step",
            )
            raise
        except TrailTimedOut as exc:  # the trail fails here; the run goes on with the next trail
            rec.status, rec.error = "failed", self._timed_out(rec, exc)
        except InfrastructureError as exc:
            rec.status = "failed"
            rec.error = self.memory.redact(f"{self._where(rec)}: {exc.message}")
            raise _located(exc, rec.error or exc.message) from exc
        except TrailConflictError as exc:  # names the file and the step already
            rec.status, rec.error = "failed", self.memory.redact(exc.message)
            raise
        except UsageError as exc:  # e.g. a template with no value: say which trail and step
            rec.status = "failed"
            rec.error = self.memory.redact(f"{self._where(rec)}: {exc.message}")
            raise UsageError(rec.error) from exc
        except Exception as exc:
            rec.status, rec.error = "failed", self.memory.redact(f"{type(exc).__name__}: {exc}")
            raise
        finally:
            self.observer.finish_step(self.session, started)
            if self.progress is not None:
                self.progress.step_done(rec)

    def _recording_key(self, step: TrailStep) -> str:
        """The key whose recording this device replays (closest first), else the platform."""
        return closest_classifier(step.recording, self.classifier) or self.platform

    def _writing_key(self, step: TrailStep) -> str:
        """Where a solved step's recording goes: on a form factor of its own (a tablet) whose step has
        another's recording (the phone's), under the form factor, so the other keeps its own; else the
        key this device replays, or the platform."""
        own = form_factor_of(self.classifier)
        used = closest_classifier(step.recording, self.classifier)
        if own is not None and used is not None and used != own:
            return own
        return used or self.platform

    def _records_form_factor(self, step: TrailStep | None) -> bool:
        """Recording on a form factor of its own (a tablet) a step whose recording is another's."""
        own = form_factor_of(self.classifier)
        return (
            self.policy.name == "record"
            and self.policy.writes()
            and own is not None
            and step is not None
            and step.recordable
            and self._recording_key(step) != own
        )

    def _form_factor_hint(self, step: TrailStep | None) -> str:
        """For a replay on a form factor of its own whose step ran another form factor's recording:
        which recording ran here, and how to record one for this device."""
        own = form_factor_of(self.classifier)
        if own is None or step is None or self.policy.name != "replay":
            return ""
        key = self._recording_key(step)
        if key == own:
            return ""
        info = self.session.info
        trail = Path(self.trail.path).name if self.trail.path else "TRAIL"
        command = self.memory.flags.record_trail(trail, self._device or info.platform)
        return (
            f"; this {own} ({info.width}x{info.height} {'px' if info.platform == 'android' else 'pt'}) ran the "
            f"{key} recording, made on another form factor: "
            f"record one for {own} with `{command}` (it records only the steps that fail here)"
        )

    def _recorded_tools(self, step: TrailStep | None, index: int) -> list[ToolCall] | None:
        if step is None:
            assert self.trail.trailhead is not None
            tool = self.trail.trailhead.recording_for(self.classifier)
            return None if tool is None or self.policy.solves(index, trailhead=True) else [tool]
        if step.static:
            return step.recording_for(self.classifier) or []
        if not step.recordable or self.policy.solves(index):
            return None
        return step.recording_for(self.classifier)

    def _replay(self, rec: StepRecord, tools: list[ToolCall]) -> _Failure | None:
        from trailblaze.tools.execute import run_with_keyboard_retry

        done: list[tuple[ToolCall, ToolResult]] = []
        for i, call in enumerate(tools):
            deadline.check(f"recorded tool {i + 1} of {len(tools)} {call.name}")
            if self._keyboard_covers(call):
                self._run_tool(rec, _HIDE_KEYBOARD, auto=True)
            result = run_with_keyboard_retry(
                self.session, lambda c, auto: self._run_tool(rec, c, auto=auto), call
            )
            if not result.ok:
                return _Failure(done, call, result)
            done.append((call, result))
        return None

    def _keyboard_covers(self, call: ToolCall) -> bool:
        """The keyboard is up and the tool's target is not on the (cached, settled) screen."""
        from trailblaze.engine.heal import selector_of
        from trailblaze.screen.patterns import PatternTooSlow
        from trailblaze.screen.resolve import resolve

        selector = selector_of(call)
        if selector is None or call.name == "assertNotVisibleBySelector":
            return False
        screen = self.session.screen()  # the last settle's dump: no round trip
        try:
            return screen.keyboard_shown and not resolve(selector, screen)
        except PatternTooSlow:
            return False  # the tool itself runs next and fails naming the pattern

    def _run_tool(self, rec: StepRecord, call: ToolCall, *, auto: bool = False) -> ToolResult:
        t0 = time.monotonic()
        folder = Path(self.trail.path).parent if self.trail.path else None
        result = self.tools.run(
            self.session, call, self.memory, llm=self.llm_factory, folder=folder,
            run_trail=lambda sub: self._run_subtrail(rec, sub),
        )  # fmt: skip
        self.observer.add_replayed(call, result, (time.monotonic() - t0) * 1000, auto=auto)
        return result

    def _run_subtrail(self, rec: StepRecord, call: ToolCall) -> ToolResult:
        """Run a `runTrail`'s trail on this session; its record nests under `rec` (ADR 0021)."""
        from trailblaze.tools.execute import ToolResult
        from trailblaze.trail.subtrail import open_subtrail

        sub = open_subtrail(self.trail, call, self.memory, self.chain, self.subtrails)
        # Record solves a sub-trail's unrecorded steps too; like the caller's, its new recordings stay
        # in memory (`self.subtrails`, shared with the proof replay) until trailblaze.engine.proof writes them.
        record = start_record(sub.trail, str(sub.path), self.session, self.policy.name, "")
        engine = StepEngine(
            sub.trail,
            self.session,
            sub.memory,
            self.policy.for_subtrail(),
            llm_factory=self.llm_factory,
            observer=self.observer,
            chain=(*self.chain, trail_key(sub.path)),
            subtrails=self.subtrails,
        )
        run_engine(sub.trail, record, engine, skipped=skip_reason(sub.trail, self.classifier), within=rec)
        error = self.memory.redact(record.error) if record.error else None
        name = sub.path.name
        count = f"{len(record.steps)} step{'s' * (len(record.steps) != 1)}"
        if record.status.startswith("passed") or record.status == "skipped":
            return ToolResult("OK", f"{name} {record.status} ({count})", "other")
        return ToolResult("ERROR", f"sub-trail {name} {record.status}: {error}", "other")

    def _fail_replay(self, rec: StepRecord, failure: _Failure, tools: list[ToolCall]) -> None:
        from trailblaze.engine.heal import closest_candidates, selector_of
        from trailblaze.screen.resolve import describe_selector

        call, result = failure.call, failure.result
        rec.status = "failed"
        position = f"tool {len(failure.done) + 1} of {len(tools)}"
        error = f"{self._where(rec)}: recorded {position} {call.name} failed: {result}"
        selector = selector_of(call)
        if selector is not None and describe_selector(selector) not in result.message:
            error += f"; selector {describe_selector(selector)}"
        if result.in_trail:  # the screen is beside the point: the trail's own code failed
            fix = "" if result.asserted else "; fix it in the trail (re-recording or self-heal would not)"
            rec.error = self.memory.redact(error + fix)
            return
        # the screen shows what was typed: the record goes back to callers (pytest), not only to files
        rec.candidates = self.memory.redact(closest_candidates(call, self.session.screen()))
        if result.status == "NOT_INSTALLED":  # the screen is beside the point: the device lacks the app
            rec.error = self.memory.redact(error)
            return
        if rec.candidates and "closest on screen" not in result.message:
            error += "; closest on screen: " + "; ".join(rec.candidates[:3])
        error += self._form_factor_hint(self._step(rec.index))
        error += "; " + self.policy.failure_hint(rec.index, self.memory.flags)
        rec.error = self.memory.redact(error)

    def _solve(
        self,
        rec: StepRecord,
        step: TrailStep | None,
        text: str,
        failure: _Failure | None,
        *,
        device: str = "",
    ) -> None:
        solver = self.policy.agent.solver
        if solver is not None and step is not None:
            self._port(rec, step, solver, failure)
            return
        if self.llm_factory is None:
            rec.status = "failed"
            why = (
                "its recording failed and self-heal needs"
                if failure
                else f"it has no recording for {self.classifier}; solving it needs"
            )
            rec.error = self.memory.redact(f"{self._where(rec)}: {why} an LLM, and none is configured")
            return
        verify = step is not None and step.kind == "verify"
        objective = text
        if failure is not None:
            from trailblaze.engine.heal import seed_text

            objective = f"{text}\n\n{seed_text(failure.done, failure.call, failure.result)}"
        agent = self._agent_for(step, failure, device)
        result = agent.run_step(objective, verify=verify, stated=text)
        if result.status == "COMPLETED" and agent.completed and agent.completed[-1] == objective:
            agent.completed[-1] = text  # the next step's reminder names the step, not the heal note
        self.observer.step_solved(rec, result, healing=failure is not None)
        if result.status != "COMPLETED":
            rec.status = "failed"
            if failure is not None:
                mending = (
                    f"recording it for {self.classifier}"
                    if rec.index in self._own_form_factor
                    else "self-heal"
                )
                rec.error = (
                    f"{self._where(rec)}: {mending} failed ({result.explanation}) after the recorded "
                    f"{failure.call.name} failed: {failure.result}"
                )
            else:
                rec.error = f"{self._where(rec)}: {result.explanation}"
            rec.error = self.memory.redact(rec.error)
            return
        new_tools = result.recorded
        if failure is not None:
            from trailblaze.engine.heal import ambiguity

            doubt = ambiguity(new_tools)
            if doubt is not None:
                rec.status = "failed"
                rec.error = self.memory.redact(
                    f"{self._where(rec)}: self-heal refused: {doubt}; the recorded {failure.call.name} "
                    f"failed: {failure.result}; re-record this step"
                )
                return
        if step is not None and not step.recordable:
            rec.status = "passed-ai"
            return
        healed = failure is not None and rec.index not in self._own_form_factor
        rec.status = "passed-with-self-heal" if healed else self.policy.agent_status()
        tools = [c for c, _ in failure.done] + new_tools if failure is not None else new_tools
        # Replay reaches this point only when self-heal is on or the device had no recording.
        if self.policy.writes() and tools:  # never manufacture `[]` (an empty recording)
            self._write(rec, step, tools)

    def _port(self, rec: StepRecord, step: TrailStep, solver: PortSolver, failure: _Failure | None) -> None:
        """Solves the step with no model: its recording on another platform or form factor, ported."""
        folder = Path(self.trail.path).parent if self.trail.path else None

        def run(call: ToolCall) -> ToolResult:
            return self.tools.run(
                self.session, call, self.memory, folder=folder, run_trail=lambda sub: self._run_subtrail(rec, sub)
            )

        # a recording that failed part-way here (a tablet's run of the phone's): what ran stays, the rest is ported
        done = [call for call, _ in failure.done] if failure is not None else []
        result = solver(step, self.session, run, start=len(done))
        for tool_run in result.runs:  # the run directory lists each call as the agent's
            self.observer.on_tool(tool_run)
        self.observer.step_solved(rec, result, healing=False)
        if result.status != "COMPLETED":
            rec.status = "failed"
            rec.error = self.memory.redact(f"{self._where(rec)}: {result.explanation}")
            return
        rec.status = self.policy.agent_status()
        if self.policy.writes() and done + result.recorded:
            self._write(rec, step, done + result.recorded)

    def _agent_for(self, step: TrailStep | None, failure: _Failure | None, device: str) -> Agent:
        """The agent; a replay of an unrecorded step with no model configured is the trail's problem."""
        from trailblaze.engine.no_model import no_model_error
        from trailblaze.llm.client import LLMAuthError

        try:
            return self.agent
        except LLMAuthError as exc:
            unrecorded = (
                failure is None and self.policy.name == "replay" and (step is None or step.recordable)
            )
            if not unrecorded or not self.trail.path:
                raise
            why = f"it has no {self.platform} recording"
            raise no_model_error(
                why, self.trail.path, device or self.platform, exc, self.memory.flags
            ) from None

    def _write(self, rec: StepRecord, step: TrailStep | None, tools: list[ToolCall]) -> None:
        if step is None:
            if len(tools) != 1:
                rec.error = (
                    f"the trailhead took {len(tools)} tools; a trailhead records exactly one, not saved"
                )
                return
            self.trail.set_trailhead_recording(self.platform, tools[0])
        else:
            self.trail.set_recording(rec.index, self._writing_key(step), tools)
        if self.policy.defers_save():
            # Record writes the file only after the proof replay (trailblaze.engine.proof); until then the
            # new recording lives in the in-memory trail.
            rec.recording_written = True
            self.observer.mark_recorded()
            return
        if self.trail.path is None:
            return  # a trail built in code: the caller keeps the updated object
        self.trail.save()
        rec.recording_written = True
        self.observer.mark_recorded()
        if rec.mode == "self-heal":  # the observer saw the heal's tools as the agent's
            for tool in rec.tools:
                if tool.source == "agent":
                    tool.source = "self-heal"

    def _timed_out(self, rec: StepRecord, exc: TrailTimedOut) -> str:
        """The one line a timed-out trail fails with: the step it reached, and what it was doing."""
        return str(self.memory.redact(f"{self._where(rec)}: {exc.message}"))

    def _step(self, index: int) -> TrailStep | None:
        return self.trail.steps[index] if 0 <= index < len(self.trail.steps) else None

    def _where(self, rec: StepRecord) -> str:
        name = Path(self.trail.path or "trail").name
        line = self.trail.step_line(rec.index)
        number = "trailhead" if rec.index < 0 else f"step {rec.index + 1}"
        return f"{name}{f':{line}' if line else ''} {number} ({rec.text!r})"


def _located(exc: InfrastructureError, message: str) -> InfrastructureError:
    """The same kind of infrastructure error, its message naming the trail and step."""
    try:
        located = type(exc)(message)
    except TypeError:  # a subclass with another constructor: keep the family
        from trailblaze.errors import DeviceError, LLMError

        family = (
            DeviceError if isinstance(exc, DeviceError) else LLMError if isinstance(exc, LLMError) else None
        )
        located = (family or InfrastructureError)(message)
    return located


def start_record(trail: Trail, path: str, session: DeviceSession, mode: str, device: str) -> TrailRecord:
    """A fresh `TrailRecord` for one trail run on `session`."""
    from trailblaze.output.rundir import now_iso

    config = trail.config
    info = session.info
    return TrailRecord(
        path=path,
        id=config.id if config and config.id else folder_trail_id(Path(path)),
        title=config.title if config else None,
        tags=list((config.tags if config else None) or []),
        device=device,
        classifier=info.classifier,
        platform=info.platform,
        mode="record" if mode == "record" else "replay",
        started_at=now_iso(),
        quarantine=config.quarantine if config else None,
    )


def run_engine(
    trail: Trail,
    record: TrailRecord,
    engine: StepEngine,
    *,
    skipped: str | None = None,
    proof_of: TrailRecord | None = None,
    within: StepRecord | None = None,
) -> TrailRecord:
    """Runs `engine` over `trail`, tells its observer, and diffs the file when it changed.

    `proof_of`: this run is the proof replay of that trail's record (its own sub-record and folder).
    `within`: this run is a `runTrail` sub-trail of that step (nested under it, ADR 0021).
    """
    observer = engine.observer
    started = time.monotonic()
    hiccups = engine.session.stats.hiccups
    scrolls = engine.session.stats.scrolls_into_view
    before = _file_text(trail)
    observer.begin_trail(record, engine.memory, proof_of=proof_of, within=within)
    folder = observer.trail_folder(record)
    error: str | None = None
    tracer = engine.session.driver if within is None and folder is not None else None
    remote = engine.session.driver if within is None and proof_of is None else None
    if isinstance(remote, SupportsRemoteSession):
        # A farm's session is named after the trail (a new one when the driver opens one per trail)
        remote.begin_trail(record.title or record.id or Path(record.path).stem)
    if isinstance(tracer, SupportsTrace):
        tracer.start_trace()
    try:
        if skipped is not None:
            record.status, error = "skipped", f"skipped on {engine.classifier}: {skipped}"
            for i, step in enumerate(trail.steps):
                engine._add_skipped(
                    StepRecord(
                        index=i, kind=step.kind, text=engine.memory.redact(step.text), status="skipped"
                    )
                )
        else:
            engine.run(record)
    except KeyboardInterrupt:
        record.status, error = "interrupted", "interrupted (Ctrl-C)"
        raise
    except BaseException as exc:
        record.status = "error"
        error = str(getattr(exc, "message", exc)) or type(exc).__name__
        raise
    finally:
        if record.status == "failed":
            error = next((s.error for s in record.steps if s.status == "failed"), None)
        # Record writes (and diffs) only after its proof replay (trailblaze.engine.proof).
        after = _file_text(trail) if not engine.policy.defers_save() else before
        if before is not None and after is not None and before != after:
            from trailblaze.engine.heal import trail_diff

            record.heal_diff = trail_diff(before, after, recordings_file(record.path).name)
            if folder is not None:
                write_text(folder / "trail.diff", record.heal_diff)
        if isinstance(tracer, SupportsTrace) and folder is not None:
            # The browser's own trace (Playwright's trace.zip) is kept only when the trail failed, and,
            # as it cannot be redacted (typed text, URLs, DOM snapshots, screenshots), in a run with
            # secrets only with `--trace`.
            keep = record.status in ("failed", "error") and (
                observer.keep_trace or not engine.memory.secret_values
            )
            try:
                tracer.stop_trace(str(folder / "trace.zip") if keep else None)
            except TrailblazeError:
                pass  # a browser that died already failed the trail with its own error
        if isinstance(remote, SupportsRemoteSession):
            record.session_url = _mark_session(remote, record, error)
        record.hiccups = engine.session.stats.hiccups - hiccups
        record.scrolls_into_view = engine.session.stats.scrolls_into_view - scrolls
        observer.end_trail(record, error, started, memory=engine.memory, sub=within is not None)
        if within is None:  # the device state a trail changed (setNetwork) goes back as it was
            _end_trail(engine.session, quiet=record.status in ("error", "interrupted"))
    return record


def _mark_session(remote: SupportsRemoteSession, record: TrailRecord, error: str | None) -> str | None:
    """Marks the remote session passed or failed; a session that died cannot be marked (its trail
    already carries the error), so that is not a second failure."""
    passed = record.status.startswith("passed") or record.status == "skipped"
    try:
        return remote.end_trail(passed, None if passed else error)
    except TrailblazeError:
        return None


def _end_trail(session: DeviceSession, *, quiet: bool) -> None:
    try:
        session.end_trail()
    except Exception:
        if not quiet:  # an error already on its way out is the one to report
            raise


def _file_text(trail: Trail) -> str | None:
    if trail.path is None:
        return None
    try:
        return Path(trail.path).read_text("utf-8")
    except OSError:
        return None
