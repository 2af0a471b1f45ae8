"""The bounds on a trail file: size (configurable), nesting depth, node count, aliases, surrogates."""

from __future__ import annotations

from pathlib import Path

import pytest

from trailblaze.common.limits import MAX_DEPTH, MAX_NODES, MAX_TRAIL_BYTES_ENV, max_trail_bytes
from trailblaze.errors import TrailFileError, UsageError
from trailblaze.trail.model import find_trail_files, load_trail, loads_trail

GOOD = "trail:\n  - step: go back\n    recording:\n      android:\n        - pressBack\n"


def _problem(text: str) -> str:
    with pytest.raises(TrailFileError) as raised:
        loads_trail(text, "t.trail.yaml")
    return raised.value.message


def test_size_limit_defaults_to_1_mb_and_is_configurable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(MAX_TRAIL_BYTES_ENV, raising=False)
    assert max_trail_bytes() == 1024 * 1024
    path = tmp_path / "t.trail.yaml"
    path.write_text(GOOD + "# " + "x" * 2000 + "\n", "utf-8")
    load_trail(path)
    monkeypatch.setenv(MAX_TRAIL_BYTES_ENV, "1000")
    with pytest.raises(TrailFileError) as raised:
        load_trail(path)
    assert raised.value.message == (
        f"{path}:1:1: the file is larger than the 1000 bytes limit for trail files; split it into smaller "
        f"trails (or raise the limit with {MAX_TRAIL_BYTES_ENV}=BYTES)"
    )
    monkeypatch.setenv(MAX_TRAIL_BYTES_ENV, "not a number")
    assert max_trail_bytes() == 1024 * 1024


def test_depth_is_bounded_before_python_recursion() -> None:
    ok = "trail:\n  - step: x\n    recording:\n      android:\n        - pressBack: " + "[" * 90 + "]" * 90
    assert "nested" not in _problem(ok)  # 95 levels: deep but allowed (another problem is reported)
    deep = "trail: " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    assert _problem(deep) == (
        f"t.trail.yaml:1:{MAX_DEPTH + 7}: lists and maps nested more than {MAX_DEPTH} levels deep; "
        "a trail needs far fewer, flatten the structure"
    )
    assert "nested more than" in _problem("trail: " + "[" * 100_000)


@pytest.mark.slow
def test_node_count_is_bounded() -> None:
    assert f"more than {MAX_NODES:,} YAML values" in _problem("trail:\n" + "  - step: x\n" * (MAX_NODES // 2))


def test_aliases_are_refused_once_with_a_count() -> None:
    text = "a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b, *b]\ntrail:\n  - step: go\n"
    assert _problem(text) == (
        "t.trail.yaml:2:8: YAML aliases (*name) are not supported in trail files (and 4 more aliases); "
        "write the value out in full"
    )


def test_a_lone_surrogate_is_refused_where_it_is_written() -> None:
    assert _problem('trail:\n  - step: go\n  - step: "a\\ud83d"\n').startswith(
        "t.trail.yaml:3:11: the escape \\ud83d is half of a UTF-16 surrogate pair, not a character"
    )
    loads_trail('trail:\n  - step: "a\\U0001F600"\n')  # the whole character is fine


def test_special_files_are_named_not_missing(tmp_path: Path) -> None:
    fifo = tmp_path / "p.trail.yaml"
    fifo.parent.mkdir(exist_ok=True)
    import os

    os.mkfifo(fifo)
    loop = tmp_path / "loop.trail.yaml"
    loop.symlink_to(loop.name)
    dangling = tmp_path / "gone.trail.yaml"
    dangling.symlink_to("nowhere.trail.yaml")
    found, missing = find_trail_files([fifo, loop, dangling, tmp_path / "absent.trail.yaml"])
    assert found == [fifo, loop, dangling] and missing == [str(tmp_path / "absent.trail.yaml")]
    assert sorted(p.name for p in find_trail_files([tmp_path])[0]) == [
        "gone.trail.yaml", "loop.trail.yaml", "p.trail.yaml"
    ]  # fmt: skip
    messages = []
    for path in (fifo, loop, dangling):
        with pytest.raises(UsageError) as raised:
            load_trail(path)
        messages.append(raised.value.message)
    assert messages == [
        f"not a regular file: {fifo} is a FIFO (named pipe); pass a trail file",
        f"not a regular file: {loop} is a symlink loop; pass a trail file",
        f"no such trail file: {dangling} is a symlink to a missing file",
    ]
