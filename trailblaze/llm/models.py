"""Model choice: `--model PROVIDER:MODEL` parsed, and the `LLMClient` built for it.

`anthropic:claude-sonnet-5`, `bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0`,
`vertex:claude-sonnet-4-5@20250929`, `openai:gpt-4.1`, `openai:qwen2.5vl:7b`. Only the first colon
separates the provider, so model ids may contain colons. A bare model name means Anthropic. The
choice is `--model`, else `TRAILBLAZE_MODEL`, else `anthropic:` + the default Sonnet.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from trailblaze.common.flags import CLI, Flags
from trailblaze.errors import UsageError
from trailblaze.llm.client import LLMClient
from trailblaze.llm.pricing import PROVIDERS

__all__ = ["DEFAULT_MODEL_SPEC", "ModelSpec", "build_llm", "parse_model", "resolve_model"]

DEFAULT_MODEL_SPEC = "anthropic:claude-sonnet-5"
"""What is used with no `--model` and no `TRAILBLAZE_MODEL` (`trailblaze.llm.anthropic.DEFAULT_MODEL`)."""

_EXAMPLE = "anthropic:claude-sonnet-5, bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0, openai:gpt-4.1"


@dataclass(frozen=True)
class ModelSpec:
    """A provider and a model id as that provider names it."""

    provider: str
    model: str

    def __str__(self) -> str:
        return f"{self.provider}:{self.model}"


def parse_model(text: str, *, where: str = "--model") -> ModelSpec:
    """`PROVIDER:MODEL` (or a bare Anthropic model name) as a `ModelSpec`.

    Raises:
        UsageError: an unknown provider or an empty model, naming `where` the text came from.
    """
    value = text.strip()
    head, sep, rest = value.partition(":")
    if not sep:
        if value in PROVIDERS:
            raise UsageError(
                f"{where} `{value}` names a provider but no model; use {value}:MODEL (e.g. {_EXAMPLE})"
            )
        if not value:
            raise UsageError(f"{where} is empty; use PROVIDER:MODEL (e.g. {_EXAMPLE})")
        return ModelSpec("anthropic", value)
    if head not in PROVIDERS:
        raise UsageError(
            f"{where} `{value}`: unknown provider `{head}`; use one of {', '.join(PROVIDERS)} as PROVIDER:MODEL "
            f"(e.g. {_EXAMPLE})"
        )
    if not rest.strip():
        raise UsageError(f"{where} `{value}` has no model after `{head}:`; e.g. {_EXAMPLE}")
    return ModelSpec(head, rest.strip())


def resolve_model(model: str | None) -> ModelSpec:
    """The model to use: `model` (from `--model`), else `TRAILBLAZE_MODEL`, else the default."""
    if model:
        return parse_model(model)
    env = os.environ.get("TRAILBLAZE_MODEL", "").strip()
    if env:
        return parse_model(env, where="TRAILBLAZE_MODEL")
    return parse_model(DEFAULT_MODEL_SPEC)


def build_llm(
    spec: ModelSpec,
    *,
    base_url: str | None = None,
    timeout: float | None = None,
    retries: int | None = None,
    flags: Flags = CLI,
) -> LLMClient:
    """The client for `spec`; `None` options keep the adapter's defaults (30 s, 2 retries). Its
    errors name the options of the front end that builds it (`flags`: `--llm-timeout` or
    `--trailblaze-llm-timeout`).

    Raises:
        UsageError: the provider's optional package is missing (`pip install 'trailblaze[openai]'`).
        LLMAuthError: no credential for a non-local endpoint.
    """
    limits: dict[str, Any] = {
        k: v for k, v in (("timeout", timeout), ("max_retries", retries)) if v is not None
    }
    limits["flags"] = flags
    if spec.provider == "openai":
        from trailblaze.llm.openai import OpenAILLM

        return OpenAILLM(spec.model, base_url=base_url, **limits)
    from trailblaze.llm.anthropic import AnthropicLLM, BedrockLLM, VertexLLM

    if spec.provider == "bedrock":
        return BedrockLLM(spec.model, base_url=base_url, **limits)
    if spec.provider == "vertex":
        return VertexLLM(spec.model, base_url=base_url, **limits)
    return AnthropicLLM(spec.model, base_url=base_url, **limits)
