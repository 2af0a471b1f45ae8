"""The web driver end to end: Debian's Chromium through Playwright on the vendored TodoMVC app
(tests/data/web/todomvc, from the npm registry) and a page of our own with a modal dialog, served
from a local http.server on 127.0.0.1."""

from __future__ import annotations

import shutil
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import trailblaze
from tests.support.paths import ROOT
from tests.support.web_site import WEB_DATA as DATA
from tests.support.web_site import serve_site as _serve

TRAIL = ROOT / "trails" / "web" / "todomvc-active-filter.trail.yaml"

pytest.importorskip("playwright", reason="the web driver needs `pip install -e ./drivers/web` (playwright)")
if not any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")):
    pytest.skip(
        "no browser: install Debian's `chromium` package for the web driver tests", allow_module_level=True
    )


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with _serve(DATA) as url:
        yield url


def _trail(tmp_path: Path, base_url: str, text: str | None = None) -> Path:
    body = (text or TRAIL.read_text(encoding="utf-8")).replace("../../tests/data/web", base_url)
    path = tmp_path / "todomvc.trail.yaml"
    path.write_text(body, encoding="utf-8")
    return path


def _replay(path: Path, tmp_path: Path, *extra: str) -> tuple[int, str]:
    result = trailblaze("replay", str(path), "--device", "web", "--run-dir", str(tmp_path / "run"), *extra)
    return result.returncode, result.stdout + result.stderr


def _replay_in_process(path: Path, device: str = "web") -> str:
    from trailblaze.device.devices import open_device
    from trailblaze.engine.replay import replay_trail

    with open_device(device) as session:
        record = replay_trail(path, session)
    assert record.status == "passed", record.error
    return record.status


@pytest.mark.slow
def test_todomvc_trail_replays_with_no_llm(tmp_path: Path, base_url: str) -> None:
    _replay_in_process(_trail(tmp_path, base_url))


@pytest.mark.slow
def test_restyled_app_still_passes(tmp_path: Path) -> None:
    # Same app, other CSS: colours, fonts, sizes and the order of the filters all change.
    site = tmp_path / "site"
    shutil.copytree(DATA / "todomvc", site / "todomvc")
    css = site / "todomvc" / "bower_components" / "todomvc-common" / "base.css"
    css.write_text(
        css.read_text(encoding="utf-8")
        + "\n#todoapp { width: 900px; background: #222; color: #eee; font: 28px/1.6 serif; }"
        + "\n#filters { display: flex; flex-direction: row-reverse; }"
        + "\n#new-todo { padding: 30px; font-size: 40px; }\n",
        encoding="utf-8",
    )
    with _serve(site) as url:
        _replay_in_process(_trail(tmp_path, url))


@pytest.mark.slow
def test_renamed_button_fails_naming_the_step(tmp_path: Path, base_url: str) -> None:
    # The app renamed its "Active" filter: the recorded ARIA descriptor no longer matches.
    text = TRAIL.read_text(encoding="utf-8").replace('link "Active"', 'link "Open"')
    code, out = _replay(_trail(tmp_path, base_url, text), tmp_path, "--element-timeout", "1")
    assert code == 1, out
    assert "step 4 ('Show only the active todos')" in out
    assert "web_click failed: NOT_FOUND no element 'link \"Open\"'" in out
    # Playwright's own trace of the failed trail is kept in its run directory
    (trace,) = (tmp_path / "run").glob("*/trace.zip")
    with zipfile.ZipFile(trace) as archive:
        assert any(name.endswith(".trace") for name in archive.namelist())


_NL_TRAIL = """\
config:
  id: web/todomvc-record
  title: Add three todos, complete one, filter Active, two remain
trail:
  - step: Add the todos "Buy milk", "Walk the dog" and "Write the report"
  - step: Mark "Walk the dog" as completed
  - step: Show only the active todos
  - verify: The todos "Buy milk" and "Write the report" remain
"""


@pytest.mark.slow
def test_record_through_the_messages_api_then_replay_with_no_llm(tmp_path: Path, base_url: str) -> None:
    from tests.support.web_policy import todomvc_policy
    from trailblaze.testing import FakeMessagesAPI
    from trailblaze.trail.model import load_trail

    path = tmp_path / "todomvc-record.trail.yaml"
    path.write_text(_NL_TRAIL, encoding="utf-8")
    device = f"web:{base_url}/todomvc/index.html"
    with FakeMessagesAPI(policy=todomvc_policy) as api:
        done = trailblaze(
            "record", str(path), "--device", device, "--run-dir", str(tmp_path / "rec"), base_url=api.url
        )
    assert done.returncode == 0, done.stdout + done.stderr
    calls = [c.to_data() for step in load_trail(path).steps for c in step.recording_for("web") or []]
    names = [next(iter(c)) for c in calls]
    assert names.count("tapOnElementBySelector") == 5 and "tapOnPoint" not in names, calls
    selectors = [c["tapOnElementBySelector"]["nodeSelector"] for c in calls if "tapOnElementBySelector" in c]
    assert all("web" in s for s in selectors), selectors
    assert "cssSelector" not in str(selectors)  # never CSS: role and name, or test id
    assert {"web": {"ariaNameRegex": "Active"}} in selectors
    _replay_in_process(path, device)  # no LLM configured: every step replays its recording


@pytest.mark.slow
def test_self_heal_repairs_a_renamed_filter(tmp_path: Path) -> None:
    from tests.support.web_policy import todomvc_policy
    from trailblaze.testing import FakeMessagesAPI

    # The app renames its "Active" filter to "Open": the recorded selector finds nothing.
    site = tmp_path / "site"
    shutil.copytree(DATA / "todomvc", site / "todomvc")
    index = site / "todomvc" / "index.html"
    index.write_text(index.read_text(encoding="utf-8").replace(">Active</a>", ">Open</a>"), encoding="utf-8")
    with _serve(site) as url, FakeMessagesAPI(policy=todomvc_policy) as api:
        path = _trail(tmp_path, url)
        healed = trailblaze(
            "replay", str(path), "--device", "web", "--self-heal", "--element-timeout", "1",
            "--run-dir", str(tmp_path / "run"), base_url=api.url,
        )  # fmt: skip
    out = healed.stdout + healed.stderr
    assert healed.returncode == 0, out
    assert "passed-with-self-heal" in out and api.requests
    assert 'link "Open"' not in path.read_text(encoding="utf-8")
    assert "ariaNameRegex: Open" in path.read_text(encoding="utf-8")


@pytest.mark.slow
def test_hierarchy_roles_states_and_modal_dialog(base_url: str) -> None:
    from trailblaze.device.devices import open_device
    from trailblaze.screen.compact import compact_view
    from trailblaze.screen.occlusion import covers

    with open_device(f"web:{base_url}/dialog.html") as session:
        screen = session.settle()
        roles = {(n.class_name, n.label) for n in screen.visible_nodes()}
        assert ("button", "Delete account") in roles
        assert ("checkbox", "Remember me") in roles
        session.driver.tap(*next(n for n in screen.nodes if n.label == "Delete account").center)
        session.invalidate()
        screen = session.settle()
        found = covers(screen)
        assert found and found[0].kind == "dialog" and found[0].title == "Delete your account?"
        behind = next(n for n in screen.nodes if n.label == "Remember me")
        assert behind.covered_by is found[0]
        view = compact_view(screen).text
        assert 'behind the dialog "Delete your account?"' in view
        assert 'button "Cancel"' in view


@pytest.mark.slow
def test_missing_browser_is_a_one_line_device_error(tmp_path: Path) -> None:
    import os

    os.environ["TRAILBLAZE_BROWSER_PATH"] = str(tmp_path / "no-such-chromium")
    try:
        result = trailblaze("snapshot", "--device", "web")
    finally:
        del os.environ["TRAILBLAZE_BROWSER_PATH"]
    out = result.stdout + result.stderr
    assert result.returncode == 3, out
    assert f"no browser at {tmp_path / 'no-such-chromium'} (--browser-path / TRAILBLAZE_BROWSER_PATH)" in out
    assert "Traceback" not in out


def test_web_trail_is_skipped_on_android() -> None:
    from trailblaze.engine.preflight import may_be_skipped
    from trailblaze.trail.model import load_trail

    trail = load_trail(TRAIL)
    assert may_be_skipped(trail, "android") and may_be_skipped(trail, "ios")
    assert not may_be_skipped(trail, "web")


def test_validate_checks_web_recordings(tmp_path: Path) -> None:
    bad = tmp_path / "bad.trail.yaml"
    bad.write_text(
        "config:\n  id: x\ntrail:\n  - step: s\n    recording:\n      web:\n"
        "        - web_click: {}\n        - web_scroll: {direction: SIDEWAYS}\n",
        encoding="utf-8",
    )
    result = trailblaze("validate", str(tmp_path), str(TRAIL))
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{bad}:7:22: `web_click`: it needs a ref or a nodeSelector" in result.stdout
    assert (
        "`direction` in `web_scroll` must be one of UP, DOWN, LEFT or RIGHT, found 'SIDEWAYS'"
        in result.stdout
    )
    assert "2 files checked, 1 invalid with 2 problems" in result.stdout


_EDGE_TRAIL = """\
trail:
  - step: Click the button inside the shadow root
    recording:
      web:
        - web_click: {ref: 'button "Shadow button"'}
        - web_verifyTextVisible: {text: Shadow clicked}
  - step: Click the button inside the iframe
    recording:
      web:
        - web_click: {ref: 'button "Frame button"'}
        - web_verifyElementVisible: {ref: 'button "Frame clicked"'}
  - step: Pick the large size
    recording:
      web:
        - web_selectOption: {ref: 'combobox "Size"', values: [Large]}
        - web_verifyValue: {ref: 'css=#size', type: VALUE, expected: l}
        - web_verifyValue: {ref: 'css=#size', expected: Large}
        - web_verifyValue: {expected: Data loaded}
        - web_verifyValue: {ref: 'css=#size', type: ATTRIBUTE, attribute: aria-label, expected: Size}
"""


@pytest.mark.slow
def test_slow_request_shadow_dom_iframe_and_select(tmp_path: Path, base_url: str) -> None:
    from trailblaze.device.devices import open_device
    from trailblaze.engine.replay import replay_trail

    with open_device(f"web:{base_url}/edge.html") as session:
        load = next(n for n in session.settle().nodes if n.label == "Load data")
        # Settling waits for the request in flight (0.4 s) and the DOM change it causes: the first
        # capture after the click already shows the answer.
        after = session.act(lambda d: d.tap(*load.center))
        assert after is not None and any(n.label == "Data loaded" for n in after.nodes)
        path = tmp_path / "edge.trail.yaml"
        path.write_text(_EDGE_TRAIL, encoding="utf-8")
        record = replay_trail(path, session)
        assert record.status == "passed", record.error
