"""Maestro's JavaScript in a sandboxed QuickJS (docs/adr/0055-maestro-javascript.md).

One `Scripts` per trail run holds the context Maestro gives scripts: `output`, `maestro.copiedText`,
the flow's `env:` and `--env` values as globals (looked up by name when a script mentions them),
`json()`, `console.log`, `http.get/post/put/delete/request`, a seeded `Math.random` and the `faker`
generators flows use. QuickJS has no file, network or process access; a script gets only what the
prelude defines. Each evaluation runs under a CPU-time and a memory limit.

QuickJS refuses to call into Python while a time limit is set, so no Python function is handed in:
`http.*` throws a marker the first time a request is made; the request is then made here (urllib), its
response kept, the context's state (`output`, the random state) put back, and the script run again,
now finding the response. A script making N requests runs N + 1 times, each request made once.
"""

from __future__ import annotations

import json
import os
import random
import re
import time
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from trailblaze.common import deadline
from trailblaze.errors import TrailFailed, UsageError

__all__ = ["SEED_ENV", "ScriptError", "Scripts", "scripts_for", "truthy"]

SEED_ENV = "TRAILBLAZE_SEED"
"""Set to a run's printed seed to repeat its random values (`inputRandom*`, `Math.random`, `faker`)."""
TIME_LIMIT_S = 5.0
MEMORY_LIMIT = 64 * 1024 * 1024
MAX_REQUESTS = 50
"""HTTP requests of one evaluation: a script looping over `http.get` is cut off, not left to run."""
_HTTP_TIMEOUT_S = 30.0
_MAX_BODY = 8 * 1024 * 1024
_MARKER = "__trailblaze_http__"
_WORD = re.compile(r"[A-Za-z_$][\w$]*")
_AT = re.compile(r"<input>:(\d+):(\d+)")

_PRELUDE = r"""
var output = {};
var maestro = { copiedText: null, platform: null };
var __tb = { state: 0, http: [], at: 0, pending: null, logs: [] };
Math.random = function () {
  var t = (__tb.state = (__tb.state + 0x6D2B79F5) >>> 0);
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
function json(text) { return JSON.parse(text); }
function __tb_text(args) { return Array.prototype.map.call(args, function (a) {
  return typeof a === 'object' && a !== null ? JSON.stringify(a) : String(a); }).join(' '); }
var console = {
  log: function () { __tb.logs.push(__tb_text(arguments)); },
  info: function () { __tb.logs.push(__tb_text(arguments)); },
  warn: function () { __tb.logs.push('warning: ' + __tb_text(arguments)); },
  error: function () { __tb.logs.push('error: ' + __tb_text(arguments)); }
};
function __tb_request(method, url, options) {
  options = options || {};
  var body = options.body === undefined || options.body === null ? null : String(options.body);
  var i = __tb.at++;
  var done = __tb.http[i];
  if (done && done.method === method && done.url === String(url)) { return done.response; }
  __tb.pending = { method: method, url: String(url), headers: options.headers || {}, body: body };
  throw new Error('__trailblaze_http__');
}
var http = {
  get: function (url, o) { return __tb_request('GET', url, o); },
  post: function (url, o) { return __tb_request('POST', url, o); },
  put: function (url, o) { return __tb_request('PUT', url, o); },
  delete: function (url, o) { return __tb_request('DELETE', url, o); },
  request: function (url, o) { return __tb_request(String((o && o.method) || 'GET').toUpperCase(), url, o); }
};
function __tb_pick(list) { return list[Math.floor(Math.random() * list.length)]; }
function __tb_digits(n) { var s = ''; for (var i = 0; i < n; i++) { s += Math.floor(Math.random() * 10); } return s; }
var __tb_first = ['Alex', 'Sam', 'Jordan', 'Taylor', 'Morgan', 'Riley', 'Casey', 'Jamie', 'Avery', 'Quinn'];
var __tb_last = ['Kim', 'Lee', 'Park', 'Reed', 'Hale', 'Stone', 'Brooks', 'Gray', 'Lane', 'Fox'];
var __tb_words = ['alpha', 'river', 'stone', 'maple', 'cloud', 'ember', 'harbor', 'lumen', 'quartz', 'willow'];
var __tb_cities = ['Springfield', 'Riverton', 'Lakeside', 'Fairview', 'Kingston', 'Oakridge'];
var faker = {
  name: function () { return {
    firstName: function () { return __tb_pick(__tb_first); },
    lastName: function () { return __tb_pick(__tb_last); },
    fullName: function () { return __tb_pick(__tb_first) + ' ' + __tb_pick(__tb_last); },
    name: function () { return __tb_pick(__tb_first) + ' ' + __tb_pick(__tb_last); },
    username: function () { return (__tb_pick(__tb_first) + '.' + __tb_pick(__tb_last)).toLowerCase(); } }; },
  internet: function () { return {
    emailAddress: function () { return (__tb_pick(__tb_first) + '.' + __tb_pick(__tb_last) + __tb_digits(3)).toLowerCase() + '@example.com'; },
    password: function () { return __tb_pick(__tb_words) + __tb_digits(4) + '!A'; },
    url: function () { return 'https://' + __tb_pick(__tb_words) + '.example.com'; } }; },
  phoneNumber: function () { return {
    phoneNumber: function () { return '555-' + __tb_digits(3) + '-' + __tb_digits(4); },
    cellPhone: function () { return '555-' + __tb_digits(3) + '-' + __tb_digits(4); } }; },
  address: function () { return {
    city: function () { return __tb_pick(__tb_cities); },
    streetAddress: function () { return __tb_digits(3) + ' ' + __tb_pick(__tb_last) + ' Street'; },
    zipCode: function () { return __tb_digits(5); },
    country: function () { return 'Freedonia'; } }; },
  lorem: function () { return {
    word: function () { return __tb_pick(__tb_words); },
    sentence: function () { return [__tb_pick(__tb_words), __tb_pick(__tb_words), __tb_pick(__tb_words)].join(' ') + '.'; } }; },
  number: function () { return {
    digits: function (n) { return __tb_digits(n || 1); },
    numberBetween: function (a, b) { return a + Math.floor(Math.random() * (b - a)); },
    randomDigit: function () { return Math.floor(Math.random() * 10); } }; }
};
"""

_RUN = r"""
(function () {
  var saved = JSON.stringify(output), state = __tb.state;
  __tb.at = 0; __tb.pending = null; __tb.logs = [];
  try {
    var value = (0, eval)(__tb_source);
    return JSON.stringify({ value: value === undefined ? 'undefined' : value === null ? 'null' : String(value) });
  } catch (e) {
    if (__tb.pending) { output = JSON.parse(saved); __tb.state = state; return JSON.stringify({ pending: __tb.pending }); }
    throw e;
  }
})()
"""


class ScriptError(TrailFailed):
    """A script that failed, named by where it came from, with the JavaScript message (the step fails)."""


@dataclass
class _Request:
    method: str
    url: str
    status: int
    seconds: float


@dataclass
class Scripts:
    """One run's JavaScript context."""

    seed: int
    platform: str = ""
    rng: random.Random = field(init=False)
    """`inputRandom*`'s values, from the same seed."""
    requests: list[_Request] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    _context: Any = None

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def _js(self) -> Any:
        if self._context is None:
            try:
                import quickjs
            except ImportError:  # pragma: no cover - a core dependency
                raise UsageError(
                    "Maestro JavaScript needs the quickjs-ng package: pip install quickjs-ng"
                ) from None
            context = quickjs.Context()
            context.set_memory_limit(MEMORY_LIMIT)
            context.set_max_stack_size(1024 * 1024)
            context.eval(_PRELUDE)
            context.set("__tb_seed", self.seed & 0xFFFFFFFF)
            context.eval("__tb.state = __tb_seed; maestro.platform = " + json.dumps(self.platform))
            self._context = context
        return self._context

    def set_copied_text(self, text: str) -> None:
        self._js().set("__tb_copied", text)
        self._js().eval("maestro.copiedText = __tb_copied")

    def evaluate(self, source: str, where: str, values: Callable[[str], str | None]) -> str:
        """`source` run as a script; its completion value as Maestro's text of it (`undefined`,
        `null`, `2`, `true`). `values` looks a global up by name (env, `--env`, memory).

        Raises:
            ScriptError: the script threw, or ran past its time or memory limit.
        """
        import quickjs

        context = self._js()
        for name in set(_WORD.findall(source)):
            value = values(name)
            if value is not None and name not in ("output", "maestro", "http", "json", "faker", "console"):
                context.set(name, value)
        context.set("__tb_source", source)
        capped = _time_limit(where)
        context.set_time_limit(capped)
        try:
            for _ in range(MAX_REQUESTS + 1):
                result = json.loads(context.eval(_RUN))
                pending = result.get("pending")
                if pending is None:
                    self.logs += json.loads(context.eval("JSON.stringify(__tb.logs)"))
                    return str(result["value"])
                context.set_time_limit(-1)
                context.set("__tb_response", json.dumps(self._request(pending)))
                context.eval("__tb.http.push(JSON.parse(__tb_response))")
                capped = _time_limit(where)
                context.set_time_limit(capped)
            raise ScriptError(f"{where}: more than {MAX_REQUESTS} HTTP requests in one script")
        except quickjs.JSException as exc:
            if capped < TIME_LIMIT_S and "interrupted" in str(exc):  # the trail's budget, not the script's
                raise deadline.timed_out(f"the script {where}") from None
            raise ScriptError(_message(exc, where, source)) from None
        except quickjs.StackOverflow:
            raise ScriptError(f"{where}: RangeError: the script recursed too deep") from None
        finally:
            context.set_time_limit(-1)
            if self._broken():
                self._context = None  # out of memory: a fresh context for what follows

    def _broken(self) -> bool:
        try:
            self._context.eval("1")
        except Exception:
            return True
        return False

    def _request(self, pending: Mapping[str, Any]) -> dict[str, Any]:
        import urllib.error
        import urllib.request

        method, url = str(pending["method"]), str(pending["url"])
        if not url.startswith(("http://", "https://")):
            raise ScriptError(f"http.{method.lower()} {url}: only http:// and https:// URLs are fetched")
        body = pending.get("body")
        request = urllib.request.Request(
            url,
            data=None if body is None else str(body).encode("utf-8"),
            headers={str(k): str(v) for k, v in (pending.get("headers") or {}).items()},
            method=method,
        )
        start = time.monotonic()
        try:
            left = deadline.remaining()
            wait = _HTTP_TIMEOUT_S if left is None else max(min(_HTTP_TIMEOUT_S, left), 0.01)
            with urllib.request.urlopen(request, timeout=wait) as answer:
                status, headers, data = answer.status, dict(answer.headers.items()), answer.read(_MAX_BODY)
        except urllib.error.HTTPError as exc:  # a 4xx / 5xx is an answer the script reads
            status, headers, data = exc.code, dict(exc.headers.items()), exc.read(_MAX_BODY)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            self.requests.append(_Request(method, url, 0, time.monotonic() - start))
            reason = getattr(exc, "reason", exc)
            raise ScriptError(f"http.{method.lower()} {url}: {reason}") from None
        self.requests.append(_Request(method, url, status, time.monotonic() - start))
        text = data.decode("utf-8", errors="replace")
        return {
            "method": method,
            "url": url,
            "response": {"ok": 200 <= status < 300, "status": status, "body": text, "headers": headers},
        }

    def drain(self) -> list[str]:
        """What the scripts logged since last asked: `console.log` lines and one line per request
        (method, URL, status, time); the run log redacts secrets from them as from every message."""
        lines = [
            *self.logs,
            *(
                f"{r.method} {r.url} → {r.status or 'no response'} in {r.seconds:.2f} s"
                for r in self.requests
            ),
        ]
        self.logs.clear()
        self.requests.clear()
        return lines


def _time_limit(where: str) -> float:
    """The CPU seconds the next evaluation may take: its own limit, or what is left of the trail's
    wall-clock budget when that is less (one busy script must not outlast the trail).

    Raises:
        TrailTimedOut: the budget is spent already.
    """
    deadline.check(f"the script {where}")
    left = deadline.remaining()
    return TIME_LIMIT_S if left is None else min(TIME_LIMIT_S, max(left, 0.01))


def _message(exc: Exception, where: str, source: str) -> str:
    text = str(exc).strip()
    first = text.splitlines()[0] if text else "the script failed"
    if "interrupted" in first:
        return f"{where}: the script ran longer than {TIME_LIMIT_S:g} s (CPU time); make it shorter"
    if "out of memory" in first or first == "null":
        return f"{where}: the script used more than {MEMORY_LIMIT // (1024 * 1024)} MB of memory"
    positions = _AT.findall(text)
    # an inline `${…}` on one line is named whole: its `:1:1` would point nowhere useful
    inline = where.startswith("`") and "\n" not in source.strip()
    if positions and not inline:
        line, col = positions[0]
        return f"{where}:{line}:{col}: {first}"
    return f"{where}: {first}"


def truthy(value: str) -> bool:
    """Maestro's truth of a condition's text: blank, `false`, `undefined`, `null` and zero are false."""
    text = value.strip()
    if not text or text.lower() == "false" or text in ("undefined", "null"):
        return False
    try:
        return float(text) != 0.0
    except ValueError:
        return True


_RUNS: weakref.WeakKeyDictionary[Any, Scripts] = weakref.WeakKeyDictionary()


def scripts_for(memory: Any, platform: str) -> tuple[Scripts, bool]:
    """The `Scripts` of the run whose memory is `memory` (made on first use), and whether it is new
    (the caller then says the seed)."""
    found = _RUNS.get(memory)
    if found is not None:
        return found, False
    raw = os.environ.get(SEED_ENV, "").strip()
    seed = int(raw) if raw.isdigit() else random.SystemRandom().randrange(1, 2**31)
    made = Scripts(seed=seed, platform=platform)
    _RUNS[memory] = made
    return made, True
