"""`FarmHub`: a local stand-in for a device farm's Appium hub, in front of a real Appium backend.

It checks what the farm checks and answers what the farm answers, then hands everything else to a
backend that actually drives a device (the real Appium server on a simulated phone, or the
simulated WebDriverAgent), so a farm preset is tested end to end without the internet:

- `POST /wd/hub/session`: the farm's vendor block must hold the right user and access key (else the
  farm's own "session not created" refusal); the session name and build are recorded; a queue that
  is full (`queue_full=N`: the next N requests) is refused in the farm's words; the vendor block is
  removed and the rest goes to the backend;
- `POST …/execute/sync` with the farm's own scripts (`browserstack_executor: {...}`,
  `sauce:job-name=` / `sauce:job-result=`, `lambda-name=` / `lambda-status=`) is answered here and
  recorded (`sessions[id].statuses`); `getSessionDetails` returns a `browser_url`;
- everything else is proxied unchanged, counted by route (`commands`), after `latency` seconds (a
  farm-like profile: each command pays the round trip to the farm's data centre);
- several backends are several devices: each new session gets a free one (a farm gives every
  session its own device), and with none free the queue is full;
- `expire_after=N`: the first session ends after N of its commands, as a farm's idle timeout or a
  lost device ends one (`invalid session id` from then on).

```python
with FarmHub("browserstack", backend="http://127.0.0.1:4723", user="u", key="k") as hub:
    os.environ["TRAILBLAZE_APPIUM_HUB"] = hub.url
    ...
    assert hub.sessions[sid].statuses == ["passed"]
```

`FarmHub(None, backend=...)` is a plain counting, delaying proxy (no farm checks).
"""

from __future__ import annotations

import json
import re
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal

__all__ = ["FARM_RULES", "FarmHub", "FarmRules", "HubSession"]

FarmName = Literal["browserstack", "saucelabs", "lambdatest"]


@dataclass(frozen=True)
class FarmRules:
    """What one farm checks and says (from its Appium documentation)."""

    block: str
    user_field: str
    key_field: str
    name_field: str
    build_field: str
    refused: str
    """The farm's answer to bad credentials."""
    queue_full: str
    """The farm's answer when every parallel session is in use."""


FARM_RULES: dict[str, FarmRules] = {
    "browserstack": FarmRules(
        "bstack:options", "userName", "accessKey", "sessionName", "buildName",
        "[browserstack.user] and [browserstack.key] do not match a valid account: Authorization required",
        "All parallel tests are currently in use, including the queued tests. Please wait to finish or "
        "upgrade your plan to add more sessions.",
    ),
    "saucelabs": FarmRules(
        "sauce:options", "username", "accessKey", "name", "build",
        "Misconfigured -- Sauce Labs Authentication Error. You used username 'None' and access key 'None' "
        "to authenticate, which are not valid Sauce Labs credentials.",
        "CCY limit exceeded: you have reached your concurrency limit; your job has been queued",
    ),
    "lambdatest": FarmRules(
        "lt:options", "username", "accessKey", "name", "build",
        "Unauthorized: the username or access key you provided is invalid",
        "Queue Timeout: all parallel sessions of your plan are busy",
    ),
}  # fmt: skip


@dataclass
class HubSession:
    """One session the hub handed out, as the farm's dashboard would show it."""

    id: str
    name: str | None
    build: str | None
    capabilities: dict[str, Any]
    names: list[str] = field(default_factory=list)
    """Names set after creation (`setSessionName`, `sauce:job-name=`, `lambda-name=`)."""
    statuses: list[str] = field(default_factory=list)
    """`passed` / `failed`, in the order they were set."""
    reasons: list[str] = field(default_factory=list)
    ended: bool = False


class FarmHub:
    """See the module docstring. `url` is the hub URL a client (or `TRAILBLAZE_APPIUM_HUB`) uses."""

    def __init__(
        self,
        farm: FarmName | None,
        *,
        backend: str | Sequence[str],
        user: str = "",
        key: str = "",
        queue_full: int = 0,
        latency: float = 0.0,
        expire_after: int | None = None,
        host: str = "127.0.0.1",
    ) -> None:
        self.farm = farm
        self.rules = FARM_RULES[farm] if farm is not None else None
        self.backends = [b.rstrip("/") for b in ([backend] if isinstance(backend, str) else backend)]
        self.expire_after = expire_after
        self._expired: set[str] = set()
        self._used: Counter[str] = Counter()
        self._home: dict[str, str] = {}  # session id -> its backend
        self.user = user
        self.key = key
        self.queue_full = queue_full
        self.latency = latency
        self.sessions: dict[str, HubSession] = {}
        self.commands: Counter[str] = Counter()
        """Requests by `METHOD route` (session ids and element ids replaced by `:id`)."""
        self.refusals: list[str] = []
        self.peak = 0
        """The most sessions alive at once (parallel runs)."""
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer((host, 0), self._handler())
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/wd/hub"

    def start(self) -> FarmHub:
        self._thread = threading.Thread(target=self._server.serve_forever, name="farm-hub", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FarmHub:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def count(self, route: str) -> int:
        """How many requests went to `route`, e.g. `GET /source`, `POST /actions`."""
        with self._lock:
            return sum(n for key, n in self.commands.items() if key.endswith(route) or key == route)

    # --- request handling ------------------------------------------------------------------------
    def _handler(self) -> type[BaseHTTPRequestHandler]:
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return None

            def _serve(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                status, body = hub._answer(method, self.path, raw)
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._serve("GET")

            def do_POST(self) -> None:
                self._serve("POST")

            def do_DELETE(self) -> None:
                self._serve("DELETE")

        return Handler

    def _answer(self, method: str, path: str, raw: bytes) -> tuple[int, Any]:
        if self.latency:
            time.sleep(self.latency)
        route = path.split("/wd/hub", 1)[-1] or "/"
        with self._lock:
            self.commands[f"{method} {_route_key(route)}"] += 1
        body: Any = json.loads(raw) if raw else None
        if method == "POST" and route.rstrip("/") == "/session":
            return self._new_session(body or {})
        found = re.match(r"^/session/([^/]+)(/.*)?$", route)
        if found and self._expire(found[1]):
            return 404, _error("invalid session id", f"Session {found[1]} timed out: it was idle for too long")
        if found and self.rules is not None and method == "POST" and (found[2] or "") in ("/execute/sync", "/execute"):
            script = str((body or {}).get("script", ""))
            handled = self._farm_script(found[1], script)
            if handled is not None:
                return 200, {"value": handled}
        backend = self._home.get(found[1], self.backends[0]) if found else self.backends[0]
        status, answer = self._proxy(backend, method, route, raw)
        if found and method == "DELETE" and not found[2]:
            with self._lock:
                self._home.pop(found[1], None)
            if found[1] in self.sessions:
                self.sessions[found[1]].ended = True
        return status, answer

    def _expire(self, sid: str) -> bool:
        """Whether `sid` has ended by the farm's doing (`expire_after`)."""
        with self._lock:
            if sid in self._expired:
                return True
            first = next(iter(self.sessions), None)
            if self.expire_after is None or sid != first:
                return False
            self._used[sid] += 1
            if self._used[sid] <= self.expire_after:
                return False
            self._expired.add(sid)
            self._home.pop(sid, None)
        if sid in self.sessions:
            self.sessions[sid].ended = True
        return True

    def _new_session(self, body: dict[str, Any]) -> tuple[int, Any]:
        caps = dict(body.get("capabilities", {}).get("alwaysMatch") or {})
        first = body.get("capabilities", {}).get("firstMatch") or [{}]
        caps.update(first[0] if first else {})
        name = build = None
        if self.rules is not None:
            block = caps.pop(self.rules.block, None)
            if not isinstance(block, dict) or (
                block.get(self.rules.user_field) != self.user or block.get(self.rules.key_field) != self.key
            ):
                self.refusals.append("credentials")
                return 401, _error("session not created", self.rules.refused)
            name, build = block.get(self.rules.name_field), block.get(self.rules.build_field)
        with self._lock:
            free = [b for b in self.backends if b not in self._home.values()]
            if self.queue_full > 0 or not free:
                self.queue_full = max(0, self.queue_full - 1)
                self.refusals.append("queue")
                full = self.rules.queue_full if self.rules is not None else "no device available"
                return 500, _error("session not created", full)
            backend = free[0]
            self._home["?"] = backend  # held while the backend creates the session
        try:
            request = json.dumps({"capabilities": {"alwaysMatch": caps}}).encode()
            status, answer = self._proxy(backend, "POST", "/session", request)
        finally:
            with self._lock:
                self._home.pop("?", None)
        value = answer.get("value") if isinstance(answer, dict) else None
        sid = (value or {}).get("sessionId") if isinstance(value, dict) else None
        if status == 200 and sid:
            with self._lock:
                self._home[str(sid)] = backend
                self.peak = max(self.peak, len(self._home))
            self.sessions[str(sid)] = HubSession(str(sid), name, build, caps)
        return status, answer

    def _farm_script(self, sid: str, script: str) -> Any:
        """The farm's own executor scripts (recorded), or None for any other script."""
        session = self.sessions.get(sid)
        if session is None:
            return None
        if script.startswith("browserstack_executor:"):
            command = json.loads(script.split(":", 1)[1])
            action, args = command.get("action"), command.get("arguments") or {}
            if action == "setSessionName":
                session.names.append(str(args.get("name")))
            elif action == "setSessionStatus":
                session.statuses.append(str(args.get("status")))
                session.reasons.append(str(args.get("reason", "")))
            elif action == "getSessionDetails":
                build = uuid.uuid5(uuid.NAMESPACE_URL, str(session.build)).hex
                return json.dumps({
                    "name": session.names[-1] if session.names else session.name,
                    "hashed_id": sid,
                    "browser_url": f"https://app-automate.browserstack.com/builds/{build}/sessions/{sid}",
                })  # fmt: skip
            return ""
        for prefix, names in (("sauce:job-name=", True), ("lambda-name=", True), ("sauce:job-result=", False), ("lambda-status=", False)):  # fmt: skip
            if script.startswith(prefix):
                value = script[len(prefix) :]
                (session.names if names else session.statuses).append(value)
                return ""
        return None

    def _proxy(self, backend: str, method: str, route: str, raw: bytes) -> tuple[int, Any]:
        request = urllib.request.Request(
            backend + route,
            data=raw if method == "POST" else None,
            method=method,
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=600) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as exc:
            try:
                return exc.code, json.loads(exc.read() or b"null")
            except ValueError:
                return exc.code, _error("unknown error", f"backend answered {exc.code}")
        except OSError as exc:
            return 502, _error("unknown error", f"the farm lost its device: {exc}")


def _error(error: str, message: str) -> dict[str, Any]:
    return {"value": {"error": error, "message": message, "stacktrace": ""}}


def _route_key(route: str) -> str:
    """`/session/abc/element/42/click` → `/session/:id/element/:id/click`."""
    return re.sub(r"/(session|element)/[^/]+", r"/\1/:id", route.split("?")[0])
