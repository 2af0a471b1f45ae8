"""Appium devices as specs (`appium:SERVER#CAPS`) and capabilities files: the forms a person writes,
the normalisation Appium expects, and a one-line `file:line:col` error for each mistake."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trailblaze.device.devices import parse_device_spec
from trailblaze.errors import TrailFileError, UsageError
from trailblaze_appium.capabilities import load_capabilities, select_capabilities
from trailblaze_appium.spec import with_capabilities


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    return str(path)


def test_keys_get_the_appium_prefix_and_the_platform_picks_the_automation(tmp_path: Path) -> None:
    path = _write(tmp_path, "caps.yaml", "platformName: Android\ndeviceName: Pixel 8\nappium:udid: emulator-5554\n")
    (caps,) = load_capabilities(path)
    assert caps.platform == "android" and caps.source == path
    assert caps.as_dict() == {
        "platformName": "Android",
        "appium:deviceName": "Pixel 8",
        "appium:udid": "emulator-5554",
        "appium:automationName": "UiAutomator2",
    }
    assert caps.label == "Pixel 8"
    ios = _write(tmp_path, "ios.json", json.dumps({"platformName": "iOS", "bstack:options": {"x": 1}}))
    (one,) = load_capabilities(ios)
    assert one.platform == "ios"
    assert one.as_dict() == {"platformName": "iOS", "bstack:options": {"x": 1}, "appium:automationName": "XCUITest"}


def test_a_list_and_the_w3c_form_give_one_set_per_device(tmp_path: Path) -> None:
    matrix = _write(tmp_path, "m.yaml", "- {platformName: Android, deviceName: A}\n- {platformName: iOS, deviceName: B}\n")
    sets = load_capabilities(matrix)
    assert [(s.source, s.platform, s.label) for s in sets] == [
        (f"{matrix}[1]", "android", "A"),
        (f"{matrix}[2]", "ios", "B"),
    ]
    w3c = _write(
        tmp_path,
        "w3c.json",
        json.dumps({"capabilities": {"alwaysMatch": {"platformName": "Android"}, "firstMatch": [{"deviceName": "X"}, {}]}}),
    )
    assert [s.as_dict().get("appium:deviceName") for s in load_capabilities(w3c)] == ["X", None]
    assert select_capabilities(f"{matrix}[2]").platform == "ios"
    with pytest.raises(UsageError, match=r"holds 2 capability sets .*\[N\] \(1-2\).*--trailblaze-each-device"):
        select_capabilities(matrix)
    with pytest.raises(UsageError, match=r"holds 2 capability set\(s\)"):
        select_capabilities(f"{matrix}[3]")


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("deviceName: Pixel\n", "1:1", "no platformName: add `platformName: Android`"),
        ("platformName: Windows\n", "1:15", "'Windows' is not a phone platform: use Android or iOS"),
        ("platformName: Android\nudid: x\nappium:udid: y\n", "3:1", "'appium:udid' is given twice"),
        ("[1, 2]\n", "1:2", "each item of the list must be a mapping"),
        ("platformName: [Android\n", "2:1", "YAML syntax error"),
        ("{}\n", "1:1", "no capabilities"),
        ("platformName: Android\nappium:app: ${TB_CAPS_MISSING_VAR}/app.apk\n", "2:13", "${TB_CAPS_MISSING_VAR} is not set"),
    ],
)
def test_a_bad_file_says_where_and_how_to_fix_it(tmp_path: Path, text: str, where: str, message: str) -> None:
    path = _write(tmp_path, "caps.yaml", text)
    with pytest.raises(TrailFileError) as raised:
        load_capabilities(path)
    line = raised.value.message
    assert "\n" not in line and line.startswith(f"{path}:{where}: "), line
    assert message in line


def test_env_references_fill_values_and_every_value_read_becomes_a_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from trailblaze.common.redact import scrub

    monkeypatch.setenv("TB_FARM_USER", "someone")
    monkeypatch.setenv("TB_FARM_KEY", "k3y-Very-Secret")
    monkeypatch.setenv("TB_CLOUD_SECRET", "cloud-Secret-42")
    path = _write(
        tmp_path,
        "caps.yaml",
        "platformName: Android\nudid: emu-${TB_CLOUD_SECRET}\n"
        "lt:options:\n  username: ${TB_FARM_USER}\n  accessKey: ${TB_FARM_KEY}\n",
    )
    (caps,) = load_capabilities(path)
    assert caps.as_dict()["lt:options"] == {"username": "someone", "accessKey": "k3y-Very-Secret"}
    assert caps.as_dict()["appium:udid"] == "emu-cloud-Secret-42"  # sent where the file put it
    # whatever key it sits under: a file can name any variable, and a server may quote it back
    assert scrub("key=k3y-Very-Secret user=someone udid=emu-cloud-Secret-42") == (
        "key={{TB_FARM_KEY}} user={{TB_FARM_USER}} udid=emu-{{TB_CLOUD_SECRET}}"
    )


def test_a_spec_joins_server_and_capabilities(tmp_path: Path) -> None:
    path = _write(tmp_path, "caps.yaml", "platformName: iOS\n")
    text = with_capabilities("appium:http://127.0.0.1:4723", path)
    assert text == f"appium:http://127.0.0.1:4723#{path}"
    spec = parse_device_spec(text)
    assert (spec.platform, spec.driver, spec.target, spec.simulated) == ("ios", "appium", "http://127.0.0.1:4723", False)
    assert str(spec) == text
    farm = parse_device_spec(f"appium:saucelabs:eu-central-1#{path}")
    assert farm.target == "saucelabs:eu-central-1" and farm.driver == "appium"
    assert with_capabilities("sim:android", None) == "sim:android"


@pytest.mark.parametrize(
    ("device", "caps", "message"),
    [
        ("appium:http://127.0.0.1:4723", None, "needs its capabilities: pass --capabilities FILE"),
        ("appium:", "x.yaml", "use appium:URL"),
        ("appium:Bad Name", "x.yaml", "use appium:URL"),
        ("sim:android", "x.yaml", "--capabilities is for Appium devices"),
        ("appium:http://h:1#a.yaml", "b.yaml", "already names its capabilities"),
        ("appium:http://127.0.0.1:4723", "/nonexistent/caps.yaml", "no such capabilities file: /nonexistent/caps.yaml"),
    ],
)
def test_bad_appium_specs_get_one_line_with_the_fix(device: str, caps: str | None, message: str) -> None:
    with pytest.raises(UsageError) as raised:
        parse_device_spec(with_capabilities(device, caps))
    assert message in raised.value.message and "\n" not in raised.value.message


def test_a_missing_capabilities_file_is_named_as_one(tmp_path: Path) -> None:
    """Issue 48 item 2: not "no such trail file"."""
    with pytest.raises(UsageError, match=r"^no such capabilities file: .*nope\.yaml$"):
        load_capabilities(str(tmp_path / "nope.yaml"))


def test_a_misspelled_appium_key_is_warned_of_with_a_did_you_mean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 48 item 2: `appium:adbPrt` would be sent, ignored, and end in a 20 s "no device" timeout."""
    path = _write(
        tmp_path, "caps.yaml",
        "platformName: Android\nappium:adbPrt: 5037\nudid: emulator-5554\nnewCommandTimeout: 60\n"
        "bstack:options: {x: 1}\nappium:settings: {waitForIdleTimeout: 0}\nwdaLocalPort: 8100\n",
    )  # fmt: skip
    (caps,) = load_capabilities(path)
    assert caps.as_dict()["appium:adbPrt"] == 5037  # still sent: the warning does not decide for the person
    assert capsys.readouterr().err.splitlines() == [
        f"warning: {path}:2:1: 'appium:adbPrt' is not a capability the UiAutomator2 driver knows, so the session "
        "would ignore it; did you mean 'appium:adbPort'?",
        f"warning: {path}:7:1: 'wdaLocalPort' is not a capability the UiAutomator2 driver knows, so the session "
        "would ignore it; check its spelling",
    ]
    ios = _write(tmp_path, "ios.yaml", "platformName: iOS\nwdaLocalPort: 8100\nappium:bundleID: x\n")
    load_capabilities(ios)
    assert capsys.readouterr().err.splitlines() == [
        f"warning: {ios}:3:1: 'appium:bundleID' is not a capability the XCUITest driver knows, so the session "
        "would ignore it; did you mean 'appium:bundleId'?",
    ]
    espresso = _write(tmp_path, "e.yaml", "platformName: Android\nautomationName: Espresso\nappium:whatever: 1\n")
    load_capabilities(espresso)
    assert capsys.readouterr().err == ""  # another driver's names are not ours to know
