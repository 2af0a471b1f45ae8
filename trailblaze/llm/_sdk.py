"""What every model adapter on a Stainless-generated SDK (`anthropic`, `openai`) shares.

The adapters differ only in the wire format: how an `LLMRequest` becomes the SDK's keyword
arguments and how the SDK's answer becomes an `LLMResponse`. Everything around that is one code
path here, so every provider fails the same way: the safety switch first, secrets scrubbed from
the outgoing body, the SDK's own retries with backoff on 408/409/429/5xx (`max_retries`,
`timeout`), every SDK exception translated into the `LLMError` family with a one-line message
naming the endpoint (never the credential), and a 200 answer of the wrong shape reported as a
malformed answer (exit 3).
"""

from __future__ import annotations

import json
import time
from types import ModuleType
from typing import Any, ClassVar, Self

from trailblaze.common.flags import CLI, Flags
from trailblaze.common.redact import scrub, scrub_value
from trailblaze.errors import LLMError
from trailblaze.llm import pricing
from trailblaze.llm.client import (
    LLMAuthError,
    LLMBadRequestError,
    LLMConnectionError,
    LLMRateLimitError,
    LLMRequest,
    LLMResponse,
    LLMTimeoutError,
    check_allow_llm_requests,
    record_exchange,
    redact,
)

__all__ = ["DEFAULT_RETRIES", "DEFAULT_TIMEOUT", "LOCAL_PLACEHOLDER_KEY", "SDKLLM"]

DEFAULT_TIMEOUT = 30.0
"""Seconds one attempt may take (`--llm-timeout`). A step's model call answers in ~2-15 s."""

DEFAULT_RETRIES = 2
"""Retries after a failed attempt (`--llm-retries`). With the SDK's backoff (0.5 s, then 1 s) a dead
endpoint costs at most 3 x 30 s + 1.5 s = 91.5 s, not the SDK's 5 x 60 s (ADR 0019)."""

LOCAL_PLACEHOLDER_KEY = "trailblaze-local-no-key"
"""Sent when no key is configured and the base URL is loopback (a local fake, proxy or model server)."""



def _how_to_wait_longer(flags: Flags) -> str:
    # a front end with no such options (MCP builds no model) still gets the CLI's spelling
    timeout, retries = flags.llm_timeout or CLI.llm_timeout, flags.llm_retries or CLI.llm_retries
    return f"raise {timeout} or {retries}, or check the endpoint"


# What a 200 answer that is not the expected shape raises while it is read.
_SHAPE_ERRORS = (AttributeError, KeyError, TypeError, ValueError, IndexError)


class SDKLLM:
    """Base of the SDK adapters: `complete()` and failure handling; subclasses own the wire format.

    Subclasses set `model`, `base_url`, `timeout`, `max_retries` and `_secrets` in `__init__`, and
    implement `_params`, `_send`, `_response` and `_sdk`.
    """

    provider: ClassVar[str]
    """`anthropic`, `bedrock`, `vertex` or `openai`: names the price table and the report's model."""
    wire_format: ClassVar[str]
    """What a good answer is, for the malformed-answer message (`a Messages API message`)."""
    base_url_hint: ClassVar[str]
    """Where the endpoint is configured, for connection errors; `{flag}` is the front end's base-URL option."""
    credential_hint: ClassVar[str]
    """Where the credential is configured, for 401/403."""

    model: str
    base_url: str
    timeout: float
    max_retries: int
    _secrets: tuple[str, ...] = ()
    flags: Flags = CLI
    """How the front end that built this client spells the options its errors name (`build_llm`'s)."""
    _client: Any
    """The SDK client (`anthropic.Anthropic`, `openai.OpenAI`, ...)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()

    # --- the wire format (subclasses) ------------------------------------------------------------

    def _params(self, request: LLMRequest, model: str) -> dict[str, Any]:
        raise NotImplementedError

    def _send(self, params: dict[str, Any]) -> Any:
        raise NotImplementedError

    def _response(self, answer: Any, model: str) -> LLMResponse:
        """The answer as an `LLMResponse` (cost and duration are filled in by `complete`)."""
        raise NotImplementedError

    def _sdk(self) -> tuple[ModuleType, type[Exception]]:
        """The SDK module whose exception classes `_send` raises, and the root of those classes."""
        raise NotImplementedError

    def _credential_errors(self) -> tuple[type[Exception], ...]:
        """What the SDK's credential lookup raises while sending (none for a plain API key)."""
        return ()

    # --- shared ----------------------------------------------------------------------------------

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r})"

    @property
    def label(self) -> str:
        """`provider:model`, as `--model` takes it and the report shows it."""
        return f"{self.provider}:{self.model}"

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Send `request` and translate the answer; the SDK retries transient failures.

        Raises:
            LLMRequestsBlocked: `ALLOW_LLM_REQUESTS` forbids requests to this base URL.
            LLMError: (or a subclass) the call failed for good, or the answer was malformed.
        """
        check_allow_llm_requests(self.base_url)
        model = request.model or self.model
        params = scrub_value(self._params(request, model))  # secrets never leave, whoever built the request
        sdk, sdk_error = self._sdk()
        started = time.monotonic()
        try:
            answer = self._send(params)
        except sdk_error as exc:
            error = self._clean(_translate(exc, sdk, self))
            record_exchange(request, None, error)
            raise error from exc
        except json.JSONDecodeError as exc:  # the SDKs hand a body that is not JSON through as is
            error = self._malformed(exc)
            record_exchange(request, None, error)
            raise error from exc
        except self._credential_errors() as exc:  # boto3 / google-auth resolving credentials
            error = self._clean(
                LLMAuthError(
                    f"no {self.provider} credentials for model endpoint {self.base_url} "
                    f"({type(exc).__name__}: {exc}); check {self.credential_hint}"
                )
            )
            record_exchange(request, None, error)
            raise error from exc
        try:
            response = self._response(answer, model)
        except _SHAPE_ERRORS as exc:  # JSON, but not the wire format's answer
            error = self._malformed(exc)
            record_exchange(request, None, error)
            raise error from exc
        provider = pricing.answered_by(self.provider, response.model)  # the demo stand-in says what it is
        response = response.model_copy(
            update={
                "provider": provider,
                "cost_usd": pricing.cost_usd(response.model, response.usage, provider=provider),
                "duration_s": time.monotonic() - started,
            }
        )
        record_exchange(request, response)
        return response

    def _malformed(self, exc: Exception) -> LLMError:
        """A 200 answer that is not the wire format's answer: truncated, or another service's."""
        detail = " ".join(str(redact(f"{type(exc).__name__}: {exc}", self._secrets)).split())
        if len(detail) > 120:
            detail = detail[:119] + "…"
        return LLMError(
            f"malformed answer from model endpoint {self.base_url} (not {self.wire_format}: {detail}); "
            f"check that {self.endpoint_hint()} points at the right API and that no proxy cuts answers short"
        )

    def endpoint_hint(self) -> str:
        """`ANTHROPIC_BASE_URL` (or --llm-base-url): where the endpoint is set, in the front end's options."""
        return self.base_url_hint.format(flag=self.flags.llm_base_url or CLI.llm_base_url)

    def _clean(self, error: LLMError) -> LLMError:
        error.message = " ".join(scrub(str(redact(error.message, self._secrets))).split())
        error.args = (error.message,)
        return error


def _translate(exc: Exception, sdk: ModuleType, llm: SDKLLM) -> LLMError:
    """Map an SDK exception to our tree; the most specific class first (both SDKs share the names)."""
    base_url, timeout = llm.base_url, llm.timeout
    retries = _retries_taken(exc)
    after = f" after {retries} retr{'y' if retries == 1 else 'ies'}" if retries else ""
    if isinstance(exc, sdk.APITimeoutError):
        return LLMTimeoutError(
            f"model endpoint {base_url} timed out (no answer within {timeout:g} s){after}; "
            f"{_how_to_wait_longer(llm.flags)}"
        )
    if isinstance(exc, sdk.APIConnectionError):
        cause = exc.__cause__
        detail = f"{type(cause).__name__}: {cause}" if cause else getattr(exc, "message", str(exc))
        return LLMConnectionError(
            f"cannot reach model endpoint {base_url} ({detail}){after}; check {llm.endpoint_hint()} and the network"
        )
    if isinstance(exc, sdk.APIStatusError):
        kind = getattr(exc, "type", None)
        what = f"HTTP {exc.status_code}" + (f" {kind}" if isinstance(kind, str) and kind else "")
        message = _api_message(exc)
        said = f": {message}" if message else ""
        if isinstance(exc, sdk.AuthenticationError | sdk.PermissionDeniedError):
            return LLMAuthError(
                f"model endpoint {base_url} rejected the credentials ({what}{said}); check {llm.credential_hint}"
            )
        if isinstance(exc, sdk.RateLimitError):
            return LLMRateLimitError(
                f"model endpoint {base_url} kept rate-limiting ({what}{said}){after}; "
                f"wait, lower concurrency or raise {llm.flags.llm_retries or CLI.llm_retries}"
            )
        if exc.status_code in (400, 404, 413, 422):
            return LLMBadRequestError(f"model endpoint {base_url} refused the request ({what}{said})")
        return LLMError(f"model endpoint {base_url} failed ({what}{said}){after}; try again later")
    return LLMError(f"unexpected answer from model endpoint {base_url}: {type(exc).__name__}: {exc}")


def _api_message(exc: Any) -> str | None:
    """The error message the endpoint sent: `anthropic`'s `api_message`, or the body's `message`."""
    message = getattr(exc, "api_message", None)
    if isinstance(message, str):
        return message
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error")
        found = inner.get("message") if isinstance(inner, dict) else body.get("message")
        return found if isinstance(found, str) else None
    return None


def _retries_taken(exc: Exception) -> int:
    request = getattr(exc, "request", None)
    value = request.headers.get("x-stainless-retry-count") if request is not None else None
    try:
        return int(value) if value is not None else 0
    except ValueError:
        return 0
