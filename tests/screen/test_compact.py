"""The compact view: what it keeps, what it drops, ref stability, and the set-of-mark drawing."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from PIL import Image

from tests.support.demo_screens import SCREENS, demo_screen
from tests.support.hierarchy_fixtures import FIXTURE_IDS, FIXTURES, load
from tests.support.screen_checks import covers_every_interactive_node
from trailblaze.screen.compact import compact_view, draw_set_of_mark
from trailblaze.screen.hierarchy import parse_hierarchy

_LINE = re.compile(r'^( *)(?:\[([a-z][0-9a-z]{2,}\d*)\] \S+(?: ".*?")?.*|… .*|\[keyboard shown\]|\(\d+ elements? (?:behind the dialog( ".*")?|under the keyboard) (?:is|are) hidden\))$')


def _fixture(name: str) -> Path:
    return next(p for p in FIXTURES if p.name == name)


@pytest.mark.parametrize("path", FIXTURES, ids=FIXTURE_IDS)
def test_every_interactive_element_has_a_ref_and_lines_are_well_formed(path: Path) -> None:
    h = load(path)
    view = compact_view(h)
    assert covers_every_interactive_node(h) == []
    refs_in_text = re.findall(r"^\s*\[([a-z][0-9a-z]+)\]", view.text, re.M)
    assert sorted(refs_in_text) == sorted(view.refs) and len(set(refs_in_text)) == len(refs_in_text)
    for line in view.text.splitlines():
        assert _LINE.match(line), line
    assert view.lines == len(view.text.splitlines())


@pytest.mark.parametrize("path", FIXTURES, ids=FIXTURE_IDS)
def test_no_system_ui_in_the_view(path: Path) -> None:
    h = load(path)
    view = compact_view(h)
    for node in view.refs.values():
        assert node.package != "com.android.systemui"
        assert h.window_kind(node) == "app"
        assert node.is_visible
        assert not any(a.short_class == "StatusBar" for a in node.ancestors())


@pytest.mark.parametrize("path", FIXTURES, ids=FIXTURE_IDS)
def test_refs_are_stable_between_two_parses(path: Path) -> None:
    data = path.read_bytes()
    first, second = compact_view(parse_hierarchy(data)), compact_view(parse_hierarchy(data))
    assert first.text == second.text
    assert {r: n.order for r, n in first.refs.items()} == {r: n.order for r, n in second.refs.items()}


def test_refs_survive_an_unrelated_change_of_the_screen() -> None:
    data = _fixture("google-tasks.xml").read_text(encoding="utf-8")
    before = compact_view(parse_hierarchy(data))
    # A toast-like change: one task renamed, and a new node appended to the app window.
    changed = data.replace('text="Task 5"', 'text="Task five"').replace(
        'content-desc="Task 5"', 'content-desc="Task five"'
    )
    after = compact_view(parse_hierarchy(changed))
    lost = set(before.refs) - set(after.refs)
    assert 1 <= len(lost) <= 2  # the renamed row (and its text line) only
    kept = set(before.refs) & set(after.refs)
    assert len(kept) >= len(before.refs) - 2
    for ref in kept:
        assert before.refs[ref].order == after.refs[ref].order


def test_keyboard_becomes_one_line() -> None:
    h = load(_fixture("avito-search-with-ime.xml"))
    view = compact_view(h)
    assert view.text.splitlines()[-1] == "[keyboard shown]"
    assert not any(n.package == "com.google.android.inputmethod.latin" for n in view.refs.values())
    assert len(view.text) < 2000


def test_offscreen_content_of_a_scrollable_is_summarised() -> None:
    view = compact_view(load(_fixture("settings-top.xml")))
    assert "… 14 more below" in view.text
    assert view.offscreen == 14
    assert '"Privacy"' in view.text and '"Wallet & Apple Pay"' not in view.text


@pytest.mark.parametrize("path", FIXTURES, ids=FIXTURE_IDS)
def test_compaction_ratio_is_at_least_15x_on_every_fixture(path: Path) -> None:
    assert path.stat().st_size / len(compact_view(load(path)).text.encode()) >= 15


EXPECTED_KEYBOARD_HEAD = """\
[xrz] Button "General"
[hec] StaticText "Keyboards"
[pcy] Table [scrollable]
 [hqn] Cell "Keyboards" value="3"
 [wc7] Cell "Text Replacement"
 [thp] Cell "One-Handed Keyboard" value="Off"
 [j5w] Other "ALL KEYBOARDS"
 [h4f] Cell "Auto-Correction"
  [srl] Switch [unchecked]
 [p05] Cell "Smart Punctuation"
  [iex] Switch [checked]"""


def test_representative_fixture_line_by_line() -> None:
    view = compact_view(load(_fixture("keyboard.xml")))
    lines = view.text.splitlines()
    assert lines[: len(EXPECTED_KEYBOARD_HEAD.splitlines())] == EXPECTED_KEYBOARD_HEAD.splitlines()
    assert lines[-1] == " … 11 more below"
    assert view.refs["srl"].short_class == "Switch" and view.refs["srl"].label == "Auto-Correction"


LOGIN = (
    '<hierarchy><node class="android.widget.FrameLayout" package="app" bounds="[0,0][1080,2400]">'
    '<node class="android.widget.FrameLayout" package="app" bounds="[0,0][1080,2400]">'  # wrapper: hoisted
    '<node class="android.widget.TextView" text="Welcome back" bounds="[40,200][1040,300]"/>'
    '<node class="android.widget.EditText" text="me@x.io" hint="Email" clickable="true" focused="true" bounds="[40,400][1040,520]"/>'
    '<node class="android.widget.EditText" hint="Password" password="true" clickable="true" bounds="[40,560][1040,680]"/>'
    '<node class="android.widget.Button" text="Sign in" clickable="true" enabled="false" bounds="[40,760][1040,880]"/>'
    '<node class="android.widget.LinearLayout" clickable="true" bounds="[40,900][1040,1000]">'
    '<node class="android.widget.TextView" text="Remember me" bounds="[40,900][600,1000]"/>'
    '<node class="android.widget.CheckBox" checkable="true" clickable="true" bounds="[900,900][1000,1000]"/>'
    "</node>"
    '<node class="android.widget.ImageView" bounds="[0,0][0,0]"/>'
    '<node class="android.widget.TextView" text="gone" visible-to-user="false" bounds="[0,1000][100,1100]"/>'
    '<node class="android.widget.TextView" text="Forgot password?" clickable="true" bounds="[40,1100][1040,1200]"/>'
    '<node class="android.widget.ImageView" content-desc="Avatar" long-clickable="true" bounds="[40,1200][140,1300]"/>'
    '<node class="android.widget.FrameLayout" content-desc="null" bounds="[40,1300][1040,1400]">'  # "null": no label
    '<node class="android.widget.TextView" text="Terms" bounds="[40,1300][1040,1400]"/></node>'
    '<node class="android.widget.LinearLayout" content-desc="Legal" bounds="[40,1400][1040,1600]">'
    '<node class="android.widget.FrameLayout" content-desc="Legal" bounds="[40,1400][1040,1600]">'  # repeats: hoisted
    '<node class="android.widget.Button" text="Read" clickable="true" bounds="[40,1400][1040,1500]"/></node>'
    "</node>"
    "</node></node>"
    '<node class="android.widget.FrameLayout" package="com.android.systemui" bounds="[0,0][1080,60]">'
    '<node class="android.widget.TextView" package="com.android.systemui" text="12:34" bounds="[0,0][100,60]"/></node>'
    "</hierarchy>"
)


def test_android_annotations_merging_and_dropping() -> None:
    view = compact_view(parse_hierarchy(LOGIN))
    body = [re.sub(r"^(\s*)\[[a-z0-9]+\] ", r"\1", line) for line in view.text.splitlines()]
    assert body == [
        'TextView "Welcome back"',
        'EditText "me@x.io" hint="Email" [focused]',
        'EditText "Password" [password]',
        'Button "Sign in" [disabled]',
        'LinearLayout "Remember me"',  # a tappable container: its line is the tap target, no marker
        " CheckBox [unchecked]",
        'TextView "Forgot password?" [tap]',  # a tappable text is worth flagging
        'ImageView "Avatar" [long-press]',
        'TextView "Terms"',
        'LinearLayout "Legal"',
        ' Button "Read"',
    ]


def test_set_of_mark_draws_every_ref() -> None:
    h = parse_hierarchy(LOGIN)
    view = compact_view(h)
    blank = io.BytesIO()
    Image.new("RGB", (540, 1200), (255, 255, 255)).save(blank, format="PNG")
    marked = Image.open(io.BytesIO(draw_set_of_mark(blank.getvalue(), view, 0.5)))
    assert marked.size == (540, 1200)
    for node in view.refs.values():
        left, top = node.visible_bounds.left * 0.5, node.visible_bounds.top * 0.5
        right = node.visible_bounds.right * 0.5 - 1
        # the box outline runs along the left edge below its label tag
        edge = marked.getpixel((int(left) + 1, int(min(top + 40, node.visible_bounds.bottom * 0.5 - 2))))
        assert edge != (255, 255, 255), node
        assert right > left
    # outside every box the screenshot is untouched
    assert marked.getpixel((530, 1190)) == (255, 255, 255)


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_login_with_the_keyboard_up_still_shows_the_app(platform: str) -> None:
    # Regression: the iOS keyboard sits inside the app's window, which was taken for the keyboard's.
    h = demo_screen("login-keyboard", platform)
    view = compact_view(h)
    lines = view.text.splitlines()
    assert lines[-1] == "[keyboard shown]" and h.keyboard_shown
    field = "TextField" if platform == "ios" else "EditText"
    secure = "SecureTextField" if platform == "ios" else "EditText"
    for cls, label in ((field, "Email"), (secure, "Password"), ("Button", "Sign in")):
        assert any(re.fullmatch(rf'\[[a-z0-9]+\] {cls} "{label}".*', line) for line in lines), (cls, label)
    by_id = {n.short_id: n for n in view.refs.values()}
    assert {"email", "password", "sign_in", "forgot"} <= set(by_id)
    assert covers_every_interactive_node(h) == []


@pytest.mark.parametrize("platform", ["android", "ios"])
@pytest.mark.parametrize("screen", SCREENS)
def test_every_demo_screen_gives_every_control_a_ref(platform: str, screen: str) -> None:
    h = demo_screen(screen, platform)
    view = compact_view(h)
    assert covers_every_interactive_node(h) == []
    for line in view.text.splitlines():
        assert _LINE.match(line), line
    assert ("[keyboard shown]" in view.text) == h.keyboard_shown


def test_demo_tabs_are_marked_tappable_and_rows_are_not_annotated() -> None:
    lines = compact_view(demo_screen("inbox", "android")).text.splitlines()
    assert any(re.fullmatch(r'\[[a-z0-9]+\] TextView "Search" \[tap\]', line) for line in lines)
    assert any(re.fullmatch(r'\[[a-z0-9]+\] TextView "Inbox"', line) for line in lines)  # the heading
    assert any(re.fullmatch(r' \[[a-z0-9]+\] LinearLayout "Message 1"', line) for line in lines)
