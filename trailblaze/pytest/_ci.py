"""Flaky and quarantined tests in pytest (`--trailblaze-retries`, `trailblaze_quarantine`, ADR 0044).

Registered by the pytest plugin as a plugin of its own. The retries themselves happen inside
`TrailRunner.replay` (the trail runs again from its start on the same device); this module makes
their outcome visible, as `trailblaze replay` does:

- a test whose trail passed only on a retry reports as `flaky` (a category of its own in the
  terminal's counts, `FLAKY` with `-v`), carries `trailblaze_attempts` / `trailblaze_flaky`
  properties, and its failed attempts as `<flakyFailure>` in `--junitxml` — the Surefire element
  pytest-rerunfailures also writes for reruns;
- `@pytest.mark.trailblaze_quarantine(reason)` (and a trail's `config.quarantine`) turns the test's
  failure into an expected failure (`XFAIL`, `<skipped type="pytest.xfail">`): it still runs and
  its result is reported, but it does not fail the session;
- the terminal summary lists every flaky and quarantined test, with the reasons.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from _pytest.terminal import TerminalReporter

    from trailblaze.output.runlog import TrailRecord

__all__ = ["configure"]

MARKER = "trailblaze_quarantine"


def configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(reason): run the test and report its result, but a failure does not fail the session",
    )
    config.pluginmanager.register(_CiPlugin(config), "trailblaze-ci")


def _reason(item: pytest.Item) -> str | None:
    marker = item.get_closest_marker(MARKER)
    if marker is None:
        return None
    reason = marker.args[0] if marker.args else marker.kwargs.get("reason", "")
    return str(reason) or "quarantined"


def _flaky_records(item: pytest.Item) -> list[TrailRecord]:
    runner = getattr(item, "funcargs", {}).get("trail_runner")
    return list(getattr(runner, "flaky", []) or [])


class _CiPlugin:
    """The hooks, bound to the session's config (its `--junitxml` writer)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        reason = _reason(item) if call.when == "call" else None
        flaky = _flaky_records(item) if call.when == "call" else []
        if reason is not None:  # the report copies these as it is made: set them first
            item.user_properties.append(("trailblaze_quarantine", reason))
            item.user_properties.append(("trailblaze_result", "failed" if call.excinfo else "passed"))
        if flaky:
            attempts = max(len(r.attempts) for r in flaky) + 1
            item.user_properties.append(("trailblaze_flaky", "true"))
            item.user_properties.append(("trailblaze_attempts", str(attempts)))
        report = yield
        if call.when != "call":
            return report
        if reason is not None:
            report.trailblaze_quarantine = reason  # type: ignore[attr-defined]
            if report.failed:  # reported as pytest reports an expected failure: not a failed session
                report.outcome = "skipped"
                report.wasxfail = f"quarantined: {reason}"
        if flaky and report.passed:
            from trailblaze.output.junit import rerun_texts

            report.trailblaze_reruns = [list(t) for r in flaky for t in rerun_texts(r)]  # type: ignore[attr-defined]
        return report

    def pytest_report_teststatus(
        self, report: pytest.TestReport, config: pytest.Config
    ) -> tuple[str, str, Any] | None:
        if report.when == "call" and report.passed and getattr(report, "trailblaze_reruns", None):
            return "flaky", "K", ("FLAKY", {"yellow": True})
        return None

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        reruns = getattr(report, "trailblaze_reruns", None)
        if not reruns or report.when != "call":
            return
        from _pytest.junitxml import xml_key

        xml = self.config.stash.get(xml_key, None)
        if xml is None:
            return
        reporter = xml.node_reporter(report)
        for message, body, out in reruns:
            rerun = ET.Element("flakyFailure", {"message": message, "type": "StepFailed"})
            ET.SubElement(rerun, "stackTrace").text = body
            ET.SubElement(rerun, "system-out").text = out
            reporter.append(rerun)

    def pytest_terminal_summary(self, terminalreporter: TerminalReporter) -> None:
        stats = terminalreporter.stats
        lines: list[str] = []
        for report in stats.get("flaky", []):
            reruns = getattr(report, "trailblaze_reruns", [])
            first = reruns[0][0] if reruns else "failed"
            lines.append(
                f"FLAKY {report.nodeid}: passed on a retry after {len(reruns)} failed attempt(s); {first}"
            )
        for category in ("passed", "flaky", "xfailed"):
            for report in stats.get(category, []):
                reason = getattr(report, "trailblaze_quarantine", None)
                if reason is not None and getattr(report, "when", "") == "call":
                    result = "failed" if category == "xfailed" else "passed"
                    lines.append(f"QUARANTINED {report.nodeid} {result} ({reason})")
        if lines:
            terminalreporter.write_sep("=", "trailblaze: flaky and quarantined")
            for line in lines:
                terminalreporter.write_line(line)
