"""Text from a trail or the device is printed as it is (issue 31, item 14): Rich's emoji codes and
markup in it are not interpreted (`root:x:0:0` once printed as `root❌0:0`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import trailblaze


@pytest.mark.slow
def test_emoji_codes_and_markup_from_a_trail_print_literally(tmp_path: Path) -> None:
    folder = tmp_path / "root:x:0:0 [bold]dir"
    folder.mkdir()
    trail = folder / "colons.trail.yaml"
    trail.write_text(
        "trail:\n  - step: 'Read root:x:0:0 and :thumbs_up: [red]as is[/red] \\\\'\n"
        "    recording:\n      android:\n        - pressBack: {}\n"
    )
    done = trailblaze("replay", str(trail), "--device", "sim:android", "--run-dir", str(tmp_path / "run"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Read root:x:0:0 and :thumbs_up: [red]as is[/red] \\" in done.stdout
    assert "root:x:0:0 [bold]dir" in done.stdout  # the trail's path, in its heading line
    assert "❌" not in done.stdout and "👍" not in done.stdout
