"""`trailblaze port`: the other platform's recordings with zero model calls (docs/guides/every-device.md).

The example trails, their iOS (or Android) recordings taken out, are ported from the other platform on
the simulator: every step must port, the file must hold what record would have written (the recorded
examples' own recordings, call for call), and a step that cannot be found leaves the file unchanged
with its reason, the ported steps kept for `record --resume`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.support.cli import copy_example, trailblaze
from tests.support.paths import TRAILS
from tests.support.recordings import examples_without, without_recordings
from trailblaze.port.meaning import meaning_of, role_of_class, target_selectors
from trailblaze.screen.selector import NodeSelector


def _calls(path: Path, key: str) -> list[list[dict[str, object]]]:
    """Each step's `key` recording, `reason` left out (the port keeps the source's words there)."""
    steps = yaml.safe_load(path.read_text("utf-8"))["trail"]
    out = []
    for step in steps:
        calls = (step.get("recording") or {}).get(key) or []
        out.append([{n: {k: v for k, v in (p or {}).items() if k != "reason"} for n, p in c.items()} for c in calls])
    return out


# Android → iOS over every example; the other way over the trails whose elements are named differently
# there (an iOS heading's label is Android's text, a tab shares the heading's name); benchmarks/port_examples.py
# runs every example both ways.
_BACK = ["login.trail.yaml", "compose-validation.trail.yaml", "search.trail.yaml"]


@pytest.mark.slow
@pytest.mark.parametrize(("source", "target", "names"), [("android", "ios", None), ("ios", "android", _BACK)])
def test_every_example_ports_with_no_model_and_writes_what_record_wrote(
    source: str, target: str, names: list[str] | None, tmp_path: Path
) -> None:
    trails = examples_without(tmp_path, target, names)
    done = trailblaze(
        "port", ".", "--from", source, "--device", f"sim:{target}", "--secret", "password=hunter2",
        "--run-dir", "run", cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    steps = sum(len(_calls(t, source)) for t in trails)
    assert f"ported {steps} of {steps} steps with 0 model calls, 0 left for record" in done.stdout
    assert len(trails) == (len(names) if names else len(list(TRAILS.glob("*.trail.yaml"))))
    for trail in trails:
        assert _calls(trail, target) == _calls(TRAILS / trail.name, target), trail.name
    run = (tmp_path / "run" / "run.json").read_text("utf-8")
    assert '"llm_calls": 0' in run


@pytest.mark.slow
def test_a_step_that_cannot_be_found_leaves_the_file_and_keeps_the_ported_steps(tmp_path: Path) -> None:
    """demo@v2 renamed the sign-in button (`log_in`, "Log in"): steps 1–3 port, step 4 cannot."""
    trail = copy_example("login.trail.yaml", tmp_path)
    trail.write_text(without_recordings(trail.read_text("utf-8"), "ios"), "utf-8")
    before = trail.read_bytes()
    done = trailblaze(
        "port", "login.trail.yaml", "--from", "android", "--device", "sim:ios:demo@v2",
        "--secret", "password=hunter2", "--element-timeout", "1", "--run-dir", "run", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    out = " ".join(done.stdout.split())
    assert "step 4 ('Tap the \"Sign in\" button'): left for record: tapOnElementBySelector (1 of 1) matches no single element here" in out
    assert "ported 3 of 5 steps with 0 model calls, 2 left for record" in out
    assert "trailblaze record login.trail.yaml --device sim:ios:demo@v2 --secret password --resume" in out
    assert trail.read_bytes() == before
    draft = yaml.safe_load((tmp_path / "login.trail.yaml.draft").read_text("utf-8"))
    assert "ios" in str(draft)


def test_a_selector_means_the_same_on_the_other_platform() -> None:
    row = NodeSelector.model_validate(
        {
            "androidAccessibility": {"resourceIdRegex": "dev.trailblaze.demo:id/message_row"},
            "containsChild": {"androidAccessibility": {"textRegex": "Message 2"}},
        }
    )
    meaning = meaning_of(row)
    assert meaning.ident == "message_row" and meaning.relations[0][0] == "containsChild"
    ios = [s.to_yaml_dict() for s in target_selectors(meaning, "ios")]
    assert ios[0] == {
        "iosMaestro": {"resourceIdRegex": "message_row"},
        "containsChild": {"iosMaestro": {"textRegex": "Message 2"}},
    }
    heading = NodeSelector.model_validate(
        {"iosMaestro": {"accessibilityTextRegex": "Inbox", "classNameRegex": "XCUIElementTypeStaticText"}}
    )
    android = [s.to_yaml_dict() for s in target_selectors(meaning_of(heading), "android")]
    # strictest first: the kind kept; then the label said as Android's text, which is where it lives there
    assert android[0]["androidMaestro"]["classNameRegex"].split("|")[0] == "TextView"
    assert {"androidMaestro": {"textRegex": "Inbox"}} in android
    assert role_of_class("android.widget.Button") == role_of_class("XCUIElementTypeButton") == "button"
    assert role_of_class("android.widget.LinearLayout") is None


@pytest.mark.slow
def test_a_point_is_never_ported(tmp_path: Path) -> None:
    trail = tmp_path / "point.trail.yaml"
    trail.write_text(
        "trail:\n"
        "  - step: Tap the middle of the screen\n"
        "    recording:\n"
        "      android:\n"
        "        - tapOnPoint: {x: 180, y: 400}\n",
        "utf-8",
    )
    done = trailblaze("port", str(trail), "--from", "android", "--device", "sim:ios", "--run-dir", str(tmp_path / "r"))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "tapOnPoint (1 of 1) taps a point of the source screen, which is another point here" in " ".join(done.stdout.split())
    assert "ported 0 of 1 step with 0 model calls, 1 left for record" in " ".join(done.stdout.split())
