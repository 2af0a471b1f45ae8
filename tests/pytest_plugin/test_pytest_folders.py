"""`pytest FOLDER/`: a folder of trails named on the command line is collected like a named trail file,
while a folder of Python tests keeps the trail files inside it as data."""

from __future__ import annotations

import shutil

import pytest

from tests.support.paths import DATA as _DATA

pytest_plugins = ["pytester"]

DATA = _DATA / "pytest" / "trails"
INI = "[pytest]\naddopts = -p no:cacheprovider\n"


@pytest.mark.slow
def test_a_named_folder_of_trails_is_collected(pytester: pytest.Pytester) -> None:
    pytester.makefile(".ini", pytest=INI)
    shutil.copytree(DATA, pytester.path / "e2e" / "flows")
    (pytester.path / "e2e" / "build").mkdir()
    shutil.copy(DATA / "email.trail.yaml", pytester.path / "e2e" / "build" / "stale.trail.yaml")
    tests = pytester.mkdir("tests")
    (tests / "test_plain.py").write_text("def test_plain():\n    pass\n")
    (tests / "data").mkdir()
    shutil.copy(DATA / "email.trail.yaml", tests / "data" / "fixture.trail.yaml")

    result = pytester.runpytest_subprocess("e2e/", "tests/", "--collect-only", "-q")
    assert result.ret == 0, "\n".join(result.outlines + result.errlines)
    collected = sorted(line for line in result.outlines if "::" in line)
    assert collected == [
        "e2e/flows/email.trail.yaml::demo/email",
        "e2e/flows/forgot.trail.yaml::forgot",
        "e2e/flows/skipped.trail.yaml::demo/skipped",
        "tests/test_plain.py::test_plain",
    ]  # not e2e/build/ (never searched), not tests/data/ (a folder of Python tests keeps its data)
