"""A replay in which every trail was skipped on the device ran nothing: exit 2 naming why, not a green
run (a shard of skipped trails is an empty shard, exit 0). The reports are written either way."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import copy_example
from trailblaze.cli.main import main

WEB_ONLY = """config:
  skip: {android: web only, ios: web only}
trail:
  - step: Open the page
    recording:
      web:
        - web_navigate: {action: GOTO, url: "about:blank"}
"""


def _replay(tmp_path: Path, capsys: pytest.CaptureFixture[str], *paths: str, shard: str | None = None) -> tuple[int, str]:
    args = ["replay", *paths, "--device", "sim:android", "--secret", "password=hunter2"]
    args += ["--run-dir", str(tmp_path / "run"), "--junit", str(tmp_path / "junit.xml")]
    with pytest.raises(SystemExit) as done:
        main([*args, *(["--shard", shard] if shard else [])])
    captured = capsys.readouterr()
    return int(done.value.code or 0), captured.out + captured.err


def test_only_skipped_trails_is_exit_2_and_one_that_ran_is_a_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    web = tmp_path / "web"
    web.mkdir()
    (web / "a.trail.yaml").write_text(WEB_ONLY, encoding="utf-8")
    code, out = _replay(tmp_path, capsys, str(web / "a.trail.yaml"))
    assert code == 2, out
    assert (
        "error: nothing ran: the one trail was skipped (skipped on android-phone: web only); "
        "replay it on a --device it runs on"
    ) in out
    assert 'skipped="1"' in (tmp_path / "junit.xml").read_text("utf-8")  # the reports are still written

    (web / "b.trail.yaml").write_text(WEB_ONLY, encoding="utf-8")
    code, out = _replay(tmp_path, capsys, str(web))
    assert code == 2 and "nothing ran: all 2 trails were skipped (the first: skipped on android-phone" in out

    code, out = _replay(tmp_path, capsys, str(web), shard="1/1")  # a CI job's share: as an empty shard
    assert code == 0 and "nothing ran" not in out, out

    (tmp_path / "mixed").mkdir()
    login = copy_example("login.trail.yaml", tmp_path / "mixed")
    (login.parent / "page.trail.yaml").write_text(WEB_ONLY, encoding="utf-8")
    code, out = _replay(tmp_path, capsys, str(login.parent))
    assert code == 0 and "1 passed, 1 skipped" in " ".join(out.split()) and "nothing ran" not in out, out
