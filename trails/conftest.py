"""pytest settings for the example trails (`pytest trails/`).

The examples sign in to the bundled demo app, whose test account's password is public (`hunter2`,
as the README says). A real project reads its secrets from the CI environment instead; the variable
wins here too, so the same file shows the pattern.
"""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def trailblaze_secrets(trailblaze_secrets: dict[str, str]) -> dict[str, str]:
    return {"password": os.environ.get("DEMO_PASSWORD", "hunter2"), **trailblaze_secrets}
