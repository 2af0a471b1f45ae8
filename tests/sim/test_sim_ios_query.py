"""NSPredicate / class-chain / XPath queries and the WDA source renderings, on a hand-built tree."""

from __future__ import annotations

import json

import pytest
from lxml import etree

from trailblaze_sim.ios.query import (
    QueryError,
    find_class_chain,
    find_predicate,
    find_xpath,
    parse_class_chain,
    parse_predicate,
)
from trailblaze_sim.ios.source import IosElement, Snapshot, build_snapshot
from trailblaze_sim.model import AppInfo, Frame, SimNode

APP = AppInfo(app_id="dev.trailblaze.demo", name="Demo", pid=4242)


def _xp(doc: etree._Element, expr: str) -> list[etree._Element]:
    found = doc.xpath(expr)
    assert isinstance(found, list)
    return [e for e in found if isinstance(e, etree._Element)]


def _n(role: str, ios_type: str, frame: tuple[float, float, float, float], **kw: object) -> SimNode:
    return SimNode(role=role, android_class="android.view.View", ios_type=ios_type, frame=Frame(*frame), **kw)  # type: ignore[arg-type]


def _tree() -> SimNode:
    rows = [
        _n(
            "row",
            "XCUIElementTypeCell",
            (0, 120 + 60 * i, 390, 60),
            children=[
                _n("text", "XCUIElementTypeStaticText", (16, 124 + 60 * i, 200, 22), text=f"Message {i + 1}"),
                _n("text", "XCUIElementTypeStaticText", (16, 150 + 60 * i, 200, 18), text=f"From: user{i + 1}@example.com"),
            ],
        )
        for i in range(4)
    ]
    return _n(
        "screen",
        "XCUIElementTypeOther",
        (0, 0, 390, 844),
        children=[
            _n("heading", "XCUIElementTypeStaticText", (16, 60, 200, 41), text="Inbox"),
            _n("text_field", "XCUIElementTypeTextField", (16, 100.5, 358, 20.2), id="query", hint="Search messages"),
            _n("list", "XCUIElementTypeTable", (0, 120, 390, 240), id="messages", scrollable=True, children=rows),
            _n("icon_button", "XCUIElementTypeButton", (320, 700, 56, 56), id="compose", label="Compose", clickable=True),
            _n("switch", "XCUIElementTypeSwitch", (300, 770, 51, 31), id="dark_mode", text="Dark mode", checked=True),
            _n("secure_field", "XCUIElementTypeSecureTextField", (16, 400, 358, 44), id="password", text="hunter2",
               hint="Password", password=True),
            _n("button", "XCUIElementTypeButton", (16, 460, 358, 44), id="sign_in", text="Sign in", enabled=False),
            _n("text", "XCUIElementTypeStaticText", (16, 900, 200, 20), text="Café <\"déjà\"> & co", visible=False),
        ],
    )


@pytest.fixture(scope="module")
def snap() -> Snapshot:
    return build_snapshot(_tree(), APP, screen_width=390, screen_height=844)


def _names(els: list[IosElement]) -> list[str | None]:
    return [e.name for e in els]


# --- source rendering --------------------------------------------------------------------------


def test_xml_source_header_root_and_attribute_order(snap: Snapshot) -> None:
    xml = snap.xml()
    lines = xml.split("\n")
    assert lines[0] == '<?xml version="1.0" encoding="UTF-8"?>'
    assert lines[1] == (
        '<XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Demo" label="Demo" enabled="true" '
        'visible="true" accessible="false" x="0" y="0" width="390" height="844" index="0" traits="" '
        'processId="4242" bundleId="dev.trailblaze.demo">'
    )
    assert lines[2].startswith('  <XCUIElementTypeWindow type="XCUIElementTypeWindow" enabled="true"')
    assert xml.endswith("</XCUIElementTypeApplication>\n")
    compose = next(line for line in lines if 'name="compose"' in line)
    assert compose.strip() == (
        '<XCUIElementTypeButton type="XCUIElementTypeButton" name="compose" label="Compose" enabled="true" '
        'visible="true" accessible="true" x="320" y="700" width="56" height="56" index="3" traits="Button"/>'
    )


def test_xml_source_values_nil_omission_and_escaping(snap: Snapshot) -> None:
    doc = etree.fromstring(snap.xml().encode())
    field = _xp(doc, '//XCUIElementTypeTextField')[0]
    # A text field keeps its empty label as "" (WDA's wdLabel; real dumps show label=""), other
    # types omit a nil one; value falls back to the placeholder; rect is CGRectIntegral.
    assert field.get("label") == ""
    assert field.get("value") == "Search messages"
    assert field.get("placeholderValue") == "Search messages"
    assert (field.get("y"), field.get("height")) == ("100", "21")
    assert list(field.attrib)[:5] == ["type", "value", "name", "label", "enabled"]
    switch = _xp(doc, '//XCUIElementTypeSwitch')[0]
    assert (switch.get("value"), switch.get("label"), switch.get("name")) == ("1", "Dark mode", "dark_mode")
    secure = _xp(doc, '//XCUIElementTypeSecureTextField')[0]
    assert secure.get("value") == "\u2022" * 7
    disabled = _xp(doc, '//*[@name="sign_in"]')[0]
    assert (disabled.get("enabled"), disabled.get("traits")) == ("false", "Button, NotEnabled")
    odd = _xp(doc, '//*[@visible="false"]')[0]
    assert odd.get("label") == 'Café <"déjà"> & co'
    assert '&lt;&quot;déjà&quot;&gt; &amp; co' in snap.xml()
    heading = _xp(doc, '//*[@name="Inbox"]')[0]
    assert heading.get("traits") == "StaticText, Header"
    cells = _xp(doc, "//XCUIElementTypeCell")
    assert [c.get("index") for c in cells] == ["0", "1", "2", "3"]


def test_json_and_accessible_source(snap: Snapshot) -> None:
    tree = json.loads(json.dumps(snap.json()))
    assert tree["type"] == "Application"
    window = tree["children"][0]
    assert window["type"] == "Window" and window["rawIdentifier"] is None
    screen = window["children"][0]
    compose = next(c for c in screen["children"] if c["rawIdentifier"] == "compose")
    assert compose["rect"] == {"x": 320, "y": 700, "width": 56, "height": 56}
    assert compose["frame"] == "{{320, 700}, {56, 56}}"
    assert (compose["isEnabled"], compose["isAccessible"], compose["label"]) == ("1", "1", "Compose")
    assert "children" not in compose
    query = next(c for c in screen["children"] if c["rawIdentifier"] == "query")
    assert query["frame"] == "{{16, 100.5}, {358, 20.2}}" and query["placeholderValue"] == "Search messages"
    acc = snap.accessible_source()
    labels = json.dumps(acc)
    assert '"label": "Compose"' in labels and "Café" not in labels  # invisible leaves are left out


# --- NSPredicate -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("predicate", "expected"),
    [
        ("name == 'compose'", ["compose"]),
        ('name == "compose"', ["compose"]),
        ("name = 'compose'", ["compose"]),
        ("label ==[c] 'COMPOSE'", ["compose"]),
        ("label == 'COMPOSE'", []),
        ("name != 'compose' AND type == 'XCUIElementTypeButton'", ["sign_in"]),
        ("name <> 'compose' AND type == 'XCUIElementTypeButton'", ["sign_in"]),
        ("label CONTAINS 'essage 3'", ["Message 3"]),
        ("label CONTAINS[c] 'MESSAGE 3'", ["Message 3"]),
        ("label BEGINSWITH 'From: user4'", ["From: user4@example.com"]),
        ("label ENDSWITH '2@example.com'", ["From: user2@example.com"]),
        ("label LIKE 'Message ?'", ["Message 1", "Message 2", "Message 3", "Message 4"]),
        ("label LIKE[c] 'message*2'", ["Message 2"]),
        ("label MATCHES 'Message [13]'", ["Message 1", "Message 3"]),
        ("label MATCHES 'essage 1'", []),  # MATCHES is a full match
        ("name IN {'compose', 'sign_in', 'nope'}", ["compose", "sign_in"]),
        ("name IN[c] {'COMPOSE'}", ["compose"]),
        ("type == 'XCUIElementTypeButton' AND enabled == false", ["sign_in"]),
        ("type == 'XCUIElementTypeButton' AND enabled == 0", ["sign_in"]),
        ("type == 'XCUIElementTypeButton' && NOT enabled == true", ["sign_in"]),
        ("type == 'XCUIElementTypeButton' AND !(wdEnabled == YES)", ["sign_in"]),
        ("name == 'compose' OR name == 'sign_in'", ["compose", "sign_in"]),
        ("name == 'compose' || name == 'dark_mode'", ["compose", "dark_mode"]),
        ("(name == 'compose' OR name == 'sign_in') AND enabled == 1", ["compose"]),
        ("visible == false", ["Café <\"déjà\"> & co"]),
        ("label ==[cd] 'cafe <\"deja\"> & CO'", ["Café <\"déjà\"> & co"]),
        ("label == 'Caf\\u00e9'", []),
        ("value == '1' AND type == 'XCUIElementTypeSwitch'", ["dark_mode"]),
        ("label == '' AND type == 'XCUIElementTypeTextField'", ["query"]),
        ("label == nil AND type == 'XCUIElementTypeTextField'", []),
        ("rect.y >= 700 AND rect.height == 56", ["compose"]),
        ("wdName == 'compose' AND wdType == 'XCUIElementTypeButton'", ["compose"]),
        ("name == 'it\\'s'", []),
        ("placeholderValue == 'Password'", ["password"]),
        ("rect.width BETWEEN {50, 52}", ["dark_mode"]),
        ("name == 'compose' AND TRUEPREDICATE", ["compose"]),
        ("FALSEPREDICATE", []),
        ("name == 'compose' AND false", []),  # what facebook-wda sends for visible=False
    ],
)
def test_predicate_grammar(snap: Snapshot, predicate: str, expected: list[str]) -> None:
    assert _names(find_predicate(snap, predicate)) == expected


@pytest.mark.parametrize(
    "bad",
    ["", "name ==", "name == 'x' AND", "name ~ 'x'", "(name == 'x'", "name == 'unterminated", "name IN 'x' ]"],
)
def test_predicate_syntax_errors(bad: str) -> None:
    with pytest.raises(QueryError):
        parse_predicate(bad)


def test_predicate_unknown_attribute_and_bad_regex(snap: Snapshot) -> None:
    with pytest.raises(QueryError, match="unknown attribute"):
        find_predicate(snap, "colour == 'red'")
    with pytest.raises(QueryError, match="regular expression"):
        parse_predicate("label MATCHES '('")


# --- class chain -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("chain", "expected"),
    [
        ("**/XCUIElementTypeButton", ["compose", "sign_in"]),
        ("**/XCUIElementTypeButton[1]", ["compose"]),
        ("**/XCUIElementTypeButton[-1]", ["sign_in"]),
        ("**/XCUIElementTypeButton[3]", []),
        ("**/XCUIElementTypeButton[0]", ["compose", "sign_in"]),
        ("**/XCUIElementTypeAny[`name == 'compose'`]", ["compose"]),
        ("**/*[`name == 'compose'`]", ["compose"]),
        ("XCUIElementTypeWindow/XCUIElementTypeOther/XCUIElementTypeButton", ["compose", "sign_in"]),
        ("XCUIElementTypeWindow/XCUIElementTypeButton", []),  # `/` is direct children only
        ("XCUIElementTypeWindow/**/XCUIElementTypeCell[2]/XCUIElementTypeStaticText[1]", ["Message 2"]),
        ("**/XCUIElementTypeCell/XCUIElementTypeStaticText[-1]", ["From: user4@example.com"]),
        ("**/XCUIElementTypeCell[`name == 'nope'`]", []),
        ("**/XCUIElementTypeCell[$label == 'Message 3'$]/XCUIElementTypeStaticText[2]", ["From: user3@example.com"]),
        ("**/XCUIElementTypeTable[$label BEGINSWITH 'From'$]", ["messages"]),
        ("**/XCUIElementTypeStaticText[`label BEGINSWITH 'Message'`][-2]", ["Message 3"]),
        ("**/XCUIElementTypeStaticText[2][`label BEGINSWITH 'Message'`]", ["Message 1"]),
        ("**/XCUIElementTypeStaticText[3][`label BEGINSWITH 'Message'`]", []),  # index first, then filter
        ("**/XCUIElementTypeTable/**/XCUIElementTypeStaticText[`label CONTAINS '4'`]", ["Message 4", "From: user4@example.com"]),
        ("**/XCUIElementTypeAny[`name == 'it\\'s a ]bracket'`]", []),
    ],
)
def test_class_chain_grammar(snap: Snapshot, chain: str, expected: list[str]) -> None:
    assert _names(find_class_chain(snap, chain)) == expected


def test_class_chain_parse_structure() -> None:
    steps = parse_class_chain("**/XCUIElementTypeCell[`name == 'a'`][$label == 'b'$][2]/*")
    assert [(s.descendant, s.type) for s in steps] == [(True, "XCUIElementTypeCell"), (False, None)]
    assert [k for k, _ in steps[0].filters] == ["self", "descendant", "index"]
    assert steps[0].filters[2] == ("index", 2)


@pytest.mark.parametrize(
    "bad",
    ["", "**/", "Button", "**/XCUIElementTypeButton[", "**/XCUIElementTypeButton[x]", "**/XCUIElementTypeButton/",
     "**/XCUIElementTypeButton[`name ==`]", "**/XCUIElementTypeButton[`name == 'x'", "XCUIElementTypeWindow//X"],
)
def test_class_chain_syntax_errors(bad: str) -> None:
    with pytest.raises(QueryError):
        parse_class_chain(bad)


def test_class_chain_relative_to_context(snap: Snapshot) -> None:
    cell = find_class_chain(snap, "**/XCUIElementTypeCell[3]")[0]
    assert _names(find_class_chain(snap, "XCUIElementTypeStaticText[1]", cell)) == ["Message 3"]


# --- xpath -------------------------------------------------------------------------------------


def test_xpath_on_rendered_source(snap: Snapshot) -> None:
    assert _names(find_xpath(snap, '//XCUIElementTypeButton[@name="compose"]')) == ["compose"]
    assert _names(find_xpath(snap, "//XCUIElementTypeCell[2]/XCUIElementTypeStaticText[1]")) == ["Message 2"]
    assert _names(find_xpath(snap, '//*[contains(@label, "user3")]')) == ["From: user3@example.com"]
    assert [e.type for e in find_xpath(snap, "/XCUIElementTypeApplication")] == ["XCUIElementTypeApplication"]
    with pytest.raises(QueryError):
        find_xpath(snap, "//XCUIElementTypeButton[")
    with pytest.raises(QueryError):
        find_xpath(snap, "count(//XCUIElementTypeButton)")
    with pytest.raises(QueryError):
        find_xpath(snap, "//XCUIElementTypeButton/@name")


def test_element_keys_are_stable_across_snapshots() -> None:
    a = build_snapshot(_tree(), APP, screen_width=390, screen_height=844)
    b = build_snapshot(_tree(), APP, screen_width=390, screen_height=844)
    assert [e.key for e in a.flat] == [e.key for e in b.flat]
    assert len(set(a.by_key)) == len(a.flat)


def test_empty_dump_is_an_application_without_children() -> None:
    snap = build_snapshot(_tree(), APP, screen_width=390, screen_height=844, empty=True)
    assert snap.xml().count("\n") == 2
    assert snap.xml().split("\n")[1].endswith('bundleId="dev.trailblaze.demo"/>')
