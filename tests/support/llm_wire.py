"""The provider-neutral request whose wire forms are saved under tests/data/llm_wire/."""

from __future__ import annotations

from trailblaze.llm.client import (
    ImageBlock,
    LLMRequest,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
)

# A 1x1 JPEG is not needed: the fakes check base64, not pixels.
IMAGE_B64 = "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHR8eHR0a"


def example_request() -> LLMRequest:
    """A second agent turn: system prompt, two tools, a failed tap answered with is_error, a screenshot."""
    tap = ToolSpec(
        name="tap",
        description="Tap the element with this ref.",
        input_schema={"type": "object", "properties": {"ref": {"type": "string"}}, "required": ["ref"]},
    )
    status = ToolSpec(
        name="objectiveStatus",
        description="Report the objective as COMPLETED or FAILED.",
        input_schema={
            "type": "object",
            "properties": {"status": {"enum": ["COMPLETED", "FAILED"]}, "explanation": {"type": "string"}},
            "required": ["status"],
        },
    )
    return LLMRequest(
        system=(TextBlock(text="You drive a phone app."), TextBlock(text="Device: sim android.", cache=True)),
        tools=(tap, status),
        messages=(
            Message.user("Objective: tap Sign in"),
            Message.assistant(
                TextBlock(text="Tapping it."), ToolUseBlock(id="toolu_01", name="tap", input={"ref": "a7"})
            ),
            Message.user(
                ToolResultBlock(tool_use_id="toolu_01", content="NOT_FOUND: no element a7", is_error=True),
                TextBlock(text='Screen:\n[b2] Button "Sign in"'),
                ImageBlock(media_type="image/jpeg", data_base64=IMAGE_B64),
            ),
        ),
        tool_choice="any",
        max_tokens=512,
    )
