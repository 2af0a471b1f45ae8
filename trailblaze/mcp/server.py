"""`trailblaze mcp`: the `McpSession` served over MCP with the official `mcp` SDK (stdio or streamable HTTP).

The only module here that imports the SDK, and only inside functions: `pip install 'trailblaze[mcp]'`
is optional. Tool calls run one at a time in a worker thread (device calls block; one device cannot
do two things at once), and every outcome — a missing ref, a dead device, a bug — comes back as a
tool result starting with a status word, never as a protocol error.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from trailblaze.errors import UsageError
from trailblaze.mcp.session import McpSession, Reply, answer
from trailblaze.mcp.surface import McpTool, mcp_tools

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

__all__ = ["build_server", "call_tool", "require_sdk", "serve"]

INSTRUCTIONS = """\
trailblaze drives a phone (or the simulators sim:android / sim:ios) and turns what you do into a \
replayable trail file.
1. `snapshot` shows the screen: one line per element with a ref like [k4f].
2. Act by ref: tap, inputText (type secrets as {{name}}), eraseText, swipe, scrollUntilTextIsVisible, \
launchApp, pressBack, pressKey, hideKeyboard; check with assertVisible (expectedText) / assertState / \
assertNotVisibleWithText. Refs come from the newest snapshot or the screen the previous call returned. Every \
action settles the device and returns its result and the new screen.
3. To author a test: trail_start {path, title}; trail_step {text} before the actions of each step; \
trail_verify {text} before its assertions; trail_show to review; trail_save. While a trail is recorded, \
every successful action is written into the open step (as a selector, never the ref). trail_replay \
replays it with no LLM.
Every result starts with a status word (OK, NOT_FOUND, NOT_VISIBLE, AMBIGUOUS, TIMEOUT, ERROR, \
DEVICE_ERROR, NO_DEVICE, NO_TRAIL, INVALID, FAILED) and a hint when it is not OK."""


def require_sdk() -> None:
    """Raises `UsageError` (exit 2) with the install command when the `mcp` SDK is missing."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise UsageError(
            "`trailblaze mcp` needs the MCP SDK: pip install 'trailblaze[mcp]' (or pip install mcp)"
        ) from None


def call_tool(
    mcp_session: McpSession, tools: Mapping[str, McpTool], name: str, raw: Mapping[str, Any] | None
) -> Reply:
    """One tool call, whatever happens inside it, as a `Reply`."""
    tool = tools.get(name)
    if tool is None:
        import difflib

        close = difflib.get_close_matches(name, list(tools), n=1, cutoff=0.6)
        close = close or [t for t in tools if t.lower() == name.lower()]
        guess = f"did you mean `{close[0]}`? " if close else ""
        return answer("ERROR", f"no tool `{name}`; {guess}call one of: {', '.join(tools)}")
    try:
        return tool.call(mcp_session, raw or {})
    except Exception as exc:  # a bug in trailblaze: still a result the client can show
        return mcp_session.redacted(answer("ERROR", f"internal error in `{name}`: {type(exc).__name__}: {exc}"))


def build_server(mcp_session: McpSession) -> Server[Any]:
    """The low-level MCP server: `tools/list` and `tools/call` over `mcp_session`."""
    import anyio
    from mcp import types
    from mcp.server.lowlevel import Server

    tools = {t.name: t for t in mcp_tools(mcp_session.tools)}
    listed = [
        types.Tool(
            name=t.name,
            description=t.description,
            input_schema=t.input_schema,
            annotations=types.ToolAnnotations(read_only_hint=t.read_only),
        )
        for t in tools.values()
    ]
    one_at_a_time = threading.Lock()

    def run(name: str, raw: Mapping[str, Any] | None) -> Reply:
        with one_at_a_time:
            return call_tool(mcp_session, tools, name, raw)

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        reply = await anyio.to_thread.run_sync(run, params.name, params.arguments)
        content: list[Any] = [types.TextContent(type="text", text=reply.text)]
        if reply.image is not None:
            import base64

            data = base64.b64encode(reply.image).decode("ascii")
            content.append(types.ImageContent(type="image", data=data, mime_type="image/jpeg"))
        return types.CallToolResult(content=content, is_error=not reply.ok)

    from importlib.metadata import version

    return Server(
        "trailblaze",
        version=version("trailblaze"),
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call,
    )


def serve(
    mcp_session: McpSession,
    *,
    http_port: int | None = None,
    token: str | None = None,
    announce: Callable[[str], None] = print,
) -> None:
    """Serve until the client disconnects (stdio) or Ctrl-C (HTTP); closes the device afterwards.

    Args:
        http_port: Serve streamable HTTP on 127.0.0.1:PORT/mcp (0: a free port) instead of stdio.
        token: The bearer token every HTTP request must carry (None: one is generated and announced).
        announce: Told the URL once the HTTP server listens (stderr: stdout may be the MCP channel).
    """
    require_sdk()
    import anyio

    server = build_server(mcp_session)
    try:
        if http_port is None:
            anyio.run(_serve_stdio, server)
        else:
            anyio.run(_serve_http, server, http_port, token, announce)
    finally:
        mcp_session.close()


async def _serve_stdio(server: Server[Any]) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


async def _serve_http(
    server: Server[Any], port: int, token: str | None, announce: Callable[[str], None]
) -> None:
    import socket

    import uvicorn

    from trailblaze.mcp.token import generate_token, require_token

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as exc:
        sock.close()
        raise UsageError(
            f"--http {port}: cannot listen on 127.0.0.1:{port} ({exc.strerror or exc})"
        ) from None
    sock.listen(128)  # a client told the URL may connect at once: the backlog holds it until uvicorn accepts
    # any local process can reach 127.0.0.1: a request without the token is refused, as Jupyter does
    shown = token is None
    token = token or generate_token()
    app = require_token(server.streamable_http_app(host="127.0.0.1"), token)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
    header = f"Authorization: Bearer {token}" if shown else "Authorization: Bearer <your --token>"
    announce(f"trailblaze mcp: streamable HTTP on {url} (send the header {header})")
    await uvicorn.Server(config).serve(sockets=[sock])
