"""The HTTP requests of Maestro scripts: only to the hosts the run allows, each under one deadline
(docs/adr/0068-script-hosts.md).

A script is code from the trail's repository; with `--secret` values in scope it could send them
anywhere, in a form redaction cannot recognise. So a script reaches loopback and the hosts named
outside the flow: `--script-host HOST` (pytest: `--trailblaze-script-host` / `trailblaze_script_hosts`),
set for the process by `allow_hosts`, and `[tool.trailblaze] script_hosts` in the project's
`pyproject.toml`. A redirect is followed only to an allowed host too.

`REQUEST_DEADLINE_S` bounds a whole request (connect, headers, body, redirects): a server that
trickles its answer a byte at a time never trips a per-read timeout, so at the deadline the
request's sockets are shut down under it.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from trailblaze.common import deadline as trail_budget
from trailblaze.common.flags import CLI, Flags
from trailblaze.common.project import project_settings
from trailblaze.errors import TrailFailed, UsageError

__all__ = [
    "REQUEST_DEADLINE_S",
    "HostRefused",
    "HttpError",
    "Sent",
    "allow_hosts",
    "host_name",
    "project_hosts",
    "send",
]

REQUEST_DEADLINE_S = 30.0
"""The whole of one script request, body included; tests lower it."""
_MAX_BODY = 8 * 1024 * 1024

_run_hosts: frozenset[str] = frozenset()


class HttpError(TrailFailed):
    """A script's request that got no answer, or none within the deadline (the step fails)."""


class HostRefused(HttpError):
    """A script's request to a host the run does not allow; nothing was sent."""


@dataclass
class Sent:
    """One request made: what a script reads back, and the line the run log gets."""

    status: int
    headers: dict[str, str]
    body: str
    seconds: float


def host_name(entry: str) -> str:
    """The host of `--script-host` / `script_hosts` entry `entry` (a name, `name:port` or a URL), lower case.

    Raises:
        UsageError: `entry` names no host.
    """
    text = entry.strip()
    host = urlsplit(text if "://" in text else f"//{text}").hostname or ""
    if not host or any(c.isspace() for c in host):
        raise UsageError(f"script host {entry!r} is not a host name; write it as api.example.com")
    return host.rstrip(".").lower()


def allow_hosts(hosts: Iterable[str]) -> None:
    """The hosts every script of this process may reach besides loopback (the front end's
    `--script-host`); replaces the earlier ones.

    Raises:
        UsageError: an entry names no host.
    """
    global _run_hosts
    _run_hosts = frozenset(host_name(h) for h in hosts)


def project_hosts(folder: Path | None) -> frozenset[str]:
    """`[tool.trailblaze] script_hosts` of the nearest `pyproject.toml` at or above `folder`.

    Raises:
        UsageError: the value is not a list of host names.
    """
    root, section = project_settings((folder or Path()).resolve())
    listed = section.get("script_hosts")
    if listed is None or root is None:
        return frozenset()
    if not isinstance(listed, list) or not all(isinstance(h, str) for h in listed):
        raise UsageError(
            f"{root / 'pyproject.toml'}: [tool.trailblaze] script_hosts must be a list of host names"
        )
    return frozenset(host_name(h) for h in listed)


def _loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


def _checker(method: str, allowed: frozenset[str], flags: Flags) -> Callable[[str, bool], None]:
    def check(url: str, redirected: bool = False) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            raise HostRefused(f"http.{method.lower()} {url}: only http:// and https:// URLs are fetched")
        host = (parts.hostname or "").rstrip(".").lower()
        if not _loopback(host) and host not in allowed | _run_hosts:
            # the URL's path and query are left out: they may carry what the script meant to send
            raise HostRefused(
                f"http.{method.lower()} {'redirected ' if redirected else ''}to {host or url!r} refused: scripts "
                "reach only loopback and the allowed hosts; pass "
                f"{flags.script_host.format(host=host or 'HOST')} (or list it in [tool.trailblaze] script_hosts "
                "of pyproject.toml) if the flow may send its data there"
            )

    return check


class _Deadline:
    """Shuts the request's sockets down when its time is up, wherever the request is blocked."""

    def __init__(self, seconds: float) -> None:
        self.passed = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()

    def watch(self, sock: socket.socket) -> socket.socket:
        with self._lock:
            self._sockets.append(sock)
            if self.passed:
                _cut(sock)
        return sock

    def _expire(self) -> None:
        with self._lock:
            self.passed = True
            for sock in self._sockets:
                _cut(sock)

    def connection(self, http_class: Any) -> Callable[..., Any]:
        """`http_class` whose sockets this deadline watches (the raw socket, before any TLS)."""

        def make(host: str, **kwargs: Any) -> Any:
            made = http_class(host, **kwargs)
            create = made._create_connection  # http.client's own hook for opening the socket
            made._create_connection = lambda *a, **k: self.watch(create(*a, **k))
            return made

        return make


def _cut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def _reason(exc: Exception) -> str:
    if isinstance(exc, http.client.HTTPException):  # its text is the server's, of any length
        return f"not a complete HTTP answer ({type(exc).__name__})"
    return " ".join(str(getattr(exc, "reason", exc)).split())


def _opener(deadline: _Deadline, check: Callable[[str, bool], None]) -> urllib.request.OpenerDirector:
    class Http(urllib.request.HTTPHandler):
        def do_open(self, http_class: Any, req: Any, **kwargs: Any) -> Any:
            return super().do_open(deadline.connection(http_class), req, **kwargs)

    class Https(urllib.request.HTTPSHandler):
        def do_open(self, http_class: Any, req: Any, **kwargs: Any) -> Any:
            return super().do_open(deadline.connection(http_class), req, **kwargs)

    class Redirects(urllib.request.HTTPRedirectHandler):
        def redirect_request(
            self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str
        ) -> urllib.request.Request | None:
            check(newurl, True)
            return super().redirect_request(req, fp, code, msg, headers, newurl)

    return urllib.request.build_opener(Http(), Https(), Redirects())


def send(
    method: str,
    url: str,
    headers: Mapping[str, str],
    body: str | None,
    *,
    allowed: frozenset[str] = frozenset(),
    flags: Flags = CLI,
) -> Sent:
    """Makes one script request; a 4xx / 5xx is an answer the script reads.

    Raises:
        HttpError: the host is not allowed, there was no answer, or none within the deadline.
    """
    check = _checker(method, allowed, flags)
    check(url, False)
    request = urllib.request.Request(
        url, data=None if body is None else body.encode("utf-8"), headers=dict(headers), method=method
    )
    start = time.monotonic()
    left = trail_budget.remaining()  # the trail's own budget ends the request sooner when it is shorter
    limit = REQUEST_DEADLINE_S if left is None else max(min(REQUEST_DEADLINE_S, left), 0.01)
    with _Deadline(limit) as deadline:
        try:
            try:
                with _opener(deadline, check).open(request, timeout=limit) as answer:
                    status, got, data = answer.status, dict(answer.headers.items()), answer.read(_MAX_BODY)
            except urllib.error.HTTPError as exc:  # a 4xx / 5xx is an answer the script reads
                with exc:
                    status, got, data = exc.code, dict(exc.headers.items()), exc.read(_MAX_BODY)
        except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as exc:
            if not deadline.passed:
                raise HttpError(f"http.{method.lower()} {url}: {_reason(exc)}") from None
        if deadline.passed:
            raise HttpError(
                f"http.{method.lower()} {url}: no complete answer within {limit:g} s; "
                "the server is too slow or holds the connection open"
            )
    return Sent(status, got, data.decode("utf-8", errors="replace"), time.monotonic() - start)
