"""The agent: a handwritten loop that solves one trail step with an LLM and the run's tool set.

Per LLM call: capture the screen; build the request from scratch (cached system prompt,
objective, reminder, this step's paired tool calls, the current screen); force a tool call; run the
first tool (a `verify:` step runs all of its assertions); stop on objectiveStatus, on a fatal error
or after `max_llm_calls`. Success validation and loop detection are plain code below.
"""

from __future__ import annotations

import io
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from trailblaze.common import deadline
from trailblaze.llm import prompts
from trailblaze.llm.client import (
    ContentBlock,
    ImageBlock,
    LLMClient,
    LLMRequest,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    scrub_request,
)
from trailblaze.output.step_result import StepResult, ToolRun
from trailblaze.screen.compact import CompactView, compact_view, mark_image
from trailblaze.tools.llm_tools import (
    FAIL_AT,
    WARN_AT,
    detect_cycle,
    fingerprint,
)
from trailblaze.tools.lookup import ToolContext
from trailblaze.tools.toolset import ToolSet

if TYPE_CHECKING:
    from trailblaze.agent.ask import AskUser
    from trailblaze.device.session import DeviceSession
    from trailblaze.output.events import RunEvents
    from trailblaze.screen.hierarchy import Hierarchy
    from trailblaze.tools.memory import Memory

__all__ = ["Agent", "Screen", "model_image"]

_MAX_IMAGE_SIDES = (768, 1024)  # short side, long side of the screenshot the model sees
_WINDOW = 30  # calls kept for loop detection


@dataclass
class Screen:
    """One capture: what the model is shown and what its refs point at."""

    hierarchy: Hierarchy
    view: CompactView
    image: bytes | None = None
    """The downscaled JPEG with set-of-mark boxes, None with screenshots off."""


@dataclass
class _State:
    verify: bool
    objective: str = ""
    result: StepResult = field(default_factory=lambda: StepResult("FAILED", ""))
    turns: list[tuple[list[ToolUseBlock], list[ToolResultBlock]]] = field(default_factory=list)
    fingerprints: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    succeeded: int = 0
    """Successful device actions (action step) or assertions (verify step); no-ops do not count."""
    no_ops: int = 0
    """Successful actions that left the screen as it was (`ToolResult.no_change`)."""
    missing_refs: int = 0


class Agent:
    """Solves trail steps one at a time.

    Args:
        llm: The model.
        session: The device.
        memory: Variables and secrets; secret values are redacted from everything sent.
        tools: The run's tool set; the model is offered `tools.for_model()` (default: the built-in ones).
        context: `config.context` of the trail, appended to the system prompt.
        max_llm_calls: Calls per step before it fails.
        screenshots: Send an annotated screenshot with every request.
        max_history: Turns of this step's history kept in a request.
        observer: Told about every LLM call and tool run (`on_llm_call`, `on_tool`).
        ask: Answers the model's `askUser` questions (the person at the terminal); None: not offered.
    """

    def __init__(
        self,
        llm: LLMClient,
        session: DeviceSession,
        memory: Memory,
        *,
        tools: ToolSet | None = None,
        context: str | None = None,
        max_llm_calls: int = 50,
        screenshots: bool = True,
        max_history: int = 10,
        observer: RunEvents | None = None,
        ask: AskUser | None = None,
    ) -> None:
        self.llm, self.session, self.memory = llm, session, memory
        self.tools = tools if tools is not None else ToolSet()
        if ask is not None:
            from trailblaze.agent.ask import ask_user_tool

            self.tools.offer(ask_user_tool(ask))
        self.max_llm_calls, self.screenshots, self.max_history = max_llm_calls, screenshots, max_history
        self.observer = observer
        info = session.info
        device = f"{info.classifier} ({info.platform}) {info.width}x{info.height}"
        self.system = (TextBlock(text=memory.redact(prompts.system_prompt(device, context)), cache=True),)
        self.completed: list[str] = []
        """Objectives completed so far in this run (the reminder names the last one)."""

    def run_step(self, objective: str, *, verify: bool = False, stated: str | None = None) -> StepResult:
        """Drive the device until the model reports the objective COMPLETED or FAILED.

        `stated` is the step's own text when `objective` adds to it (a self-heal note): the facts a
        verify step must assert are read from it.

        Raises:
            LLMError: the model endpoint failed for good.
            DeviceError: the device failed.
        """
        session = self.session
        # The model's picture of every iteration is requested with the settle's dump after the
        # action (two requests in flight where the device serves them so): max(dump, screenshot).
        shooting = session.screenshot_with_dump
        session.screenshot_with_dump = shooting or self.screenshots
        try:
            return self._run_step(objective, verify, stated or objective)
        finally:
            session.screenshot_with_dump = shooting

    def _run_step(self, objective: str, verify: bool, stated: str) -> StepResult:
        state = _State(verify, stated)
        result = state.result
        tools = self.tools.specs(verify=verify)
        while result.llm_calls < self.max_llm_calls:
            deadline.check(f"the agent's model call {result.llm_calls + 1}")
            screen = self.capture()
            request = LLMRequest(
                system=self.system,
                tools=tools,
                messages=self._messages(objective, state, screen),
                tool_choice="any",
                metadata={"objective": objective[:80], "call": result.llm_calls + 1},
            )
            state.hints.clear()
            # the one way out to the model: the screen text may show a secret typed into a field
            request = scrub_request(request)
            response = self.llm.complete(request)
            result.llm_calls += 1
            result.usage += response.usage
            result.cost_usd += response.cost_usd or 0.0
            if self.observer is not None:
                self.observer.on_llm_call(request, response, screen.image)
            uses = _selected(response.tool_uses, verify)
            if not uses:
                state.hints.append(prompts.TEXT_ONLY_HINT)
                continue
            if self._run_turn(uses, screen, state):
                return self._done(objective, result)
            cycle, repeats = detect_cycle(state.fingerprints)
            if cycle and repeats >= FAIL_AT[len(cycle)]:
                result.explanation = f"stuck: repeated {' -> '.join(cycle)} {repeats} times"
                return self._done(objective, result)
            if cycle and repeats >= WARN_AT[len(cycle)]:
                state.hints.append(prompts.loop_warning(cycle, repeats))
            if state.missing_refs >= 3:
                state.hints.append(prompts.STALE_REF_HINT)
                state.missing_refs = 0
        result.explanation = f"gave up after {result.llm_calls} LLM calls without completing the objective"
        return self._done(objective, result)

    def _run_turn(self, uses: list[ToolUseBlock], screen: Screen, state: _State) -> bool:
        """Run the selected calls of one answer; True when the step is finished."""
        ctx = ToolContext(self.session, self.memory, seen=(screen.view, screen.hierarchy))
        counted = "assertion" if state.verify else "action"
        results: list[ToolResultBlock] = []
        failed_here = finished = False
        for use in uses:
            started = time.monotonic()
            outcome = self.tools.call_for_model(use.name, use.input, ctx, verify=state.verify)
            if use.name != "objectiveStatus":
                counts = outcome.ok and outcome.kind == counted
                state.succeeded += counts and not outcome.no_change
                state.no_ops += counts and outcome.no_change
                failed_here |= not outcome.ok
            state.missing_refs = state.missing_refs + 1 if outcome.ref_not_found else 0
            text, is_error = str(outcome), not outcome.ok
            if outcome.objective == "COMPLETED" and (not state.succeeded or (state.verify and failed_here)):
                text, is_error = prompts.rejected_completion(state.verify, no_ops=state.no_ops), True
            elif (
                outcome.objective == "COMPLETED" and state.verify and (refusal := self._unproven(state, screen))
            ):
                text, is_error = refusal, True
            elif outcome.objective in ("COMPLETED", "FAILED"):
                state.result.status = outcome.objective
                state.result.explanation = _explanation(use) or f"the model reported {outcome.objective}"
                finished = True
            run = ToolRun(use, outcome, (time.monotonic() - started) * 1000)
            state.result.runs.append(run)
            if self.observer is not None:
                self.observer.on_tool(run)
            state.fingerprints = [*state.fingerprints, fingerprint(use.name, use.input)][-_WINDOW:]
            results.append(
                ToolResultBlock(tool_use_id=use.id, content=self.memory.redact(text), is_error=is_error)
            )
            if finished or (not state.verify and not outcome.ok):
                break  # an action step's trailing objectiveStatus only counts after a success
        state.turns.append(([r.use for r in state.result.runs[-len(results) :]], results))
        return finished

    def _unproven(self, state: _State, screen: Screen) -> str | None:
        """A verify step's COMPLETED needs every stated fact asserted by assertions that can fail."""
        from trailblaze.mutation.gate import completion_refusal

        outcomes = [run.outcome for run in state.result.runs]
        refusal = completion_refusal(state.objective, outcomes, screen.hierarchy, self.memory)
        for run, outcome in zip(state.result.runs, outcomes, strict=True):
            run.outcome = outcome  # without the assertions that cannot fail: they are not recorded
        return refusal

    def _done(self, objective: str, result: StepResult) -> StepResult:
        if result.status == "COMPLETED":
            self.completed.append(objective)
        return result

    def _messages(self, objective: str, state: _State, screen: Screen) -> tuple[Message, ...]:
        redact = self.memory.redact
        head: list[ContentBlock] = [
            TextBlock(text=redact(prompts.objective_text(objective, verify=state.verify)))
        ]
        reminder = prompts.reminder_text(
            previous=self.completed[-1] if self.completed else None,
            earlier_steps=max(0, len(self.completed) - 1),
            variables=self.memory.describe_for_llm(),
            hints=state.hints,
            verify=state.verify,
        )
        if reminder:
            head.append(TextBlock(text=redact(reminder)))
        now: list[ContentBlock] = [TextBlock(text=redact(prompts.screen_text(screen.view.text)))]
        if screen.image is not None:
            now.append(ImageBlock(media_type="image/jpeg", data_base64=_b64(screen.image)))
        turns = state.turns[-self.max_history :]
        if not turns:
            return (Message.user(*head, *now),)
        messages = [Message.user(*head)]
        for i, (uses, results) in enumerate(turns):
            safe_uses = [u.model_copy(update={"input": redact(u.input)}) for u in uses]
            messages.append(Message.assistant(*safe_uses))
            messages.append(Message.user(*results, *(now if i == len(turns) - 1 else ())))
        return tuple(messages)

    def capture(self) -> Screen:
        """The current screen: hierarchy, compact view and (optionally) the annotated screenshot, in
        which every element that shows a secret is black (the model gets it, the run directory keeps it).
        A secret the mask cannot place (`Unmaskable`) sends no picture that turn."""
        from trailblaze.screen.mask import Unmaskable, mask_shown_secrets

        hierarchy = self.session.screen()
        view = compact_view(hierarchy)
        image = None
        if self.screenshots:
            try:
                shot = mask_shown_secrets(self.session.screenshot(), hierarchy, lambda t: str(self.memory.redact(t)))
                image = model_image(shot, view, hierarchy)
            except Unmaskable:
                pass  # the compact view still describes the screen, its text redacted
        return Screen(hierarchy, view, image)


def _selected(uses: Sequence[ToolUseBlock], verify: bool) -> list[ToolUseBlock]:
    """The calls of one answer to run: all on a verify step; else the first, plus a trailing objectiveStatus."""
    if verify or not uses:
        return list(uses)
    first = uses[0]
    status = [u for u in uses[1:] if u.name == "objectiveStatus"][:1]
    return [first, *status] if first.name != "objectiveStatus" else [first]


def _explanation(use: ToolUseBlock) -> str:
    value = use.input.get("explanation")
    return value if isinstance(value, str) else ""


def model_image(shot: bytes, view: CompactView, hierarchy: Hierarchy, *, marks: bool = True) -> bytes:
    """The model's picture in one pass: decode the screenshot (a JPEG straight at a reduced scale),
    downscale it, draw the refs on it (unless `marks` is off), encode one JPEG.

    The agent sends it with every request; `trailblaze mcp` returns it from `screenshot`."""
    from PIL import Image

    with Image.open(io.BytesIO(shot)) as src:
        short, long = sorted(src.size)
        factor = min(1.0, _MAX_IMAGE_SIDES[0] / short, _MAX_IMAGE_SIDES[1] / long)
        size = (max(1, round(src.width * factor)), max(1, round(src.height * factor)))
        if factor < 1.0:
            src.draft("RGB", size)  # JPEG: decode at 1/2, 1/4 … of full size, no smaller than `size`
        image = src.convert("RGB")
    if image.size != size:
        k = min(image.width // size[0], image.height // size[1])
        if k >= 2:  # a PNG (no draft): a cheap box reduction first, then a resize over fewer pixels
            image = image.reduce(k)
        image = image.resize(size)
    if marks:
        mark_image(image, view, hierarchy.scale * factor)
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=75)
    return out.getvalue()


def _b64(data: bytes) -> str:
    import base64

    return base64.b64encode(data).decode("ascii")
