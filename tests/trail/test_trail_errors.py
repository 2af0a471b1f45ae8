"""Malformed trail files: every problem is reported at its line and column with a readable fix."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.support.malformed_trails import MALFORMED, REC, Case
from trailblaze.errors import Problem, TrailFileError
from trailblaze.trail.model import loads_trail


def test_there_are_at_least_forty_cases() -> None:
    assert len(MALFORMED) >= 40
    assert len({c.name for c in MALFORMED}) == len(MALFORMED)


@pytest.mark.parametrize("case", MALFORMED, ids=[c.name for c in MALFORMED])
def test_malformed_input_reports_line_column_and_message(case: Case) -> None:
    with pytest.raises(TrailFileError) as info:
        loads_trail(case.text, "demo.trail.yaml")
    error = info.value
    first = error.problems[0]
    assert (first.line, first.column) == (case.line, case.column), str(error)
    assert case.message in first.message, str(error)
    assert "\n" not in first.message
    assert str(error).splitlines()[0] == f"demo.trail.yaml:{case.line}:{case.column}: {first.message}"
    assert "Traceback" not in str(error) and "pydantic" not in str(error).lower()
    assert "input_value" not in str(error) and "For further information" not in str(error)


def test_every_problem_is_reported_in_line_order() -> None:
    text = (
        "config:\n  idd: x\n"
        "trail:\n"
        "  - step: a\n    verify: b\n"
        "  - recordable: 3\n"
        "  - step: c\n    recording:\n      android:\n        - swipe: {direction: NORTH}\n        - inputText: {}\n"
    )
    with pytest.raises(TrailFileError) as info:
        loads_trail(text, "t.yaml")
    assert [(p.line, p.column) for p in info.value.problems] == [
        (2, 3),
        (5, 5),
        (6, 5),
        (6, 17),
        (10, 30),
        (11, 22),
    ]
    assert info.value.line == 2
    assert info.value.path == "t.yaml"
    lines = str(info.value).splitlines()
    assert len(lines) == 6 and all(line.startswith("t.yaml:") for line in lines)


@pytest.mark.slow
def test_problems_at_one_position_keep_the_order_they_were_found_whatever_the_hash_seed() -> None:
    # Both problems sit at 2:5. Deduplicating through a set made their order follow the string hash,
    # so the same file printed its errors in a different order from run to run.
    code = (
        "from trailblaze.trail.model import loads_trail\n"
        "try:\n    loads_trail('trail:\\n  - stepp: x\\n')\n"
        "except Exception as exc:\n    print(exc)\n"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("0", "2")
    }
    assert len(outputs) == 1
    lines = outputs.pop().splitlines()
    assert [line.split(": ", 1)[0] for line in lines] == ["<string>:2:5", "<string>:2:5"]
    assert "unknown key `stepp`" in lines[0] and "neither `step:` nor `verify:`" in lines[1]


def test_problem_format() -> None:
    assert Problem(3, 7, "oops; fix it").format("a/b.trail.yaml") == "a/b.trail.yaml:3:7: oops; fix it"


def test_custom_tools_are_not_validated() -> None:
    text = (
        REC
        + "        - myApp_login:\n            anything: [1, {deep: true}]\n            reasn: typo is fine here\n"
    )
    trail = loads_trail(text)
    tools = trail.steps[0].recording_for("android")
    assert tools is not None and tools[0].params["anything"] == [1, {"deep": True}]
