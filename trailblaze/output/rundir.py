"""The run directory a record run leaves behind, in the `trailblaze.output.runlog` format.

```
RUN_DIR/
  run.json                          RunRecord, rewritten as each trail starts and ends (atomic)
  01-login/                         one folder per trail
    step-00-before.jpg / -after.jpg screenshots around each step (trailhead: step-th-…), stored as the
                                    device sent them (JPEG from uiautomator2, PNG from WebDriverAgent)
    step-00-before.xml / -after.xml hierarchy dumps (the driver's raw source)
    step-00-log.txt                 the app's device log lines of the step (`--device-logs`:
                                    a failed step by default, every step with `always`)
    llm/step-00-call-01.json        one redacted request/response per LLM call
    llm/step-00-call-01.jpg         the annotated screenshot that call sent
    recording.diff                  record: the change to the trail file (trail.diff: a self-heal's)
    proof/                          record: the proof replay of the new recordings, same layout
  01-login-attempt-2/               `--retries`: the trail's second attempt, same layout (run.json
                                    keeps the earlier attempts in the last one's `attempts`)
```

Which screenshots are taken is the run's `screenshots` mode (`trailblaze.output.artifacts`): `steps` (the
CLI's default; under `CI=true` its default is `failures`, `trailblaze.engine.ci_defaults`), `failures` (only
a failing step's "after"; pytest's default; a retried trail's attempts take every step's) or `off`;
with these two no dump is taken before a trail's first step either. Screenshots
are taken and files written on a background thread (`trailblaze.output.artifacts.Background`); the
session's next action waits for a screenshot still in flight, so each picture shows the screen the
step left. `run.json` is written when a trail starts (status `running`, the writer's pid) and ends,
not after every step, so a long run does not rewrite an ever larger file per step; a killed run still
reads `running` with a dead pid, i.e. interrupted (ADR 0019). A trail that ended before the current
one is serialized once, into a temporary file, and its record let go: a run of a thousand trails holds
one trail's records, and what reads the whole run afterwards reads run.json (`iter_trails`, ADR 0058).

A step's "before" is the previous step's "after" file when no device action ran in between (so a
replay pays one screenshot per step, not two); `run.json` then names the same file twice.

Nothing written here contains a secret value: tool params keep their `{{templates}}`, every text
file is written through `trailblaze.common.files.write_text` / `atomic_write_text`, which scrub every
registered secret in any spelling (`trailblaze.common.redact`, ADR 0017), and images in transcripts are
replaced by the name of the file that holds them. A screenshot is written with every element of its dump
that shows a secret blacked out (`trailblaze.screen.mask`), so the report, a merged report and anything
else made from these files never shows one either.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from trailblaze.common.files import write_redacted, write_text
from trailblaze.common.images import image_ext
from trailblaze.common.redact_values import scrub_data, scrub_dump
from trailblaze.common.vcs import process_revision
from trailblaze.device.logs import DeviceLogMode, no_log_reason
from trailblaze.errors import UsageError
from trailblaze.llm.client import transcript_entry
from trailblaze.output.artifacts import Background, ScreenshotMode
from trailblaze.output.events import RunEvents
from trailblaze.output.observer import replayed_record
from trailblaze.output.runlog import (
    LLMCallRecord,
    RunRecord,
    StepRecord,
    ToolRecord,
    TrailRecord,
    UsageTotals,
    model_label,
    trail_text,
    write_run_text,
)

if TYPE_CHECKING:
    from concurrent.futures import Future

    from trailblaze.device.session import DeviceSession
    from trailblaze.llm.client import LLMRequest, LLMResponse
    from trailblaze.output.step_result import StepResult, ToolRun
    from trailblaze.screen.hierarchy import Hierarchy
    from trailblaze.tools.execute import ToolResult
    from trailblaze.tools.memory import Memory
    from trailblaze.trail.model import ToolCall

__all__ = ["RunDir", "default_run_dir", "now_iso"]


def now_iso() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def default_run_dir(base: str | Path = ".trailblaze/runs") -> Path:
    """A fresh run directory under `base`, named by the UTC time.

    Raises:
        UsageError: `base` resolves outside the working directory (a committed `.trailblaze`
            symlink would send every run, secrets' screenshots included, wherever it points).
    """
    resolved, project = Path(os.path.realpath(base)), Path(os.path.realpath("."))
    if not resolved.is_relative_to(project):
        raise UsageError(
            f"the run folder {base} resolves to {resolved}, outside the project {project} (a symlink "
            f"in its path); remove the link, or pass --run-dir {resolved} to write there on purpose"
        )
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    candidate = Path(base) / stamp
    n = 1
    while candidate.exists():
        n += 1
        candidate = Path(base) / f"{stamp}-{n}"
    return candidate


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "trail"


class RunDir(RunEvents):
    """Writes one run: `run.json` plus the artifacts of every trail and step.

    It is the run's bookkeeper (`trailblaze.output.events.RunEvents`): the engine tells it of trails,
    steps and tools, and the agent of every LLM call and tool (`on_llm_call`, `on_tool`) of the step
    being run.
    """

    def __init__(
        self,
        root: str | Path,
        memory: Memory,
        *,
        command: list[str],
        device: str,
        screenshots: ScreenshotMode = "steps",
    ) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.memory = memory
        commit, branch = process_revision()
        self.run = RunRecord(
            run_id=self.root.name,
            started_at=now_iso(),
            command=command,
            device=device,
            status="running",
            pid=os.getpid(),
            screenshots=screenshots,
            uid=uuid.uuid4().hex,
            commit=commit,
            branch=branch,
        )
        self.screenshots: ScreenshotMode = screenshots
        self._shooting: ScreenshotMode = screenshots
        """The current trail's mode: `steps` on a retry of a `failures` run (`start_trail`)."""
        self.trail: TrailRecord | None = None
        self.step: StepRecord | None = None
        self._trail_dir = self.root
        self._started = time.monotonic()
        self._last_after: _Capture | None = None
        self._stack: list[tuple[TrailRecord, StepRecord, Path]] = []
        self._work = Background()
        self._boards = Background()
        """Storyboards are encoded on a worker of their own: a screenshot job never queues behind one."""
        self._shot: _Shot | None = None
        """The screenshot taken last (maybe still in flight): the next action waits for it."""
        self._written: IO[bytes] | None = None
        """run.json text of the trails that ended before the current one (a temporary file): written
        once, and their records let go, so a run of a thousand trails holds one trail's records."""
        self._trails_written = 0
        self._boards_of: dict[int, Future[Any] | None] = {}
        """The storyboard job each ended trail waits for before it is written for good, by id()."""
        self.device_logs: DeviceLogMode = "on-failure"
        """When a step's app log is read into the run directory (`--device-logs`)."""
        self.keep_trace = False
        """`--trace`: keep a failed web trail's `trace.zip` although the run has secrets (it is not redacted)."""
        self._logs_started = False
        self._attempt = 1
        """The attempt number the next `start_trail` starts (`retry_trail`)."""
        self.write()  # from the start: a run killed before its first trail still reads `running`

    # --- structure ---------------------------------------------------------------------------------
    def start_trail(self, record: TrailRecord) -> TrailRecord:
        """Add a trail to the run and create its folder."""
        number = self._trails_written + len(self.run.trails) + 1
        name = f"{number:02d}-{_slug(Path(record.path).name.removesuffix('.yaml'))}"
        # A retry is where a flake is diagnosed: it keeps every step's picture even when the run keeps
        # only failures (the CI default), beside the earlier attempts' own.
        self._shooting = "steps" if self._attempt > 1 and self.screenshots == "failures" else self.screenshots
        if self._attempt > 1:
            name += f"-attempt-{self._attempt}"
            self._attempt = 1
        self._trail_dir = self.root / name
        self._last_after = None
        (self._trail_dir / "llm").mkdir(parents=True, exist_ok=True)
        record.directory = name
        record.status = "running"  # until finish_trail: a reader after SIGKILL shows `interrupted`
        self.run.trails.append(record)
        self.trail = record
        self.write()
        return record

    def retry_trail(self, record: TrailRecord, attempt: int) -> None:
        """Take `record` (the trail just run, a failed attempt) out of the run: the next
        `start_trail` is its attempt number `attempt`, in a folder of its own. The caller keeps
        `record` in the new attempt's `attempts`."""
        if self.run.trails and self.run.trails[-1] is record:
            self.run.trails.pop()
        self._attempt = attempt

    def start_proof(self, parent: TrailRecord, record: TrailRecord) -> TrailRecord:
        """Make `record` the proof replay of `parent` (its folder `<parent>/proof/`) and the current trail."""
        name = f"{parent.directory}/proof"
        self._trail_dir = self.root / name
        self._last_after = None
        (self._trail_dir / "llm").mkdir(parents=True, exist_ok=True)
        record.directory = name
        parent.proof = record
        self.trail = record
        self.write()
        return record

    def start_subtrail(self, record: TrailRecord) -> None:
        """Run `record` (a `runTrail`'s sub-trail) inside the current step, in a folder of its own
        below the current trail's; `end_subtrail` returns to the calling step."""
        assert self.trail is not None and self.step is not None
        self._stack.append((self.trail, self.step, self._trail_dir))
        number = sum(len(s.subtrails) for s in self.trail.steps) + 1
        name = f"{self._rel_dir()}/sub-{number:02d}-{_slug(Path(record.path).name.removesuffix('.yaml'))}"
        self._trail_dir = self.root / name
        (self._trail_dir / "llm").mkdir(parents=True, exist_ok=True)
        record.directory = name
        record.status = "running"
        self.step.subtrails.append(record)
        self.trail = record
        self.write()

    def end_subtrail(self, status: str, error: str | None, started: float) -> None:
        """The sub-trail finished: record how, and make the calling step current again."""
        self.finish_trail(status, error, started)
        self.trail, self.step, self._trail_dir = self._stack.pop()

    # --- the engine's events (trailblaze.output.events.RunEvents) --------------------------------------
    def begin_trail(
        self,
        record: TrailRecord,
        memory: Memory,
        *,
        proof_of: TrailRecord | None = None,
        within: StepRecord | None = None,
    ) -> None:
        if within is not None:
            self.start_subtrail(record)
            return
        self.memory = memory
        if proof_of is not None:
            self.start_proof(proof_of, record)
        else:
            self.start_trail(record)

    def end_trail(
        self, record: TrailRecord, error: str | None, started: float, *, memory: Memory, sub: bool
    ) -> None:
        if sub:
            self.end_subtrail(record.status, memory.redact(error) if error else None, started)
        else:
            self.finish_trail(record.status, error, started)

    def step_solved(self, record: StepRecord, result: StepResult, *, healing: bool) -> None:
        return None  # `on_tool` / `on_llm_call` recorded the agent's work as it happened

    def trail_folder(self, record: TrailRecord) -> Path:
        return self.root / record.directory

    def resume_trail(self, record: TrailRecord) -> None:
        """Make `record` (a trail of this run) the current trail again, e.g. after its proof replay."""
        self.trail = record
        self._trail_dir = self.root / record.directory
        self._last_after = None

    def trail_file(self, record: TrailRecord, name: str) -> Path:
        """A file in a trail's folder."""
        return self.root / record.directory / name

    def start_step(self, record: StepRecord, session: DeviceSession | None) -> StepRecord:
        """Add a step to the current trail, with the screen before it."""
        assert self.trail is not None
        self.trail.steps.append(record)
        self.step = record
        if session is not None and self.device_logs != "off":
            if not self._logs_started:
                self._logs_started = True
                _quietly(session.app_logs.start)
            session.app_logs.mark_step(record.index)
        if session is not None:
            session.files_dir = self._trail_dir
            # With `steps`, the step's picture is requested with the dump its settle takes anyway (on a
            # device that serves both at once): a step pays max(dump, screenshot), not the sum. Off
            # again once the step's "after" is taken, so the run directory leaves the session as it was.
            session.screenshot_with_dump = self._shooting == "steps"
            last = self._last_after
            if last is not None and last.still_on(session):
                # Nothing touched the device since the last step's "after": that is this step's "before",
                # and taking it again would cost a screenshot round trip per step for the same picture.
                record.hierarchy_before = last.hierarchy
                if last.shot is not None:
                    last.shot.name_in(record, "screenshot_before")
            elif last is not None or self._shooting == "steps":
                shoot = self._shooting == "steps"
                record.hierarchy_before, shot = self._capture(session, "before", shoot=shoot)
                if shot is not None:
                    shot.name_in(record, "screenshot_before")
            # else: a trail's first step with `failures` / `off` (the CI default). The screen before the
            # trail is evidence of nothing it did, and a dump is a serial round trip on iOS (150-400 ms):
            # a passing run does not pay for it. The step's "after" still has its dump.
        return record

    def finish_step(self, session: DeviceSession | None, started: float) -> None:
        """Capture the screen after the step (in the background) and add up its usage.

        `run.json` is not rewritten here but when the trail ends (`finish_trail`).
        """
        step, trail = self.step, self.trail
        assert step is not None and trail is not None
        step.duration_ms = (time.monotonic() - started) * 1000
        if session is not None:
            self._last_after = None
            # a failing step always gets its picture (unless screenshots are off)
            shoot = self._shooting == "steps" or (self._shooting == "failures" and step.status == "failed")
            try:
                step.hierarchy_after, shot = self._capture(session, "after", shoot=shoot)
                if shot is not None:
                    shot.name_in(step, "screenshot_after")
                self._last_after = _Capture.of(session, shot, step.hierarchy_after)
            except Exception:  # the device may be what failed; the log matters more than the picture
                pass
            session.screenshot_with_dump = False
            if self.device_logs == "always" or (self.device_logs == "on-failure" and step.status == "failed"):
                self._capture_log(session, step)
        step.error = self._redact(step.error) if step.error else step.error
        trail.usage.add(step.usage)
        self.run.usage.add(step.usage)

    def finish_trail(self, status: str, error: str | None, started: float) -> None:
        trail = self.trail
        assert trail is not None
        trail.status = status  # type: ignore[assignment]
        trail.error = self._redact(error) if error else None
        trail.duration_ms = (time.monotonic() - started) * 1000
        self.write()  # the step screenshots have landed
        if any(trail is t for t in self.run.trails):  # not a proof replay or a runTrail's sub-trail
            self._storyboard(trail)
            # FIFO: once the last job submitted so far is done, so are this trail's and its attempts'
            self._boards_of[id(trail)] = self._boards.last

    def _storyboard(self, trail: TrailRecord) -> None:
        """Encodes the trail's storyboard from its stored screenshots while the next trail runs."""
        from trailblaze.output.storyboard import frames_of, write_storyboard

        if self._shooting == "off" or not frames_of(trail):
            return

        def job() -> None:
            trail.storyboard = write_storyboard(self.root, trail)

        self._boards.submit(job)

    def finish(self, *, interrupted: bool = False) -> None:
        self._boards.wait()  # run.json names every storyboard that was made
        self._boards.close()
        self.run.finished_at = now_iso()
        self.run.status = "interrupted" if interrupted else "finished"
        if interrupted:
            for trail in self.run.trails:
                if trail.status == "running":
                    trail.status, trail.error = "interrupted", "interrupted (Ctrl-C)"
        self.write()
        self._work.close()

    def write(self) -> None:
        """Rewrites `run.json` (atomically) once the artifacts in flight have landed.

        A trail that ended before the current one, and whose storyboard is made, is serialized once
        into a temporary file and its record let go (`self.run.trails` keeps only the trails that may
        still change): a run of many trails costs the same per trail, in time and memory, at the end
        as at the start. The whole run is then read back with `iter_trails`.
        """
        self.flush()
        self._let_go()
        write_run_text(self.run, self.root, [trail_text(t) for t in self.run.trails], written=self._written)

    def _let_go(self) -> None:
        """Moves the trails that can no longer change from memory into the written text."""
        trails = self.run.trails
        current = {id(self.trail), *(id(t) for t, _, _ in self._stack)}
        done = 0
        for trail in trails[:-1]:  # the last trail may still be retried, proven or given its attempts
            board = self._boards_of.get(id(trail))
            if id(trail) in current or trail.status == "running" or (board is not None and not board.done()):
                break
            done += 1
        if not done:
            return
        if self._written is None:
            self._written = tempfile.TemporaryFile()
        for trail in trails[:done]:
            self._written.write((",\n" if self._trails_written else "").encode() + trail_text(trail).encode())
            self._trails_written += 1
            self._boards_of.pop(id(trail), None)
        del trails[:done]

    def flush(self) -> None:
        """Waits for every screenshot and file being taken or written in the background."""
        self._work.wait()

    # --- tools ---------------------------------------------------------------------------------------
    def add_replayed(
        self, call: ToolCall, result: ToolResult, duration_ms: float, *, auto: bool = False
    ) -> None:
        """A recorded tool replayed from the trail (`auto`: one the replayer added, e.g. hideKeyboard)."""
        assert self.step is not None
        self.step.tools.append(replayed_record(call, result, duration_ms, auto, self._redact))

    def on_tool(self, run: ToolRun) -> None:
        """The agent: one LLM-facing call ran (it may have run a recorded-form tool)."""
        assert self.step is not None
        llm_tool = _short_call(run.use.name, self._redact(run.use.input))
        calls = run.outcome.recorded
        name, params = (calls[0].name, calls[0].params) if calls else (run.use.name, run.use.input)
        self.step.tools.append(
            ToolRecord(
                name=name,
                params=self._redact({k: v for k, v in params.items() if k != "reasoning"}),
                status=run.outcome.status,
                message=self._redact(run.outcome.message),
                source="agent",
                llm_tool=llm_tool,
                no_change=run.outcome.no_change,
                duration_ms=run.duration_ms,
            )
        )

    def mark_recorded(self) -> None:
        """The step's successful agent tools were written into the trail."""
        assert self.step is not None
        self.step.recording_written = True
        for tool in self.step.tools:
            if tool.source == "agent" and tool.status == "OK" and tool.name not in ("objectiveStatus", "askUser"):
                tool.recorded = True

    def on_llm_call(self, request: LLMRequest, response: LLMResponse, image: bytes | None) -> None:
        """The agent made a call: store the redacted transcript of one call (images as file names)."""
        step = self.step
        assert step is not None
        index = len(step.llm_calls) + 1
        stem = f"llm/{self._step_tag(step)}-call-{index:02d}"
        image_name = None
        if image is not None:
            image_name = f"{stem}.jpg"
            (self._trail_dir / image_name).write_bytes(image)
        entry = scrub_data(transcript_entry(request, response), self._redact_text)
        entry = _name_images(entry, Path(image_name).name if image_name else "(screenshot not kept)")
        write_redacted(self._trail_dir / f"{stem}.json", json.dumps(entry, indent=1, ensure_ascii=False))
        usage = response.usage
        step.llm_calls.append(
            LLMCallRecord(
                index=index,
                model=response.model,
                provider=response.provider,
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                cache_creation_input_tokens=usage.cache_creation_input_tokens,
                cache_read_input_tokens=usage.cache_read_input_tokens,
                cost_usd=response.cost_usd,
                duration_ms=response.duration_s * 1000,
                transcript=f"{self._rel_dir()}/{stem}.json",
                tool_calls=[_short_call(u.name, self._redact(u.input)) for u in response.tool_uses],
                text=self._redact(response.text),
            )
        )
        step.usage.add(
            UsageTotals(
                llm_calls=1,
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                cache_creation_input_tokens=usage.cache_creation_input_tokens,
                cache_read_input_tokens=usage.cache_read_input_tokens,
                cost_usd=response.cost_usd or 0.0,
                unpriced_calls=int(response.cost_usd is None),
                text_answers=int(not response.tool_uses),
                models=[model_label(response.provider, response.model)] if response.model else [],
            )
        )

    # --- private -------------------------------------------------------------------------------------
    def _step_tag(self, step: StepRecord) -> str:
        return "step-th" if step.index < 0 else f"step-{step.index:02d}"

    def _capture(self, session: DeviceSession, when: str, *, shoot: bool) -> tuple[str, _Shot | None]:
        """Writes the screen's dump (background) and, with `shoot`, starts its screenshot (background).

        Returns the dump's relative path and the screenshot in flight.
        """
        assert self.step is not None
        stem = f"{self._step_tag(self.step)}-{when}"
        hierarchy = session.screen()
        source, memory, folder = hierarchy.source, self.memory, self._trail_dir
        ext = "json" if hierarchy.format in ("wda-json", "web-dom") else "xml"
        dump_format = hierarchy.format

        def write_dump() -> None:
            text = source.decode("utf-8", "replace") if isinstance(source, bytes) else source
            redacted = scrub_dump(text, dump_format, lambda t: str(memory.redact(t)))
            write_redacted(folder / f"{stem}.{ext}", redacted)

        self._work.submit(write_dump)
        rel = self._rel_dir()
        shot = self._screenshot(session, hierarchy, folder, f"{rel}/{stem}") if shoot else None
        return f"{rel}/{stem}.{ext}", shot

    def _screenshot(self, session: DeviceSession, hierarchy: Hierarchy, folder: Path, rel_stem: str) -> _Shot:
        """Takes a screenshot in the background into `rel_stem`.<the image's own extension>, every
        element of `hierarchy` (the dump it shows) that shows a secret blacked out before it is written."""
        from trailblaze.screen.mask import mask_shown_secrets

        shot = _Shot()
        name = rel_stem.rsplit("/", 1)[-1]
        taken: bytes | None = None
        if not session.calls_from_any_thread:  # a browser page answers only the run's own thread
            try:
                taken = session.screenshot()
            except Exception:  # the device may be what failed; the log matters more than the picture
                shot.landed(None)
                return shot

        def take() -> None:
            try:
                raw = taken if taken is not None else session.screenshot()
                # Unmaskable (a secret with no bounds) lands as no picture: better none than a leak
                data = mask_shown_secrets(raw, hierarchy, self._redact_text)
                ext = image_ext(data)
                (folder / f"{name}.{ext}").write_bytes(data)
                shot.landed(f"{rel_stem}.{ext}")
            except Exception:  # the device may be what failed; the log matters more than the picture
                shot.landed(None)

        shot.future = self._work.submit(take)
        self._shot = shot
        session.before_action = self._before_action
        return shot

    def _before_action(self) -> None:
        shot = self._shot
        if shot is not None and shot.future is not None:
            shot.future.exception()  # wait for it; a failed picture is the picture's problem

    def _capture_log(self, session: DeviceSession, step: StepRecord) -> None:
        logs = session.app_logs
        if not logs.supported:
            step.device_log_note = no_log_reason(session.info.platform)
            return
        try:
            app = logs.app()
            if app is None:
                step.device_log_note = "no app log: no app was launched or in the foreground"
                return
            log = logs.read_step(app)
        except Exception as exc:  # a log that cannot be read must not hide the step's own failure
            step.device_log_note = self._redact(f"the device log could not be read: {exc}")
            return
        stem = f"{self._step_tag(step)}-log.txt"
        write_text(self._trail_dir / stem, self._redact("".join(f"{line}\n" for line in log.lines)))
        step.device_log = f"{self._rel_dir()}/{stem}"
        if not log.lines:
            step.device_log_note = f"{app} wrote no log lines in this step"

    def _rel_dir(self) -> str:
        return self._trail_dir.relative_to(self.root).as_posix()

    def _redact(self, value: Any) -> Any:
        return self.memory.redact(value)

    def _redact_text(self, text: str) -> str:
        return str(self.memory.redact(text))


class _Shot:
    """A screenshot being taken in the background: the records that show it get its path when it lands."""

    def __init__(self) -> None:
        self.future: Future[None] | None = None
        self._lock = threading.Lock()
        self._done = False
        self._path: str | None = None
        self._targets: list[tuple[StepRecord, str]] = []

    def name_in(self, record: StepRecord, attribute: str) -> None:
        """Set `record.<attribute>` to the picture's path once it is written (now if it is)."""
        with self._lock:
            if not self._done:
                self._targets.append((record, attribute))
                return
        if self._path is not None:
            setattr(record, attribute, self._path)

    def landed(self, path: str | None) -> None:
        with self._lock:
            self._done, self._path = True, path
            targets, self._targets = self._targets, []
        if path is not None:
            for record, attribute in targets:
                setattr(record, attribute, path)


def _quietly(call: Callable[[], None]) -> None:
    try:
        call()
    except Exception:  # marking the log is a convenience; the run goes on without it
        pass


@dataclass(frozen=True)
class _Capture:
    """A screenshot (if one was taken) + hierarchy pair kept in the run directory, and the device
    state it showed."""

    shot: _Shot | None
    hierarchy: str
    actions: int
    """`session.stats.actions` when it was taken."""
    screen: Hierarchy
    """The session's cached dump it was taken with."""

    @classmethod
    def of(cls, session: DeviceSession, shot: _Shot | None, hierarchy: str) -> _Capture:
        return cls(shot, hierarchy, session.stats.actions, session.screen())

    def still_on(self, session: DeviceSession) -> bool:
        """No action since, and the session still holds the same settled dump (nothing re-read a
        changed screen): the capture still shows the device."""
        return session.stats.actions == self.actions and session.cached_screen() is self.screen


def _short_call(name: str, args: dict[str, Any]) -> str:
    inner = " ".join(f"{k}={v}" for k, v in args.items() if k != "reasoning")
    return f"{name} {inner}".strip()


def _name_images(value: Any, name: str) -> Any:
    if isinstance(value, dict):
        if value.get("type") == "image":
            return {"type": "image", "media_type": value.get("media_type"), "file": name}
        return {k: _name_images(v, name) for k, v in value.items()}
    if isinstance(value, list):
        return [_name_images(v, name) for v in value]
    return value
