"""Suite-wide fixtures. No test reaches the network, a real device or a real LLM."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

# Fixtures several test modules request live in tests/support; imported here, every test can request them.
from tests.support.cli import external_sim  # noqa: F401
from tests.support.record import api  # noqa: F401
from trailblaze.llm.client import override_allow_llm_requests

# Never let adbutils start a real adb server on 5037 when a simulator is missing.
os.environ.setdefault("ADBUTILS_ADB_PATH", "/bin/false")
# A real Anthropic endpoint must never be reachable from the tests by accident.
os.environ.pop("ANTHROPIC_API_KEY", None)
os.environ["ANTHROPIC_BASE_URL"] = "http://127.0.0.1:9"
os.environ.pop("ANTHROPIC_AUTH_TOKEN", None)
# Nor OpenAI, Bedrock or Vertex: no keys, closed endpoints, and no cloud credential lookup may ask a
# metadata server (AWS instance metadata is off; Google's points at a closed loopback port).
os.environ.pop("OPENAI_API_KEY", None)
os.environ.pop("TRAILBLAZE_MODEL", None)
os.environ["OPENAI_BASE_URL"] = "http://127.0.0.1:9/v1"
for _name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
              "AWS_BEARER_TOKEN_BEDROCK", "GOOGLE_OAUTH_ACCESS_TOKEN", "GOOGLE_APPLICATION_CREDENTIALS"):  # fmt: skip
    os.environ.pop(_name, None)
os.environ["AWS_EC2_METADATA_DISABLED"] = "true"
os.environ["AWS_CONFIG_FILE"] = os.environ["AWS_SHARED_CREDENTIALS_FILE"] = os.devnull
os.environ["ANTHROPIC_BEDROCK_BASE_URL"] = "http://127.0.0.1:9"
os.environ["ANTHROPIC_VERTEX_BASE_URL"] = "http://127.0.0.1:9/v1"
os.environ["GCE_METADATA_HOST"] = os.environ["GCE_METADATA_IP"] = "127.0.0.1:9"
os.environ["CLOUDSDK_CONFIG"] = os.devnull
# CI=true changes `trailblaze replay`'s defaults (trailblaze.engine.ci_defaults: failing steps' screenshots only).
# The suite sees the local defaults wherever it runs, so a test reads the same run directory in CI as on
# a laptop; the tests of the CI defaults set CI themselves (tests/engine/test_ci_defaults.py).
os.environ.pop("CI", None)
# No results store unless a test asks for one (it sets or deletes TRAILBLAZE_RESULTS, or passes --results):
# a replay run from the repository would add to the repository's `.trailblaze/results.db`, and its report
# would show history left there by earlier tests.
os.environ["TRAILBLAZE_RESULTS"] = "off"


@pytest.fixture(autouse=True)
def _llm_requests_loopback_only() -> Iterator[None]:
    """Real LLM clients may only talk to local servers (`FakeMessagesAPI`) during tests."""
    with override_allow_llm_requests("loopback"):
        yield


@pytest.fixture(autouse=True)
def _forget_secrets() -> Iterator[None]:
    """Secrets are registered for the whole process (trailblaze.common.redact); each test starts with none."""
    from trailblaze.common.redact import forget_secrets

    forget_secrets()
    yield
    forget_secrets()
