from __future__ import annotations

import pytest

import trailblaze
from trailblaze.errors import (
    DeviceError,
    LLMError,
    Problem,
    StepFailed,
    TrailFileError,
    UsageError,
    exit_code_for,
)


@pytest.mark.parametrize(
    ("exc", "code"),
    [
        (UsageError("bad flag"), 2),
        (TrailFileError("a.trail.yaml", [Problem(3, 5, "boom")]), 2),
        (StepFailed("step 2 failed"), 1),
        (DeviceError("offline"), 3),
        (LLMError("429"), 3),
        (RuntimeError("bug"), 3),
    ],
)
def test_exit_codes(exc: BaseException, code: int) -> None:
    assert exit_code_for(exc) == code


def test_trail_file_error_formats_every_problem() -> None:
    err = TrailFileError("t.trail.yaml", [Problem(3, 5, "first"), Problem(9, 1, "second")])
    assert str(err) == "t.trail.yaml:3:5: first\nt.trail.yaml:9:1: second"
    assert err.line == 3


def test_public_all_is_sorted_and_importable() -> None:
    names = [n for n in trailblaze.__all__ if n != "__version__"]
    assert names == sorted(names)
    for name in trailblaze.__all__:
        assert hasattr(trailblaze, name)
