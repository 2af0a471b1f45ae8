"""A scripted "model" for the TodoMVC web trail, for `FakeMessagesAPI`.

It reads each agent request as a model would (the objective, this step's calls so far and the
compact view of the page) and answers with the next tool call, finding every element by reading
the screen text — never by a hard-coded ref. The last action goes out with `objectiveStatus
COMPLETED`; a verify objective is answered with its assertions at once.
"""

from __future__ import annotations

import re
from typing import Any

from trailblaze.testing.demo_policy import Element
from trailblaze.testing.demo_policy import _read as read_request
from trailblaze.testing.messages_api import Reply

__all__ = ["todomvc_policy"]

_ACTIONS = ("tap", "inputText", "pressKey")
_NEW_TODO = "What needs to be done?"
_SYNONYMS = {"Active": ("Open",)}
"""What a model would also accept for a label it was told (an app renames its "Active" filter)."""


def _call(name: str, **args: Any) -> dict[str, Any]:
    return {"type": "tool_use", "name": name, "input": args}


def _status(status: str, explanation: str) -> dict[str, Any]:
    return _call("objectiveStatus", status=status, explanation=explanation)


def _find(screen: list[Element], cls: str, label: str) -> Element | None:
    return next((e for e in screen if e.cls == cls and e.label == label), None)


def _checkbox_of(screen: list[Element], label: str) -> Element | None:
    """The checkbox on the row of the todo `label` (it comes just before the label)."""
    box = None
    for element in screen:
        if element.cls == "checkbox":
            box = element
        elif element.label == label:
            return box
    return None


def _plan(objective: str) -> list[tuple[str, str]]:
    quoted = re.findall(r'"([^"]+)"', objective)
    low = objective.lower()
    if low.startswith("add the todos"):
        return [step for q in quoted for step in (("field", _NEW_TODO), ("type", q), ("key", "ENTER"))]
    if low.startswith("mark") and quoted:
        return [("complete", quoted[0])]
    if "active" in low:
        return [("link", "Active")]
    return []


def _act(what: str, arg: str, screen: list[Element]) -> dict[str, Any] | None:
    if what == "type":
        return _call("inputText", text=arg)
    if what == "key":
        return _call("pressKey", keyCode=arg)
    element = {
        "field": lambda: _find(screen, "textbox", arg),
        "link": lambda: next(
            (e for name in (arg, *_SYNONYMS.get(arg, ())) if (e := _find(screen, "link", name))), None
        ),
        "complete": lambda: _checkbox_of(screen, arg),
    }[what]()
    return None if element is None else _call("tap", ref=element.ref, reasoning=f"{what} {arg}")


def todomvc_policy(body: dict[str, Any]) -> Reply | None:
    """The next answer for a request of the trailblaze agent on the TodoMVC app."""
    req = read_request(body)
    if not req.objective:
        return None
    if req.verify:
        calls = []
        for text in re.findall(r'"([^"]+)"', req.objective):
            element = next((e for e in req.screen if e.label == text), None)
            if element is None:
                return {"content": [_status("FAILED", f"{text!r} is not on the page")]}
            calls.append(_call("assertVisible", ref=element.ref, reasoning=f"{text} is shown"))
        return {"content": [*calls, _status("COMPLETED", req.objective)]}
    plan = _plan(req.objective)
    done = sum(1 for name, _, ok in req.history if ok and name in _ACTIONS)
    if not plan:
        return {"content": [_status("FAILED", "objective not understood: " + req.objective)]}
    if done >= len(plan):
        return {"content": [_status("COMPLETED", req.objective)]}
    call = _act(*plan[done], req.screen)
    if call is None:
        return {"content": [_status("FAILED", f"cannot find {plan[done][1]!r} on the page")]}
    content = [call]
    if done == len(plan) - 1:
        content.append(_status("COMPLETED", req.objective))
    return {"content": content}
