"""Trailblaze's older ("read-compat") tools replay the same trail on both platforms, through the real
clients, with Trailblaze's matching: text / label / hint, regex or literal, any case, `index`, `id`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.paths import DATA
from trailblaze.device.devices import open_device
from trailblaze.engine.replay import replay_trail
from trailblaze.tools.builtin import READ_COMPAT_TOOLS
from trailblaze.tools.execute import run_recorded_tool
from trailblaze.tools.memory import Memory
from trailblaze.trail.model import load_trail, parse_tool

TRAIL = DATA / "trails" / "read-compat.trail.yaml"


def test_the_trail_uses_every_read_compat_tool_on_both_platforms() -> None:
    trail = load_trail(TRAIL)
    for classifier in ("android-phone", "ios-iphone"):
        names = {t.name for s in trail.steps for t in s.recording_for(classifier) or []}
        assert READ_COMPAT_TOOLS | {"tapOnPoint"} <= names, classifier


@pytest.mark.slow
@pytest.mark.parametrize("platform", ["android", "ios"])
def test_a_trailblaze_trail_of_read_compat_tools_replays(platform: str, tmp_path: Path) -> None:
    path = tmp_path / TRAIL.name
    path.write_bytes(TRAIL.read_bytes())
    with open_device(f"sim:{platform}", latency="zero", resolve_timeout=2.0) as session:
        record = replay_trail(path, session)
        assert record.status == "passed", record.error
        assert all(s.mode == "replay" and s.status == "passed" for s in record.steps)
        # The email field shows only its hint (Android) / placeholder (iOS).
        assert "(id email)" in record.steps[2].tools[0].message
        assert "(id forgot)" in record.steps[1].tools[0].message  # a literal part of the text
        assert '"Message 3"' in record.steps[3].tools[0].message
        assert any(n.short_id == "dark_mode" for n in session.refresh().visible_nodes())
    assert path.read_bytes() == TRAIL.read_bytes()  # read-compat tools are never rewritten


@pytest.mark.parametrize("platform", ["android", "ios"])
@pytest.mark.slow
def test_read_compat_matching_rules(platform: str) -> None:
    with open_device(f"sim:{platform}", latency="zero", resolve_timeout=0.2) as session:
        def run(tool: str) -> str:
            return str(run_recorded_tool(session, parse_tool(tool), Memory()))

        # Maestro's text: text, label or hint; regex, else the literal text; any case.
        assert run("assertVisibleWithText: {text: Password}").startswith("OK")
        assert run("assertVisibleWithText: {text: 'Forgot password?'}").startswith("OK")
        assert run("assertVisibleWithText: {text: 'WELCOME BACK'}").startswith("OK")
        assert run("assertVisibleWithAccessibilityText: {accessibilityText: Sign in}").startswith("OK")
        # Only tapOnElementWithText takes a literal part of the text; asserts need all of it.
        assert run("assertVisibleWithText: {text: Forgot}").startswith("NOT_VISIBLE")
        # Several matches: index picks top-to-bottom (a numeric string too); too far is NOT_FOUND.
        fields = run("assertVisibleWithText: {text: '(Email|Password)', index: 1}")
        assert fields.startswith("OK") and "(id password)" in fields
        far = run("tapOnElementWithAccessibilityText: {accessibilityText: '(Email|Password)', index: '5'}")
        assert far.startswith("NOT_FOUND") and "2 match but there is no index 5" in far
        # Without an index Trailblaze takes the first match rather than failing as ambiguous.
        first = run("tapOnElementWithText: {text: '(Email|Password)'}")
        assert first.startswith("OK tapped") and "(id email)" in first
        # id and state flags narrow the match.
        assert run("assertVisibleWithText: {text: '.*', id: sign_in, enabled: true}").startswith("OK")
        assert run("assertVisibleWithResourceId: {resourceId: sign_in, accessibilityText: Nope}").startswith(
            "NOT_VISIBLE"
        )
        legacy = run("assertNotVisibleBySelector: {selector: {textRegex: Email, below: {idRegex: welcome}}, "
                     "timeoutMs: 50}")
        assert legacy.startswith("TIMEOUT") and "textRegex=Email" in legacy
        if platform == "ios":
            assert run("assertNotVisibleBySelector: {selector: {idRegex: x, checked: true}}").startswith("ERROR")
