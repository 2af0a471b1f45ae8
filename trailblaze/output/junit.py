"""JUnit XML for CI systems (GitLab, Jenkins, GitHub test reporters), rendered from a run log."""

from __future__ import annotations

import io
import os
import re
import shutil
import socket
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from trailblaze.common.files import atomic_stream
from trailblaze.common.redact_values import scrub_tree
from trailblaze.output._html import format_duration, step_label
from trailblaze.output.runlog import RunRecord, StepRecord, TrailRecord

__all__ = ["junit_xml", "rerun_texts", "workspace_path", "write_junit"]

# XML 1.0 forbids most C0 controls even as character references; device text can contain them.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_MAX_MESSAGE = 500


def _clean(text: str) -> str:
    return _INVALID_XML.sub("\ufffd", text)


def _seconds(ms: float) -> str:
    return f"{max(ms, 0.0) / 1000:.3f}"


def _timestamp(value: str) -> str:
    """The schema's timestamp: ISO 8601 without a zone, so UTC."""
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S")
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(UTC)
    return parsed.strftime("%Y-%m-%dT%H:%M:%S")


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= _MAX_MESSAGE else line[: _MAX_MESSAGE - 1] + "…"


def _failed_step(trail: TrailRecord) -> StepRecord | None:
    for step in trail.steps:
        if step.status == "failed":
            return step
    return None


def _step_line(step: StepRecord) -> str:
    ran = step.status not in ("not-run", "skipped") or step.duration_ms > 0
    mode, took = (step.mode, format_duration(step.duration_ms)) if ran else ("-", "-")
    line = f"{step_label(step.index):>10}  {step.status:<22} {mode:<9} {took:>10}  {step.text}"
    if step.error:
        line += f"\n{'':12}error: {step.error}"
    return line


def _system_out(trail: TrailRecord) -> str:
    lines = [f"{trail.path}: {trail.status} in {format_duration(trail.duration_ms)}"]
    if trail.device or trail.classifier:
        lines.append(
            f"device: {trail.device or '-'}  classifier: {trail.classifier or '-'}  mode: {trail.mode}"
        )
    lines.extend(_step_line(step) for step in trail.steps)
    if trail.usage.llm_calls:
        u = trail.usage
        lines.append(
            f"LLM: {u.llm_calls} calls, {u.input_tokens} input / {u.output_tokens} output tokens, ${u.cost_usd:.4f}"
        )
    if trail.heal_diff:
        lines.append("self-heal changed the trail file:")
        lines.append(trail.heal_diff.rstrip("\n"))
    return "\n".join(lines) + "\n"


def _failure_text(trail: TrailRecord, step: StepRecord | None) -> tuple[str, str]:
    """(one-line message attribute, multi-line body) of a failed or errored trail."""
    if step is not None:
        error = step.error or trail.error or "step failed"
        message = f"{step_label(step.index)}: {step.text} — {error}"
        body = [f"{trail.path}, {step_label(step.index)}: {step.text}", error]
        if step.candidates:
            body.append("closest elements on screen:")
            body.extend(f"  {c}" for c in step.candidates)
        if step.screenshot_after:
            body.append(f"screenshot: {step.screenshot_after}")
        if step.hierarchy_after:
            body.append(f"hierarchy: {step.hierarchy_after}")
        return _one_line(message), "\n".join(body)
    error = trail.error or f"trail {trail.status}"
    return _one_line(error), f"{trail.path}\n{error}"


def _storyboard_path(trail: TrailRecord, run_dir: Path | None) -> str | None:
    """Where a CI system finds the trail's storyboard (`workspace_path`)."""
    return workspace_path(trail.storyboard, run_dir) if trail.storyboard else None


def workspace_path(relative: str, run_dir: Path | None) -> str:
    """Where a CI system finds a run artifact (`relative` to the run directory): relative to the working
    directory (the CI workspace) when it is below it, else absolute; as run.json names it when the run
    directory is unknown."""
    if run_dir is None:
        return relative
    target = (run_dir / relative).resolve()
    try:
        return target.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(target)


def _testcase(parent: ET.Element, trail: TrailRecord, run_dir: Path | None = None) -> None:
    case = ET.SubElement(
        parent,
        "testcase",
        {
            "classname": _clean(trail.id or trail.path),
            "name": _clean(trail.title or trail.id or trail.path),
            "time": _seconds(trail.duration_ms),
            "file": _clean(trail.path),
        },
    )
    props = ET.SubElement(case, "properties")
    for name, value in (
        ("trailblaze.status", trail.status),
        ("trailblaze.path", trail.path),
        ("trailblaze.device", trail.device),
        ("trailblaze.classifier", trail.classifier),
        ("trailblaze.mode", trail.mode),
        ("trailblaze.healed_steps", str(sum(s.status == "passed-with-self-heal" for s in trail.steps))),
        ("trailblaze.ai_steps", str(sum(s.status == "passed-ai" for s in trail.steps))),
        ("trailblaze.llm_calls", str(trail.usage.llm_calls)),
        ("trailblaze.cost_usd", f"{trail.usage.cost_usd:.6f}"),
        ("trailblaze.device_hiccups", str(trail.hiccups)),
        ("trailblaze.scrolls_into_view", str(trail.scrolls_into_view)),
        *_ci_properties(trail),
    ):
        ET.SubElement(props, "property", {"name": name, "value": _clean(value)})
    storyboard = _storyboard_path(trail, run_dir)
    if storyboard is not None:
        ET.SubElement(props, "property", {"name": "trailblaze.storyboard", "value": _clean(storyboard)})
    # Surefire's order (surefire-test-report-3.0.xsd): failure, the reruns, skipped, error
    outcome = _outcome(trail)
    if outcome == "failure":
        step = _failed_step(trail)
        message, body = _failure_text(trail, step)
        failure = ET.SubElement(case, "failure", {"message": _clean(message), "type": "StepFailed"})
        failure.text = _clean(body)
    _reruns(case, trail)
    if outcome == "quarantined":
        message, _ = _failure_text(trail, _failed_step(trail))
        ET.SubElement(
            case,
            "skipped",
            {
                "message": _clean(_one_line(f"quarantined ({trail.quarantine}): {message}")),
                "type": "quarantined",
            },
        )
    elif trail.status in ("error", "interrupted", "running"):
        message, body = _failure_text(trail, _failed_step(trail))
        kind = "InfrastructureError" if trail.status == "error" else "Interrupted"
        error = ET.SubElement(case, "error", {"message": _clean(message), "type": kind})
        error.text = _clean(body)
    elif trail.status == "skipped":
        ET.SubElement(case, "skipped", {"message": _clean(_one_line(trail.error or "skipped"))})
    out = ET.SubElement(case, "system-out")
    # the attachment line Jenkins' and GitLab's JUnit readers turn into a link on the test
    attachment = f"[[ATTACHMENT|{storyboard}]]\n" if storyboard is not None else ""
    out.text = _clean(_system_out(trail) + attachment)


def _outcome(trail: TrailRecord) -> str:
    """`failure`, `quarantined` (a failure that does not fail the build: reported as skipped, its
    result in the properties and system-out), `error`, `skipped` or `passed`."""
    if trail.status == "failed":
        return "quarantined" if trail.quarantine else "failure"
    if trail.status in ("error", "interrupted", "running"):
        return "error"
    return "skipped" if trail.status == "skipped" else "passed"


def _ci_properties(trail: TrailRecord) -> list[tuple[str, str]]:
    """Retries, quarantine and the farm's session page, when they apply: `trailblaze.attempts`,
    `trailblaze.flaky`, `trailblaze.quarantine`, `trailblaze.session_url`."""
    props: list[tuple[str, str]] = []
    if trail.attempts:
        flaky = trail.status.startswith("passed")
        props += [
            ("trailblaze.attempts", str(len(trail.attempts) + 1)),
            ("trailblaze.flaky", str(flaky).lower()),
        ]
    if trail.quarantine:
        props.append(("trailblaze.quarantine", trail.quarantine))
    if trail.session_url:
        props.append(("trailblaze.session_url", trail.session_url))
    return props


def _reruns(case: ET.Element, trail: TrailRecord) -> None:
    """The earlier attempts of a retried trail, as Maven Surefire writes reruns (and as
    pytest-rerunfailures records them in JUnit): `<flakyFailure>` when the trail passed in the end,
    `<rerunFailure>` when it failed every attempt; each with the attempt's error in `<stackTrace>`
    and its steps in `<system-out>`."""
    tag = "flakyFailure" if trail.status.startswith("passed") else "rerunFailure"
    for message, body, out in rerun_texts(trail):
        rerun = ET.SubElement(case, tag, {"message": message, "type": "StepFailed"})
        ET.SubElement(rerun, "stackTrace").text = body
        ET.SubElement(rerun, "system-out").text = out


def rerun_texts(trail: TrailRecord) -> list[tuple[str, str, str]]:
    """(one-line message, failure body, steps) of each earlier attempt of a retried trail."""
    out = []
    for attempt in trail.attempts:
        message, body = _failure_text(attempt, _failed_step(attempt))
        out.append((_clean(message), _clean(body), _clean(_system_out(attempt))))
    return out


def junit_xml(
    run: RunRecord, *, suite_name: str = "trailblaze", run_dir: str | os.PathLike[str] | None = None
) -> str:
    """The run as a JUnit XML document (see `write_junit` for its shape); `run_dir` is where the run's
    artifact paths are relative to (the storyboards' links)."""
    out = io.StringIO()
    _write_document(out, run, run.trails, suite_name, Path(run_dir) if run_dir is not None else None)
    return out.getvalue()


_CASES = "trailblaze-testcases"
"""Where the test cases go in the suite's own elements (a comment, replaced as the file is written)."""


def _write_document(
    out: TextIO, run: RunRecord, trails: Iterable[TrailRecord], suite_name: str, base: Path | None
) -> None:
    """Writes the document: each trail's `<testcase>` is built, written to a temporary file and let
    go, so a run of any size holds one trail's elements at once; the suite's counts go first."""
    outcomes: Counter[str] = Counter()
    total_ms = 0.0
    with tempfile.TemporaryFile("w+", encoding="utf-8") as cases:
        for trail in trails:
            holder = ET.Element("testsuite")
            _testcase(holder, trail, base)
            case = holder[0]
            scrub_tree(case)  # values only: a secret equal to `testcase` must not rename the tags
            ET.indent(case, space="  ", level=2)
            cases.write(("\n    " if outcomes.total() else "") + ET.tostring(case, encoding="unicode"))
            outcomes[_outcome(trail)] += 1
            total_ms += trail.duration_ms
        head, tail = _suite(run, suite_name, outcomes, total_ms).split(f"<!--{_CASES}-->")
        if not outcomes.total():  # no case: no line for them either
            head, tail = head.rstrip(" "), tail.lstrip("\n")
        out.write(head)
        cases.seek(0)
        shutil.copyfileobj(cases, out)
        out.write(tail)


def _suite(run: RunRecord, suite_name: str, outcomes: Counter[str], total_ms: float) -> str:
    """The document without its test cases: a `_CASES` comment where they go."""
    root = ET.Element("testsuites")
    attrs = {
        "name": _clean(suite_name),
        "tests": str(outcomes.total()),
        "failures": str(outcomes["failure"]),
        "errors": str(outcomes["error"]),
        "skipped": str(outcomes["skipped"] + outcomes["quarantined"]),
        "time": _seconds(total_ms),
    }
    root.attrib.update(attrs)
    suite = ET.SubElement(root, "testsuite", {**attrs, "id": "0", "package": "trailblaze"})
    suite.set("timestamp", _timestamp(run.started_at))
    suite.set("hostname", _clean(socket.gethostname() or "localhost"))
    props = ET.SubElement(suite, "properties")
    for name, value in (
        ("trailblaze.run_id", run.run_id),
        ("trailblaze.device", run.device),
        ("trailblaze.command", " ".join(run.command)),
        ("trailblaze.llm_calls", str(run.usage.llm_calls)),
        ("trailblaze.input_tokens", str(run.usage.input_tokens)),
        ("trailblaze.output_tokens", str(run.usage.output_tokens)),
        ("trailblaze.cost_usd", f"{run.usage.cost_usd:.6f}"),
    ):
        ET.SubElement(props, "property", {"name": name, "value": _clean(value)})
    ET.SubElement(suite, "system-out").text = ""
    ET.SubElement(suite, "system-err").text = ""
    scrub_tree(root)  # values only: a secret equal to `testcase` must not rename the tags
    suite.insert(1, ET.Comment(_CASES))  # after the scrub: the marker is the program's own text
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_junit(
    run: RunRecord,
    path: str | os.PathLike[str],
    *,
    suite_name: str = "trailblaze",
    run_dir: str | os.PathLike[str] | None = None,
    trails: Iterable[TrailRecord] | None = None,
) -> Path:
    """Writes the run as JUnit XML (atomically) and returns the path.

    Shape: a `<testsuites>` root holding **one `<testsuite>` for the whole run** (not one per trail
    file: a trail file is one test, so a suite per file would hold a single case and make CI
    dashboards list every trail twice). Each trail is one `<testcase>`: `classname` is the trail's
    id (its path when it has none), `name` its title (else id, else path), `time` its duration in
    seconds, `file` its path. Outcomes map as:

    - `failed` → `<failure message="step N: <text> — <error>" type="StepFailed">` whose body adds
      the candidates on screen and the screenshot / hierarchy paths;
    - `error` (device or LLM infrastructure) → `<error type="InfrastructureError">`;
    - `skipped` → `<skipped message=…>`;
    - a `failed` trail in quarantine (`config.quarantine`) → `<skipped type="quarantined"
      message="quarantined (<reason>): …">`: it must not fail the build, and its result stays in
      the properties (`trailblaze.status`, `trailblaze.quarantine`) and `<system-out>`;
    - a retried trail (`--retries`) keeps its earlier attempts as `<flakyFailure>` (it passed in the
      end: flaky) or `<rerunFailure>` (it failed every attempt) elements, the Surefire convention
      pytest-rerunfailures also writes, plus `trailblaze.attempts` / `trailblaze.flaky` properties;
    - a trail with a storyboard (`trailblaze.output.storyboard`) names it in a `trailblaze.storyboard`
      property and an `[[ATTACHMENT|path]]` line in its `<system-out>`, relative to the working
      directory when it is below it (`run_dir`: the run directory the run's paths are relative to);
    - `passed`, `passed-with-self-heal`, `passed-ai` → a pass. The exact status is kept in the
      case's `<properties>` (`trailblaze.status`, plus counts of healed and AI steps) and in its
      `<system-out>`, which lists every step with its status, mode and time.

    The suite carries the schema's required attributes (`name`, `tests`, `failures`, `errors`,
    `skipped`, `time`, `timestamp`, `hostname`, `id`, `package`) and the run's id, device and LLM
    totals as properties. Characters XML 1.0 forbids are replaced with U+FFFD.

    Args:
        run: The run log.
        path: Output file; parent folders are created.
        suite_name: The `name` of the suite and of the root.
        trails: The run's trails when they are not in `run` (`trailblaze.output.runlog.iter_trails`:
            one at a time from run.json); each is written and let go.

    Raises:
        UsageError: the file cannot be written.
    """
    from trailblaze.errors import UsageError

    target = Path(path)
    base = Path(run_dir) if run_dir is not None else None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with atomic_stream(target) as handle:
            out = io.TextIOWrapper(handle, encoding="utf-8", newline="")
            try:
                _write_document(out, run, run.trails if trails is None else trails, suite_name, base)
            finally:
                out.flush()
                out.detach()  # atomic_stream closes the file and renames it into place
    except OSError as exc:
        raise UsageError(
            f"{target}: cannot write the JUnit file ({exc.strerror or exc}); pick another --junit path"
        ) from None
    return target
