"""`trailblaze validate` is the gate `replay` is: the same preflight, the same `file:line:col`.

Every file of tests/data/bad-trails/ is refused by `replay --device sim:android` before the device;
`validate` must name the same places — as errors, or as notes for values that come from the command
line (`--secret`, `--arg`, `--memory`), which validate runs without.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from trailblaze.cli.main import main

BAD = sorted((ROOT / "tests" / "data" / "bad-trails").glob("*.trail.yaml"))
_PLACE = re.compile(r"^(?:error: )?(\S+\.trail\.yaml:\d+:\d+): (note: )?", re.MULTILINE)


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exited:
        main(list(args))
    captured = capsys.readouterr()
    code = exited.value.code
    return code if isinstance(code, int) else 0, captured.out + captured.err


def test_the_corpus_is_there() -> None:
    assert len(BAD) >= 9


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name.removesuffix(".trail.yaml"))
def test_validate_and_replay_refuse_at_the_same_places(
    path: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    replay_code, replay_out = _cli(
        capsys, "replay", str(path), "--device", "sim:android", "--run-dir", str(tmp_path / "run")
    )
    validate_code, validate_out = _cli(capsys, "validate", str(path))
    assert replay_code == 2, replay_out
    assert not (tmp_path / "run").exists()  # refused before the device: nothing ran
    replay_places = {m.group(1) for m in _PLACE.finditer(replay_out)}
    validate_found = [(m.group(1), bool(m.group(2))) for m in _PLACE.finditer(validate_out)]
    assert replay_places, replay_out
    assert {place for place, _ in validate_found} == replay_places, validate_out
    errors = [place for place, note in validate_found if not note]
    # a file with a real error fails validate; one that only needs values passes with notes
    assert validate_code == (2 if errors else 0), validate_out
    if not errors:
        assert "note on values to pass at run time" in validate_out.splitlines()[-1]
    for out in (replay_out, validate_out):
        assert "Traceback" not in out and "internal error" not in out


def test_a_value_given_on_the_command_line_satisfies_replay(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # the note is right: the value it asks for is all replay needed
    path = ROOT / "tests" / "data" / "bad-trails" / "missing-template.trail.yaml"
    code, out = _cli(
        capsys, "replay", str(path), "--device", "sim:android", "--secret", "username=ada@example.com",
        "--run-dir", str(tmp_path / "run"),
    )  # fmt: skip
    assert code == 0, out
