"""A failed web trail's Playwright `trace.zip` cannot be redacted (typed text, URLs, DOM snapshots,
screenshots): in a run with secrets it is kept only with `--trace`, which says it is unredacted
(issue 31, item 3)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import trailblaze

pytest.importorskip("playwright", reason="the web driver needs `pip install -e ./drivers/web` (playwright)")
if not any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")):
    pytest.skip("no browser: install Debian's `chromium` package", allow_module_level=True)

from tests.support.web_site import WEB_DATA as DATA
from tests.support.web_site import serve_site as _serve

SECRET = "hunter2-trace-secret"
_TRAIL = """\
trail:
  - step: Type the secret as a todo, then click a filter that is not there
    recording:
      web:
        - web_navigate: {{url: "{url}/todomvc/index.html"}}
        - web_type: {{ref: 'textbox "What needs to be done?"', text: '{{{{password}}}}'}}
        - web_click: {{ref: 'link "Nowhere"'}}
"""


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with _serve(DATA) as url:
        yield url


def _replay(tmp_path: Path, site: str, *extra: str) -> tuple[int, str, Path]:
    trail = tmp_path / "secret.trail.yaml"
    trail.write_text(_TRAIL.format(url=site), encoding="utf-8")
    run = tmp_path / "run"
    done = trailblaze(
        "replay", str(trail), "--device", "web", "--run-dir", str(run), "--element-timeout", "0.5",
        "--secret", f"password={SECRET}", *extra,
    )  # fmt: skip
    return done.returncode, done.stdout + done.stderr, run


@pytest.mark.slow
def test_a_run_with_secrets_keeps_no_trace_without_the_flag(tmp_path: Path, site: str) -> None:
    code, out, run = _replay(tmp_path, site)
    assert code == 1, out
    assert list(run.glob("**/trace.zip")) == []
    for file in run.rglob("*"):
        if file.is_file():
            assert SECRET.encode() not in file.read_bytes(), file


@pytest.mark.slow
def test_with_trace_the_unredacted_trace_is_kept_and_said_so(tmp_path: Path, site: str) -> None:
    code, out, run = _replay(tmp_path, site, "--trace")
    assert code == 1, out
    assert "--trace keeps the trace.zip of a failed web trail UNREDACTED" in " ".join(out.split())
    assert len(list(run.glob("*/trace.zip"))) == 1
