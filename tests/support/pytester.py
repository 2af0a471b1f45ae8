"""What the pytester-based plugin tests write into their test projects."""

# a conftest: selectors poll for 1 s, not 5, so a failing trail fails fast
FAST_SESSION = """\
import pytest

@pytest.fixture(scope="session")
def trailblaze_session_args():
    return {"resolve_timeout": 1.0}
"""
