"""A replay that reaches a step with no recording for the device, and no model to solve it.

The agent would solve such a step (ADR 0001), but with no API key configured it cannot: that is not
the infrastructure failing (exit 3), it is a trail not recorded for this device, fixed by recording
it or by configuring a model (exit 2).
"""

from __future__ import annotations

from trailblaze.common.flags import Flags
from trailblaze.errors import UsageError
from trailblaze.llm.client import LLMAuthError

__all__ = ["no_model_error"]


def no_model_error(why: str, file: str, spec: str, missing: LLMAuthError, flags: Flags) -> UsageError:
    """`FILE step 1 has no ios recording, and no model is configured to solve it (…); record it: …`.

    `why` says which step needs the agent, `missing` is the error building the model's client raised
    (`no API key for URL: set ANTHROPIC_API_KEY …`): its fix is the second way out.
    """
    head, _, fix = missing.message.partition(": ")
    key = f"pass a key: {fix}" if fix else "configure a model"
    if flags.model:
        key += f" (another provider: {flags.model})"
    return UsageError(
        f"{why}, and no model is configured to solve it ({head}); "
        f"record it: {flags.record_trail(file, spec)}, or {key}"
    )
