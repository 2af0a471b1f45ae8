"""`web_navigate` opens web pages and the project's files, nothing of the browser's own (issue 31,
item 11): `file:` outside the project, `view-source:` and `chrome:` are refused, and `javascript:` is a
failed step (exit 1), not an infrastructure error."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.cli import trailblaze
from trailblaze.tools.catalog.web_urls import url_to_open


def test_urls_are_opened_or_refused_with_a_reason(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "pages").mkdir(parents=True)
    page = project / "pages" / "index.html"
    page.write_text("<p>hi</p>", encoding="utf-8")
    (tmp_path / "secret.html").write_text("no", encoding="utf-8")
    (project / "pages" / "link.html").symlink_to(tmp_path / "secret.html")
    assert url_to_open("https://example.com/x", project=project) == ("https://example.com/x", "")
    assert url_to_open("about:blank", project=project) == ("about:blank", "")
    assert url_to_open(page.as_uri(), project=project) == (page.as_uri(), "")
    assert url_to_open(str(page), project=project) == (page.as_uri(), "")
    for url in (
        "file:///etc/passwd",
        (tmp_path / "secret.html").as_uri(),
        str(project / "pages" / "link.html"),
        str(project / ".." / "secret.html"),
    ):
        opened, why = url_to_open(url, project=project)
        assert opened is None and "outside the project" in why, (url, why)
    for url in ("view-source:https://example.com", "chrome://settings", "CHROME://version", "chrome-extension://x/y",
                "devtools://devtools/bundled/inspector.html", "about:config"):  # fmt: skip
        opened, why = url_to_open(url, project=project)
        assert opened is None and "are not opened" in why, (url, why)
    opened, why = url_to_open("javascript:alert(document.cookie)", project=project)
    assert opened is None and "javascript:" in why


_TRAIL = """\
trail:
  - step: Open a URL
    recording:
      web:
        - web_navigate: {{url: "{url}"}}
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("javascript:document.body.innerHTML='PWNED'", "a javascript: URL is not a page"),
        ("view-source:file:///etc/passwd", "view-source: URLs are not opened"),
        ("chrome://settings", "chrome: URLs are not opened"),
        ("file:///etc/passwd", "outside the project"),
    ],
)
def test_a_refused_url_fails_the_step_with_exit_1(url: str, said: str, tmp_path: Path) -> None:
    pytest.importorskip("playwright", reason="the web driver needs `pip install -e ./drivers/web`")
    if not any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")):
        pytest.skip("no browser: install Debian's `chromium` package")
    trail = tmp_path / "open.trail.yaml"
    trail.write_text(_TRAIL.format(url=url), encoding="utf-8")
    done = trailblaze("replay", str(trail), "--device", "web", "--run-dir", str(tmp_path / "run"))
    out = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 1, out
    assert said in out, out
    assert "root:x:0:0" not in out and "Traceback" not in out
