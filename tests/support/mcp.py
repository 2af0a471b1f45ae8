"""Driving `trailblaze mcp` with the MCP SDK's own client: the server spawned over stdio or listening on
streamable HTTP, and the demo app's sign-in authored as a trail by refs, the way a coding agent would."""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

PASSWORD = "hunter2"
SECRET_ENV = {"TRAILBLAZE_SECRET_PASSWORD": PASSWORD}


def server_args(device: str, *extra: str) -> list[str]:
    return ["-m", "trailblaze", "mcp", "--device", device, "--secret", "password", *extra]


def _env() -> dict[str, str]:
    # the SDK passes only a safe subset of the environment by default; the server needs the test's
    # (no real adb server, no LLM endpoint) plus the secret
    return {**os.environ, **SECRET_ENV}


@dataclass
class Client:
    """A connected `ClientSession` that keeps every text it was answered, to check for leaks."""

    session: ClientSession
    texts: list[str] = field(default_factory=list)

    async def call(self, name: str, **args: Any) -> tuple[str, bool]:
        """The tool's text (status word first) and its isError flag."""
        result = await self.session.call_tool(name, args)
        texts = [c.text for c in result.content if c.type == "text"]
        self.texts.extend(texts)
        return "\n".join(texts), bool(result.is_error)

    async def ok(self, name: str, **args: Any) -> str:
        text, is_error = await self.call(name, **args)
        assert text.startswith("OK") and not is_error, f"{name} {args}: {text}"
        return text


@asynccontextmanager
async def stdio_session(device: str, cwd: Path) -> AsyncIterator[Client]:
    params = StdioServerParameters(command=sys.executable, args=server_args(device), env=_env(), cwd=str(cwd))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield Client(session)


@contextmanager
def http_server(device: str, cwd: Path) -> Iterator[str]:
    """`trailblaze mcp --http 0` in a subprocess; yields its URL with the printed token as `#TOKEN`
    (what `http_session` sends as the bearer token), stops it (by its own pid) after."""
    proc = subprocess.Popen(
        [sys.executable, *server_args(device, "--http", "0")],
        cwd=cwd, env=_env(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    lines: queue.Queue[str] = queue.Queue()
    assert proc.stderr is not None
    stderr = proc.stderr
    threading.Thread(target=lambda: [lines.put(line) for line in stderr], daemon=True).start()
    try:
        while True:
            line = lines.get(timeout=120)
            found = re.search(r"(http://127\.0\.0\.1:\d+/mcp).*Authorization: Bearer (\S+)\)", line)
            if found:
                yield f"{found.group(1)}#{found.group(2)}"
                break
    finally:
        proc.terminate()
        proc.wait(timeout=60)


@asynccontextmanager
async def http_session(url: str) -> AsyncIterator[Client]:
    """A session on `url#TOKEN` (as `http_server` yields it), sending the token."""
    from mcp.shared._httpx_utils import create_mcp_http_client

    address, _, token = url.partition("#")
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with (
        http,
        streamable_http_client(address, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield Client(session)


def ref(screen: str, label: str) -> str:
    """The ref of the element whose label is `label` in a compact view."""
    found = re.search(r"\[(\w+)\] \w+ \"" + re.escape(label) + '"', screen)
    assert found, f"no {label!r} on screen:\n{screen}"
    return found.group(1)


async def author_sign_in(client: Client, path: Path, *, typed_password: str) -> str:
    """Record the demo app's sign-in as a trail by refs and save it; returns the save reply."""
    await client.ok("trail_start", path=str(path), title="Sign in with a valid account")
    await client.ok("trail_step", text="Launch the demo app with a clean state")
    screen = await client.ok("launchApp", appId="dev.trailblaze.demo", launchMode="CLEAR_STATE")
    await client.ok("trail_step", text="Sign in as user@example.com with the secret password")
    screen = await client.ok("tap", ref=ref(screen, "Email"))
    screen = await client.ok("inputText", text="user@example.com")
    screen = await client.ok("tap", ref=ref(screen, "Password"))
    screen = await client.ok("inputText", text=typed_password)
    screen = await client.ok("hideKeyboard")
    screen = await client.ok("tap", ref=ref(screen, "Sign in"))
    await client.ok("trail_verify", text="The Inbox is shown")
    await client.ok("assertVisible", ref=ref(screen, "Inbox"))
    return await client.ok("trail_save")
