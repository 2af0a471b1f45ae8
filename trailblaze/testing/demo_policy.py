"""A scripted "model" that solves the demo app's example trails, for `FakeMessagesAPI`.

`demo_policy(body)` reads a Messages API request the way a model would: the objective, the tools it
was offered, the tool calls already made in this step (with their results) and the current view
hierarchy. It turns the objective into a short plan (launch, tap a field, type, tap a button, …),
finds every element by reading the screen text in the request — never by a hard-coded ref — and
answers with the next tool call. The last action of a plan goes out together with
`objectiveStatus COMPLETED`; a verify objective is answered with all of its assertions plus
`objectiveStatus` at once. Tests and benchmarks use it to drive `trailblaze record` end to end:

```python
with FakeMessagesAPI(policy=demo_policy) as api:
    ...  # ANTHROPIC_BASE_URL=api.url trailblaze record trails/login.trail.yaml --device sim:android
```
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from trailblaze.llm.pricing import DEMO_MODEL, DEMO_PROVIDER
from trailblaze.llm.prompts import OBJECTIVE_HEADER, SCREEN_HEADER
from trailblaze.testing._llm import FunctionLLM
from trailblaze.testing.messages_api import Reply

__all__ = [
    "DEMO_APP_ID",
    "PHRASINGS",
    "demo_llm",
    "demo_policy",
    "demo_policy_unlabelled",
    "not_understood",
    "parse_screen",
]

DEMO_APP_ID = "dev.trailblaze.demo"
_LINE = re.compile(r'^(?P<indent>\s*)\[(?P<ref>[a-z0-9]+)\] (?P<cls>\S+)(?: "(?P<label>[^"]*)")?(?P<notes>.*)$')
_FIELDS = ("EditText", "TextField", "SecureTextField", "SearchField", "AutoCompleteTextView", "TextView")
_ACTIONS = ("tap", "inputText", "eraseText", "launchApp", "pressBack", "pressKey", "swipe", "demo_signIn", "demo_openTab")
"""Calls that advance the plan (hideKeyboard, scrolling and waiting only uncover things)."""
_RECORDED_ACTIONS = ("demo_signIn", "demo_openTab", "launchApp", "tapOnElementBySelector", "tapOnPoint", "inputText", "eraseText", "pressBack",
                     "pressKey", "swipe", "tapOnElementWithText", "tapOnElementWithAccessibilityText")
_SYNONYMS = {"sign in": ("log in", "login"), "log in": ("sign in",)}
"""What a model would also accept for a label it was told (an app renames "Sign in" to "Log in")."""
_SPLIT = re.compile(r'\s*(?:,\s*)?\b(?:and then|then|and)\b\s+(?=(?:[^"]*"[^"]*")*[^"]*$)', re.IGNORECASE)


@dataclass(frozen=True)
class Element:
    """One line of the compact view."""

    ref: str
    cls: str
    label: str
    notes: str

    @property
    def is_field(self) -> bool:
        return self.cls in _FIELDS and (self.cls != "TextView" or "[focused]" in self.notes or "hint=" in self.notes)

    @property
    def hint(self) -> str:
        m = re.search(r'hint="([^"]*)"', self.notes)
        return m.group(1) if m else ""


def parse_screen(text: str) -> list[Element]:
    """The elements of a compact view (lines without a ref are skipped)."""
    out = []
    for line in text.splitlines():
        m = _LINE.match(line)
        if m:
            out.append(Element(m["ref"], m["cls"], m["label"] or "", m["notes"]))
    return out


# --- reading the request --------------------------------------------------------------------------


def _texts(message: dict[str, Any]) -> list[str]:
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    return [b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text"]


@dataclass
class _Request:
    objective: str
    verify: bool
    seeded: int
    """Device actions a self-healing replay already ran in this step (the objective's heal note)."""
    screen: list[Element]
    screen_text: str
    history: list[tuple[str, dict[str, Any], bool]]
    """(tool name, input, succeeded) of this step's calls, oldest first."""
    offered: frozenset[str] = frozenset()
    """The tools of the request: the demo's own tools (trails/tools/) are used when offered."""


def _read(body: dict[str, Any]) -> _Request:
    messages = body["messages"]
    objective, screen, note = "", "", ""
    for message in messages:
        for text in _texts(message):
            if text.startswith(OBJECTIVE_HEADER):
                objective = text.split("\n", 2)[-1].split(": ", 1)[-1].strip()
                objective, _, note = objective.partition("\n\n")  # a self-heal note follows the step
            if text.startswith(SCREEN_HEADER):
                screen = text[len(SCREEN_HEADER) :]
    results: dict[str, bool] = {}
    for message in messages:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result":
                results[block["tool_use_id"]] = not block.get("is_error", False)
    history = [
        (b["name"], b["input"], results.get(b["id"], False))
        for m in messages
        if m["role"] == "assistant"
        for b in m["content"]
        if b.get("type") == "tool_use"
    ]
    tools = {t["name"] for t in body.get("tools", [])}
    seeded = sum(1 for m in re.finditer(r"^\d+\. (\w+)", note, re.MULTILINE) if m[1] in _RECORDED_ACTIONS)
    return _Request(objective, "tap" not in tools, seeded, parse_screen(screen), screen, history, frozenset(tools))


# --- planning -------------------------------------------------------------------------------------

Plan = list[tuple[str, str]]
"""(what, argument): launch / field / type / erase / tap / switch-on / switch-off, and with the demo's
own tools offered: signin ("email\\tpassword") / tab."""


PHRASINGS = (
    "Launch the demo app (a clean start; say \"keeping its data\" for FORCE_RESTART, \"resume\" for RESUME)",
    "Sign in as EMAIL with PASSWORD (PASSWORD may be \"the password from the secret `NAME`\")",
    'Type TEXT into the "FIELD" field',
    'Clear the "FIELD" field',
    "Type TEXT (into the focused field)",
    'Leave the "FIELD" field empty',
    'Tap / Open / Press / Select "LABEL" (optionally followed by button, tab, link or icon)',
    'Turn on / Turn off the "LABEL" switch',
    "Confirm signing out",
    'verify: a sentence quoting what must be shown, e.g. The snackbar "Message archived" is visible',
)
"""What the demo model understands: clauses joined by "and", "then" or a comma. Listed in its
failures and in docs/guides/recording.md (`trailblaze sim llm`)."""


def not_understood(clause: str) -> str:
    """The FAILED explanation for a step (part) outside `PHRASINGS`."""
    return (
        f"{DEMO_PROVIDER} model: cannot do {clause!r} (a scripted stand-in, not a real model); "
        f"the demo model understands these phrasings: {'; '.join(PHRASINGS)}"
    )


def _value(raw: str) -> str:
    raw = raw.strip()
    secret = re.search(r"secret `(\w+)`", raw)
    if secret:
        return "{{" + secret.group(1) + "}}"
    return raw.strip('"')


def _launch_mode(clause: str) -> str:
    """The launchMode the step asks for; "" leaves it to the tool's default (a clean start)."""
    if "resume" in clause:
        return "RESUME"
    if re.search(r"\b(keep|keeping|without clearing)\b", clause):
        return "FORCE_RESTART"
    return ""


def _plan(objective: str, offered: frozenset[str] = frozenset()) -> Plan | str:
    """The step as a plan, or the first clause the demo model does not understand."""
    plan: Plan = []
    for clause in _SPLIT.split(objective.rstrip(".")):
        c = clause.strip()
        low = c.lower()
        if not c:
            continue
        if m := re.match(r"launch the (?:demo )?app", low):
            plan.append(("launch", _launch_mode(low)))
        elif (m := re.match(r"sign in as (\S+) with (.+)", c, re.IGNORECASE)) and "demo_signIn" in offered:
            plan.append(("signin", f"{m[1]}\t{_value(m[2])}"))
        elif (m := re.match(r'open the "?(.+?)"? tab', c, re.IGNORECASE)) and "demo_openTab" in offered:
            plan.append(("tab", m[1]))
        elif m := re.match(r"sign in as (\S+) with (.+)", c, re.IGNORECASE):
            plan += [("field", "Email"), ("type", m[1]), ("field", "Password"), ("type", _value(m[2])), ("tap", "Sign in")]
        elif m := re.match(r"type (.+?) into the (.+?) field", c, re.IGNORECASE):
            plan += [("field", m[2].strip('"')), ("type", _value(m[1]))]
        elif m := re.match(r"clear the (.+?) field", c, re.IGNORECASE):
            plan += [("field", m[1].strip('"')), ("erase", "")]
        elif re.match(r"leave the (.+?) field empty$", c, re.IGNORECASE):
            continue  # nothing to do
        elif m := re.match(r"type (.+)", c, re.IGNORECASE):
            plan.append(("type", _value(m[1])))
        elif m := re.match(r"confirm (?:signing|sign) out", c, re.IGNORECASE):
            # The dialog's own button: the covered one behind it is not in the compact view.
            plan.append(("tap", "Sign out"))
        elif m := re.match(r'turn (on|off) the "?(.+?)"? switch', c, re.IGNORECASE):
            plan.append((f"switch-{m[1].lower()}", m[2]))
        elif m := re.match(r'(?:tap|open|press|select)(?: the)? "?(.+?)"?(?: button| tab.*| link| icon)?$', c, re.IGNORECASE):
            plan.append(("tap", m[1]))
        else:
            return c
    return plan


def _find(screen: list[Element], label: str, *, field: bool = False, prefer_action: bool = True) -> Element | None:
    want = label.lower()
    candidates = [e for e in screen if e.label.lower() == want or e.hint.lower() == want]
    for other in () if candidates or field else _SYNONYMS.get(want, ()):
        candidates = candidates or [e for e in screen if e.label.lower() == other]
    if field:
        fields = [e for e in screen if e.is_field]
        exact = [e for e in candidates if e.is_field]
        loose = [e for e in fields if want in e.label.lower() or want in e.hint.lower()]
        found = exact or loose or ([e for e in fields if "[focused]" in e.notes] if want == "search" else [])
        return found[0] if found else None
    if prefer_action:
        acting = [e for e in candidates if not e.is_field and (e.cls not in ("TextView", "StaticText") or "[tap]" in e.notes)]
        candidates = acting or [e for e in candidates if not e.is_field] or candidates
    else:
        candidates = [e for e in candidates if not e.is_field] or candidates
    return candidates[0] if candidates else None


def _call(name: str, **args: Any) -> dict[str, Any]:
    return {"type": "tool_use", "name": name, "input": args}


def _status(status: str, explanation: str) -> dict[str, Any]:
    return _call("objectiveStatus", status=status, explanation=explanation)


def _loading(req: _Request) -> bool:
    # "Signing in…" is loading; the compact view's own "… 1 more below" is not
    return "ProgressBar" in req.screen_text or "ActivityIndicator" in req.screen_text or bool(re.search(r"\w…", req.screen_text))


def _act(item: tuple[str, str], req: _Request, last: bool) -> list[dict[str, Any]]:
    what, arg = item
    reasoning = f"next: {what} {arg}".strip()
    if what == "launch":  # like a model, it names a mode only when the step asks for one
        mode = {"launchMode": arg} if arg else {}
        return [_call("launchApp", appId=DEMO_APP_ID, **mode, reasoning=f"next: launch {arg or 'CLEAR_STATE'}")]
    if what == "type":
        return [_call("inputText", text=arg, reasoning=reasoning)]
    if what == "erase":
        return [_call("eraseText", reasoning=reasoning)]
    if what == "signin":
        email, password = arg.split("\t")
        return [_call("demo_signIn", email=email, password=password, reasoning="next: sign in")]
    if what == "tab":
        return [_call("demo_openTab", tab=arg, reasoning=f"next: open the {arg} tab")]
    element = _find(req.screen, arg, field=what == "field")
    if element is None:
        if _loading(req):
            return [_call("wait", timeToWaitInSeconds=1, reasoning="the app is loading")]
        if "[keyboard shown]" in req.screen_text and (not req.history or req.history[-1][0] != "hideKeyboard"):
            return [_call("hideKeyboard", reasoning=f"the keyboard may hide {arg!r}")]
        scrolled = req.history and req.history[-1][0] == "scrollUntilTextIsVisible"
        if "[scrollable]" in req.screen_text and not scrolled:
            return [_call("scrollUntilTextIsVisible", text=arg, direction="DOWN", reasoning=f"{arg} is not visible")]
        return [_status("FAILED", f"{DEMO_PROVIDER} model: cannot find {arg!r} on the screen")]
    if what.startswith("switch-"):
        on = "[checked]" in element.notes
        if on == (what == "switch-on"):
            return [_status("COMPLETED", f"{arg} is already {what[7:]}")] if last else []
    return [_call("tap", ref=element.ref, reasoning=reasoning)]


def _verify(req: _Request) -> list[dict[str, Any]]:
    objective = req.objective
    if any(not ok for name, _, ok in req.history if name != "objectiveStatus"):
        return [_status("FAILED", "an assertion failed: " + objective)]
    waits = sum(1 for name, args, _ in req.history if name == "objectiveStatus" and args.get("status") == "IN_PROGRESS")
    quoted = re.findall(r'"([^"]+)"', objective)
    negative = re.search(r"\b(no longer|not|never)\b", objective, re.IGNORECASE)
    calls: list[dict[str, Any]] = []
    if negative and quoted:
        calls = [_call("assertNotVisibleWithText", text=q, reasoning="must be gone") for q in quoted]
        return [*calls, _status("COMPLETED", objective)]
    # What the step names without quotes ("The Inbox is shown") is checked too, as a model would.
    unquoted = re.sub(r'"[^"]*"', " ", objective)
    named = [w for w in re.findall(r"\b([A-Z][a-z]+)\b", unquoted) if w not in ("The", "A", "An") and w not in quoted]
    targets = [*named, *quoted]
    for target in targets:
        element = _find(req.screen, target, prefer_action=False)
        if element is None:
            if (_loading(req) or not quoted) and waits < 5 and not calls:
                return [_status("IN_PROGRESS", f"waiting for {target!r}")]
            if target in quoted:
                return [_status("FAILED", f"{target!r} is not on the screen")]
            continue
        state = re.search(rf'"{re.escape(target)}" switch is (on|off)', objective)
        if state and ("[checked]" in element.notes) != (state[1] == "on"):
            return [_status("FAILED", f"{target} is not {state[1]}")]
        if state:  # a stated state is asserted as such; the switch's label is pinned with it
            calls.append(_call("assertState", ref=element.ref, checked=state[1] == "on", reasoning=f"{target} is {state[1]}"))
        elif quoted:  # the text the step quotes is the text the element must show
            calls.append(_call("assertVisible", ref=element.ref, expectedText=target, reasoning=f"{target} is shown"))
        else:
            calls.append(_call("assertVisible", ref=element.ref, reasoning=f"{target} is shown"))
    if not calls:
        return [_status("FAILED", "nothing to assert for: " + objective)]
    return [*calls, _status("COMPLETED", objective)]


def demo_policy(body: dict[str, Any]) -> Reply | None:
    """The next answer for a request of the trailblaze agent on the demo app (see module docstring)."""
    req = _read(body)
    if not req.objective:
        return None
    content = _verify(req) if req.verify else _next_action(req)
    return {"content": content, "model": DEMO_MODEL}  # labelled as what it is: no provider's model, no price


def demo_policy_unlabelled(body: dict[str, Any]) -> Reply | None:
    """`demo_policy` answering under the model name it was asked for: for tests that check how a
    provider's answers are labelled and priced (the stand-in for a real or local model's endpoint)."""
    reply = demo_policy(body)
    if isinstance(reply, dict):
        reply.pop("model", None)
    return reply


def _next_action(req: _Request) -> list[dict[str, Any]]:
    plan = _plan(req.objective, req.offered)
    if isinstance(plan, str) or not plan:  # never a COMPLETED for only part of the step
        return [_status("FAILED", not_understood(plan if isinstance(plan, str) else req.objective))]
    done = req.seeded + sum(1 for name, _, ok in req.history if ok and name in _ACTIONS)
    while done < len(plan):
        last = done == len(plan) - 1
        calls = _act(plan[done], req, last)
        if not calls:  # already in the wanted state: skip the item
            done += 1
            continue
        if last and calls[0]["name"] in _ACTIONS:
            calls.append(_status("COMPLETED", f"done: {req.objective}"))
        return calls
    return [_status("COMPLETED", f"done: {req.objective}")]


def demo_llm() -> FunctionLLM:
    """An in-process `LLMClient` answering with `demo_policy` (no HTTP; same request translation)."""
    import itertools

    from trailblaze.llm.anthropic import to_anthropic_params
    from trailblaze.llm.client import LLMRequest, LLMResponse, TextBlock, ToolUseBlock

    ids = itertools.count(1)

    def answer(request: LLMRequest) -> LLMResponse:
        reply = demo_policy(to_anthropic_params(request, DEMO_MODEL))
        assert isinstance(reply, dict), "demo_policy answers every agent request"
        blocks: list[TextBlock | ToolUseBlock] = [
            ToolUseBlock(id=f"toolu_demo_{next(ids):04d}", name=b["name"], input=b["input"])
            if b["type"] == "tool_use"
            else TextBlock(text=b["text"])
            for b in reply["content"]
        ]
        return LLMResponse(
            content=tuple(blocks), stop_reason="tool_use", model=DEMO_MODEL, provider=DEMO_PROVIDER, cost_usd=0.0
        )

    return FunctionLLM(answer, model=DEMO_MODEL)
