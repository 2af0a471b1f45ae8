"""Device profiles (drivers/sim/trailblaze_sim/device/profiles.yaml): each bundled size and modifier is what
the unmodified uiautomator2 and facebook-wda clients see, what trailblaze classifies, and how the demo app
lays itself out (docs/guides/every-device.md)."""

from __future__ import annotations

import io

import adbutils
import pytest
import uiautomator2 as u2
import wda
from PIL import Image, ImageStat

from trailblaze.device.devices import open_device, parse_device_spec
from trailblaze.errors import UsageError
from trailblaze_sim import create_device
from trailblaze_sim.device.profile import PROFILES, device_profile
from trailblaze_sim.device.state import ScreenInstance
from trailblaze_sim.model import ManualClock
from trailblaze_sim.server.adb import AndroidSimServer
from trailblaze_sim.server.wda import WdaSimServer

# profile → (Android width, height, scale), (iOS width, height, scale): the sizes the issue names
SIZES = {
    "phone": ((360, 800, 3.0), (390, 844, 3.0)),
    "small": ((360, 640, 2.0), (375, 667, 2.0)),
    "large": ((412, 915, 3.5), (430, 932, 3.0)),
    "tablet": ((800, 1280, 2.0), (820, 1180, 2.0)),
}


@pytest.mark.parametrize("name", list(SIZES))
def test_uiautomator2_reports_the_profiles_screen(name: str) -> None:
    width, height, scale = SIZES[name][0]
    device = create_device("android", clock=ManualClock(), profile=name)
    with AndroidSimServer(device) as server:
        adb = adbutils.AdbClient("127.0.0.1", server.port).device(device.serial)
        d = u2.connect(adb)
        try:
            assert d.window_size() == (round(width * scale), round(height * scale))
            assert d.info["displaySizeDpX"] == width and d.info["displaySizeDpY"] == height
            assert adb.shell("wm density").strip() == f"Physical density: {round(160 * scale)}"
            assert adb.prop.model == device.model
        finally:
            d.stop_uiautomator(wait=False)


@pytest.mark.parametrize("name", list(SIZES))
def test_webdriveragent_reports_the_profiles_screen(name: str) -> None:
    width, height, scale = SIZES[name][1]
    device = create_device("ios", clock=ManualClock(), profile=name + "+dark")
    with WdaSimServer(device) as server:
        c = wda.Client(server.url)
        assert tuple(c.window_size()) == (width, height)
        assert c.scale == scale
        info = c.device_info()
        assert info["userInterfaceIdiom"] == (1 if name == "tablet" else 0)
        assert info["model"] == ("iPad" if name == "tablet" else "iPhone")
        assert info["userInterfaceStyle"] == "dark"


@pytest.mark.parametrize(
    ("spec", "classifier", "size"),
    [
        ("sim:android+small", "android-phone", (720, 1280)),  # Android reports pixels, iOS points
        ("sim:android+large", "android-phone", (1442, 3202)),
        ("sim:android+tablet", "android-tablet", (1600, 2560)),
        ("sim:ios+small", "ios-iphone", (375, 667)),
        ("sim:ios:demo@v2+tablet+large-font", "ios-ipad", (820, 1180)),
    ],
)
def test_trailblaze_classifies_a_profile_by_its_size(spec: str, classifier: str, size: tuple[int, int]) -> None:
    with open_device(spec) as session:
        assert session.info.classifier == classifier
        assert (session.info.width, session.info.height) == size


def test_a_device_spec_names_a_profile_and_keeps_it() -> None:
    spec = parse_device_spec("sim:ios:demo@v2+tablet+large-font")
    assert (spec.platform, spec.target, spec.profile) == ("ios", "demo@v2", "tablet+large-font")
    assert str(spec) == "sim:ios:demo@v2+tablet+large-font"
    assert parse_device_spec("sim:android+small").profile == "small"
    assert parse_device_spec("sim:android").profile is None
    with pytest.raises(UsageError, match=r"a profile \(\+small\) is for a simulated device"):
        parse_device_spec("android+small")


def test_an_unknown_profile_is_one_line_naming_it() -> None:
    with pytest.raises(UsageError, match=r"unknown device profile 'tablte' in 'tablte\+dark': did you mean 'tablet'"):
        device_profile("android", "tablte+dark")
    with pytest.raises(UsageError, match="names two sizes"):
        device_profile("ios", "small+tablet")
    assert device_profile("android", "dark+large-font").name == "phone+large-font+dark"
    assert device_profile("android", None) == PROFILES["android"]


def _rows(profile: str | None) -> int:
    device = create_device("android", clock=ManualClock(), profile=profile)
    device.launch(device.spec.app_id)
    device.spec.state["signed_in"] = True
    device._screen.stack = [ScreenInstance.new("inbox", {})]  # the inbox as after signing in
    rows = [n for n in device.tree().walk() if n.id == "message_row" and n.visible]
    return len(rows)


def test_a_list_shows_as_many_rows_as_fit() -> None:
    phone, small, large_font, tablet = _rows(None), _rows("small"), _rows("large-font"), _rows("tablet")
    assert small < phone and large_font < phone < tablet, (small, large_font, phone, tablet)


def test_large_font_grows_text_and_the_shell_reports_its_scale() -> None:
    plain = create_device("android", clock=ManualClock())
    large = create_device("android", clock=ManualClock(), profile="large-font")
    heights = [next(n for n in d.tree().walk() if n.id == "sign_in").frame.height for d in (plain, large)]
    assert heights[1] == pytest.approx(heights[0] * 1.3)
    with AndroidSimServer(large) as server:
        adb = adbutils.AdbClient("127.0.0.1", server.port).device(large.serial)
        assert adb.shell("settings get system font_scale").strip() == "1.3"


def test_dark_renders_the_screen_dark_and_says_so() -> None:
    light = create_device("android", clock=ManualClock())
    dark = create_device("android", clock=ManualClock(), profile="dark")

    def brightness(png: bytes) -> float:
        return float(ImageStat.Stat(Image.open(io.BytesIO(png)).convert("L")).mean[0])

    assert brightness(dark.screenshot_png()) < brightness(light.screenshot_png()) - 60
    with AndroidSimServer(dark) as server:
        adb = adbutils.AdbClient("127.0.0.1", server.port).device(dark.serial)
        assert adb.shell("cmd uimode night").strip() == "Night mode: yes"


def test_landscape_turns_an_app_that_allows_it_and_leaves_a_portrait_one_upright() -> None:
    from trailblaze_sim import load_app_spec

    spec = load_app_spec("demo").model_copy(update={"orientations": ["portrait", "landscape"]})
    turned = create_device("ios", app=spec, clock=ManualClock(), profile="tablet+landscape")
    assert (turned.screen_width, turned.screen_height, turned.orientation) == (1180, 820, "landscape")
    upright = create_device("ios", clock=ManualClock(), profile="landscape")
    assert (upright.screen_width, upright.orientation) == (390, "portrait")
