"""The bearer token `trailblaze mcp --http` requires of every request (docs/adr/0041-mcp-confinement.md).

127.0.0.1 is not a boundary: every local process, and a browser page through DNS rebinding, can
send requests to it. The token is generated at start and printed on stderr (as Jupyter does), or
given with `--token` / `$TRAILBLAZE_MCP_TOKEN` so a client configuration can hold it.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

__all__ = ["MIN_TOKEN_LENGTH", "TOKEN_ENV", "generate_token", "require_token"]

TOKEN_ENV = "TRAILBLAZE_MCP_TOKEN"
MIN_TOKEN_LENGTH = 16

_Scope = MutableMapping[str, Any]
_Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
_Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
_App = Callable[[_Scope, _Receive, _Send], Awaitable[None]]


def generate_token() -> str:
    return secrets.token_urlsafe(32)


def require_token(app: _App, token: str) -> _App:
    """`app` behind a check of `Authorization: Bearer TOKEN` on every HTTP request (401 without it)."""
    expected = f"Bearer {token}".encode()

    async def guarded(scope: _Scope, receive: _Receive, send: _Send) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, expected):
                await _refuse(send)
                return
        await app(scope, receive, send)

    return guarded


async def _refuse(send: _Send) -> None:
    body = b"missing or wrong bearer token: send 'Authorization: Bearer TOKEN' (printed when the server started)\n"
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                (b"www-authenticate", b"Bearer"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
