"""`trailblaze mcp` end to end: the MCP SDK's own client spawns the server over stdio (and talks to it
over streamable HTTP), authors the demo sign-in by refs with a secret password, saves the trail, and
`trailblaze replay` replays the file with no LLM."""

from __future__ import annotations

import sys
from collections.abc import Awaitable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import anyio
import pytest

from tests.support.cli import trailblaze
from tests.support.mcp import PASSWORD, Client, author_sign_in, http_server, http_session, stdio_session

pytestmark = pytest.mark.slow

_GROUPS = {
    "devices": {"list_devices", "use_device", "device_info"},
    "observation": {"snapshot", "screenshot"},
    "actions": {"tap", "inputText", "eraseText", "hideKeyboard", "swipe", "scrollUntilTextIsVisible",
                "launchApp", "pressBack", "pressKey", "assertVisible", "assertNotVisibleWithText"},
    "trails": {"trail_start", "trail_step", "trail_verify", "trail_show", "trail_save", "trail_replay", "trail_validate"},
}  # fmt: skip


async def _check_tools(client: Client) -> None:
    listed = (await client.session.list_tools()).tools
    names = {t.name for t in listed}
    for group, wanted in _GROUPS.items():
        assert wanted <= names, (group, wanted - names)
    assert "objectiveStatus" not in names  # the agent's end-of-step report is not an MCP tool
    for tool in listed:
        assert tool.description and len(tool.description) >= 10, tool.name  # what all actions share: instructions
        assert tool.input_schema["type"] == "object", tool.name
    tap = next(t for t in listed if t.name == "tap")
    assert tap.input_schema["required"] == ["ref"]


def _assert_no_secret(client: Client, trail: Path) -> None:
    assert client.texts, "no results were collected"
    leaks = [t for t in client.texts if PASSWORD in t]
    assert not leaks, leaks
    text = trail.read_text(encoding="utf-8")
    assert PASSWORD not in text
    assert "text: '{{password}}'" in text


def _replay_passes(paths: list[Path], device: str) -> None:
    done = trailblaze("replay", *map(str, paths), "--device", device, "--secret", f"password={PASSWORD}",
                      "--run-dir", str(paths[0].parent / "run"))  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("passed") >= len(paths), done.stdout


async def _author_over_stdio(device: str, trail: Path, typed: str, *, replay_tool: bool) -> Client:
    async with stdio_session(device, trail.parent) as client:
        await _check_tools(client)
        screen = await client.ok("snapshot")
        assert '"Sign in"' in screen and "[" in screen
        # the error model: a bad ref is a NOT_FOUND result with a hint, and the server goes on
        text, is_error = await client.call("tap", ref="nope")
        assert is_error and text.startswith("NOT_FOUND") and "hint: " in text
        saved = await author_sign_in(client, trail, typed_password=typed)
        assert "3 steps" in saved and "--secret password" in saved
        assert "is valid: 3 steps" in await client.ok("trail_validate")
        if replay_tool:
            assert "passed, 3/3 steps" in await client.ok("trail_replay")
    platform = device.removeprefix("sim:")
    text = trail.read_text(encoding="utf-8")
    assert f"      {platform}:\n" in text and "verify: The Inbox is shown" in text
    return client


async def _author_over_http(url: str, trail: Path) -> Client:
    async with http_session(url) as client:
        await _check_tools(client)
        assert (await client.ok("device_info")).startswith("OK android")
        await author_sign_in(client, trail, typed_password="{{password}}")
        return client


def test_stdio_and_http_sessions_author_trails_that_replay(tmp_path: Path) -> None:
    """sim:android over stdio and over streamable HTTP, sim:ios over stdio (the iOS session types the
    literal password: it is recorded as its template all the same). The three sessions run at once,
    as do the three replays: each waits on its own simulator, not on the CPU."""
    android, ios, http = (tmp_path / d for d in ("android", "ios", "http"))
    for folder in (android, ios, http):
        folder.mkdir()
    trails = {
        name: folder / "login.trail.yaml"
        for name, folder in (("android", android), ("ios", ios), ("http", http))
    }
    clients: dict[str, Client] = {}

    async def sessions(url: str) -> None:
        async def keep(name: str, flow: Awaitable[Client]) -> None:
            clients[name] = await flow

        async with anyio.create_task_group() as group:
            group.start_soon(
                keep,
                "android",
                _author_over_stdio("sim:android", trails["android"], "{{password}}", replay_tool=True),
            )
            group.start_soon(
                keep, "ios", _author_over_stdio("sim:ios", trails["ios"], PASSWORD, replay_tool=False)
            )
            group.start_soon(keep, "http", _author_over_http(url, trails["http"]))

    with http_server("sim:android", http) as url:
        anyio.run(sessions, url)
    for name, client in clients.items():
        _assert_no_secret(client, trails[name])
    with ThreadPoolExecutor(3) as pool:
        replays = [pool.submit(_replay_passes, [trail], "sim:ios" if name == "ios" else "sim:android")
                   for name, trail in trails.items()]  # fmt: skip
        for replay in replays:
            replay.result()


def test_a_bad_device_fails_before_serving_with_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    from trailblaze.cli.main import main

    with pytest.raises(SystemExit) as exited:
        main(["mcp", "--device", "toaster"])
    assert exited.value.code == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "error: unknown device 'toaster': use android[:SERIAL], android@HOST:PORT[:SERIAL], ios[:WDA_URL], "
        "ios@http://HOST:PORT, web[:URL], appium:URL or appium:browserstack|saucelabs|lambdatest (with "
        "--capabilities FILE), sim:android[:APP][+PROFILE] or sim:ios[:APP][+PROFILE] (PROFILE: small, large, "
        "tablet, with +landscape, +large-font, +dark)"
    ]


def test_without_the_sdk_the_command_says_how_to_install_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from trailblaze.cli.main import main

    monkeypatch.setitem(sys.modules, "mcp", None)  # what `import mcp` sees when the extra is not installed
    with pytest.raises(SystemExit) as exited:
        main(["mcp", "--device", "sim:android"])
    assert exited.value.code == 2
    assert capsys.readouterr().err.strip() == (
        "error: `trailblaze mcp` needs the MCP SDK: pip install 'trailblaze[mcp]' (or pip install mcp)"
    )
