"""The MCP error model and secret handling, in-process (the `McpSession` the server serves, on a
simulated phone): every problem is a result with a status word and a hint, never a raise."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.support.device import Rig, rig
from trailblaze.device.devices import open_device
from trailblaze.device.driver import DeviceInfo
from trailblaze.device.session import DeviceSession
from trailblaze.errors import DeviceError
from trailblaze.mcp.confine import Confinement
from trailblaze.mcp.server import call_tool
from trailblaze.mcp.session import McpSession, Reply
from trailblaze.mcp.surface import McpTool, mcp_tools
from trailblaze.tools.memory import Memory

PASSWORD = "hunter2"


@pytest.fixture(scope="module")
def android() -> Iterator[Rig]:
    with rig("android") as r:
        yield r


class _Client:
    """Calls tools the way the server does (by name, raw arguments), checking every reply for the secret."""

    def __init__(self, bench: McpSession) -> None:
        self.bench = bench
        self.tools = {t.name: t for t in mcp_tools(bench.tools)}

    def __call__(self, name: str, **args: Any) -> Reply:
        reply = call_tool(self.bench, self.tools, name, args)
        assert PASSWORD not in reply.text
        return reply


@pytest.fixture
def call(android: Rig, tmp_path: Path) -> Iterator[_Client]:
    bench = McpSession(
        Memory(secrets={"password": PASSWORD}),
        session=android.session,
        secrets={"password": PASSWORD},
        confinement=Confinement(tmp_path),
    )
    client = _Client(bench)
    client("launchApp", appId="dev.trailblaze.demo", launchMode="CLEAR_STATE")
    yield client
    bench.session = None  # the module's rig owns the device


def ref(reply: Reply, label: str) -> str:
    import re

    found = re.search(r"\[(\w+)\] \w+ \"" + re.escape(label) + '"', reply.text)
    assert found, reply.text
    return found.group(1)


def _status(reply: Reply, status: str) -> None:
    assert reply.status == status and reply.text.startswith(status + " "), reply.text
    if status != "OK":
        assert "\nhint: " in reply.text, reply.text


def test_without_a_device_or_a_trail_every_tool_answers_with_a_status(tmp_path: Path) -> None:
    call = _Client(McpSession(Memory(), confinement=Confinement(tmp_path)))
    _status(call("snapshot"), "NO_DEVICE")
    _status(call("tap", ref="abc"), "NO_DEVICE")
    _status(call("use_device", device="sim:android"), "ERROR")  # this bench cannot open devices: not a raise
    _status(call("trail_step", text="Sign in"), "NO_TRAIL")
    _status(call("trail_save"), "NO_TRAIL")
    _status(call("trail_show"), "NO_TRAIL")
    _status(call("trail_replay"), "ERROR")
    _status(call("no_such_tool"), "ERROR")
    bad = call("trail_start", path=str(tmp_path / "x.trail.yaml"))
    _status(bad, "ERROR")
    assert "title: Field required" in bad.text
    _status(call("trail_start", path=str(tmp_path / "x.yaml"), title="t"), "ERROR")
    (tmp_path / "old.trail.yaml").write_text("trail:\n  - step: x\n", encoding="utf-8")
    exists = call("trail_start", path=str(tmp_path / "old.trail.yaml"), title="t")
    _status(exists, "ERROR")
    assert "overwrite: true" in exists.text


def test_list_devices_then_use_one() -> None:
    bench = McpSession(Memory(), open_session=open_device)
    call = _Client(bench)
    listed = call("list_devices")
    _status(listed, "OK")
    assert (
        "no device in use" in listed.text
        and "\nsim:android  available" in listed.text
        and "\nsim:ios  available" in listed.text
    )
    _status(call("use_device", device="toaster"), "ERROR")
    try:
        used = call("use_device", device="sim:ios")
        _status(used, "OK")
        assert (
            "platform: ios" not in used.text and "ios ios-" in used.text and 'Button "Sign in"' in used.text
        )
        assert call("device_info").text.startswith("OK ios ios-")
    finally:
        bench.close()
    assert bench.session is None


def test_a_bug_inside_a_tool_is_an_error_result_not_a_protocol_error() -> None:
    def broken(bench: McpSession, raw: Mapping[str, Any]) -> Reply:
        raise RuntimeError(f"boom {PASSWORD}")

    bench = McpSession(Memory(secrets={"password": PASSWORD}))
    tools = {"broken": McpTool("broken", "d", {"type": "object"}, "actions", broken)}
    reply = call_tool(bench, tools, "broken", None)
    assert (
        reply.status == "ERROR"
        and "internal error in `broken`: RuntimeError: boom {{password}}" in reply.text
    )


class _DeadDriver:
    """A driver whose device stopped answering after it connected."""

    info = DeviceInfo("android", "android-phone", "emulator-5554", "Pixel", 1080, 2400, 1.0)

    def hierarchy(self) -> Any:
        raise DeviceError("emulator-5554: the device went away (adb: device offline)")

    def close(self) -> None:
        pass


@pytest.mark.slow
def test_a_dead_device_is_a_device_error_result() -> None:
    bench = McpSession(Memory(), session=DeviceSession(_DeadDriver()))  # type: ignore[arg-type]
    tools = {t.name: t for t in mcp_tools(bench.tools)}
    for name, args in (("snapshot", {}), ("tap", {"ref": "abc"}), ("pressBack", {})):
        reply = call_tool(bench, tools, name, args)
        _status(reply, "DEVICE_ERROR")
        assert "device offline" in reply.text
    _status(call_tool(bench, tools, "device_info", {}), "OK")


def test_device_tool_errors_are_results_with_hints(call: _Client) -> None:
    _status(call("tap", ref="zz9"), "NOT_FOUND")
    invalid = call("tap")
    _status(invalid, "ERROR")
    assert "ref: Field required" in invalid.text
    screen = call("snapshot")
    call("tap", ref=ref(screen, "Email"))
    unknown = call("inputText", text="{{nope}}")  # a template the server has no value for
    _status(unknown, "ERROR")
    assert "nope" in unknown.text


def test_secrets_are_typed_but_never_returned_or_saved(call: _Client, tmp_path: Path) -> None:
    path = tmp_path / "login.trail.yaml"
    _status(call("trail_start", path=str(path), title="Sign in"), "OK")
    screen = call("snapshot")
    not_recorded = call("tap", ref=ref(screen, "Password"))  # before any step: run, not recorded
    assert "not recorded: no step is open" in not_recorded.text
    call("trail_step", text=f"Type {PASSWORD} into the Password field")
    typed = call("inputText", text=PASSWORD)  # the literal value: typed, then redacted everywhere
    _status(typed, "OK")
    assert "{{password}}" in typed.text and "recorded in step 1" in typed.text
    assert (
        '"' + "•" * len(PASSWORD) + '"' in typed.text
    )  # the device got the value (masked), not the template
    refused = call("trail_verify", text="The field is filled")
    _status(refused, "OK")
    tap = call("tap", ref=ref(screen, "Email"))
    _status(tap, "ERROR")
    assert "verify step" in tap.text
    shown = call("trail_show")
    _status(shown, "OK")
    assert "(not saved yet) would be:" in shown.text and "text: '{{password}}'" in shown.text
    _status(call("trail_save"), "OK")  # the empty verify step is left out
    text = path.read_text(encoding="utf-8")
    assert PASSWORD not in text
    assert "text: '{{password}}'" in text and "Type {{password}} into the Password field" in text
    assert "verify:" not in text


def test_trail_replay_reports_the_failing_step(call: _Client, tmp_path: Path) -> None:
    path = tmp_path / "broken.trail.yaml"
    path.write_text(
        "trail:\n"
        "  - step: Tap the Register button\n"
        "    recording:\n"
        "      android:\n"
        "        - tapOnElementBySelector:\n"
        "            nodeSelector:\n"
        "              androidAccessibility:\n"
        "                textRegex: Register\n",
        encoding="utf-8",
    )
    _status(call("trail_validate", path=str(path)), "OK")
    failed = call("trail_replay", path=str(path))
    _status(failed, "FAILED")
    assert "0/1 steps" in failed.text
    assert (
        "step 1 ('Tap the Register button'): recorded tool 1 of 1 tapOnElementBySelector failed: NOT_FOUND"
        in failed.text
    )
    assert 'closest on screen: TextView "Forgot password?"' in failed.text
    assert "screen (refs valid until the screen changes):" in failed.text
    (tmp_path / "bad.trail.yaml").write_text("trail:\n  - stepp: x\n", encoding="utf-8")
    invalid = call("trail_validate", path=str(tmp_path / "bad.trail.yaml"))
    _status(invalid, "INVALID")
    assert "bad.trail.yaml:2:" in invalid.text


def test_screenshot_is_a_downscaled_jpeg_with_or_without_marks(call: _Client) -> None:
    marked, plain = call("screenshot"), call("screenshot", setOfMark=False)
    for reply in (marked, plain):
        _status(reply, "OK")
        assert reply.image is not None and reply.image[:2] == b"\xff\xd8"
    assert marked.image != plain.image
    from io import BytesIO

    from PIL import Image

    with Image.open(BytesIO(plain.image or b"")) as image:
        assert max(image.size) <= 1024


def test_a_verify_step_must_assert_the_facts_it_states(call: _Client, tmp_path: Path) -> None:
    path = tmp_path / "facts.trail.yaml"
    call("trail_start", path=str(path), title="facts")
    call("trail_step", text="Launch the app")
    screen = call("launchApp", appId="dev.trailblaze.demo", launchMode="CLEAR_STATE")
    call("trail_verify", text='The "Welcome back" heading is shown')
    wrong = call("assertVisible", ref=ref(screen, "Sign in"))  # true, but not the fact the step states
    _status(wrong, "OK")
    refused = call("trail_save")
    _status(refused, "ERROR")
    assert 'states facts no assertion checks: "Welcome back"' in refused.text and not path.exists()
    _status(call("trail_step", text="next"), "ERROR")  # the verify step cannot be left either
    _status(call("assertVisible", ref=ref(screen, "Welcome back"), expectedText="Welcome back"), "OK")
    _status(call("trail_save"), "OK")
    saved = path.read_text()
    assert "expectedText: Welcome back" in saved
