"""The web driver's browser options (`--browser`, `--browser-path`, `--headed`, `--viewport`,
`--emulate`, their pytest options and `TRAILBLAZE_*` defaults) and the `cssSelector` field of `web`
selectors, end to end through the CLI and pytest on the local pages of tests/data/web (Debian's
Chromium through Playwright)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from trailblaze_web.options import WebOptions

from tests.support.cli import trailblaze
from trailblaze.errors import UsageError
from trailblaze.screen.css_check import css_problem

pytest.importorskip("playwright", reason="the web driver needs `pip install -e ./drivers/web` (playwright)")
if not any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")):
    pytest.skip(
        "no browser: install Debian's `chromium` package for the web driver tests", allow_module_level=True
    )

from tests.support.web_site import WEB_DATA as DATA
from tests.support.web_site import serve_site as _serve

pytest_plugins = ["pytester"]


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with _serve(DATA) as url:
        yield url


_DEVICE_TRAIL = """\
config:
  id: web/device
trail:
  - step: Open the page that shows what the browser is
    recording:
      web:
        - web_navigate: {{url: "{url}/device.html"}}
  - verify: The browser is the emulated phone, at the given size
    recording:
      web:
        - web_verifyTextVisible: {{text: "viewport 500x700, pixel ratio 3"}}
        - web_verifyTextVisible: {{text: "iPhone agent, touch"}}
"""


# --- the options, before any browser ---------------------------------------------------------------------


def test_options_parse_normalize_and_say_what_is_wrong() -> None:
    web = WebOptions.given(browser="firefox", viewport=" 390X844 ", emulate=" iPhone 15 ", headed=True)
    assert web.viewport == "390x844" and web.emulate == "iPhone 15"
    assert web.args() == [
        "--browser",
        "firefox",
        "--headed",
        "--viewport",
        "390x844",
        "--emulate",
        "iPhone 15",
    ]
    assert web.plugin_options() == {
        "browser": "firefox",
        "viewport": "390x844",
        "emulate": "iPhone 15",
        "headed": "1",
    }
    assert WebOptions().names() == [] and WebOptions().plugin_options() == {}
    for bad in ("390", "0x800", "390x", "wide", "-1x5", "20000x10"):
        with pytest.raises(UsageError, match=r"bad viewport .* \(--viewport\): use WIDTHxHEIGHT"):
            WebOptions.given(viewport=bad)
    with pytest.raises(UsageError, match=r"^--trailblaze-browser 'opera': use one of chromium, firefox$"):
        WebOptions.given(browser="opera", where="--trailblaze-")
    with pytest.raises(
        UsageError, match=r"^--viewport applies to web devices only \(--device web\[:URL\]\)$"
    ):
        WebOptions.given(viewport="390x844").require_web("sim:android")
    WebOptions.given(viewport="390x844").require_web("web:http://127.0.0.1:1/")  # a browser: fine


def test_headed_drops_headless_and_chromium_keeps_its_offline_flags() -> None:
    from trailblaze_web.launch import plan_launch

    headed = plan_launch(None, {"headed": "1", "viewport": "390x844"})
    assert headed.browser == "chromium" and headed.launch["headless"] is False
    assert (
        "--headless" not in headed.launch["args"]
        and "--disable-background-networking" in headed.launch["args"]
    )
    assert headed.context == {"viewport": {"width": 390, "height": 844}}
    assert plan_launch(None, {}).launch["headless"] is True


@pytest.mark.parametrize(
    ("css", "problem"),
    [
        ("#todo-list li[class", "unclosed '['"),
        ("li:not(.done", "unclosed '('"),
        ("li.done)", "unexpected ')'"),
        ("a[title='x]", "unclosed ' quote"),
        ("#todo-list >", "it ends with '>'"),
        ("li,,a", "an empty selector between commas"),
        ("  ", "it is empty"),
    ],
)
def test_css_that_no_engine_parses_is_refused_before_the_browser(css: str, problem: str) -> None:
    assert css_problem(css) == problem


@pytest.mark.parametrize(
    "css",
    ["#todo-list li:nth-child(2) .toggle", "a[title='x, y)']", "li:is(.a, .b) > a", 'button:has-text("Save")',
     "input[type=checkbox]:checked + label", r"#a\[1\]", "li ~ li"],
)  # fmt: skip
def test_css_a_browser_takes_is_never_refused(css: str) -> None:
    assert css_problem(css) is None


# --- the command line ----------------------------------------------------------------------------------


def test_web_options_with_a_phone_or_bad_values_are_usage_errors() -> None:
    phone = trailblaze("snapshot", "--device", "sim:android", "--viewport", "390x844")
    assert (phone.returncode, phone.stderr) == (
        2,
        "error: --viewport applies to web devices only (--device web[:URL])\n",
    )
    bad = trailblaze("snapshot", "--device", "web", "--viewport", "390by844")
    assert bad.returncode == 2, bad.stderr
    assert (
        bad.stderr
        == "error: bad viewport '390by844' (--viewport): use WIDTHxHEIGHT in CSS pixels, e.g. 1280x800\n"
    )


def test_unknown_preset_lists_the_close_ones() -> None:
    result = trailblaze("snapshot", "--device", "web", "--emulate", "iphone 51")
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith("error: unknown device preset 'iphone 51' (--emulate): did you mean ")
    assert "'iPhone 15'" in result.stderr and len(result.stderr.splitlines()) == 1


@pytest.mark.slow
def test_firefox_not_installed_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Playwright looks for its own Firefox build under PLAYWRIGHT_BROWSERS_PATH: an empty folder has none.
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path))
    result = trailblaze("snapshot", "--device", "web", "--browser", "firefox")
    assert result.returncode == 3, result.stdout + result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: Playwright's Firefox is not installed (looked for {tmp_path}/firefox-")
    assert "install it with `python -m playwright install firefox`" in line
    assert "stock Firefox (Debian's firefox-esr) cannot be driven by Playwright" in line


@pytest.mark.slow
def test_emulation_from_the_environment_and_viewport_from_the_command_line(
    tmp_path: Path, site: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    trail = tmp_path / "device.trail.yaml"
    trail.write_text(_DEVICE_TRAIL.format(url=site), encoding="utf-8")
    monkeypatch.setenv("TRAILBLAZE_WEB_EMULATE", "iPhone 15")  # a default: user agent, pixel ratio, touch
    monkeypatch.setenv("TRAILBLAZE_WEB_VIEWPORT", "800x600")  # a default the command line overrides
    result = trailblaze(
        "replay", str(trail), "--device", "web", "--viewport", "500x700", "--run-dir", str(tmp_path / "run")
    )
    assert result.returncode == 0, result.stdout + result.stderr
    run = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))
    assert "--viewport 500x700" in " ".join(run["command"])  # the run says how to run it again


# --- cssSelector -----------------------------------------------------------------------------------------

_CSS_TRAIL = """\
config:
  id: web/css-selectors
trail:
  - step: Add three todos
    recording:
      web:
        - web_navigate: {{url: "{url}/todomvc/index.html"}}
        - web_type: {{ref: 'textbox "What needs to be done?"', text: Buy milk}}
        - web_pressKey: {{key: Enter}}
        - web_type: {{ref: 'textbox "What needs to be done?"', text: Walk the dog}}
        - web_pressKey: {{key: Enter}}
        - web_type: {{ref: 'textbox "What needs to be done?"', text: Write the report}}
        - web_pressKey: {{key: Enter}}
  - step: Complete the second todo (CSS, role and nth together)
    recording:
      web:
        - tapOnElementBySelector:
            nodeSelector: {{web: {{ariaRole: checkbox, cssSelector: "#todo-list .toggle", nthIndex: 1}}}}
  - verify: Only "Walk the dog" is completed
    recording:
      web:
        - assertVisibleBySelector:
            nodeSelector: {{web: {{cssSelector: "#todo-list li.completed label", ariaNameRegex: Walk the dog}}}}
        - assertNotVisibleBySelector:
            nodeSelector: {{web: {{cssSelector: "#todo-list li.completed label", ariaNameRegex: Buy milk}}}}
        - web_verifyValue: {{ref: "css=#todo-count", type: TEXT, expected: 2 items left}}
  - step: Click the button inside the shadow root by CSS
    recording:
      web:
        - web_navigate: {{url: "{url}/edge.html"}}
        - tapOnElementBySelector:
            nodeSelector: {{web: {{cssSelector: "#host #shadow-button"}}}}
        - web_verifyTextVisible: {{text: Shadow clicked}}
"""

_BAD_CSS_TRAIL = """\
config:
  id: web/bad-css
trail:
  - step: Open the app
    recording:
      web:
        - web_navigate: {{url: "{url}/todomvc/index.html"}}
  - step: Tap what a selector the browser rejects names
    recording:
      web:
        - tapOnElementBySelector:
            nodeSelector: {{web: {{cssSelector: "li:frobnicate"}}}}
"""


@pytest.mark.slow
def test_css_selectors_replay_through_the_cli(tmp_path: Path, site: str) -> None:
    good = tmp_path / "a-css.trail.yaml"
    good.write_text(_CSS_TRAIL.format(url=site), encoding="utf-8")
    bad = tmp_path / "b-bad-css.trail.yaml"
    bad.write_text(_BAD_CSS_TRAIL.format(url=site), encoding="utf-8")
    result = trailblaze("replay", str(good), str(bad), "--device", "web", "--element-timeout", "2",
                        "--run-dir", str(tmp_path / "run"))  # fmt: skip
    out = result.stdout + result.stderr
    # The first trail passes (AND with the role, nth, a class the app toggles, an open shadow root);
    # the browser's own parser refuses the second's selector: one line naming the trail and step.
    first = out.split(f"{bad} on web")[0]
    assert first.count("✓") == 4 and "✗" not in first, out
    assert result.returncode == 2, out
    assert result.stderr.splitlines()[-1] == (
        f"error: {bad.name}:8 step 2 ('Tap what a selector the browser rejects names'): bad CSS selector "
        "'li:frobnicate': SyntaxError: Failed to execute 'querySelectorAll' on 'Document': 'li:frobnicate' "
        "is not a valid selector."
    )
    assert "Traceback" not in out


def test_bad_css_fails_validation_at_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.trail.yaml"
    bad.write_text(_BAD_CSS_TRAIL.format(url="http://127.0.0.1:9").replace("li:frobnicate", "li[class"))
    result = trailblaze("validate", str(bad))
    assert result.returncode == 2, result.stdout + result.stderr
    assert (
        f"{bad}:12:47: `nodeSelector.web.cssSelector` in `tapOnElementBySelector`: cssSelector 'li[class' "
        "is not CSS: unclosed '['" in result.stdout
    )


@pytest.mark.slow
def test_css_matches_the_live_capture_only_and_is_never_generated(site: str) -> None:
    from trailblaze.device.devices import open_device
    from trailblaze.screen.resolve import resolve
    from trailblaze.screen.selector import NodeSelector
    from trailblaze.screen.selector_gen import generate_selector

    def select(capture: object, **web: object) -> list[str]:
        found = resolve(NodeSelector.model_validate({"web": web}), capture)  # type: ignore[arg-type]
        return [n.label for n in found]

    with open_device(f"web:{site}/edge.html") as session:
        screen = session.settle()
        assert select(screen, cssSelector="#shadow-button") == ["Shadow button"]  # inside the shadow root
        assert select(screen, cssSelector="button") == ["Shadow button", "Load data"]  # not the iframe's
        assert select(screen, cssSelector="button", nthIndex=1) == ["Load data"]
        assert select(screen, cssSelector="button", ariaNameRegex="Load.*") == ["Load data"]  # AND
        assert select(screen, cssSelector="button", ariaRole="combobox") == []
        assert select(screen, cssSelector="#load span") == []  # nothing matches: nothing stands for it
        for node in screen.visible_nodes():
            selector = generate_selector(node, screen)
            assert selector is None or "cssSelector" not in json.dumps(selector.to_yaml_dict()), selector
        session.invalidate()
        newer = session.settle()
        # The old capture's node orders are not the page's any more: it matches nothing by CSS now.
        assert select(screen, cssSelector="#load") == [] and select(newer, cssSelector="#load") == [
            "Load data"
        ]
        # An idle wait walks the page too (its walk is kept for the next capture): `newer` is old now,
        # though what it was told while live stays (answers are kept per capture).
        assert session.driver.wait_for_idle(2.0) is True  # type: ignore[attr-defined]
        assert select(newer, cssSelector="button") == [] and select(newer, cssSelector="#load") == ["Load data"]


# --- pytest ----------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_pytest_options_and_ini(pytester: pytest.Pytester, site: str) -> None:
    pytester.makefile(
        ".ini", pytest="[pytest]\naddopts = -p no:cacheprovider\ntrailblaze_emulate = iPhone 15\n"
    )
    (pytester.path / "trails").mkdir()
    (pytester.path / "trails" / "device.trail.yaml").write_text(_DEVICE_TRAIL.format(url=site))
    passed = pytester.runpytest_subprocess("trails", "--device", "web", "--trailblaze-viewport", "500x700")
    assert passed.ret == 0, "\n".join(passed.outlines + passed.errlines)
    passed.assert_outcomes(passed=1)
    phone = pytester.runpytest_subprocess("trails", "--device", "sim:android", "--collect-only")
    assert phone.ret == pytest.ExitCode.USAGE_ERROR
    assert "--trailblaze-emulate applies to web devices only (--device web[:URL])" in "\n".join(
        phone.errlines
    )
