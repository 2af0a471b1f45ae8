"""Two-pane screens (`split:`): on a tablet-wide device the demo shows the inbox beside the message."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import adbutils
import pytest
import uiautomator2 as u2

from tests.support.mutants import Job, replay_job
from tests.support.paths import ROOT
from tests.support.report import native_source
from tests.support.sim_android import PKG, rid
from tests.support.sim_phone import Phone
from trailblaze.errors import UsageError
from trailblaze_sim import load_app_spec
from trailblaze_sim.app.spec import AppSpec, SplitSpec
from trailblaze_sim.device.profile import PROFILES
from trailblaze_sim.device.screen import Screen
from trailblaze_sim.device.simulated import SimulatedDevice
from trailblaze_sim.device.state import ScreenInstance
from trailblaze_sim.model import ManualClock, SimNode
from trailblaze_sim.server.adb import AndroidSimServer

PLATFORMS = ["android", "ios"]


def _tablet(platform: str, app: str | Path | AppSpec = "demo", width: int = 800) -> Phone:
    """A `Phone` whose device is `width` x 1280 pt (the demo splits from 600 pt)."""
    phone = Phone(platform)
    spec = app if isinstance(app, AppSpec) else load_app_spec(app)
    profile = dataclasses.replace(PROFILES[platform], model="Tablet", width=width, height=1280)
    phone.d = SimulatedDevice(
        spec, "android" if platform == "android" else "ios", clock=phone.clock, profile=profile
    )
    phone.d.launch(spec.app_id, boot=True)
    return phone


def _within(node: SimNode, pane: SimNode) -> bool:
    f, p = node.frame, pane.frame
    return p.x <= f.x and f.right <= p.right + 0.01


def _row(phone: Phone, title: str) -> SimNode:
    return next(
        n
        for n in phone.nodes()
        if n.visible and n.id == "message_row" and any(c.text == title for c in n.children)
    )


@pytest.mark.parametrize("platform", PLATFORMS)
def test_detail_shows_beside_the_inbox(platform: str) -> None:
    p = _tablet(platform)
    p.sign_in()
    assert not p.has("detail_pane")  # the inbox alone has the whole screen
    assert p.find("messages").frame.width == 800
    p.open("Message 2")
    left, right = p.find("primary_pane"), p.find("detail_pane")
    assert (left.frame.x, left.frame.width) == (0, 320)
    assert (right.frame.x, right.frame.width) == (320, 480)
    assert [c.id for c in p.d.tree().children[:2]] == ["primary_pane", "detail_pane"]
    assert p.find("message_body").text == "This is message 2."
    assert _within(p.find("message_body"), right) and _within(p.find("archive"), right)
    assert _within(p.find("messages"), left) and _within(_row(p, "Message 5"), left)
    assert p.find("tabs").frame.width == 320
    assert p.d.screen_name == "detail"


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_row_in_the_primary_pane_replaces_the_detail_and_back_shows_the_inbox_alone(platform: str) -> None:
    p = _tablet(platform)
    p.sign_in()
    p.open("Message 2")
    p.open("Message 3")  # a row of the inbox pane, tapped while the detail is on top
    assert p.find("message_body").text == "This is message 3."
    assert p.find("message_title").text == "Message 3"
    p.back()  # one back: the selected messages did not stack up
    assert p.d.screen_name == "inbox"
    assert not p.has("detail_pane") and not p.has("message_body")
    assert p.find("messages").frame.width == 800


@pytest.mark.parametrize("platform", PLATFORMS)
def test_the_primary_pane_scrolls_on_its_own(platform: str) -> None:
    p = _tablet(platform)
    p.sign_in()
    p.open("Message 1")
    lst = p.find("messages").frame
    x = lst.center[0]
    for _ in range(3):
        p.d.swipe(x, lst.bottom - 20, x, lst.y + 20)
    assert "Message 30" in p.row_titles()
    p.open("Message 30")
    assert p.find("message_body").text == "This is message 30."
    assert "Message 30" in p.row_titles()  # the inbox kept its scroll position


def _without_splits(spec: AppSpec) -> AppSpec:
    screens = {name: s.model_copy(update={"split": None}) for name, s in spec.screens.items()}
    return spec.model_copy(update={"screens": screens})


def _dumps(phone: Phone) -> tuple[str, str]:
    # Each launch takes the next pid; the two devices compared differ only in when they started.
    return repr(phone.d.tree()), re.sub(r'processId="\d+"', "", native_source(phone.d))


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_phone_is_laid_out_as_without_splits(platform: str) -> None:
    spec = load_app_spec("demo")
    assert spec.screens["detail"].split is not None
    phones = [Phone(platform), Phone(platform)]
    phones[1].d = SimulatedDevice(_without_splits(spec), phones[0].d.platform, clock=phones[1].clock)
    phones[1].d.launch(spec.app_id, boot=True)
    for phone in phones:
        phone.sign_in()
        phone.open("Message 2")
    assert _dumps(phones[0]) == _dumps(phones[1])
    for phone in phones:
        phone.back()
        phone.tap("compose")
        phone.type_into("to", "bob@example.com")
    assert _dumps(phones[0]) == _dumps(phones[1])


def test_a_tablet_is_laid_out_differently_with_splits() -> None:
    spec = load_app_spec("demo")
    phones = [_tablet("android", spec), _tablet("android", _without_splits(spec))]
    for phone in phones:
        phone.sign_in()
        phone.open("Message 2")
    assert _dumps(phones[0]) != _dumps(phones[1])


@pytest.mark.parametrize("platform", PLATFORMS)
def test_below_min_width_the_screen_is_alone(platform: str) -> None:
    p = _tablet(platform, width=599)
    p.sign_in()
    p.open("Message 2")
    assert not p.has("primary_pane") and not p.has("messages")
    assert p.find("message_body").frame.width == 599 - 32


@pytest.mark.parametrize("platform", PLATFORMS)
def test_demo_flows_on_a_tablet(platform: str) -> None:
    p = _tablet(platform)
    p.sign_in()
    # open-message
    p.open("Message 2")
    assert p.find("message_body").text == "This is message 2."
    # archive-message
    p.open("Message 3")
    p.tap("archive")
    assert p.d.screen_name == "inbox" and not p.has("detail_pane")
    assert p.row_titles()[:3] == ["Message 1", "Message 2", "Message 4"]
    snack = p.find(text="Message archived")
    assert snack.role == "snackbar" and snack.frame.bottom <= p.find("tabs").frame.y
    # compose-validation: the form takes the whole screen (the inbox is not shown while composing)
    p.tap("compose")
    assert not p.has("detail_pane") and not p.has("messages")
    p.type_into("subject", "Hello")
    assert p.d.keyboard_shown() and p.find("subject").focused
    p.tap("send")
    assert p.find("error").text == "Recipient required"
    p.type_into("to", "bob@example.com")
    p.tap("send")
    assert p.d.screen_name == "inbox" and p.has(text="Message sent")
    assert not p.d.keyboard_shown()


SPLIT_APP = """\
app_id: com.example.split
name: Split
launch: things
data:
  things: {count: 5, item: {title: "Thing {n}"}}
screens:
  things:
    dialogs:
      confirm:
        title: Sure?
        buttons: [{text: OK, id: ok, on_tap: [close_dialog, {set: {screen.picked: "yes"}}]}]
    elements:
      - {role: text_field, id: query, hint: Filter}
      - {role: text, id: picked, text: "picked {screen.picked}"}
      - {role: switch, id: starred, text: Starred, bind: screen.starred}
      - {role: button, id: ask, text: Ask, on_tap: [{dialog: confirm}]}
      - role: list
        id: list
        source: things
        filter: {field: query, key: title}
        grow: true
        row:
          role: row
          id: thing
          on_tap: [{go: item, params: {n: "{item.n}"}}]
          children: [{role: text, id: thing_title, text: "{item.title}", margin: 0}]
  item:
    split: {primary: things, min_width: 700, primary_width: 300}
    elements:
      - {role: heading, id: item_title, text: "Item {screen.n} {screen.picked}"}
      - {role: text_field, id: note, hint: Note}
      - {role: button, id: close, text: Close, on_tap: [back]}
"""


@pytest.mark.parametrize("platform", PLATFORMS)
def test_both_panes_are_live(platform: str, tmp_path: Path) -> None:
    path = tmp_path / "split.yaml"
    path.write_text(SPLIT_APP, encoding="utf-8")
    p = _tablet(platform, path)
    p.tap(text="Thing 2")
    assert p.find("item_title").text == "Item 2 "
    assert p.find("primary_pane").frame.width == 300
    # A field of the primary pane: focus, keyboard and typing reach the primary screen's instance.
    p.type_into("query", "4")
    assert p.d.keyboard_shown() and p.find("query").focused
    assert p.find("query").text == "4" and [n.text for n in p.all("thing_title")] == ["Thing 4"]
    p.d.clear_text()
    assert p.find("query").text == ""
    p.type_into("note", "hi")
    assert p.find("note").text == "hi" and p.find("query").text == ""
    # A switch and a dialog of the primary pane set the primary screen's locals, not the detail's.
    p.tap("starred")
    assert p.find("starred").checked
    p.tap("ask")
    assert p.d.alert() is not None
    p.tap("ok")
    assert p.d.alert() is None
    assert p.find("picked").text == "picked yes" and p.find("item_title").text == "Item 2 "
    p.tap(text="Thing 5")
    assert p.find("item_title").text == "Item 5 " and p.find("note").text == ""
    p.tap("close")
    assert p.d.screen_name == "things" and p.find("starred").checked and not p.has("primary_pane")


@pytest.mark.parametrize(
    ("split", "message"),
    [
        (
            "{primary: nowhere}",
            r"app spec .*split\.yaml: screens\.item\.split\.primary: unknown screen 'nowhere'; screens are things, item",
        ),
        ("{primary: item}", r"screens\.item\.split\.primary: a screen cannot be its own primary pane"),
        (
            "{primary: things, min_width: 300, primary_width: 320}",
            r"screens\.item\.split: Value error, primary_width \(320\) must be less than min_width \(300\)",
        ),
        ("{primary: things, width: 3}", r"screens\.item\.split\.width: Extra inputs are not permitted"),
    ],
)
def test_split_spec_errors(split: str, message: str, tmp_path: Path) -> None:
    path = tmp_path / "split.yaml"
    path.write_text(
        SPLIT_APP.replace("{primary: things, min_width: 700, primary_width: 300}", split), encoding="utf-8"
    )
    with pytest.raises(UsageError, match=message):
        load_app_spec(path)


def test_uiautomator2_on_a_tablet() -> None:
    """The unmodified u2 client over the simulated adb server sees and drives both panes."""
    clock = ManualClock()
    profile = dataclasses.replace(PROFILES["android"], model="Tablet", width=800, height=1280)
    device = SimulatedDevice(load_app_spec("demo"), "android", clock=clock, profile=profile)
    device.launch(PKG, boot=True)
    with AndroidSimServer(device) as server:
        d = u2.connect(adbutils.AdbClient("127.0.0.1", server.port).device(device.serial))
        d.settings["wait_timeout"] = 2.0
        try:
            assert d.window_size() == (2400, 3840)
            d(resourceId=rid("email")).set_text("ada@example.com")
            d(resourceId=rid("password")).set_text("hunter2")
            d(resourceId=rid("sign_in")).click()
            clock.advance(1.0)
            d(resourceId=rid("message_row")).child(text="Message 2").click()
            assert d(resourceId=rid("message_body")).get_text() == "This is message 2."
            pane = d(resourceId=rid("primary_pane")).info["bounds"]
            assert (pane["left"], pane["right"]) == (0, 960)
            d(resourceId=rid("message_row")).child(text="Message 4").click()
            assert d(resourceId=rid("message_body")).get_text() == "This is message 4."
            d(resourceId=rid("archive")).click()
            assert d(resourceId=rid("snackbar_text")).get_text() == "Message archived"
            assert not d(resourceId=rid("detail_pane")).exists
        finally:
            d.stop_uiautomator(wait=False)


TABLET_TRAILS = ["open-message", "open-message-8", "archive-message"]  # the trails that open a message


@pytest.mark.slow
@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("trail", TABLET_TRAILS)
def test_example_trails_replay_on_a_tablet(
    platform: str, trail: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The recorded phone trails replay unchanged against the demo's two-pane layout (`+tablet`)."""
    shown: list[str] = []
    split = Screen.split

    def spy(self: Screen) -> tuple[ScreenInstance, SplitSpec] | None:
        found = split(self)
        if found is not None:
            shown.append(self.stack[-1].name)
        return found

    monkeypatch.setattr(Screen, "split", spy)
    outcome = replay_job(Job(ROOT / "trails" / f"{trail}.trail.yaml", "demo", platform, "tablet"))
    assert outcome.status == "passed", outcome
    assert shown  # the trail did see the two panes
