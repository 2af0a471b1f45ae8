"""The CLI story of the drivers issue: an external `trailblaze sim` process, then `snapshot` and
`tool` invocations (separate processes) that share its device state; plus the public-API snippet."""

from __future__ import annotations

import os
import re
import time

import pytest

from tests.support.cli import run_cli as _cli


@pytest.mark.slow
def test_snapshot_then_tools_then_snapshot_against_an_external_simulator(
    external_sim: tuple[str, dict[str, str]],
) -> None:
    device, env = external_sim
    branch = "androidAccessibility" if device == "android" else "iosMaestro"
    first = _cli("snapshot", "--device", device, env=env)
    assert first.returncode == 0, first.stderr
    assert re.search(r'^\[\w+\] \w+ "Sign in"$', first.stdout, re.M), first.stdout
    for tool in (
        f"tapOnElementBySelector: {{nodeSelector: {{{branch}: {{resourceIdRegex: '.*email'}}}}}}",
        '{"inputText": {"text": "ada@example.com"}}',
        f"tapOnElementBySelector: {{nodeSelector: {{{branch}: {{resourceIdRegex: '.*password'}}}}}}",
        "inputText: {text: '{{pw}}'}",
        "tapOnElementWithText: {text: Sign in}",
    ):
        done = _cli("tool", tool, "--device", device, "--secret", "pw=hunter2", env=env)
        assert done.returncode == 0, (tool, done.stdout, done.stderr)
        assert done.stdout.startswith("OK ") and "hunter2" not in done.stdout
    time.sleep(0.2)
    later = _cli("snapshot", "--device", device, env=env)
    assert later.returncode == 0 and '"Inbox"' in later.stdout, later.stdout
    missing = _cli("tool", "tapOnElementWithText: {text: Nope}", "--device", device, "--element-timeout", "0.5", env=env)
    assert missing.returncode == 1 and missing.stdout.startswith("NOT_FOUND ") and re.search(r"after 0\.[5-9] s", missing.stdout)
    raw = _cli("snapshot", "--device", device, "--raw", env=env)
    assert raw.returncode == 0 and ("<hierarchy" in raw.stdout or '"type"' in raw.stdout)


@pytest.mark.slow
def test_errors_exit_with_one_line(tmp_path: object) -> None:
    env = dict(os.environ, ANDROID_ADB_SERVER_PORT="9", ADBUTILS_ADB_PATH="/bin/false")
    down = _cli("snapshot", "--device", "android", env=env)
    assert down.returncode == 3 and down.stderr.count("\n") == 1 and "no adb server at 127.0.0.1:9" in down.stderr
    bad = _cli("tool", "inputText: [", "--device", "sim:android")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    spec = _cli("snapshot", "--device", "windows")
    assert spec.returncode == 2 and "unknown device" in spec.stderr
    listing = _cli("devices", env=env)
    assert listing.returncode == 0 and "trailblaze sim android" in listing.stdout


@pytest.mark.slow
def test_in_process_simulator_snapshot_with_screenshot(tmp_path: object) -> None:
    from pathlib import Path

    out = Path(str(tmp_path)) / "shot.png"
    done = _cli("snapshot", "--device", "sim:ios:demo@restyled", "--screenshot", str(out), "--set-of-mark")
    assert done.returncode == 0, done.stderr
    assert '"Sign in"' in done.stdout and out.read_bytes().startswith(b"\x89PNG")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("spec", "selector"),
    [
        ("sim:android", {"androidAccessibility": {"resourceIdRegex": ".*sign_in"}}),
        ("sim:ios", {"iosMaestro": {"resourceIdRegex": "sign_in"}}),
    ],
)
def test_public_api_snippet(spec: str, selector: dict[str, object]) -> None:
    from trailblaze.device.devices import open_device
    from trailblaze.screen.compact import compact_view
    from trailblaze.screen.selector import NodeSelector

    with open_device(spec) as session:
        print(compact_view(session.screen()).text)
        fields = [n for n in session.screen().visible_nodes() if n.editable]
        session.act(lambda d: d.tap(*fields[0].center))
        session.act(lambda d: d.input_text("ada@example.com"))
        session.act(lambda d: d.tap(*fields[1].center))
        session.act(lambda d: d.input_text("hunter2"))
        found = session.resolve(NodeSelector.model_validate(selector))
        assert len(found.nodes) == 1
        session.act(lambda d: d.tap(*found.nodes[0].center))
        assert '"Inbox"' in compact_view(session.settle()).text
