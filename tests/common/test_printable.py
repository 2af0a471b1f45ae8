"""Terminal control characters from trails and devices are printed as visible escapes."""

from __future__ import annotations

from pathlib import Path

import pytest

from trailblaze.cli.main import main
from trailblaze.common.printable import printable


def test_controls_become_visible_escapes_and_text_stays() -> None:
    assert printable("tap \x1b]52;c;aGk=\x07 now") == "tap \\x1b]52;c;aGk=\\x07 now"
    assert printable("\x1b[2J\r\x9b\x7f\x00") == "\\x1b[2J\\x0d\\x9b\\x7f\\x00"
    assert printable("abc\u202edef\u2066") == "abc\\u202edef\\u2066"
    assert printable("two\nlines\tand ümlauts, 漢字, emoji 🙂") == "two\nlines\tand ümlauts, 漢字, emoji 🙂"


def test_validate_prints_no_escape_sequence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "x.trail.yaml"
    path.write_text('trail:\n  - step: go\n    "\\e]0;owned\\a": 1\n', "utf-8")
    with pytest.raises(SystemExit) as exited:
        main(["validate", str(path)])
    out = capsys.readouterr().out
    assert exited.value.code == 2
    assert "\x1b" not in out and "\x07" not in out
    assert "unknown key `\\x1b]0;owned\\x07`" in out
