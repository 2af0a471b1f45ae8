"""Suite-wide fixtures. No test reaches the network, a real device or a real LLM."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from trailblaze.llm import override_allow_llm_requests

# Never let adbutils start a real adb server on 5037 when a simulator is missing.
os.environ.setdefault("ADBUTILS_ADB_PATH", "/bin/false")
# A real Anthropic endpoint must never be reachable from the tests by accident.
os.environ.pop("ANTHROPIC_API_KEY", None)
os.environ["ANTHROPIC_BASE_URL"] = "http://127.0.0.1:9"
os.environ.pop("ANTHROPIC_AUTH_TOKEN", None)


@pytest.fixture(autouse=True)
def _llm_requests_loopback_only() -> Iterator[None]:
    """Real LLM clients may only talk to local servers (`FakeMessagesAPI`) during tests."""
    with override_allow_llm_requests("loopback"):
        yield


@pytest.fixture(autouse=True)
def _forget_secrets() -> Iterator[None]:
    """Secrets are registered for the whole process (trailblaze.redact); each test starts with none."""
    from trailblaze.redact import forget_secrets

    forget_secrets()
    yield
    forget_secrets()
