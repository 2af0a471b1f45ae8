"""Trailblaze's recorded web form: `web_*` element tools carrying `ref` (the element's id in the page
snapshot of the recording), `nodeSelector` (what replays) and `reasoning`
(docs/adr/0039-web-node-selector.md). Replays run Debian's Chromium on the vendored TodoMVC app,
served from a local http.server on 127.0.0.1."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from tests.support.cli import NO_LLM, trailblaze
from tests.support.paths import ROOT
from tests.support.web import serve_folder
from trailblaze.tools.catalog.web_target import WebTargetParams
from trailblaze.tools.catalog.web_tools import (
    WebClick,
    WebScroll,
    WebSelectOption,
    WebType,
    WebVerifyElementVisible,
    WebVerifyValue,
)
from trailblaze.tools.params import RecordedToolParams

DATA = ROOT / "tests" / "data" / "web"
TRAIL = DATA / "todomvc-recorded-form.trail.yaml"
BLOCK = ROOT / "tests" / "data" / "trailblaze-web" / "trails" / "playwright-native"
_BLOCK_REPLAYED = [
    "test-counter",
    "test-form-interaction",
    "test-navigation",
    "test-scroll-containers",
    "test-search-duplicates",
]
_SELECTOR = {"web": {"cssSelector": "#increment-btn"}}

_ELEMENT_TOOLS: list[tuple[type[RecordedToolParams], dict[str, Any]]] = [
    (WebClick, {}),
    (WebType, {"text": "Buy milk"}),
    (WebScroll, {"direction": "DOWN"}),
    (WebSelectOption, {"values": ["Feedback"]}),
    (WebVerifyElementVisible, {}),
    (WebVerifyValue, {"expected": "3"}),
]


@pytest.mark.parametrize(("model", "extra"), _ELEMENT_TOOLS, ids=lambda v: getattr(v, "tool_name", ""))
def test_every_web_element_tool_takes_the_recorded_form(
    model: type[RecordedToolParams], extra: dict[str, Any]
) -> None:
    params = model.model_validate(
        {"ref": "e11", "nodeSelector": _SELECTOR, "reasoning": "the + button is [e11]", **extra}
    )
    written = params.to_params()
    assert written["nodeSelector"] == _SELECTOR
    assert written["ref"] == "e11"
    assert isinstance(params, WebTargetParams)
    assert params.target == params.nodeSelector  # the selector, not the ref


@pytest.mark.parametrize(("model", "extra"), _ELEMENT_TOOLS, ids=lambda v: getattr(v, "tool_name", ""))
def test_a_selector_alone_is_enough(model: type[RecordedToolParams], extra: dict[str, Any]) -> None:
    params = model.model_validate({"nodeSelector": _SELECTOR, **extra})
    assert "ref" not in params.to_params()


@pytest.mark.parametrize(
    ("selector", "says"),
    [
        ({"androidAccessibility": {"textRegex": "Active"}}, "androidAccessibility matches no web element"),
        ({"index": 2}, "it has none"),
        (
            {"web": {"ariaRole": "checkbox"}, "below": {"iosMaestro": {"textRegex": "Buy"}}},
            "nodeSelector.below",
        ),
    ],
)
def test_a_selector_without_the_web_branch_is_refused(selector: dict[str, Any], says: str) -> None:
    with pytest.raises(ValidationError) as err:
        WebClick.model_validate({"ref": "e5", "nodeSelector": selector})
    assert says in str(err.value)


def test_an_element_tool_needs_a_ref_or_a_selector() -> None:
    with pytest.raises(ValidationError, match="it needs a ref or a nodeSelector"):
        WebClick.model_validate({"reasoning": "click it"})
    with pytest.raises(ValidationError, match="its ref is empty"):
        WebClick.model_validate({"ref": " "})
    assert WebScroll.model_validate({}).target is None  # the page scrolls without one


def test_validate_accepts_the_recorded_form() -> None:
    result = trailblaze("validate", str(TRAIL))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "all valid" in result.stdout + result.stderr


def test_validate_names_a_selector_without_the_web_branch(tmp_path: Path) -> None:
    bad = tmp_path / "bad.trail.yaml"
    bad.write_text(
        "config:\n  id: bad\n"
        "trail:\n  - step: Check the field\n    recording:\n      web:\n"
        "        - web_verifyValue:\n            ref: e3\n            expected: Call mom\n"
        "            nodeSelector:\n              iosMaestro:\n                classNameRegex: TextField\n",
        encoding="utf-8",
    )
    result = trailblaze("validate", str(bad))
    out = result.stdout + result.stderr
    assert result.returncode == 2, out
    assert "bad.trail.yaml:8:" in out  # the tool's params
    assert "`web_verifyValue`: its nodeSelector needs a `web` branch" in out
    assert "iosMaestro matches no web element" in out
    assert "Traceback" not in out


# --- replay in Chromium ---------------------------------------------------------------------------

_browser = pytest.mark.skipif(
    not any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")),
    reason="no browser: install Debian's `chromium` package for the web driver tests",
)


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    pytest.importorskip(
        "playwright", reason="the web driver needs `pip install -e ./drivers/web` (playwright)"
    )
    with serve_folder(DATA) as url:
        yield url


def _replay(tmp_path: Path, base_url: str, text: str, *extra: str) -> tuple[int, str]:
    path = tmp_path / "todomvc.trail.yaml"
    path.write_text(text.replace("tests/data/web", base_url), encoding="utf-8")
    result = trailblaze("replay", str(path), "--device", "web", "--run-dir", str(tmp_path / "run"), *extra)
    return result.returncode, result.stdout + result.stderr


@pytest.mark.slow
@_browser
def test_the_recorded_form_replays_by_its_selectors(tmp_path: Path, base_url: str) -> None:
    code, out = _replay(tmp_path, base_url, TRAIL.read_text(encoding="utf-8"))
    assert code == 0, out
    assert "6/6" in out


@pytest.mark.slow
@_browser
def test_a_ref_naming_another_element_is_ignored_for_the_selector(tmp_path: Path, base_url: str) -> None:
    # The ref is a live ARIA descriptor of the Completed filter: were it used, only "Walk the dog"
    # would be listed and the verify step would fail.
    text = TRAIL.read_text(encoding="utf-8").replace("ref: e21", 'ref: link "Completed"')
    assert 'ref: link "Completed"' in text
    code, out = _replay(tmp_path, base_url, text)
    assert code == 0, out


@pytest.mark.slow
@_browser
def test_a_selector_matching_nothing_fails_naming_the_step(tmp_path: Path, base_url: str) -> None:
    text = TRAIL.read_text(encoding="utf-8").replace('"#filters a"', '"#no-such-filter a"')
    code, out = _replay(tmp_path, base_url, text, "--element-timeout", "1")
    assert code == 1, out
    assert "step 4 ('Show only the active todos')" in out
    assert "web_click failed: NOT_FOUND no element web{cssSelector=#no-such-filter a, nthIndex=1}" in out
    assert "Traceback" not in out


def test_validate_accepts_trailblazes_web_trails_but_a_bare_index() -> None:
    result = trailblaze("validate", str(BLOCK))
    out = result.stdout + result.stderr
    assert result.returncode == 2, out
    assert "7 files checked, 1 invalid with 1 problem" in out
    assert "test-duplicate-list/trail.yaml:29:13: `web_click`: its nodeSelector needs a `web` branch" in out
    assert "Traceback" not in out


@pytest.mark.slow
@_browser
@pytest.mark.parametrize("name", _BLOCK_REPLAYED)
def test_trailblazes_web_trails_replay_on_its_sample_app(name: str, tmp_path: Path) -> None:
    pytest.importorskip(
        "playwright", reason="the web driver needs `pip install -e ./drivers/web` (playwright)"
    )
    # Their URLs are relative to the trail's folder (`../../../examples/playwright-native/…`).
    env = {**os.environ, "ANTHROPIC_BASE_URL": NO_LLM, "COLUMNS": "200"}
    env.pop("ANTHROPIC_API_KEY", None)
    result = subprocess.run(
        [sys.executable, "-m", "trailblaze", "replay", "trail.yaml", "--device", "web"]
        + ["--run-dir", str(tmp_path / "run")],
        cwd=BLOCK / name,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    out = result.stdout + result.stderr
    assert result.returncode == 0, out
    assert "1 passed" in out
