"""The run directory's `run.json`: what happened in a record or replay run, as pydantic models.

The runner writes it (as each trail starts and ends, atomically, so a crash leaves a readable log); the HTML
and JUnit reports and `trailblaze report RUN_DIR` read it. Paths inside are relative to the run
directory. Secret values never appear: params keep their `{{templates}}` and the file is scrubbed
of every registered secret as it is written (`trailblaze.common.redact`).

A run in progress reads `status: running` with the writer's `pid`; a reader that finds it running
while that process is gone (SIGKILL, power loss) shows it, and its unfinished trail, as
`interrupted` (ADR 0019).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from trailblaze.common.files import atomic_stream, atomic_write
from trailblaze.common.json_stream import iter_list
from trailblaze.common.limits import MAX_RUNTRAIL_DEPTH
from trailblaze.common.redact_values import scrub_model
from trailblaze.llm.pricing import DEMO_PROVIDER

__all__ = [
    "LLMCallRecord",
    "RUN_FILE",
    "RunRecord",
    "RunStatus",
    "StepRecord",
    "StepStatus",
    "ToolRecord",
    "TrailRecord",
    "TrailStatus",
    "UsageTotals",
    "Verification",
    "iter_trails",
    "load_run",
    "model_label",
    "read_head",
    "usage_cost_text",
    "write_run",
    "trail_text",
    "write_run_text",
]

RUN_FILE = "run.json"

StepStatus = Literal["passed", "passed-with-self-heal", "passed-ai", "failed", "skipped", "not-run"]
TrailStatus = Literal[
    "passed", "passed-with-self-heal", "passed-ai", "failed", "error", "skipped", "running", "interrupted"
]
RunStatus = Literal["running", "finished", "interrupted"]
Verification = Literal["verified", "failed", "unverified", "skipped"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", defer_build=True)  # built on first use: start-up


class UsageTotals(_Model):
    llm_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    cost_usd: float = 0.0
    """Cost of the calls whose model has a price; see `unpriced_calls`."""
    unpriced_calls: int = 0
    """Calls to a model with no known price: when non-zero, the total cost is unknown."""
    text_answers: int = 0
    """Answers with text but no tool call (the agent told the model to call a tool and asked again)."""
    models: list[str] = Field(default_factory=list)
    """The models that answered, as `provider:model`, in first-use order."""

    def add(self, other: UsageTotals) -> None:
        self.unpriced_calls += other.unpriced_calls
        self.text_answers += other.text_answers
        self.models += [m for m in other.models if m not in self.models]
        self.llm_calls += other.llm_calls
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cache_creation_input_tokens += other.cache_creation_input_tokens
        self.cache_read_input_tokens += other.cache_read_input_tokens
        self.cost_usd += other.cost_usd


def model_label(provider: str, model: str) -> str:
    """`provider:model` as `--model` takes it; the bare model for a test double (no provider)."""
    return f"{provider}:{model}" if provider else model


def usage_cost_text(usage: UsageTotals, fmt: Callable[[float], str]) -> str:
    """The cost of `usage` for people, `fmt` formatting dollars: `unknown` when no call had a
    price, `<known> + unknown` when some had none — never a guess; `no cost (demo model)` when only
    the keyless scripted demo model answered."""
    if usage.models and all(m.startswith(f"{DEMO_PROVIDER}:") for m in usage.models):
        return "no cost (demo model)"
    if usage.llm_calls and usage.unpriced_calls >= usage.llm_calls:
        return "unknown"
    known = fmt(usage.cost_usd)
    return f"{known} + unknown" if usage.unpriced_calls else known


class ToolRecord(_Model):
    """One tool that ran on the device (recorded form), or an LLM-facing call that failed before it."""

    name: str
    params: dict[str, Any] = Field(default_factory=dict)
    status: str
    """OK, NOT_FOUND, AMBIGUOUS, NOT_VISIBLE, ERROR, TIMEOUT, UNSUPPORTED or NOT_INSTALLED."""
    message: str = ""
    source: Literal["recording", "agent", "self-heal", "auto"] = "recording"
    """Where the call came from: the trail's recording, the agent, a self-heal, or `auto` — added by
    the replayer, not written anywhere (a `hideKeyboard` when the keyboard covers the target)."""
    llm_tool: str | None = None
    """The LLM-facing call that produced this one, e.g. `tap ref=a3f`."""
    recorded: bool = False
    """Whether it was written into the trail's recording."""
    no_change: bool = False
    """An OK tap / long-press / swipe / key press after which the screen looked the same (a no-op)."""
    ai: bool = False
    """A recorded tool that asked the LLM when it ran (`rememberText`, `assertWithAi`, …)."""
    duration_ms: float = 0.0
    screenshot_after: str | None = None


class LLMCallRecord(_Model):
    index: int
    model: str = ""
    provider: str = ""
    """Who served the call (`anthropic`, `bedrock`, `vertex`, `openai`); empty for test doubles."""
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    cost_usd: float | None = None
    duration_ms: float = 0.0
    transcript: str | None = None
    """Relative path of the redacted request/response JSON."""
    tool_calls: list[str] = Field(default_factory=list)
    """What the model asked for, one short line per tool call (`tap ref=a3f`)."""
    text: str = ""
    error: str | None = None


class StepRecord(_Model):
    index: int
    """0-based position in `trail:`; -1 for the trailhead."""
    kind: Literal["trailhead", "step", "verify"]
    text: str
    status: StepStatus = "not-run"
    mode: Literal["replay", "agent", "self-heal", "noop"] = "replay"
    duration_ms: float = 0.0
    tools: list[ToolRecord] = Field(default_factory=list)
    llm_calls: list[LLMCallRecord] = Field(default_factory=list)
    usage: UsageTotals = Field(default_factory=UsageTotals)
    error: str | None = None
    candidates: list[str] = Field(default_factory=list)
    """On failure: the closest elements on screen to what the failing tool looked for."""
    screenshot_before: str | None = None
    screenshot_after: str | None = None
    hierarchy_before: str | None = None
    hierarchy_after: str | None = None
    recording_written: bool = False
    device_log: str | None = None
    """The app's device log lines of this step (`--device-logs`), relative to the run directory."""
    device_log_note: str | None = None
    """Why there is no device log for this step (e.g. iOS: WebDriverAgent has none)."""
    subtrails: list[TrailRecord] = Field(default_factory=list)
    """The trails this step's `runTrail` tools ran, with their own steps (ADR 0021)."""


class TrailRecord(_Model):
    path: str
    id: str | None = None
    title: str | None = None
    tags: list[str] = Field(default_factory=list)
    """The trail's `config.tags` (the Allure and CTRF results carry them)."""
    device: str = ""
    classifier: str = ""
    platform: str = ""
    mode: Literal["record", "replay"] = "replay"
    status: TrailStatus = "failed"
    started_at: str = ""
    duration_ms: float = 0.0
    steps: list[StepRecord] = Field(default_factory=list)
    error: str | None = None
    heal_diff: str | None = None
    """Unified diff of the trail file when the run rewrote it (record: also when the proof replay
    failed and nothing was written — the diff that was not applied)."""
    verification: Verification | None = None
    """Record only, when it made new recordings: `verified` (the proof replay passed, written),
    `failed` (it did not, nothing written), `unverified` (it did not, written anyway with
    --keep-unverified) or `skipped` (not run; `verification_note` says why)."""
    verification_note: str | None = None
    proof: TrailRecord | None = None
    """The proof replay's own run (record only): the relaunched trail replayed from the new
    recordings with no LLM; its artifacts live in `<directory>/proof/`."""
    usage: UsageTotals = Field(default_factory=UsageTotals)
    directory: str = ""
    """This trail's artifact folder, relative to the run directory."""
    attempts: list[TrailRecord] = Field(default_factory=list)
    """`--retries`: the earlier attempts of this trail, oldest first, each failed (this record is
    the last attempt). A trail that passed with earlier attempts is flaky (`trailblaze.output.ci_policy`)."""
    quarantine: str | None = None
    """`config.quarantine` (or the pytest marker): why this trail's failure does not fail the build."""
    session_url: str | None = None
    """The device farm's page for the Appium session this trail ran in (video, device logs), when
    the farm gives one (`trailblaze.device.driver.SupportsRemoteSession`)."""
    storyboard: str | None = None
    """The trail's animated storyboard (`<directory>/storyboard.webp`, relative to the run directory),
    made from the stored step screenshots; None when no step has one (`trailblaze.output.storyboard`)."""
    draft: str | None = None
    """Record only, when the trail file was not changed: the draft beside it that keeps the recordings
    this run paid for (`record --resume` continues from it; `trailblaze.engine.record_draft`)."""
    hiccups: int = 0
    """Device faults this trail survived: reads sent again, failed actions judged done or sent again
    (`trailblaze.device.hiccups`); the report says "device hiccups: N retried"."""
    scrolls_into_view: int = 0
    """Element lookups whose target was off screen and was scrolled into view
    (`trailblaze.tools.scroll_into_view`); the report says "N elements scrolled into view"."""


StepRecord.model_rebuild()


class RunRecord(_Model):
    version: int = 1
    run_id: str
    started_at: str
    finished_at: str | None = None
    command: list[str] = Field(default_factory=list)
    device: str = ""
    trails: list[TrailRecord] = Field(default_factory=list)
    usage: UsageTotals = Field(default_factory=UsageTotals)
    status: RunStatus = "finished"
    """`running` while the writer is at work (its `pid`), `interrupted` after Ctrl-C or when the
    writer died; run logs from before this field read as `finished`."""
    pid: int | None = None
    shard: str | None = None
    """`i/N` when this run replayed shard i of N (`replay --shard`); a merged report lists them all
    (`1/3, 2/3, 3/3`)."""
    uid: str | None = None
    """A random id of this run (the run directory's name may repeat on another machine): the results
    store counts each run once however often it is imported (`trailblaze.results`)."""
    commit: str | None = None
    """The commit under test, from the CI's variables or git (`trailblaze.common.vcs`); None if not known."""
    branch: str | None = None
    screenshots: Literal["steps", "failures", "off"] | None = None
    """Which screenshots the run took (`trailblaze.output.artifacts`): after every step, only for failing
    steps, or none; None in run logs from before the option (every step)."""

    @property
    def passed(self) -> bool:
        return all(t.status.startswith("passed") or t.status == "skipped" for t in self.trails)


def write_run(run: RunRecord, run_dir: str | os.PathLike[str]) -> Path:
    """Writes `run.json` atomically (temp file + rename) and returns its path."""
    directory = Path(run_dir)
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / RUN_FILE
    text = json.dumps(scrub_model(run), indent=2, ensure_ascii=False) + "\n"
    atomic_write(target, text.encode("utf-8"))  # redacted by value above: `"status"` stays a key
    return target


def write_run_text(
    run: RunRecord, run_dir: str | os.PathLike[str], trails: list[str], *, written: IO[bytes] | None = None
) -> Path:
    """`write_run` with the trails already serialized, in order, each by `trail_text`: a writer that
    keeps the text of finished trails does not serialize them again.

    Args:
        written: Trails serialized earlier (each by `trail_text`, joined by `,` and a line break), put
            before `trails`: the run directory keeps a long run's finished trails there, not in memory.
    """
    directory = Path(run_dir)
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / RUN_FILE
    head = json.dumps(scrub_model(run, exclude={"trails"}), indent=2, ensure_ascii=False)
    earlier = written is not None and written.tell() > 0
    with atomic_stream(target) as out:
        out.write(f'{head.removesuffix("}")[:-1]},\n  "trails": '.encode())
        if not trails and not earlier:
            out.write(b"[]")
        else:
            out.write(b"[\n")
            if written is not None and earlier:
                end = written.tell()
                written.seek(0)
                shutil.copyfileobj(written, out)
                written.seek(end)
                out.write(b",\n" if trails else b"")
            out.write(",\n".join(trails).encode())
            out.write(b"\n  ]")
        out.write(b"\n}\n")
    return target


def trail_text(trail: TrailRecord) -> str:
    """One trail as it sits in run.json's `trails` list (for `write_run_text`)."""
    text = json.dumps(scrub_model(trail), indent=2, ensure_ascii=False)
    return "    " + text.replace("\n", "\n    ")


def load_run(run_dir: str | os.PathLike[str]) -> RunRecord:
    """The run directory's `run.json`, every trail in memory (`read_head` / `iter_trails` stream it).

    Raises:
        UsageError: no readable run log there; the message says what to pass instead.
    """
    from trailblaze.errors import UsageError

    path = _run_file(run_dir)
    try:
        run = RunRecord.model_validate_json(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise _unreadable(path, exc) from None
    except ValueError as exc:
        raise _not_a_run_log(path, exc) from None
    if _nesting(run.trails) > MAX_RUNTRAIL_DEPTH:  # replay never writes one: the limit is the same
        raise UsageError(
            f"{path}: runTrail trails nested more than {MAX_RUNTRAIL_DEPTH} deep; not a run log replay writes"
        )
    return _settled(run)


def read_head(run_dir: str | os.PathLike[str]) -> RunRecord:
    """The run of `run.json` without its trails (`trails` is empty): its id, times, command, totals.

    The file is read in chunks and its trails decoded but not kept, so this costs no memory per trail.
    A run that reads `running` although its process is gone reads `interrupted` (as in `load_run`).

    Raises:
        UsageError: as `load_run`.
    """
    path = _run_file(run_dir)
    members: dict[str, Any] = {}
    try:
        with path.open(encoding="utf-8") as handle:
            for _ in iter_list(handle, "trails", members):
                pass
        run = RunRecord.model_validate(members)
    except OSError as exc:
        raise _unreadable(path, exc) from None
    except ValueError as exc:
        raise _not_a_run_log(path, exc) from None
    if run.status == "running" and run.pid is not None and not _alive(run.pid):
        run.status = "interrupted"
    return run


def iter_trails(run_dir: str | os.PathLike[str], head: RunRecord | None = None) -> Iterator[TrailRecord]:
    """The trails of `run.json`, one at a time: each is decoded and validated as it is reached, so a
    report or JUnit file of a run of any size holds one trail's records at once.

    Args:
        head: The run's `read_head` when the caller has it (whether it was interrupted); read otherwise.

    Raises:
        UsageError: as `load_run`, when the trail that is not valid is reached.
    """
    from trailblaze.errors import UsageError

    head = read_head(run_dir) if head is None else head
    path = _run_file(run_dir)
    why = _interrupted_text(head.pid) if head.status == "interrupted" and head.pid is not None else None
    try:
        with path.open(encoding="utf-8") as handle:
            for item in iter_list(handle, "trails", {}):
                trail = TrailRecord.model_validate(item)
                if _nesting([trail]) > MAX_RUNTRAIL_DEPTH:
                    raise UsageError(
                        f"{path}: runTrail trails nested more than {MAX_RUNTRAIL_DEPTH} deep; "
                        "not a run log replay writes"
                    )
                if why is not None and trail.status == "running":
                    trail.status, trail.error = "interrupted", why
                yield trail
    except OSError as exc:
        raise _unreadable(path, exc) from None
    except ValueError as exc:
        raise _not_a_run_log(path, exc) from None


def _run_file(run_dir: str | os.PathLike[str]) -> Path:
    """`run_dir/run.json`, when `run_dir` is a folder that has one."""
    from trailblaze.errors import UsageError

    directory = Path(run_dir)
    path = directory / RUN_FILE
    how = "pass a run directory written by record or replay (they print it; default under .trailblaze/runs/)"
    if not directory.exists():
        raise UsageError(f"{path}: no run.json here ({directory} does not exist); {how}")
    if not directory.is_dir():
        raise UsageError(f"{directory}: not a directory; {how}")
    if not path.exists():
        raise UsageError(f"{path}: no run.json here; {how}")
    return path


def _unreadable(path: Path, exc: OSError) -> Exception:
    from trailblaze.errors import UsageError

    if isinstance(exc, FileNotFoundError):
        how = "pass a run directory written by record or replay (they print it; default under .trailblaze/runs/)"
        return UsageError(f"{path}: no run.json here; {how}")
    return UsageError(f"{path}: cannot read the run log ({exc.strerror or exc})")


def _not_a_run_log(path: Path, exc: ValueError) -> Exception:
    from trailblaze.errors import UsageError

    return UsageError(f"{path}: not a trailblaze run log ({str(exc).splitlines()[0]})")


def _nesting(trails: list[TrailRecord]) -> int:
    """How many trails deep the deepest `runTrail` chain goes (1: no sub-trails)."""
    deepest, level, todo = 0, 1, list(trails)
    while todo:
        deepest = level
        todo = [sub for trail in todo for step in trail.steps for sub in step.subtrails]
        level += 1
    return deepest


def _settled(run: RunRecord) -> RunRecord:
    """A run that reads `running` although its process is gone ended without finishing: interrupted."""
    if run.status != "running" or run.pid is None or _alive(run.pid):
        return run
    run.status = "interrupted"
    why = _interrupted_text(run.pid)
    for trail in run.trails:
        if trail.status == "running":
            trail.status, trail.error = "interrupted", why
    return run


def _interrupted_text(pid: int) -> str:
    return f"interrupted: the trailblaze process (pid {pid}) ended before finishing this trail (killed?)"


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. EPERM: it exists, owned by someone else
        return True
    return True
