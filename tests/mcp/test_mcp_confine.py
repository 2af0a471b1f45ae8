"""`trailblaze mcp` as an attacker's client would drive it (issue 31, items 2 and 16): paths stay inside
the server's root, symlinks included; a file that is not a trail is never echoed; devices are the
ones offered, never a URL the server would fetch; `trail_save` refuses what `trail_validate` would;
and over HTTP every request needs the bearer token."""

from __future__ import annotations

import asyncio
import os
import queue
import re
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from trailblaze.mcp.confine import Confinement
from trailblaze.mcp.draft import TrailDraft
from trailblaze.mcp.server import call_tool
from trailblaze.mcp.session import McpSession, Reply
from trailblaze.mcp.surface import mcp_tools
from trailblaze.mcp.token import require_token
from trailblaze.tools.memory import Memory
from trailblaze.trail.model import ToolCall

SHADOW = "root:$6$Xy9secrethash:19000:0:99999:7:::\nadmin: hunter2-shadow\n"


def _call(bench: McpSession, name: str, **args: Any) -> Reply:
    return call_tool(bench, {t.name: t for t in mcp_tools(bench.tools)}, name, args)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "root").mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "shadow").write_text(SHADOW, encoding="utf-8")
    (tmp_path / "outside" / "plain.trail.yaml").write_text("trail:\n  - step: Open\n", encoding="utf-8")
    return tmp_path / "root"


def _bench(root: Path, **kwargs: Any) -> McpSession:
    return McpSession(Memory(), confinement=Confinement(root), **kwargs)


def test_trail_validate_refuses_paths_outside_the_root_and_never_echoes_a_file(root: Path) -> None:
    bench = _bench(root)
    outside = root.parent / "outside"
    (root / "shadow.trail.yaml").symlink_to(outside / "shadow")
    (root / "notes.txt").write_text(SHADOW, encoding="utf-8")
    (root / "fake.trail.yaml").write_text(SHADOW, encoding="utf-8")  # named like a trail, holds no trail
    for path in (
        str(outside / "shadow"),
        str(outside / "plain.trail.yaml"),
        "../outside/plain.trail.yaml",
        "shadow.trail.yaml",  # a symlink out of the root
        "notes.txt",
        "fake.trail.yaml",
    ):
        for tool in ("trail_validate", "trail_replay"):
            reply = _call(bench, tool, path=path)
            assert not reply.ok, (tool, path, reply.text)
            assert (
                "secrethash" not in reply.text and "hunter2" not in reply.text and "admin" not in reply.text
            )
    assert (
        "outside the server's folder"
        in _call(bench, "trail_validate", path="../outside/plain.trail.yaml").text
    )
    assert "not a trail file" in _call(bench, "trail_validate", path="notes.txt").text
    assert "not a trail file" in _call(bench, "trail_validate", path="fake.trail.yaml").text


def test_trail_start_writes_only_inside_the_root(root: Path) -> None:
    bench = _bench(root)
    outside = root.parent / "outside"
    (root / "out").symlink_to(outside)
    for path in (str(outside / "x.trail.yaml"), "../outside/x.trail.yaml", "out/x.trail.yaml"):
        reply = _call(bench, "trail_start", path=path, title="t")
        assert reply.status == "ERROR" and "outside the server's folder" in reply.text, reply.text
    assert sorted(p.name for p in outside.iterdir()) == ["plain.trail.yaml", "shadow"]
    assert _call(bench, "trail_start", path="inside.trail.yaml", title="t").ok


def test_use_device_opens_only_offered_devices(root: Path) -> None:
    opened: list[str] = []

    def open_session(spec: str) -> Any:
        opened.append(spec)
        raise AssertionError("not reached in this test")

    bench = _bench(root, open_session=open_session)
    for spec in (
        "ios@http://127.0.0.1:18765/x",
        "ios:http://127.0.0.1:1/",
        "sim:android:/etc/passwd",
        "web:file:///etc/passwd",
    ):
        reply = _call(bench, "use_device", device=spec)
        assert reply.status == "ERROR" and "not a device this server offers" in reply.text, reply.text
    assert opened == []


def test_trail_save_refuses_what_trail_validate_refuses(root: Path) -> None:
    bench = _bench(root)
    assert _call(bench, "trail_start", path="big.trail.yaml", title="Big").ok
    draft = bench.draft
    assert isinstance(draft, TrailDraft)
    draft.open_step("step", "x" * 1_500_000)  # 1.5 MB: over the 1 MB a trail file may be
    draft.add("android", [ToolCall(name="pressBack")])
    reply = _call(bench, "trail_save")
    assert reply.status == "INVALID" and "more than the" in reply.text, reply.text[:300]
    assert not (root / "big.trail.yaml").exists()

    assert _call(bench, "trail_start", path="typo.trail.yaml", title="Typo").ok
    assert bench.draft is not None
    bench.draft.open_step("step", "Go back")
    bench.draft.add("android", [ToolCall(name="pressBakc")])  # no such tool: validate refuses it
    typo = _call(bench, "trail_save")
    assert typo.status == "INVALID" and "pressBakc" in typo.text, typo.text
    assert not (root / "typo.trail.yaml").exists()


def test_the_http_transport_refuses_a_request_without_the_token() -> None:
    seen: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["path"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    guarded = require_token(app, "t" * 32)

    def status(headers: list[tuple[bytes, bytes]]) -> int:
        sent: list[dict[str, Any]] = []

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b""}

        asyncio.run(guarded({"type": "http", "path": "/mcp", "headers": headers}, receive, send))
        return int(sent[0]["status"])

    assert status([]) == 401
    assert status([(b"authorization", b"Bearer " + b"u" * 32)]) == 401
    assert status([(b"authorization", b"t" * 32)]) == 401
    assert seen == []
    assert status([(b"authorization", b"Bearer " + b"t" * 32)]) == 200
    assert seen == ["/mcp"]


def test_mcp_http_prints_a_token_and_refuses_requests_without_it(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "trailblaze", "mcp", "--http", "0"],
        cwd=tmp_path, env={**os.environ}, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    lines: queue.Queue[str] = queue.Queue()
    assert proc.stderr is not None
    stderr = proc.stderr
    threading.Thread(target=lambda: [lines.put(line) for line in stderr], daemon=True).start()
    try:
        found = None
        while found is None:
            found = re.search(
                r"(http://127\.0\.0\.1:\d+/mcp).*Authorization: Bearer (\S+)\)", lines.get(timeout=120)
            )
        url, token = found.group(1), found.group(2)
        assert len(token) >= 32
        body = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}'
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(urllib.request.Request(url, data=body, headers=headers), timeout=30)
        assert refused.value.code == 401
        wrong = {**headers, "Authorization": "Bearer " + "x" * len(token)}
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(urllib.request.Request(url, data=body, headers=wrong), timeout=30)
        assert refused.value.code == 401
        right = {**headers, "Authorization": f"Bearer {token}"}
        try:
            urllib.request.urlopen(urllib.request.Request(url, data=body, headers=right), timeout=30)
        except urllib.error.HTTPError as exc:  # past the token: the MCP layer answers (no session yet)
            assert exc.code != 401
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def test_a_token_shorter_than_16_characters_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    from trailblaze.cli.main import main

    with pytest.raises(SystemExit) as exit_:
        main(["mcp", "--http", "0", "--token", "short"])
    assert exit_.value.code == 2
    assert "16 characters" in capsys.readouterr().err


def test_every_device_list_devices_shows_may_be_opened(root: Path) -> None:
    bench = _bench(root)
    listed = _call(bench, "list_devices")
    specs = [
        line.split("  ", 1)[0]
        for line in listed.text.splitlines()[1:]
        if "  " in line and not line.startswith("note")
    ]
    assert "sim:android" in specs and "sim:ios" in specs
    for spec in specs:
        assert bench.confined.device(spec) == spec
