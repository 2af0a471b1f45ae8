"""One question about the current screen to the LLM, for the catalog tools that ask one on every run
(`rememberText`, `rememberNumber`, `rememberWithAi`, `assertWithAi`).

The model sees the screenshot and the compact view, and must answer through one forced tool, so the
answer is structured: `answer {value}` for the remember tools, `verdict {passed, explanation}` for
`assertWithAi`. Replay reports these tools as AI steps (`ToolResult.ai`).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trailblaze.common.images import image_media_type
from trailblaze.llm.client import ImageBlock, LLMRequest, Message, TextBlock, ToolSpec
from trailblaze.screen.compact import compact_view
from trailblaze.screen.mask import Unmaskable, mask_shown_secrets

if TYPE_CHECKING:
    from trailblaze.device.session import DeviceSession
    from trailblaze.llm.client import LLMClient

__all__ = ["ScreenAnswer", "ask_screen"]

_SYSTEM = (
    "You read a mobile app's screen for a UI test. Answer only from what the screenshot and the view "
    "hierarchy show; do not guess. Answer through the tool."
)
_ANSWER = ToolSpec(
    name="answer",
    description="The answer, exactly as shown on screen when it is a value from the screen.",
    input_schema={
        "type": "object",
        "properties": {"value": {"type": "string", "description": "The answer; empty if not on screen."}},
        "required": ["value"],
    },
)
_VERDICT = ToolSpec(
    name="verdict",
    description="Whether the statement holds for the current screen.",
    input_schema={
        "type": "object",
        "properties": {
            "passed": {"type": "boolean"},
            "explanation": {"type": "string", "description": "One sentence: what you saw."},
        },
        "required": ["passed", "explanation"],
    },
)


@dataclass(frozen=True)
class ScreenAnswer:
    value: str
    passed: bool
    explanation: str


def ask_screen(llm: LLMClient, session: DeviceSession, prompt: str, *, verdict: bool = False) -> ScreenAnswer:
    """Asks `prompt` about the settled screen; raises `LLMError` when the call fails."""
    hierarchy = session.settle()
    view = compact_view(hierarchy)
    # the device's bytes (JPEG from uiautomator2, PNG from WebDriverAgent), a shown secret blacked out;
    # a secret the mask cannot place sends the view's (redacted) text alone
    try:
        shot: bytes | None = mask_shown_secrets(session.screenshot(), hierarchy)
    except Unmaskable:
        shot = None
    picture = (
        [ImageBlock(media_type=image_media_type(shot), data_base64=base64.b64encode(shot).decode("ascii"))]
        if shot is not None
        else []
    )
    tool = _VERDICT if verdict else _ANSWER
    question = f"Is this true of the screen? {prompt}" if verdict else prompt
    request = LLMRequest(
        system=_SYSTEM,
        tools=(tool,),
        tool_choice=tool.name,
        messages=(
            Message.user(*picture, TextBlock(text=f"View hierarchy:\n{view.text}\n\n{question}")),
        ),
        max_tokens=512,
        metadata={"purpose": "catalog-" + tool.name},
    )
    response = llm.complete(request)
    uses = response.tool_uses
    data: dict[str, Any] = dict(uses[0].input) if uses else {}
    return ScreenAnswer(
        value=str(data.get("value", response.text if not uses else "")),
        passed=bool(data.get("passed", False)),
        explanation=str(data.get("explanation", "")),
    )
