"""Maestro's JavaScript in a sandboxed QuickJS (docs/adr/0056-maestro-javascript.md).

One `Scripts` per trail run holds the context Maestro gives scripts: `output`, `maestro.copiedText`,
the flow's `env:` and `--env` values as globals (looked up by name when a script mentions them),
`json()`, `console.log`, `http.get/post/put/delete/request`, a seeded `Math.random` and the `faker`
generators flows use. QuickJS has no file, network or process access; a script gets only what the
prelude defines. Each evaluation runs under a CPU-time and a memory limit.

QuickJS refuses to call into Python while a time limit is set, so no Python function is handed in:
`http.*` throws a marker the first time a request is made; the request is then made here (urllib), its
response kept, the context's state (`output`, the random state) put back, and the script run again,
now finding the response. A script making N requests runs N + 1 times, each request made once; the
responses kept are the evaluation's own. Requests go only to allowed hosts (`script_http`).

The runner's own calls into the context (`__tb_run`, …) hold on to the built-ins they use and answer
plain strings that are checked here: a script that replaces `JSON` or `String` fails its step.
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
from pathlib import Path
from typing import Any

from trailblaze.common import deadline
from trailblaze.common.flags import CLI, Flags
from trailblaze.errors import TrailFailed
from trailblaze.maestro.script_http import HostRefused, HttpError, project_hosts, send

__all__ = ["SEED_ENV", "ScriptError", "Scripts", "run_scripts", "scripts_for", "truthy"]

SEED_ENV = "TRAILBLAZE_SEED"
"""Set to a run's printed seed to repeat its random values (`inputRandom*`, `Math.random`, `faker`)."""
TIME_LIMIT_S = 5.0
MEMORY_LIMIT = 64 * 1024 * 1024
MAX_REQUESTS = 50
"""HTTP requests of one evaluation: a script looping over `http.get` is cut off, not left to run."""
_WORD = re.compile(r"[A-Za-z_$][\w$]*")
_AT = re.compile(r"<input>:(\d+):(\d+)")

_PRELUDE = r"""
var output = {};
var maestro = { copiedText: null, platform: null };
(function (g) {
  // What the runner relies on is taken now and kept out of the scripts' reach: a script may
  // replace JSON, String or eval, or any global, without breaking the runner.
  var stringify = JSON.stringify, parse = JSON.parse, indirect = eval, text = String;
  var map = Array.prototype.map, define = Object.defineProperty, imul = Math.imul, floor = Math.floor;
  var tb = { state: 0, http: [], at: 0, pending: null, logs: [], drew: false };
  function fixed(name, value) { define(g, name, { value: value, writable: false, enumerable: false, configurable: false }); }
  function random() {
    tb.drew = true;
    var t = (tb.state = (tb.state + 0x6D2B79F5) >>> 0);
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  Math.random = random;
  g.json = function (s) { return parse(s); };
  function line(args) { return map.call(args, function (a) {
    if (typeof a === 'object' && a !== null) { var j = stringify(a); return typeof j === 'string' ? j : text(a); }
    return text(a); }).join(' '); }
  g.console = {
    log: function () { tb.logs.push(line(arguments)); },
    info: function () { tb.logs.push(line(arguments)); },
    warn: function () { tb.logs.push('warning: ' + line(arguments)); },
    error: function () { tb.logs.push('error: ' + line(arguments)); }
  };
  function request(method, url, options) {
    options = options || {};
    var body = options.body === undefined || options.body === null ? null : text(options.body);
    var i = tb.at++;
    var done = tb.http[i];
    if (done && done.method === method && done.url === text(url)) { return done.response; }
    tb.pending = { method: method, url: text(url), headers: options.headers || {}, body: body };
    throw new Error('__trailblaze_http__');
  }
  g.http = {
    get: function (url, o) { return request('GET', url, o); },
    post: function (url, o) { return request('POST', url, o); },
    put: function (url, o) { return request('PUT', url, o); },
    delete: function (url, o) { return request('DELETE', url, o); },
    request: function (url, o) { return request(text((o && o.method) || 'GET').toUpperCase(), url, o); }
  };
  function pick(list) { return list[floor(random() * list.length)]; }
  function digits(n) { var s = ''; for (var i = 0; i < n; i++) { s += floor(random() * 10); } return s; }
  var first = ['Alex', 'Sam', 'Jordan', 'Taylor', 'Morgan', 'Riley', 'Casey', 'Jamie', 'Avery', 'Quinn'];
  var last = ['Kim', 'Lee', 'Park', 'Reed', 'Hale', 'Stone', 'Brooks', 'Gray', 'Lane', 'Fox'];
  var words = ['alpha', 'river', 'stone', 'maple', 'cloud', 'ember', 'harbor', 'lumen', 'quartz', 'willow'];
  var cities = ['Springfield', 'Riverton', 'Lakeside', 'Fairview', 'Kingston', 'Oakridge'];
  g.faker = {
    name: function () { return {
      firstName: function () { return pick(first); },
      lastName: function () { return pick(last); },
      fullName: function () { return pick(first) + ' ' + pick(last); },
      name: function () { return pick(first) + ' ' + pick(last); },
      username: function () { return (pick(first) + '.' + pick(last)).toLowerCase(); } }; },
    internet: function () { return {
      emailAddress: function () { return (pick(first) + '.' + pick(last) + digits(3)).toLowerCase() + '@example.com'; },
      password: function () { return pick(words) + digits(4) + '!A'; },
      url: function () { return 'https://' + pick(words) + '.example.com'; } }; },
    phoneNumber: function () { return {
      phoneNumber: function () { return '555-' + digits(3) + '-' + digits(4); },
      cellPhone: function () { return '555-' + digits(3) + '-' + digits(4); } }; },
    address: function () { return {
      city: function () { return pick(cities); },
      streetAddress: function () { return digits(3) + ' ' + pick(last) + ' Street'; },
      zipCode: function () { return digits(5); },
      country: function () { return 'Freedonia'; } }; },
    lorem: function () { return {
      word: function () { return pick(words); },
      sentence: function () { return [pick(words), pick(words), pick(words)].join(' ') + '.'; } }; },
    number: function () { return {
      digits: function (n) { return digits(n || 1); },
      numberBetween: function (a, b) { return a + floor(random() * (b - a)); },
      randomDigit: function () { return floor(random() * 10); } }; }
  };
  // the runner's calls; each answers a string the runner checks ('V' + value, 'P' + pending request)
  fixed('__tb_start', function (seed, platform) { tb.state = seed; g.maestro.platform = platform; });
  fixed('__tb_copy', function (copied) {
    if (typeof g.maestro === 'object' && g.maestro !== null) { g.maestro.copiedText = copied; } });
  fixed('__tb_run', function (source, fresh) {
    // the responses kept are this evaluation's: an earlier script's never answer this one's requests
    if (fresh) { tb.http = []; }
    var saved = stringify(g.output), state = tb.state;
    tb.at = 0; tb.pending = null; tb.logs = [];
    try {
      var value = indirect(source);
      return 'V' + (value === undefined ? 'undefined' : value === null ? 'null' : text(value));
    } catch (e) {
      if (tb.pending) {
        if (typeof saved === 'string') { g.output = parse(saved); }
        tb.state = state;
        return 'P' + stringify(tb.pending);
      }
      throw e;
    }
  });
  fixed('__tb_set', function (name, value) { try { g[name] = value; } catch (e) { /* read-only: the script's own */ } });
  fixed('__tb_keep', function (response) { tb.http.push(parse(response)); });
  fixed('__tb_logs', function () { return stringify(tb.logs); });
  fixed('__tb_drew', function () { return tb.drew === true; });
})(globalThis);
"""

_HOST_NAMES = frozenset({"output", "maestro", "http", "json", "faker", "console",
                         "__tb_start", "__tb_copy", "__tb_run", "__tb_set", "__tb_keep", "__tb_logs",
                         "__tb_drew"})  # fmt: skip
"""Globals the runner sets or calls: a value of the same name is not set over them."""
_BROKEN = (
    "the runner could not read the script's result: it replaced a built-in the runner uses "
    "(JSON, Object.prototype.toJSON, …); leave the built-ins as they are"
)


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
    hosts: frozenset[str] = frozenset()
    """Hosts its requests may reach besides loopback and the run's `--script-host` ones (the project's)."""
    flags: Flags = CLI
    """How the run's front end spells `--script-host`, for a refused request's message."""
    requests: list[_Request] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    drew: bool = False
    """Whether the run drew random values (`Math.random`, `faker`, `inputRandom*`): only then does its
    seed say anything about a failure."""
    told: bool = False
    """Whether the seed was said (once, in the first step that drew random values)."""
    _context: Any = None
    _copied: str | None = None

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def _js(self) -> Any:
        if self._context is None:
            import quickjs  # a core dependency (docs/adr/0075-maestro-tier.md): imported when a flow first runs JS

            context = quickjs.Context()
            context.set_memory_limit(MEMORY_LIMIT)
            context.set_max_stack_size(1024 * 1024)
            context.eval(_PRELUDE)
            context.get("__tb_start")(self.seed & 0xFFFFFFFF, self.platform)
            self._context = context
        return self._context

    def set_copied_text(self, text: str) -> None:
        """`maestro.copiedText` for the next evaluations (set when one runs, under its limits)."""
        self._copied = text

    def evaluate(self, source: str, where: str, values: Callable[[str], str | None]) -> str:
        """`source` run as a script; its completion value as Maestro's text of it (`undefined`,
        `null`, `2`, `true`). `values` looks a global up by name (env, `--env`, memory).

        Raises:
            ScriptError: the script threw, ran past its time or memory limit, broke what the runner
                reads back, or a request of it failed or was refused.
        """
        import quickjs

        context = self._js()
        call = context.get
        capped = _time_limit(where)
        context.set_time_limit(capped)
        try:
            if self._copied is not None:
                call("__tb_copy")(self._copied)
            for name in set(_WORD.findall(source)) - _HOST_NAMES:
                value = values(name)
                if value is not None:
                    call("__tb_set")(name, value)
            for attempt in range(MAX_REQUESTS + 1):
                value, pending = _outcome(call("__tb_run")(source, attempt == 0), where)
                if pending is None:
                    self.logs += _logs(call("__tb_logs")(), where)
                    return str(value)
                call("__tb_keep")(json.dumps(self._request(pending, where)))
                capped = _time_limit(where)  # the trail's budget went on while it waited
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
            else:
                self.drew = self.drew or call("__tb_drew")() is True  # a script that threw may have drawn too

    def _broken(self) -> bool:
        try:
            self._context.eval("1")
        except Exception:
            return True
        return False

    def _request(self, pending: Mapping[str, Any], where: str) -> dict[str, Any]:
        method, url = str(pending["method"]), str(pending["url"])
        start = time.monotonic()
        try:
            sent = send(
                method, url, {str(k): str(v) for k, v in pending["headers"].items()}, pending["body"],
                allowed=self.hosts, flags=self.flags,
            )  # fmt: skip
        except HostRefused as exc:  # nothing was sent, and the URL may hold what it meant to send
            raise ScriptError(f"{where}: {exc.message}") from None
        except HttpError as exc:
            if (left := deadline.remaining()) is not None and left <= 0:  # cut off by the trail's budget
                raise deadline.timed_out(f"the script {where}") from None
            self.requests.append(_Request(method, url, 0, time.monotonic() - start))
            raise ScriptError(exc.message) from None
        self.requests.append(_Request(method, url, sent.status, sent.seconds))
        return {
            "method": method,
            "url": url,
            "response": {
                "ok": 200 <= sent.status < 300, "status": sent.status, "body": sent.body, "headers": sent.headers
            },
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


def _outcome(raw: object, where: str) -> tuple[str, dict[str, Any] | None]:
    """The script's value, or the request it is waiting for, from what `__tb_run` answered."""
    if isinstance(raw, str) and raw.startswith("V"):
        return raw[1:], None
    if isinstance(raw, str) and raw.startswith("P"):
        try:
            pending = json.loads(raw[1:])
        except ValueError:
            pending = None
        if (
            isinstance(pending, dict)
            and isinstance(pending.get("method"), str)
            and isinstance(pending.get("url"), str)
            and isinstance(pending.get("headers"), dict)
            and isinstance(pending.get("body"), str | None)
        ):
            return "", pending
    raise ScriptError(f"{where}: {_BROKEN}")


def _logs(raw: object, where: str) -> list[str]:
    try:
        lines = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        lines = None
    if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
        raise ScriptError(f"{where}: {_BROKEN}")
    return lines


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


def run_scripts(memory: Any) -> Scripts | None:
    """The `Scripts` of the run whose memory is `memory`, when one was made."""
    return _RUNS.get(memory)


def scripts_for(memory: Any, platform: str, folder: Path | None = None) -> tuple[Scripts, bool]:
    """The `Scripts` of the run whose memory is `memory` (made on first use), and whether it is new.
    `folder` is the trail's: its project may allow script hosts.

    Raises:
        UsageError: the project's `[tool.trailblaze] script_hosts` is not a list of host names.
    """
    found = _RUNS.get(memory)
    if found is not None:
        return found, False
    raw = os.environ.get(SEED_ENV, "").strip()
    seed = int(raw) if raw.isdigit() else random.SystemRandom().randrange(1, 2**31)
    made = Scripts(seed=seed, platform=platform, hosts=project_hosts(folder), flags=getattr(memory, "flags", CLI))
    _RUNS[memory] = made
    return made, True
