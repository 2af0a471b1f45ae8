"""W3C actions (`POST /session/:id/actions`) as appium-uiautomator2-server 10.x reads them, turned into
the gestures the simulated phone performs.

The server tokenizes each input source on its own timeline (a source's `pause` and `pointerMove`
durations add up; other sources do not wait for it; durations round up to its 20 ms injection
step) and injects the resulting motion and key events in real time. Pointer coordinates are pixels,
relative to the viewport, to the pointer's previous position (`origin: "pointer"`) or to an
element's centre (`origin: {element-6066-…: id}`); the first `pointerMove` must be absolute.

A finger that goes down and comes up again within the touch slop (8 dp) is a tap, or a long press
when it stayed down for Android's long-press timeout (400 ms) or more; one that travelled further is
a swipe over the time it was down. Two fingers down at once are a pinch (or a pan when their
distance did not change). Keys type their character; WebDriver's special keys (Enter, Backspace,
Tab, arrows, …) press the matching Android key code.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["ActionsError", "Gesture", "plan_actions"]

_STEP_MS = 20
_LONG_PRESS_MS = 400
_TOUCH_SLOP_DP = 8
_ELEMENT_KEYS = ("element-6066-11e4-a52e-4f735466cecf", "ELEMENT")
# WebDriver's special keys (U+E000 block) → Android KEYCODE_*
_SPECIAL_KEYS: dict[str, int] = {
    "\ue003": 67, "\ue004": 61, "\ue006": 66, "\ue007": 66, "\ue00c": 111, "\ue00d": 62,
    "\ue00e": 92, "\ue00f": 93, "\ue010": 123, "\ue011": 122, "\ue012": 21, "\ue013": 19,
    "\ue014": 22, "\ue015": 20, "\ue017": 112,
}  # fmt: skip
_MODIFIERS = frozenset("\ue008\ue009\ue00a\ue03d\ue050\ue051\ue052\ue053")


class ActionsError(Exception):
    """An invalid actions chain (the server's `ActionsParseException`: `invalid argument`)."""


@dataclass(frozen=True)
class Gesture:
    """One thing to do on the phone, at `at_ms` on the actions' timeline.

    kind: `tap`, `long_press`, `swipe`, `pinch`, `keycode` or `text`. Points are pixels."""

    kind: str
    at_ms: int
    points: tuple[tuple[float, float], ...] = ()
    duration_ms: int = 0
    keycode: int = 0
    text: str = ""


def _align(ms: int) -> int:
    if ms <= 0:
        return 0
    return max(_STEP_MS, math.ceil(ms / _STEP_MS) * _STEP_MS)


def _duration(item: dict[str, Any], source_id: str) -> int:
    value = item.get("duration")
    if value is None:
        raise ActionsError(
            f"Missing duration key for action item '{item.get('type')}' of action with id '{source_id}'"
        )
    if not isinstance(value, (int, float)) or value < 0:
        raise ActionsError(
            f"duration key cannot be negative for action item '{item.get('type')}' of action with id '{source_id}'"
        )
    return _align(int(value))


@dataclass
class _Stroke:
    down_ms: int
    up_ms: int
    path: list[tuple[float, float]]


def plan_actions(
    actions: Any, element_center: Callable[[str], tuple[float, float]], density: float
) -> list[Gesture]:
    """The gestures an actions payload performs, in time order.

    Args:
        actions: The `actions` list of the request body.
        element_center: The centre (pixels) of a cached element, for `origin: element`.
        density: Pixels per dp (the touch slop is in dp).
    Raises:
        ActionsError: The chain is malformed.
    """
    if not isinstance(actions, list):
        raise ActionsError("'actions' must be a list of input sources")
    gestures: list[Gesture] = []
    strokes: list[_Stroke] = []
    for source in actions:
        if not isinstance(source, dict) or not isinstance(source.get("actions"), list):
            raise ActionsError(f"Invalid input source {source!r}")
        kind = source.get("type")
        sid = str(source.get("id", ""))
        if kind == "pointer":
            strokes += _pointer_strokes(source["actions"], sid, element_center)
        elif kind == "key":
            gestures += _key_gestures(source["actions"], sid)
        elif kind == "none":
            for item in source["actions"]:
                if not isinstance(item, dict) or item.get("type") != "pause":
                    raise ActionsError(f"Unexpected action item type '{item}' in action with id '{sid}'")
                _duration(item, sid)
        else:
            raise ActionsError(f"Unknown action type '{kind}' of action with id '{sid}'")
    gestures += _stroke_gestures(strokes, _TOUCH_SLOP_DP * density)
    return sorted(gestures, key=lambda g: g.at_ms)


def _key_gestures(items: list[Any], sid: str) -> list[Gesture]:
    out: list[Gesture] = []
    t = 0
    for item in items:
        kind = item.get("type") if isinstance(item, dict) else None
        if kind == "pause":
            t += _duration(item, sid)
        elif kind in ("keyDown", "keyUp"):
            value = item.get("value")
            if not isinstance(value, str) or not value:
                raise ActionsError(
                    f"value key cannot be empty for action item '{kind}' of action with id '{sid}'"
                )
            ch = value[0]
            if kind == "keyUp" or ch in _MODIFIERS:
                continue
            if ch in _SPECIAL_KEYS:
                out.append(Gesture("keycode", t, keycode=_SPECIAL_KEYS[ch]))
            elif not "\ue000" <= ch <= "\uf8ff":
                out.append(Gesture("text", t, text=ch))
        else:
            raise ActionsError(f"Unexpected action item type '{kind}' in action with id '{sid}'")
    return out


def _pointer_strokes(
    items: list[Any], sid: str, element_center: Callable[[str], tuple[float, float]]
) -> list[_Stroke]:
    strokes: list[_Stroke] = []
    t = 0
    pos: tuple[float, float] | None = None
    current: _Stroke | None = None
    for index, item in enumerate(items):
        kind = item.get("type") if isinstance(item, dict) else None
        if kind == "pause":
            t += _duration(item, sid)
        elif kind == "pointerMove":
            target = _target(item, pos, sid, index, element_center)
            t += _duration(item, sid)
            pos = target
            if current is not None:
                current.path.append(target)
        elif kind == "pointerDown":
            if current is not None:
                raise ActionsError(
                    f"You cannot perform two or more 'pointerDown' actions without a pause between them at {t}ms in '{sid}' chain"
                )
            if pos is None:
                raise ActionsError(
                    f"Action item 'pointerDown' #{index + 1} of the action '{sid}' should be preceded with at "
                    "least one item having absolute coordinates"
                )
            current = _Stroke(t, t, [pos])
        elif kind in ("pointerUp", "pointerCancel"):
            if current is not None:
                current.up_ms = t
                strokes.append(current)
                current = None
        else:
            raise ActionsError(f"Unexpected action item type '{kind}' in action with id '{sid}'")
    if current is not None:  # never released: the server lifts the finger at the chain's end
        current.up_ms = t
        strokes.append(current)
    return strokes


def _target(
    item: dict[str, Any],
    pos: tuple[float, float] | None,
    sid: str,
    index: int,
    element_center: Callable[[str], tuple[float, float]],
) -> tuple[float, float]:
    origin = item.get("origin", "viewport")
    x, y = item.get("x"), item.get("y")
    if origin == "viewport":
        if not isinstance(x, (int, float)) or not isinstance(y, (int, float)):
            raise ActionsError(
                f"Both coordinates must be be set for action item 'pointerMove' #{index + 1} of action '{sid}'"
            )
        return (float(x), float(y))
    dx = float(x) if isinstance(x, (int, float)) else 0.0
    dy = float(y) if isinstance(y, (int, float)) else 0.0
    if origin == "pointer":
        if pos is None:
            raise ActionsError(
                f"Action item 'pointerMove' #{index + 1} of action '{sid}' should be preceded with at least one "
                "item containing absolute coordinates"
            )
        return (pos[0] + dx, pos[1] + dy)
    element_id = origin if isinstance(origin, str) else None
    if isinstance(origin, dict):
        element_id = next((str(origin[k]) for k in _ELEMENT_KEYS if k in origin), None)
    if element_id is None:
        raise ActionsError(
            f"An unknown element '{origin}' is set for action item 'pointerMove' of action '{sid}'"
        )
    cx, cy = element_center(element_id)
    return (cx + dx, cy + dy)


def _stroke_gestures(strokes: list[_Stroke], slop: float) -> list[Gesture]:
    out: list[Gesture] = []
    strokes = sorted(strokes, key=lambda s: s.down_ms)
    used: set[int] = set()
    for i, stroke in enumerate(strokes):
        if i in used:
            continue
        partner = next(
            (j for j in range(i + 1, len(strokes)) if j not in used and strokes[j].down_ms < stroke.up_ms),
            None,
        )
        if partner is not None:
            used.add(partner)
            other = strokes[partner]
            out.append(
                Gesture(
                    "pinch",
                    stroke.down_ms,
                    (stroke.path[0], other.path[0], stroke.path[-1], other.path[-1]),
                    max(stroke.up_ms, other.up_ms) - stroke.down_ms,
                )
            )
            continue
        start = stroke.path[0]
        held = stroke.up_ms - stroke.down_ms
        if all(math.dist(start, p) <= slop for p in stroke.path):
            kind = "long_press" if held >= _LONG_PRESS_MS else "tap"
            out.append(Gesture(kind, stroke.down_ms, (start,), held))
        else:
            out.append(Gesture("swipe", stroke.down_ms, (start, stroke.path[-1]), max(held, _STEP_MS)))
    return out
