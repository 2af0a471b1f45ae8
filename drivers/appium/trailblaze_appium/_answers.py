"""Bounded answers: no answer from an Appium server is read past `MAX_ANSWER_BYTES`.

Selenium reads every answer whole into memory (`response.data`) before it looks at it, so a server
or proxy that answers a screenshot with 300 MB took a gigabyte of memory before anything could
object. `BoundedConnection` gives Selenium a connection manager whose answers are read in chunks
and refused as soon as they pass the cap (at once when `Content-Length` says so), then handed to
Selenium as the small, already-read answer it expects.

A real screenshot is a few megabytes of base64 and a page source a few hundred kilobytes; the cap
is far above both and far below what hurts a CI machine.
"""

from __future__ import annotations

import io
from typing import Any

from appium.webdriver.appium_connection import AppiumConnection

__all__ = ["MAX_ANSWER_BYTES", "AnswerTooLarge", "BoundedConnection"]

MAX_ANSWER_BYTES = 50 * 1024 * 1024
_CHUNK = 1024 * 1024


class AnswerTooLarge(Exception):
    """An answer passed `MAX_ANSWER_BYTES`; `_errors.translate` says so in one line."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the answer is over {limit // (1024 * 1024)} MB")
        self.limit = limit


class BoundedConnection(AppiumConnection):
    """Appium's connection, reading each answer at most `MAX_ANSWER_BYTES` far."""

    def _get_connection_manager(self) -> Any:
        return _BoundedManager(super()._get_connection_manager())  # type: ignore[no-untyped-call]


class _BoundedManager:
    """The two calls Selenium makes on its urllib3 pool manager (`request`, `clear`), bounded."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def request(self, method: str, url: str, **kwargs: Any) -> Any:
        import urllib3

        response = self._inner.request(method, url, preload_content=False, **kwargs)
        body = _read(response, MAX_ANSWER_BYTES)
        # `decode_content=False`: `_read` already undid any Content-Encoding
        return urllib3.HTTPResponse(
            body=io.BytesIO(body),
            headers=response.headers,
            status=response.status,
            reason=response.reason,
            preload_content=True,
            decode_content=False,
            request_url=url,
        )

    def clear(self) -> None:
        self._inner.clear()

    def __enter__(self) -> _BoundedManager:
        return self

    def __exit__(self, *exc: object) -> None:
        self.clear()


def _read(response: Any, limit: int) -> bytes:
    """The whole (decoded) body, or `AnswerTooLarge` as soon as it passes `limit`."""
    try:
        declared = int(response.headers.get("Content-Length") or 0)
    except ValueError:
        declared = 0
    chunks: list[bytes] = []
    size = 0
    too_large = declared > limit
    if not too_large:
        for chunk in response.stream(_CHUNK, decode_content=True):
            size += len(chunk)
            if size > limit:
                too_large = True
                break
            chunks.append(chunk)
    if too_large:
        chunks.clear()
        response.close()  # the rest is never read: the connection cannot carry another request
        response.release_conn()
        raise AnswerTooLarge(limit)
    response.release_conn()
    return b"".join(chunks)
