"""The state behind `trailblaze mcp`: one device session, the run's secrets, and the trail being authored.

SDK-free and synchronous: every method returns a `Reply` — a status word, the text the client sees
and maybe an image — and never raises for a trail-level, usage or device problem (the MCP layer
turns a reply into a tool result; docs/adr/0030-mcp-server.md). Actions go through the agent's own
tool set (`trailblaze.tools.toolset.ToolSet`, the model's tools of `trailblaze.tools.llm_tools`), so a ref becomes the selector `record` would write and runs
through `run_recorded_tool`, settling afterwards. Every text leaving here is redacted: a secret's
value never appears, only `{{name}}`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.common.redact import scrub
from trailblaze.errors import DeviceError, TrailblazeError, TrailFileError, UsageError
from trailblaze.mcp.confine import Confinement
from trailblaze.mcp.draft import TrailDraft
from trailblaze.tools.lookup import ToolContext
from trailblaze.tools.toolset import ToolSet

if TYPE_CHECKING:
    from trailblaze.device.session import DeviceSession
    from trailblaze.output.runlog import TrailRecord
    from trailblaze.screen.compact import CompactView
    from trailblaze.screen.hierarchy import Hierarchy
    from trailblaze.tools.memory import Memory
    from trailblaze.trail.model import ToolCall, Trail

__all__ = ["HINTS", "Reply", "McpSession", "answer"]

HINTS: dict[str, str] = {
    "NOT_FOUND": "take a `snapshot` and use a ref from the newest view; refs belong to the screen they were listed on",
    "AMBIGUOUS": "several elements match; use the ref of the one you mean from the newest `snapshot`",
    "NOT_VISIBLE": "something covers it or it is not shown: hideKeyboard, close the dialog or scroll, then retry",
    "TIMEOUT": "the app did not get there in time; take a `snapshot` and retry, or `wait` first",
    "UNSUPPORTED": "this device cannot do that; use another tool",
    "ERROR": "fix the arguments as the message says and call again",
    "DEVICE_ERROR": "the device stopped answering; check it with `device_info`, or pick one with `use_device`",
    "NO_DEVICE": "call `list_devices`, then `use_device {device}`",
    "NO_TRAIL": "call `trail_start {path, title}` first",
    "INVALID": "fix the file at the places named, then `trail_validate` again",
    "FAILED": "the failing step's message says what the screen showed; fix the app or record the step again",
}
"""What to do next, per status word (appended to every non-OK reply)."""

_SIMULATORS = (  # the specs are `trailblaze.mcp.confine.SIMULATORS`, which a client may always open
    ("sim:android", "in-process simulated Android phone running the demo app (dev.trailblaze.demo)"),
    ("sim:ios", "in-process simulated iPhone running the demo app (dev.trailblaze.demo)"),
)


@dataclass(frozen=True)
class Reply:
    """What one MCP tool call answers."""

    status: str
    text: str
    """Starts with the status word; hints and the screen follow on their own lines."""
    image: bytes | None = None
    """A JPEG (the `screenshot` tool)."""

    @property
    def ok(self) -> bool:
        return self.status == "OK"


def answer(status: str, message: str, *more: str) -> Reply:
    """A reply: the status line, the extra lines, and the status's hint unless one of them is a hint."""
    lines = [f"{status} {message}".rstrip(), *(m for m in more if m)]
    hint = HINTS.get(status)
    if hint is not None and status != "OK" and not any(m.startswith("hint: ") for m in more):
        lines.insert(1, f"hint: {hint}")
    return Reply(status, "\n".join(lines))


class McpSession:
    """One device and one trail draft, driven tool call by tool call.

    Args:
        memory: The run's secrets (and remembered values); secret values are redacted from replies.
        session: The open device, or None until `use_device`.
        open_session: Opens a `--device` spec (with the server's latency and timeouts).
        tools: The tool set whose model tools are offered as actions (default: the agent's).
        confinement: The folder client paths must stay in and the devices a client may open
            (default: the current folder, the simulators and what `list_devices` shows).
    """

    def __init__(
        self,
        memory: Memory,
        *,
        session: DeviceSession | None = None,
        open_session: Callable[[str], DeviceSession] | None = None,
        tools: ToolSet | None = None,
        secrets: Mapping[str, str] | None = None,
        confinement: Confinement | None = None,
    ) -> None:
        self.memory = memory
        self.confined = confinement or Confinement(Path.cwd())
        self.session = session
        self.tools = tools if tools is not None else ToolSet()
        self.draft: TrailDraft | None = None
        self._open = open_session
        self._secrets = dict(secrets or {})

    def close(self) -> None:
        """Closes the device (and the simulator the session owns)."""
        if self.session is not None:
            self._end_trail()  # the client went away mid-trail: put the network back
            session, self.session = self.session, None
            session.close()

    # --- devices ---------------------------------------------------------------------------------
    def list_devices(self) -> Reply:
        from trailblaze.device.devices import list_devices

        found, problems = list_devices()
        self.confined.offer(d.spec for d in found)
        lines = [f"{d.spec}  {d.state}  {d.description}" for d in found]
        lines += [f"{spec}  available  {what}" for spec, what in _SIMULATORS]
        lines += [f"note: {p}" for p in problems]
        in_use = f"in use: {self.session.info.serial}" if self.session is not None else "no device in use"
        return self.redacted(answer("OK", f"{len(found) + len(_SIMULATORS)} devices ({in_use})", *lines))

    def use_device(self, spec: str) -> Reply:
        if self._open is None:
            return answer("ERROR", "this server cannot open devices")
        try:
            spec = self.confined.device(spec)
            session = self._open(spec)
        except DeviceError as exc:
            return self.redacted(answer("DEVICE_ERROR", exc.message))
        except TrailblazeError as exc:
            return self.redacted(answer("ERROR", exc.message))
        self.close()
        self.session = session
        head, _, rest = self.device_info().text.partition("\n")
        return self._with_screen(answer("OK", f"using {spec}: {head.removeprefix('OK ')}", rest))

    def device_info(self) -> Reply:
        if self.session is None:
            return answer("NO_DEVICE", "no device is in use")
        i = self.session.info
        return answer(
            "OK",
            f"{i.platform} {i.classifier}",
            f"serial: {i.serial}",
            f"model: {i.model}",
            f"screen: {i.width}x{i.height} (scale {i.scale:g})",
            f"recordings go under: {i.platform}",
        )

    # --- observation -----------------------------------------------------------------------------
    def snapshot(self) -> Reply:
        return self._device_call(lambda session: self._with_screen(answer("OK", "the current screen")))

    def screenshot(self, *, marks: bool) -> Reply:
        def shoot(session: DeviceSession) -> Reply:
            from trailblaze.agent.loop import model_image
            from trailblaze.screen.mask import Unmaskable, mask_secrets

            hierarchy = session.settle()
            view = _view(hierarchy)
            try:  # secure fields and elements showing a secret are painted over (trailblaze.screen.mask)
                shot = mask_secrets(session.screenshot(), hierarchy, self._redact)
            except Unmaskable as exc:
                return answer(
                    "ERROR",
                    f"no screenshot: {exc}, so it cannot be masked",
                    "hint: use `snapshot` (its text is redacted), or move the secret off the screen first",
                )
            image = model_image(shot, view, hierarchy, marks=marks)
            what = "with the refs drawn on" if marks else "without refs"
            return Reply("OK", self._redact(f"OK screenshot {what} (JPEG)\n{_screen_block(view)}"), image)

        return self._device_call(shoot)

    # --- actions ---------------------------------------------------------------------------------
    def act(self, name: str, raw: Mapping[str, Any]) -> Reply:
        """Runs one of the agent's device tools by ref, records it into the current step when it
        succeeded, and returns the result line plus the settled screen."""
        draft = self.draft
        if draft is not None and draft.verifying and name not in self.tools.model_names(verify=True):
            asserts = ", ".join(n for n in self.tools.model_names(verify=True) if n != "objectiveStatus")
            return answer(
                "ERROR",
                f"the current step is a verify step and `{name}` is not an assertion",
                f"hint: assert with {asserts}, or open an action step with `trail_step {{text}}`",
            )

        def run(session: DeviceSession) -> Reply:
            hierarchy = session.screen()
            ctx = ToolContext(session, self.memory, seen=(_view(hierarchy), hierarchy))
            outcome = self.tools.call_for_model(name, raw, ctx)
            weak = _weak_assertions(outcome.recorded, hierarchy, self.memory) if outcome.ok else []
            if weak:  # an assertion that cannot fail is not recorded (docs/adr/0038-assertions-pin-facts.md)
                outcome = replace(outcome, recorded=tuple(c for c in outcome.recorded if all(c is not w for w, _ in weak)))
                return answer("ERROR", "not recorded: " + "; ".join(m for _, m in weak),
                              "hint: assert the fact the step states (its text with expectedText, a state with assertState)")  # fmt: skip
            status = outcome.status
            notes = [self._record(session, outcome.recorded)] if outcome.ok and outcome.recorded else []
            try:
                return self._with_screen(answer(status, outcome.message, *notes))
            except DeviceError as exc:  # the tool ran; the screen after it could not be read
                return answer("DEVICE_ERROR", exc.message, f"the tool said: {outcome}", *notes)

        return self._device_call(run)

    def _record(self, session: DeviceSession, calls: Sequence[ToolCall]) -> str:
        draft = self.draft
        if draft is None:
            return ""
        if draft.current is None:
            return "not recorded: no step is open; call `trail_step {text}` and do it again"
        number = draft.add(session.info.platform, list(calls))
        return f"recorded in {draft.steps[number - 1].label(number)}: " + ", ".join(c.name for c in calls)

    # --- trails ----------------------------------------------------------------------------------
    def trail_start(self, path: str, title: str, *, overwrite: bool) -> Reply:
        try:
            target = self.confined.path(path)
        except UsageError as exc:
            return self.redacted(answer("ERROR", exc.message))
        if not target.name.endswith(".trail.yaml"):
            return answer("ERROR", f"{path}: a trail file name ends in .trail.yaml, e.g. login.trail.yaml")
        if target.exists() and not overwrite:
            return answer(
                "ERROR", f"{target} exists", "hint: pick another path, or pass overwrite: true to replace it"
            )
        if not target.parent.is_dir():
            return answer("ERROR", f"{target.parent} is not a folder; create it or pick another path")
        dropped = ""
        if self.draft is not None and not self.draft.saved and any(not s.empty for s in self.draft.steps):
            dropped = f"note: the unsaved trail {self.draft.path} was dropped"
        self.draft = TrailDraft(target, str(self.memory.redact(title)))
        return self.redacted(
            answer(
                "OK",
                f"recording {title!r} to {target} (not written until `trail_save`)",
                "next: `trail_step {text}` to open the first step, then act; `trail_verify {text}` for checks",
                dropped,
            )
        )

    def trail_step(self, text: str, *, verify: bool) -> Reply:
        if self.draft is None:
            return answer("NO_TRAIL", "no trail is being recorded")
        unchecked = _unchecked_facts(self.draft)
        if unchecked is not None:
            return answer("ERROR", unchecked, "hint: assert each fact in this verify step, then open the next step")
        note = self.draft.open_step("verify" if verify else "step", str(self.memory.redact(text)))
        then = (
            "assert with assertVisible / assertNotVisibleWithText: they are recorded into it"
            if verify
            else "successful actions are recorded into it"
        )
        return self.redacted(answer("OK", note, then))

    def trail_show(self) -> Reply:
        draft = self.draft
        if draft is None:
            return answer("NO_TRAIL", "no trail is being recorded")
        if all(s.empty for s in draft.steps):
            steps = "".join(
                f"\n{s.label(n)}: nothing recorded yet" for n, s in enumerate(draft.steps, start=1)
            )
            return self.redacted(answer("OK", f"{draft.path}: nothing recorded yet{steps}"))
        state = "saved" if draft.saved else "not saved yet"
        return self.redacted(answer("OK", f"{draft.path} ({state}) would be:", draft.to_trail().to_yaml()))

    def trail_save(self) -> Reply:
        draft = self.draft
        if draft is None:
            return answer("NO_TRAIL", "no trail is being recorded")
        if all(s.empty for s in draft.steps):
            return answer("ERROR", "nothing to save: no step has a recorded tool yet",
                          "hint: `trail_step {text}`, then act on the device")  # fmt: skip
        unchecked = _unchecked_facts(draft)
        if unchecked is not None:
            return answer("ERROR", f"not saved: {unchecked}", "hint: assert each fact, then `trail_save` again")
        try:  # checked again: the folder may have changed since `trail_start` (a symlink put in its place)
            self.confined.path(os.fspath(draft.path))
        except UsageError as exc:
            return self.redacted(answer("ERROR", exc.message))
        refused = _save_problems(draft)
        if refused:
            return self.redacted(
                answer("INVALID", f"not saved: {draft.path} would not pass `trail_validate`", *refused)
            )
        try:
            trail = draft.save()
        except TrailblazeError as exc:
            return self.redacted(answer("ERROR", exc.message))
        steps = len(trail.steps)
        tools = sum(len(calls) for step in trail.steps for calls in (step.recording or {}).values())
        return self.redacted(
            answer(
                "OK",
                f"saved {draft.path} ({steps} step{'s' * (steps != 1)}, {tools} recorded tool{'s' * (tools != 1)})",
                f"replay it with `trail_replay`, or in CI: trailblaze replay {draft.path} --device …"
                + "".join(f" --secret {name}" for name in sorted(self._secrets)),
                self._end_trail(),
            )
        )

    def _end_trail(self) -> str:
        """The authored trail ended: what it changed on the device (setNetwork) goes back."""
        if self.session is None:
            return ""
        try:
            self.session.end_trail()
        except TrailblazeError as exc:
            return f"note: the device state the trail changed could not be restored: {exc.message}"
        return ""

    def trail_replay(self, path: str | None) -> Reply:
        from trailblaze.engine.replay import build_memory, replay_trail

        loaded = self._load(path)
        if isinstance(loaded, Reply):
            return loaded

        def replay(session: DeviceSession) -> Reply:
            memory = build_memory(loaded, secrets=self._secrets, flags=self.memory.flags)
            record = replay_trail(loaded, session, memory=memory)
            return self._with_screen(_replay_reply(record))

        return self._device_call(replay)

    def trail_validate(self, path: str | None) -> Reply:
        from trailblaze.engine.preflight import validate_trails

        loaded = self._load(path)
        if isinstance(loaded, Reply):
            return loaded
        file = Path(loaded.path or "")
        findings = validate_trails([(file, loaded)], flags=self.memory.flags)
        problems = [str(f) for f in findings if not f.needs_value]
        notes = [f"note: {f} (this server has it)" if self._covers(f.message) else f"note: {f}"
                 for f in findings if f.needs_value]  # fmt: skip
        if problems:
            return self.redacted(answer("INVALID", f"{file}: {len(problems)} problem(s)", *problems, *notes))
        platforms = sorted({k for s in loaded.steps for k in (s.recording or {})})
        recorded = f"recorded for {', '.join(platforms)}" if platforms else "no recordings"
        return self.redacted(answer("OK", f"{file} is valid: {len(loaded.steps)} steps, {recorded}", *notes))

    def _covers(self, message: str) -> bool:
        return any(f"{{{{{name}}}}}" in message or f"'{name}'" in message for name in self._secrets)

    def _load(self, path: str | None) -> Trail | Reply:
        from trailblaze.trail.model import load_trail

        if path is None:
            if self.draft is None or not self.draft.path.exists():
                return answer("ERROR", "no path given and no trail saved in this session",
                              "hint: pass path, or `trail_save` first")  # fmt: skip
            path = os.fspath(self.draft.path)
        try:
            return load_trail(self.confined.trail(path))
        except TrailFileError as exc:
            lines = [p.format(path) for p in exc.problems]
            return self.redacted(answer("INVALID", f"{path}: {len(lines)} problem(s)", *lines))
        except TrailblazeError as exc:
            return self.redacted(answer("ERROR", exc.message))

    # --- plumbing --------------------------------------------------------------------------------
    def _device_call(self, call: Callable[[DeviceSession], Reply]) -> Reply:
        """Runs `call` on the device; a device failure or a wrong template is a reply, not a raise."""
        if self.session is None:
            return answer("NO_DEVICE", "no device is in use")
        try:
            return self.redacted(call(self.session))
        except DeviceError as exc:
            return self.redacted(answer("DEVICE_ERROR", exc.message))
        except UsageError as exc:
            return self.redacted(answer("ERROR", exc.message))

    def _with_screen(self, reply: Reply) -> Reply:
        """The reply plus the settled screen as the compact view.

        Raises:
            DeviceError: the screen cannot be read (`_device_call` makes it a DEVICE_ERROR reply).
        """
        if self.session is None:
            return reply
        view = _view(self.session.settle())
        return Reply(reply.status, f"{reply.text}\n{_screen_block(view)}", reply.image)

    def redacted(self, reply: Reply) -> Reply:
        return Reply(reply.status, self._redact(reply.text), reply.image)

    def _redact(self, text: str) -> str:
        return scrub(str(self.memory.redact(text)))


def _save_problems(draft: TrailDraft) -> list[str]:
    """What `trail_validate` would say of the saved file (too big, not loadable, a tool that cannot
    run), so a trail that would be refused later is not written now."""
    from trailblaze.common.limits import max_trail_bytes
    from trailblaze.engine.preflight import validate_trails
    from trailblaze.trail.model import loads_trail

    text = draft.to_trail().to_yaml()
    size, limit = len(text.encode("utf-8")), max_trail_bytes()
    if size > limit:
        return [
            f"it would be {size:,} bytes, more than the {limit:,} a trail file may be; record fewer or shorter steps"
        ]
    try:
        trail = loads_trail(text, os.fspath(draft.path))
    except TrailFileError as exc:
        return [p.format(os.fspath(draft.path)) for p in exc.problems]
    return [str(f) for f in validate_trails([(draft.path, trail)]) if not f.needs_value]


def _view(hierarchy: Hierarchy) -> CompactView:
    from trailblaze.screen.compact import compact_view

    return compact_view(hierarchy)


def _screen_block(view: CompactView) -> str:
    return f"screen (refs valid until the screen changes):\n{view.text}"


def _replay_reply(record: TrailRecord) -> Reply:
    steps = [s for s in record.steps if s.kind != "trailhead"]
    passed = sum(s.status.startswith("passed") for s in steps)
    head = f"{Path(record.path).name}: {record.status}, {passed}/{len(steps)} steps in {record.duration_ms / 1000:.1f} s"
    if record.status.startswith("passed") or record.status == "skipped":
        return answer("OK", head)
    # a step's error names the file, the step and the tool, and lists the closest elements on screen
    lines = [
        step.error or f"step {number} ({step.kind} {step.text!r}) failed"
        for number, step in enumerate(steps, start=1)
        if step.status == "failed"
    ]
    if record.error and not any(record.error in line for line in lines):
        lines.append(record.error)
    return answer("FAILED", head, *lines)


def _unchecked_facts(draft: TrailDraft) -> str | None:
    """Why the current verify step may not be left yet: facts it states that no assertion checks."""
    from trailblaze.mutation.facts import uncovered

    step = draft.current
    if step is None or step.kind != "verify" or step.empty:
        return None
    calls = [c for platform_calls in step.tools.values() for c in platform_calls]
    missing = uncovered(step.text, calls)
    if not missing:
        return None
    facts = "; ".join(f.describe() for f in missing)
    return f"{step.label(len(draft.steps))} states facts no assertion checks: {facts}"


def _weak_assertions(calls: Sequence[ToolCall], screen: Hierarchy, memory: Memory) -> list[tuple[ToolCall, str]]:
    """The assertions among `calls` that cannot fail on `screen` (the mutation proof), with why."""
    from trailblaze.mutation.mutants import is_assertion, prove_assertion

    out = []
    for call in calls:
        if is_assertion(call):
            verdict = prove_assertion(call, screen, memory)
            if verdict.status == "cannot-fail":
                out.append((call, verdict.message))
    return out
