"""`Trail.step_line`: the line a step starts on in the file on disk, which failure messages name as
`file:line` (a trail, a v1 trail, a Maestro flow), and nothing when the line is not known."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.support.paths import DATA, TRAILS
from trailblaze.trail.model import ToolCall, load_trail, loads_trail, save_trail


def _lines(path: Path) -> list[int | None]:
    trail = load_trail(path)
    return [trail.step_line(i) for i in range(-1, len(trail.steps))]


def _starts(path: Path, *marks: str) -> list[int]:
    """The lines of `path` that start (after indentation) with one of `marks`."""
    return [n for n, line in enumerate(path.read_text("utf-8").splitlines(), 1) if line.lstrip().startswith(marks)]


def test_each_step_and_the_trailhead_at_their_lines() -> None:
    login = TRAILS / "login.trail.yaml"
    assert _lines(login) == [None, *_starts(login, "- step:", "- verify:")]
    unified = DATA / "trails" / "unified-trailhead.trail.yaml"
    assert _lines(unified) == [*_starts(unified, "step: Launch"), *_starts(unified, "- step:", "- verify:")]
    v1 = DATA / "trails" / "v1-trailhead.trail.yaml"
    lines = _lines(v1)
    assert all(isinstance(n, int) for n in lines) and lines == sorted(lines)  # type: ignore[type-var]
    assert load_trail(v1).step_line(len(load_trail(v1).steps)) is None  # no such step


def test_a_flow_names_its_commands_lines(tmp_path: Path) -> None:
    flow = tmp_path / "flow.yaml"
    flow.write_text(
        "appId: dev.trailblaze.demo\nonFlowStart:\n  - launchApp\n---\n# sign in\n- tapOn: Email\n\n- inputText: a@b.c\n",
        encoding="utf-8",
    )
    # the trailhead (none), onFlowStart (no line of its own), then each command's line
    assert _lines(flow) == [None, None, 6, 8]


def test_no_line_when_the_file_is_not_what_the_trail_holds(tmp_path: Path) -> None:
    assert loads_trail("trail:\n  - step: hi\n").step_line(0) is None  # read from text: no file
    (tmp_path / "t.trail.md").write_text("- Tap Sign in\n", encoding="utf-8")
    assert load_trail(tmp_path / "t.trail.md").step_line(0) is None  # its lines are the Markdown's

    path = tmp_path / "login.trail.yaml"
    shutil.copy(TRAILS / "login.trail.yaml", path)
    trail = load_trail(path)
    trail.steps.pop(1)
    assert trail.step_line(1) is None  # a step removed in memory: index 1 is no longer line 27


def test_a_recording_kept_in_memory_leaves_the_lines_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text("trail:\n  - step: one\n  - step: two\n", encoding="utf-8")
    trail = load_trail(path)
    trail.set_recording(0, "android", [ToolCall(name="pressBack", params={})])
    assert trail.step_line(1) == 3  # record keeps it in memory until the proof: the file says 3
    save_trail(trail)
    assert trail.step_line(1) == 6 and path.read_text("utf-8").splitlines()[5] == "  - step: two"
