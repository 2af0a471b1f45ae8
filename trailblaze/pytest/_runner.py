"""The `trail_runner` fixture's object, the failure text of a trail, and the merged `--trailblaze-report`.

Imported by the pytest plugin only when a test asks for `trail_runner` or a trail item runs.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ParamSpec, TypeVar

import pytest

from trailblaze.engine.options import DeviceChoice, RunInputs, RunOutput
from trailblaze.engine.replay import ReplayOptions
from trailblaze.errors import TrailFileError, UsageError
from trailblaze.output.ci_policy import CiPolicy
from trailblaze.output.report import device_log_tail
from trailblaze.output.rundir import RunDir
from trailblaze.output.runlog import RUN_FILE, RunRecord, StepRecord, TrailRecord, load_run, write_run
from trailblaze.tools.memory import Memory

if TYPE_CHECKING:
    from trailblaze.device.logs import DeviceLogMode
    from trailblaze.device.session import DeviceSession
    from trailblaze.llm.client import LLMClient
    from trailblaze.tools.execute import ToolResult
    from trailblaze.trail.model import ToolCall

__all__ = ["TrailResult", "TrailRunner", "reset_report_dir", "write_merged_report"]

_PATH = str | os.PathLike[str]
_T = TypeVar("_T")
_P = ParamSpec("_P")


def _one_line(method: Callable[_P, _T]) -> Callable[_P, _T]:
    """A usage or trail-file error (a secret with no value, a template with none, a file that does not
    load) comes out of `trail_runner` as itself alone: the test's line, then the message with its hint,
    not the engine's frames it passed through on the way (issue 48 item 6)."""

    @functools.wraps(method)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        __tracebackhide__ = True  # read by pytest: this frame is not shown
        try:
            return method(*args, **kwargs)
        except (UsageError, TrailFileError) as exc:
            raise exc.with_traceback(None) from None

    return wrapper
_REPLAY_DEFAULTS = ReplayOptions()
_POLICY_DEFAULTS = CiPolicy()
_NO_INPUTS = RunInputs()
_OUTPUT_DEFAULTS = RunOutput(screenshots="failures")  # a passing test takes no screenshot


@dataclass(frozen=True)
class TrailResult:
    """How one replay or record of a trail went."""

    record: TrailRecord
    """The trail's entry in `run.json`: every step with its status, tools, error and candidates."""
    run_dir: Path | None
    """The run directory holding this trail's screenshots and hierarchies (None with artifacts off)."""

    @property
    def status(self) -> str:
        """`passed`, `passed-with-self-heal`, `passed-ai`, `failed`, `error` or `skipped`."""
        return self.record.status

    @property
    def passed(self) -> bool:
        return self.record.status.startswith("passed")

    @property
    def steps(self) -> list[StepRecord]:
        return self.record.steps

    @property
    def error(self) -> str | None:
        return self.record.error

    @property
    def failed_step(self) -> StepRecord | None:
        return next((s for s in self.record.steps if s.status == "failed"), None)

    @property
    def diagnostic(self) -> str:
        """The failure as a person reads it: trail, step, tool, selector, candidates, artifacts."""
        from trailblaze.common.redact import scrub

        return scrub(failure_text(self.record, self.run_dir))

    def assert_passed(self) -> None:
        """Fails the calling test with `diagnostic` (no traceback into trailblaze) unless the trail passed."""
        if not self.passed:
            pytest.fail(self.diagnostic, pytrace=False)


def failure_text(record: TrailRecord, run_dir: Path | None) -> str:
    name = record.id or Path(record.path).name
    where = f"{record.device} ({record.classifier})" if record.classifier else record.device
    lines = [f"trail {name} {record.status} on {where}: {record.path}"]
    step = next((s for s in record.steps if s.status == "failed"), None)
    proof = record.proof if step is None and record.proof is not None else None
    if proof is not None:  # every step was solved; the new recordings did not replay
        step = next((s for s in proof.steps if s.status == "failed"), None)
        lines.append(f"  {record.verification_note or 'the proof replay failed'}")
    if step is not None:
        number = "trailhead" if step.index < 0 else f"step {step.index + 1}"
        lines.append(f"  {'proof replay ' if proof is not None else ''}{number} ({step.kind}): {step.text}")
        failing_tool = next((t for t in reversed(step.tools) if t.status != "OK"), None)
        if failing_tool is not None:
            lines.append(f"    tool: {failing_tool.name} {failing_tool.params}")
            result = f"{failing_tool.status} {failing_tool.message}".strip()
            if not step.error or failing_tool.message not in step.error:
                lines.append(f"    result: {result}")
        if step.error:
            lines.append(f"    error: {step.error}")
        if step.candidates:
            lines.append("    closest candidates on screen:")
            lines.extend(f"      - {c}" for c in step.candidates)
        if run_dir is not None:
            for label, rel in (("screenshot", step.screenshot_after), ("hierarchy", step.hierarchy_after)):
                if rel:
                    lines.append(f"    {label}: {run_dir / rel}")
            lines.extend(device_log_tail(step, run_dir))
    elif record.error:
        lines.append(f"  {record.error}")
    if run_dir is not None:
        lines.append(f"  run directory: {run_dir}")
    return "\n".join(lines)


class TrailRunner:
    """Runs trails and tools on the test's device (the `trail_runner` fixture).

    All replays and records of one test go into one run directory, one trail folder each. The
    session's one-dump cache is dropped before each call, because the test may have driven the
    device directly (through `driver`) since the last one.
    """

    def __init__(
        self,
        session: DeviceSession,
        *,
        device: str | DeviceChoice,
        llm_factory: Callable[[], LLMClient],
        replay: ReplayOptions = _REPLAY_DEFAULTS,
        policy: CiPolicy = _POLICY_DEFAULTS,
        inputs: RunInputs = _NO_INPUTS,
        output: RunOutput = _OUTPUT_DEFAULTS,
        command: list[str] | None = None,
    ) -> None:
        """The plugin builds these objects once from its settings (`TrailblazeConfig`), as the CLI
        builds them from its flags (docs/adr/0046-run-options.md).

        Args:
            device: The device's spec (its `device_logs` says when a step's app log is kept).
            replay: `self_heal` and `write_back` of every replay (`--self-heal`).
            policy: `retries` and `fail_on_flaky` (`--trailblaze-retries`, `--trailblaze-fail-on-flaky`).
            inputs: The secrets every call gets (a call's own `secrets` go over them).
            output: `run_dir` (None: no run directory) and which `screenshots` it keeps.
        """
        choice = DeviceChoice.parse(device) if isinstance(device, str) else device
        self.session = session
        self.retries = policy.retries
        """Re-runs of a failed trail from its start (`--trailblaze-retries`)."""
        self.fail_on_flaky = policy.fail_on_flaky
        """A trail item that passes only on a retry fails (`--trailblaze-fail-on-flaky`)."""
        self.flaky: list[TrailRecord] = []
        """The trails of this test that passed only on a retry (their failed attempts inside)."""
        self.device_logs: DeviceLogMode = choice.device_logs
        """When a step's app log is kept in the run directory (`--trailblaze-device-logs`)."""
        self.device = choice.text
        self.self_heal = replay.self_heal
        self.write_back = replay.write_back
        self.trail_timeout = replay.trail_timeout
        """Wall-clock seconds one trail may run (`--trailblaze-trail-timeout`)."""
        self.secrets = dict(inputs.secrets)
        self.flags = inputs.flags
        """How the hints of this runner's trails spell options (the plugin's: `--trailblaze-secret`, …)."""
        self.llm_calls = 0
        """How many times a step needed the model (the `llm` fixture was asked for)."""
        self._llm_factory = llm_factory
        self._run_dir_path = None if output.run_dir is None else Path(output.run_dir)
        self._command = command or ["pytest"]
        self._rundir: RunDir | None = None
        self._screenshots = output.screenshots  # validated where the RunOutput was built
        self._results = output.results
        self._unkept: list[TrailRecord] = []
        """The trails run without a run directory (`--trailblaze-artifacts off`): stored at `close`."""

    @property
    def run_dir(self) -> Path | None:
        """The run directory, once a trail ran (None with artifacts off)."""
        return self._rundir.root if self._rundir is not None else None

    @_one_line
    def replay(
        self,
        path: _PATH,
        /,
        *,
        args: Mapping[str, str] | None = None,
        secrets: Mapping[str, str] | None = None,
        self_heal: bool | None = None,
        retries: int | None = None,
        **memory: str,
    ) -> TrailResult:
        """Replays a trail file (no LLM unless a step has no recording or self-heals).

        A failed trail runs again from its start (the app stopped first) up to `retries` times
        (default `--trailblaze-retries`); one that passes only on a retry is flaky: its result
        passes, its earlier attempts are in `record.attempts`, and the test's report says so.

        Args:
            path: The trail file.
            args: Values for `{{args.name}}` (over `config.args`).
            secrets: Secret values, over the `trailblaze_secrets` fixture's.
            self_heal: Override `--self-heal` for this call.
            retries: Override `--trailblaze-retries` for this call.
            **memory: Variables for `{{name}}` templates (over `config.memory`).

        Returns:
            The result; a failing trail is a result with status `failed`, not an exception.

        Raises:
            UsageError / TrailFileError: the file does not load or a template names an unknown variable.
            DeviceError / LLMError: infrastructure failed.
        """
        from trailblaze.engine.retries import replay_with_retries
        from trailblaze.output.ci_policy import is_flaky
        from trailblaze.trail.model import load_trail
        from trailblaze.trail.variables import build_memory

        trail = load_trail(path)
        inputs = RunInputs(
            memory=memory, args=dict(args or {}), secrets={**self.secrets, **(secrets or {})}, flags=self.flags
        )
        mem = build_memory(trail, inputs.memory, inputs.args, inputs.secrets, flags=inputs.flags)
        heal = self.self_heal if self_heal is None else self_heal
        self.session.invalidate()
        rundir = self._open_rundir(mem)
        # the same function `trailblaze replay` replays each trail with (trailblaze.engine.commands)
        record = replay_with_retries(
            trail,
            self.session,
            options=ReplayOptions(self_heal=heal, write_back=self.write_back, trail_timeout=self.trail_timeout),
            inputs=inputs,
            retries=self.retries if retries is None else retries,
            llm_factory=self._llm,
            rundir=rundir,
            device=self.device,
        )
        if is_flaky(record):
            self.flaky.append(record)
        if rundir is None:
            self._unkept.append(record)
        return TrailResult(record, self.run_dir)

    @_one_line
    def record(
        self,
        path: _PATH,
        /,
        *,
        args: Mapping[str, str] | None = None,
        secrets: Mapping[str, str] | None = None,
        rerecord: bool = False,
        steps: tuple[int, ...] = (),
        from_step: int | None = None,
        verify: bool = True,
        keep_unverified: bool = False,
        ask: Callable[[str], str] | None = None,
        resume: bool = False,
        **memory: str,
    ) -> TrailResult:
        """Records a trail: replays what is recorded for this device, solves the rest with `llm`, then
        proves the new recordings by a replay from a relaunch (no LLM) and only then saves them.

        Args:
            steps / from_step: Re-record only these steps (numbered from 1) / this step and the rest,
                like `record --step N` / `--from N`.
            verify: False skips the proof replay (`--no-verify`).
            keep_unverified: Save even when the proof replay fails (`record.verification` is then
                `unverified`); otherwise a failed proof saves nothing and the result is `failed`.

        `ask` answers the model's `askUser` questions (question in, one-line answer out); without it
        the tool is not offered. A record that stops part-way keeps what the model solved in a draft
        beside the trail; `resume=True` starts from it (`record --resume`).

        Raises:
            UsageError / TrailFileError: the file does not load, or `steps` / `from_step` are invalid.
            DeviceError / LLMError: infrastructure failed.
        """
        from trailblaze.engine.record import RecordOptions, record_trail

        merged = {**self.secrets, **(secrets or {})}
        self.session.invalidate()
        rundir = self._open_rundir(Memory(secrets=merged))
        record = record_trail(
            Path(path),
            self.session,
            self._llm,
            inputs=RunInputs(memory=memory, args=args or {}, secrets=merged, flags=self.flags),
            options=RecordOptions(
                rerecord=rerecord,
                steps=tuple(steps),
                from_step=from_step,
                verify=verify,
                keep_unverified=keep_unverified,
                ask=ask,
                resume=resume,
            ),
            rundir=rundir,
            device=self.device,
        )
        if rundir is None:
            self._unkept.append(record)
        return TrailResult(record, self.run_dir)

    @_one_line
    def tool(self, tool: str | ToolCall, **memory: str) -> ToolResult:
        """Runs one tool in its recorded form, e.g. `"tapOnElementBySelector: {nodeSelector: …}"`.

        A custom tool (docs/adr/0020-custom-tools.md) is looked up from the current folder
        (`./trails/tools`, `[tool.trailblaze] tools`, entry points).

        Returns:
            The tool's result (`.ok`, `.status`, `.message`); a missing element is a result, not an error.
        """
        from trailblaze.tools.discovery import tools_for
        from trailblaze.trail.model import parse_tool

        call = parse_tool(tool) if isinstance(tool, str) else tool
        self.session.invalidate()
        custom = tools_for(None).tools
        return custom.run(self.session, call, Memory(memory, secrets=self.secrets, flags=self.flags))

    def close(self) -> None:
        """Finishes the run directory (writes its final `run.json`) and puts back the device state
        this test's tools changed (`setNetwork`)."""
        if self._rundir is not None:
            self._rundir.finish()
        self._store_results()
        self.session.end_trail()

    def _store_results(self) -> None:
        """Adds this test's run to the results store; a failure is a warning, never the test's result."""
        from trailblaze.results.hook import store_run, store_trails

        if self._rundir is not None:
            warning = store_run(self._rundir.root, self._results, "pytest")
        else:
            warning = store_trails(
                self._unkept, self._results, "pytest", command=self._command, device=self.device
            )
        if warning is not None:
            # the real stderr, not a warning: `-W error` must not turn it into the test's failure
            print(warning, file=sys.__stderr__ or sys.stderr)

    def _llm(self) -> LLMClient:
        self.llm_calls += 1
        return self._llm_factory()

    def _open_rundir(self, memory: Memory) -> RunDir | None:
        if self._run_dir_path is None:
            return None
        if self._rundir is None:
            self._rundir = RunDir(
                self._run_dir_path, memory, command=self._command, device=self.device, screenshots=self._screenshots
            )
            self._rundir.device_logs = self.device_logs
        else:
            self._rundir.memory = memory
        return self._rundir


# --- the merged report ------------------------------------------------------------------------------------

_OUTPUTS = (RUN_FILE, "report.html", "junit.xml")


def reset_report_dir(root: Path) -> None:
    """Empties a `--trailblaze-report` folder of a previous run (only what the plugin writes there)."""
    if not root.exists():
        return
    for name in _OUTPUTS:
        (root / name).unlink(missing_ok=True)
    for child in root.iterdir():
        if child.is_dir() and (child / RUN_FILE).is_file():
            shutil.rmtree(child)


def write_merged_report(
    root: Path,
    *,
    command: list[str],
    shard: str | None = None,
    single_file: bool = False,
    allure_dir: Path | None = None,
    ctrf: Path | None = None,
) -> Path | None:
    """Merges the per-test run directories under `root` into `root/run.json`, `report.html`, `junit.xml`
    (and Allure results into `allure_dir`, CTRF JSON into `ctrf`).

    Returns:
        The HTML report, or None when no test ran a trail.
    """
    from trailblaze.output.junit import write_junit
    from trailblaze.output.merge import rebase_trail
    from trailblaze.output.report import write_html_report
    from trailblaze.output.rundir import now_iso

    runs = [(child.name, load_run(child)) for child in sorted(root.iterdir()) if (child / RUN_FILE).is_file()]
    if not runs:
        return None
    merged = RunRecord(
        run_id=root.name,
        started_at=min(run.started_at for _, run in runs),
        finished_at=now_iso(),
        command=command,
        device=", ".join(sorted({run.device for _, run in runs if run.device})),
        shard=shard,
    )
    modes = {run.screenshots for _, run in runs}
    merged.screenshots = modes.pop() if len(modes) == 1 else None
    for sub, run in runs:
        for trail in run.trails:
            merged.trails.append(rebase_trail(trail, sub))
            merged.usage.add(trail.usage)
    write_run(merged, root)
    write_junit(merged, root / "junit.xml", suite_name="trailblaze (pytest)", run_dir=root)
    if allure_dir is not None:
        from trailblaze.output.allure import write_allure

        write_allure(merged, allure_dir, run_dir=root)
    if ctrf is not None:
        from trailblaze.output.ctrf import write_ctrf

        write_ctrf(merged, ctrf, run_dir=root)
    return write_html_report(root, single_file=single_file)
