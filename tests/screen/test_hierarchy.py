"""Parsing every dump dialect into the unified node model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lxml import etree

from tests.support.demo_screens import demo_screen
from tests.support.hierarchy_fixtures import FIXTURE_IDS, FIXTURES, load
from trailblaze.errors import DeviceError
from trailblaze.screen.hierarchy import DumpCache, Rect, _parse_android_expat, _parse_xml, parse_hierarchy


def _lxml_count(path: Path) -> int:
    root = etree.fromstring(path.read_bytes(), etree.XMLParser(recover=True, huge_tree=True))
    if root.tag == "hierarchy":
        return sum(1 for _ in root.iter("node"))
    if root.tag == "AppiumAUT":
        root = root[0]
    return sum(1 for el in root.iter() if isinstance(el.tag, str) and el.tag.startswith("XCUIElementType"))


@pytest.mark.parametrize("path", FIXTURES, ids=FIXTURE_IDS)
def test_every_fixture_parses_with_an_independent_node_count(path: Path) -> None:
    h = load(path)
    assert len(h.nodes) == _lxml_count(path)
    assert [n.order for n in h.nodes] == list(range(len(h.nodes)))
    assert h.width > 0 and h.height > 0
    assert h.visible_nodes(), "a real screen has visible nodes"
    for node in h.nodes:
        for child in node.children:
            assert child.parent is node and child.depth == node.depth + 1


def test_u2_dump_fields_and_windows() -> None:
    h = load(FIXTURES[[p.name for p in FIXTURES].index("google-tasks.xml")])
    assert h.platform == "android" and h.format == "u2" and h.scale == 1.0
    assert (h.width, h.height) == (1600, 2560)
    assert h.window_kinds == ["system", "app"]  # systemui root first
    fab = next(n for n in h.nodes if n.resource_id.endswith(":id/tasks_fab"))
    assert fab.label == "Create new task" and fab.clickable and fab.enabled
    assert fab.short_class == "FloatingActionButton" and fab.short_id == "tasks_fab"
    assert fab.package == "com.google.android.apps.tasks" and fab.window == 1


def test_u2_dump_with_ime_window_and_crcrlf_line_ends() -> None:
    path = next(p for p in FIXTURES if p.name == "avito-search-with-ime.xml")
    assert b"\r\r\n" in path.read_bytes()
    h = load(path)
    assert h.window_kinds.count("ime") == 1 and h.keyboard_shown
    ime_root = h.roots[h.window_kinds.index("ime")]
    assert ime_root.package == "com.google.android.inputmethod.latin"


_ADB_KEYBOARD_DUMP = """<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
<hierarchy rotation="0">
<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.example.app"
 content-desc="" clickable="false" enabled="true" focused="false" bounds="[0,0][1080,2400]" visible-to-user="true">
<node index="0" text="" resource-id="com.example.app:id/query" class="android.widget.EditText"
 package="com.example.app" content-desc="" clickable="true" enabled="true" focused="true"
 bounds="[0,200][1080,350]" visible-to-user="true" /></node>
<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.github.uiautomator"
 content-desc="" clickable="false" enabled="true" focused="false" bounds="[0,1500][1080,2256]" visible-to-user="true">
<node index="0" text="" resource-id="com.github.uiautomator:id/keyboard"
 class="android.inputmethodservice.KeyboardView" package="com.github.uiautomator" content-desc=""
 clickable="true" enabled="true" focused="false" bounds="[0,1500][1080,2256]" visible-to-user="true" /></node>
</hierarchy>"""


@pytest.mark.parametrize("fast", [True, False], ids=["expat", "tree"])
def test_an_input_method_from_any_package_is_the_keyboard(fast: bool) -> None:
    # uiautomator2's AdbKeyboard lives in com.github.uiautomator, a package that does not say "keyboard"
    data = _ADB_KEYBOARD_DUMP.encode()
    body = data[data.find(b"<") :]
    h = _parse_android_expat(body, data) if fast else _parse_xml(body, data)
    assert h is not None and h.window_kinds == ["app", "ime"] and h.keyboard_shown


def test_naf_and_missing_attributes_of_older_api_levels() -> None:
    h = load(next(p for p in FIXTURES if p.name == "facebook.xml"))
    assert any(n.naf for n in h.nodes)
    assert all(n.hint == "" for n in h.nodes if n.naf)


def test_single_line_uiautomator_dump_has_no_visibility_attribute() -> None:
    h = load(next(p for p in FIXTURES if p.name == "futu.xml"))
    assert h.format == "uiautomator-dump"
    assert all(n.visible for n in h.nodes)
    assert (h.width, h.height) == (1080, 1920)


def test_wda_appium_wrapped_source() -> None:
    h = load(next(p for p in FIXTURES if p.name == "keyboard.xml"))
    assert h.platform == "ios" and h.format == "wda-xml" and (h.width, h.height) == (390, 844)
    switch = next(n for n in h.nodes if n.short_class == "Switch" and n.label == "Auto-Correction")
    assert switch.checkable and not switch.checked and switch.value == "0"
    label = next(n for n in h.nodes if n.resource_id == "KeyboardAutocorrection")
    assert label.label == "Auto-Correction" and label.text == "Auto-Correction"
    general = next(n for n in h.nodes if n.short_class == "Button" and n.label == "General")
    assert general.resource_id == ""  # name == label carries no identifier
    period = next(n for n in h.nodes if n.label == "Period shortcut")
    assert not period.is_visible  # visible="false", below the screen


RAW_WDA = """<?xml version="1.0" encoding="UTF-8"?>
<XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Demo" label="Demo" enabled="true" visible="true" accessible="false" x="0" y="0" width="390" height="844" index="0" traits="" processId="1" bundleId="dev.trailblaze.demo">
  <XCUIElementTypeWindow type="XCUIElementTypeWindow" enabled="true" visible="true" accessible="false" x="0" y="0" width="390" height="844" index="0" traits="">
    <XCUIElementTypeTextField type="XCUIElementTypeTextField" value="Email" name="email" enabled="true" visible="true" accessible="true" x="20" y="100" width="350" height="44" index="0" placeholderValue="Email" traits=""/>
    <XCUIElementTypeButton type="XCUIElementTypeButton" name="sign_in" label="Sign in" enabled="true" visible="true" accessible="true" x="20" y="200" width="350" height="44" index="1" traits="Button, Selected"/>
  </XCUIElementTypeWindow>
</XCUIElementTypeApplication>
"""


def test_raw_wda_xml_new_attribute_order() -> None:
    h = parse_hierarchy(RAW_WDA, "ios", scale=3.0)
    app = h.roots[0]
    assert app.package == "dev.trailblaze.demo"
    field, button = app.children[0].children
    assert field.resource_id == "email" and field.hint == "Email" and field.text == ""  # value = placeholder
    assert field.editable and field.package == "dev.trailblaze.demo"
    assert button.resource_id == "sign_in" and button.label == "Sign in" and button.selected
    assert button.center == (195.0, 222.0) and h.scale == 3.0


def test_wda_json_source_in_envelope() -> None:
    doc = {
        "value": {
            "type": "Application", "label": "Demo", "name": "Demo", "rawIdentifier": None,
            "rect": {"x": 0, "y": 0, "width": 390, "height": 844}, "isEnabled": "1", "isVisible": "1",
            "children": [
                {"type": "Window", "rect": {"x": 0, "y": 0, "width": 390, "height": 844}, "isVisible": "1",
                 "children": [
                     {"type": "Switch", "rawIdentifier": "dark_mode", "name": "dark_mode", "label": "Dark mode",
                      "value": "1", "rect": {"x": 300, "y": 100, "width": 51, "height": 31},
                      "isEnabled": "1", "isVisible": "1", "isAccessible": "1"},
                     {"type": "StaticText", "rawIdentifier": None, "name": "Inbox", "label": "Inbox",
                      "value": "Inbox", "rect": {"x": 20, "y": 50, "width": 100, "height": 20},
                      "isEnabled": "1", "isVisible": "0"},
                 ]},
            ],
        },
        "sessionId": "abc",
    }  # fmt: skip
    h = parse_hierarchy(json.dumps(doc).encode())
    assert h.format == "wda-json" and h.platform == "ios"
    switch, text = h.roots[0].children[0].children
    assert switch.class_name == "XCUIElementTypeSwitch" and switch.resource_id == "dark_mode"
    assert switch.checked and switch.accessible and switch.label == "Dark mode"
    assert text.resource_id == "" and not text.visible


def test_any_attribute_order_and_missing_attributes() -> None:
    xml = (
        '<hierarchy rotation="1"><node bounds="[0,0][100,200]" class="android.widget.FrameLayout" '
        'package="p"><node clickable="true" text="Go" bounds="[10,10][50,30]" /></node></hierarchy>'
    )
    h = parse_hierarchy(xml)
    child = h.roots[0].children[0]
    assert child.text == "Go" and child.clickable and child.enabled and child.package == "p"
    assert child.bounds == Rect(10, 10, 50, 30) and h.rotation == 1


def test_leading_junk_and_bom_are_tolerated() -> None:
    xml = b'\xef\xbb\xbfnoise\n<hierarchy><node class="a" bounds="[0,0][10,10]"/></hierarchy>'
    assert len(parse_hierarchy(xml).nodes) == 1


@pytest.mark.parametrize(
    "junk",
    [
        "",
        "   ",
        "hello world",
        "<html><body>502 Bad Gateway</body></html>",
        '{"value": {"error": "x"}}',
        "{not json",
    ],
)
def test_not_a_hierarchy_raises_device_error(junk: str) -> None:
    with pytest.raises(DeviceError):
        parse_hierarchy(junk)


def test_platform_mismatch_raises() -> None:
    with pytest.raises(DeviceError, match="expected an ios"):
        parse_hierarchy('<hierarchy><node class="a" bounds="[0,0][1,1]"/></hierarchy>', "ios")


def test_visible_bounds_are_clipped_by_screen_and_scrolling_ancestors() -> None:
    xml = (
        '<hierarchy><node class="F" bounds="[0,0][100,100]">'
        '<node class="S" scrollable="true" bounds="[0,20][100,80]">'
        '<node class="T" text="a" bounds="[0,70][100,90]"/><node class="T" text="b" bounds="[0,90][100,110]"/>'
        "</node></node></hierarchy>"
    )
    h = parse_hierarchy(xml)
    a, b = h.roots[0].children[0].children
    assert a.visible_bounds == Rect(0, 70, 100, 80) and a.is_visible
    assert b.visible_bounds.area == 0 and not b.is_visible
    assert [n.text for n in h.visible_nodes()] == ["", "", "a"]


def test_appium_android_dialect_is_read_leniently() -> None:
    xml = (
        '<hierarchy index="0" class="hierarchy" rotation="0" width="1080" height="2000">'
        '<android.widget.FrameLayout class="android.widget.FrameLayout" bounds="[0,0][1080,2000]" displayed="true">'
        '<android.widget.Button text="OK" bounds="[0,0][100,100]" clickable="true" displayed="false"/>'
        "</android.widget.FrameLayout></hierarchy>"
    )
    h = parse_hierarchy(xml)
    assert h.format == "appium-android"
    button = h.nodes[1]
    assert button.class_name == "android.widget.Button" and not button.visible


def test_malformed_xml_falls_back_to_the_recovering_parser() -> None:
    # an unescaped control character and an unclosed element: expat refuses, lxml recovers
    xml = '<hierarchy rotation="0"><node class="a" text="x\x01y" bounds="[0,0][10,10]"><node class="b" bounds="[0,0][5,5]">'
    h = parse_hierarchy(xml)
    assert [n.class_name for n in h.nodes] == ["a", "b"] and h.nodes[1].parent is h.nodes[0]


# --------------------------------------------------------------------------------------------------
# The expat fast path agrees with the recovering (lxml) parser field by field


_FIELDS = (
    "class_name", "resource_id", "text", "label", "hint", "bounds", "visible_bounds", "enabled", "clickable",
    "long_clickable", "checkable", "checked", "focusable", "focused", "scrollable", "selected", "password",
    "visible", "on_screen", "naf", "package", "window", "index", "drawing_order", "order", "depth",
)  # fmt: skip


@pytest.mark.parametrize("path", [p for p in FIXTURES if "android" in p.parent.name], ids=lambda p: p.name)
def test_fast_android_parser_matches_the_tree_parser(path: Path) -> None:
    data = path.read_bytes()
    body = data[data.find(b"<") :]
    fast = _parse_android_expat(body, data)
    slow = _parse_xml(body, data)
    assert fast is not None and fast.format == slow.format and fast.window_kinds == slow.window_kinds
    assert len(fast.nodes) == len(slow.nodes)
    for a, b in zip(fast.nodes, slow.nodes, strict=True):
        assert [getattr(a, f) for f in _FIELDS] == [getattr(b, f) for f in _FIELDS], a
        assert (a.parent.order if a.parent else None) == (b.parent.order if b.parent else None)


def test_odd_index_drawing_order_and_bounds_values() -> None:
    xml = (
        '<hierarchy><node class="F" index="x" drawing-order="9999" bounds="[0,0][100,100]">'
        '<node class="T" index="700" bounds="[0,0][100,100]"/><node class="T" bounds="[1,2][3]"/>'
        '<node class="T" index="" drawing-order="-1" bounds="[-5,-6][7,8]"/></node></hierarchy>'
    )
    h = parse_hierarchy(xml)
    root, a, b, c = h.nodes
    assert (root.index, root.drawing_order) == (0, 9999)  # unparsable index: position among siblings
    assert (a.index, a.drawing_order) == (700, 700) and a.bounds == root.bounds
    assert b.bounds == Rect(0, 0, 0, 0) and not b.is_visible
    assert (c.index, c.drawing_order) == (2, -1) and c.bounds == Rect(-5, -6, 7, 8)


# --------------------------------------------------------------------------------------------------
# DumpCache


def test_dump_cache_reuses_the_hierarchy_of_an_identical_dump() -> None:
    cache = DumpCache()
    xml = '<hierarchy><node class="a" text="x" bounds="[0,0][10,10]"/></hierarchy>'
    first = cache.parse(xml, "android")
    assert cache.parse(xml, "android") is first
    assert cache.parse(xml.encode(), "android") is not first  # bytes are not the same source as text
    changed = cache.parse(xml.replace('"x"', '"y"'), "android")
    assert changed is not first and changed.nodes[0].text == "y"
    again = cache.parse(xml, "android")
    assert again is not first and again.nodes[0].text == "x"  # only the last dump is remembered
    assert cache.parse(xml, "android", width=5) is not again  # other options, other result
    assert (cache.hits, cache.misses) == (1, 5)


def test_dump_cache_reports_errors_like_parse_hierarchy() -> None:
    with pytest.raises(DeviceError):
        DumpCache().parse("")


# --------------------------------------------------------------------------------------------------
# The iOS keyboard


def test_ios_keyboard_inside_the_app_window_is_a_pseudo_window_of_its_own() -> None:
    h = demo_screen("login-keyboard", "ios")
    assert h.window_kinds == ["app", "ime"] and h.keyboard_shown
    keyboard = next(n for n in h.nodes if n.short_class == "Keyboard")
    assert h.window_kind(keyboard) == "ime"
    fields = [n for n in h.nodes if n.resource_id in ("email", "password", "sign_in")]
    assert len(fields) == 3 and all(h.window_kind(n) == "app" for n in fields)
    assert h.window_kind(h.roots[0]) == "app"  # the application element spans every window


def _ios_window(inner: str, index: int) -> str:
    return (
        f'<XCUIElementTypeWindow type="XCUIElementTypeWindow" visible="true" x="0" y="0" width="390" '
        f'height="844" index="{index}">{inner}</XCUIElementTypeWindow>'
    )


_KEYBOARD = (
    '<XCUIElementTypeOther type="XCUIElementTypeOther" visible="true" x="0" y="508" width="390" height="336">'
    '<XCUIElementTypeKeyboard type="XCUIElementTypeKeyboard" visible="true" x="0" y="508" width="390" height="336">'
    '<XCUIElementTypeKey type="XCUIElementTypeKey" name="q" label="q" visible="true" x="0" y="600" width="39" height="42"/>'
    "</XCUIElementTypeKeyboard></XCUIElementTypeOther>"
)
_FIELD = (
    '<XCUIElementTypeTextField type="XCUIElementTypeTextField" name="email" visible="true" x="16" y="100" '
    'width="358" height="44" placeholderValue="Email"/>'
)
_DONE = (
    '<XCUIElementTypeToolbar type="XCUIElementTypeToolbar" visible="true" x="0" y="464" width="390" height="44">'
    '<XCUIElementTypeButton type="XCUIElementTypeButton" name="Done" label="Done" visible="true" x="320" y="464" '
    'width="60" height="44"/></XCUIElementTypeToolbar>'
)


def _ios_app(*windows: str) -> str:
    return (
        '<XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Demo" label="Demo" visible="true" '
        f'x="0" y="0" width="390" height="844">{"".join(windows)}</XCUIElementTypeApplication>'
    )


def test_ios_window_holding_only_the_keyboard_is_the_ime_window() -> None:
    h = parse_hierarchy(_ios_app(_ios_window(_FIELD, 0), _ios_window(_KEYBOARD, 1)))
    assert h.window_kinds == ["app", "ime"]
    key = next(n for n in h.nodes if n.short_class == "Key")
    assert h.window_kind(key) == "ime" and key.window == 1


def test_ios_keyboard_window_with_an_accessory_toolbar_stays_an_app_window() -> None:
    # The "Done" toolbar above the keyboard is the app's input accessory: it must keep its ref.
    h = parse_hierarchy(_ios_app(_ios_window(_FIELD, 0), _ios_window(_DONE + _KEYBOARD, 1)))
    assert h.window_kinds == ["app", "app", "ime"]
    done = next(n for n in h.nodes if n.label == "Done")
    key = next(n for n in h.nodes if n.short_class == "Key")
    assert h.window_kind(done) == "app" and h.window_kind(key) == "ime" and key.window == 2
