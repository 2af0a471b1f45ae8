"""`trailblaze validate` and `trailblaze schema`, through click's runner and the real console script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from tests.support.paths import ROOT
from trailblaze.cli.main import cli
from trailblaze.common.yaml_lines import parse_document

BAD = "trail:\n  - step: a\n    verify: b\n  - step: c\n    recording:\n      android:\n        - swipe: {direction: NORTH}\n"


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def test_validate_examples_pass_with_a_note_on_the_secret() -> None:
    code, out = _run("validate", str(ROOT / "trails"))
    assert code == 0, out
    count = len(list((ROOT / "trails").glob("**/*.trail.yaml")))  # the web trails in trails/web/ too
    lines = out.strip().splitlines()
    assert lines[-1] == (
        f"{count} files checked, all valid, recorded for android ({count - 1}), ios ({count - 1}), web (1), "
        "1 note on values to pass at run time"
    )
    # the secret the examples type is a note (it comes from --secret at run time), said once
    assert [line for line in lines if ": note: " in line] == [
        f"{ROOT / 'trails' / 'archive-message.trail.yaml'}:33:19: note: {{{{password}}}} has no value "
        "(and 10 more places); pass --secret password=VALUE (or --memory / --arg password=VALUE), "
        "or set it in config.memory"
    ]


def test_validate_fixtures_get_the_verdict_replay_gives() -> None:
    # Real Trailblaze files with app-specific tools load, but replay refuses them before the device
    # (no implementation), so validate refuses them too: the same preflight runs.
    code, out = _run("validate", str(ROOT / "tests" / "data" / "trails"))
    assert code == 2, out
    unknown = sorted(line.split("unknown tool `")[1].split("`")[0] for line in out.splitlines() if "unknown tool" in line)
    assert unknown == ["app_ios_launchAppSignedIn", "contacts_ios_createContact", "contacts_ios_openApp"]
    count = len(list((ROOT / "tests/data/trails").glob("*.trail.yaml")))
    assert out.strip().splitlines()[-1].startswith(f"{count} files checked, 2 invalid with 3 problems")


def test_validate_reports_each_problem_with_position(tmp_path: Path) -> None:
    good = tmp_path / "good.trail.yaml"
    good.write_text("trail:\n  - step: a\n")
    nested = tmp_path / "deep" / "er"
    nested.mkdir(parents=True)
    bad = nested / "trail.yaml"
    bad.write_text(BAD)
    (nested / "notes.yaml").write_text("not: [a trail\n")  # not a trail file name: ignored
    code, out = _run("validate", str(tmp_path))
    assert code == 2
    lines = out.strip().splitlines()
    assert (
        lines[0]
        == f"{bad}:3:5: a trail item takes exactly one of `step:` and `verify:`, found both; split it into two items"
    )
    assert lines[1].startswith(f"{bad}:7:30: `direction` in `swipe` must be one of UP, DOWN, LEFT or RIGHT")
    assert lines[-1] == (
        "2 files checked, 1 invalid with 2 problems, "
        "1 other YAML file looked at and not a trail or a Maestro flow (notes.yaml)"
    )
    assert "Traceback" not in out


def test_validate_missing_path_and_yaml_error(tmp_path: Path) -> None:
    broken = tmp_path / "x.trail.yaml"
    broken.write_text("trail:\n  - step: [oops\n")
    code, out = _run("validate", str(broken), str(tmp_path / "missing.trail.yaml"))
    assert code == 2
    assert f"{tmp_path / 'missing.trail.yaml'}: no such file or directory" in out
    assert f"{broken}:3:1: YAML syntax error" in out
    assert out.strip().splitlines()[-1] == "1 file checked, 1 invalid with 1 problem, 1 path not found"


def test_validate_empty_folder_is_a_usage_error(tmp_path: Path) -> None:
    code, out = _run("validate", str(tmp_path))
    assert code == 2
    assert f"no *.trail.yaml, *.trail.md, trail.yaml or blaze.yaml found in {tmp_path}" in out


def test_validate_needs_a_path() -> None:
    code, out = _run("validate")
    assert code == 2
    assert "Missing argument" in out


@pytest.mark.slow
def test_schema_prints_a_json_schema_that_validates_examples() -> None:
    code, out = _run("schema")
    assert code == 0
    schema = json.loads(out)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for path in (ROOT / "trails").glob("*.trail.yaml"):
        assert validator.is_valid(parse_document(path.read_text()).data), path
    assert not validator.is_valid(parse_document(BAD).data)


@pytest.mark.slow
def test_console_script_exit_codes(tmp_path: Path) -> None:
    bad = tmp_path / "bad.trail.yaml"
    bad.write_text(BAD)
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    ok = subprocess.run(
        [sys.executable, "-m", "trailblaze", "validate", str(ROOT / "trails")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    failed = subprocess.run(
        [sys.executable, "-m", "trailblaze", "validate", str(bad)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert failed.returncode == 2
    assert f"{bad}:3:5:" in failed.stdout
    assert "Traceback" not in failed.stdout + failed.stderr
