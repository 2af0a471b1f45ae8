"""Selector resolution and generation, including the round trip over every real fixture."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.hierarchy_fixtures import FIXTURE_IDS, FIXTURES, load
from tests.support.screen_checks import round_trip
from trailblaze.screen.hierarchy import Hierarchy, Node, parse_hierarchy
from trailblaze.screen.resolve import compile_pattern, resolve
from trailblaze.screen.selector import NodeSelector
from trailblaze.screen.selector_gen import generate_selector, hit_test, literal, selector_for

LOGIN = """<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
<hierarchy rotation="0">
  <node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="dev.trailblaze.demo" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" visible-to-user="true" bounds="[0,0][1080,2400]">
    <node index="0" text="Welcome back" resource-id="dev.trailblaze.demo:id/title" class="android.widget.TextView" package="dev.trailblaze.demo" content-desc="" clickable="false" enabled="true" bounds="[40,200][1040,300]" />
    <node index="1" text="" resource-id="dev.trailblaze.demo:id/email" class="android.widget.EditText" package="dev.trailblaze.demo" content-desc="" clickable="true" focusable="true" focused="true" enabled="true" hint="Email" bounds="[40,400][1040,520]" />
    <node index="2" text="" resource-id="dev.trailblaze.demo:id/password" class="android.widget.EditText" package="dev.trailblaze.demo" content-desc="" clickable="true" focusable="true" password="true" enabled="true" hint="Password" bounds="[40,560][1040,680]" />
    <node index="3" text="Sign in" resource-id="dev.trailblaze.demo:id/sign_in" class="android.widget.Button" package="dev.trailblaze.demo" content-desc="" clickable="true" enabled="true" bounds="[40,760][1040,880]" />
    <node index="4" text="Forgot password?" resource-id="dev.trailblaze.demo:id/forgot" class="android.widget.TextView" package="dev.trailblaze.demo" content-desc="" clickable="true" enabled="true" bounds="[340,920][740,980]" />
    <node index="5" text="" resource-id="" class="android.widget.LinearLayout" package="dev.trailblaze.demo" content-desc="" clickable="true" enabled="true" bounds="[40,1000][1040,1100]">
      <node index="0" text="Message 3" resource-id="dev.trailblaze.demo:id/row_title" class="android.widget.TextView" package="dev.trailblaze.demo" content-desc="" clickable="false" bounds="[60,1010][500,1050]" />
      <node index="1" text="" resource-id="dev.trailblaze.demo:id/dark_mode" class="android.widget.Switch" package="dev.trailblaze.demo" content-desc="" checkable="true" checked="true" clickable="true" bounds="[900,1010][1000,1090]" />
    </node>
    <node index="6" text="" resource-id="" class="android.widget.LinearLayout" package="dev.trailblaze.demo" content-desc="" clickable="true" enabled="false" bounds="[40,1100][1040,1200]">
      <node index="0" text="Message 30" resource-id="dev.trailblaze.demo:id/row_title" class="android.widget.TextView" package="dev.trailblaze.demo" content-desc="" clickable="false" bounds="[60,1110][500,1150]" />
    </node>
    <node index="7" text="" resource-id="dev.trailblaze.demo:id/compose" class="android.widget.ImageButton" package="dev.trailblaze.demo" content-desc="Compose" clickable="true" selected="true" scrollable="false" bounds="[900,2100][1040,2240]" />
    <node index="8" text="Hidden" resource-id="dev.trailblaze.demo:id/hidden" class="android.widget.TextView" package="dev.trailblaze.demo" visible-to-user="false" bounds="[40,2300][1040,2350]" />
  </node>
</hierarchy>
"""


@pytest.fixture(scope="module")
def login() -> Hierarchy:
    return parse_hierarchy(LOGIN)


def _sel(**spec: Any) -> NodeSelector:
    return NodeSelector.model_validate(spec)


def _a(**fields: Any) -> dict[str, Any]:
    return {"androidAccessibility": fields}


def _texts(nodes: list[Node]) -> list[str]:
    return [n.text or n.label or n.hint or n.short_id for n in nodes]


# --------------------------------------------------------------------------------------------------
# Resolver


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"resourceIdRegex": "dev.trailblaze.demo:id/sign_in"}, ["Sign in"]),
        ({"resourceIdRegex": "sign_in"}, ["Sign in"]),
        ({"resourceIdRegex": ".*sign_in"}, ["Sign in"]),
        ({"resourceIdRegex": "sign"}, []),
        ({"textRegex": "Sign in"}, ["Sign in"]),
        ({"textRegex": "Sign"}, []),  # full match, not search
        ({"textRegex": "Message \\d+"}, ["Message 3", "Message 30"]),
        ({"textRegex": "Message 3"}, ["Message 3"]),
        ({"contentDescriptionRegex": "Compose"}, ["Compose"]),
        ({"hintTextRegex": "Pass.*"}, ["Password"]),
        ({"classNameRegex": "android.widget.EditText"}, ["Email", "Password"]),
        ({"classNameRegex": "EditText"}, ["Email", "Password"]),
        ({"classNameRegex": "Switch", "isChecked": True}, ["dark_mode"]),
        ({"classNameRegex": "Switch", "isChecked": False}, []),
        ({"isCheckable": True}, ["dark_mode"]),
        ({"isFocused": True}, ["Email"]),
        ({"isPassword": True}, ["Password"]),
        ({"isSelected": True}, ["Compose"]),
        ({"isEnabled": False}, [""]),
        ({"classNameRegex": "LinearLayout", "isClickable": True}, ["", ""]),
        ({"isScrollable": True}, []),
        ({"textRegex": "Hidden"}, []),  # only visible nodes match
    ],
)
def test_android_accessibility_fields(login: Hierarchy, fields: dict[str, Any], expected: list[str]) -> None:
    assert _texts(resolve(_sel(**_a(**fields)), login)) == expected


def test_invalid_regex_matches_literally(login: Hierarchy) -> None:
    assert compile_pattern("Forgot password?").fullmatch("Forgot password") is not None  # valid regex
    assert compile_pattern("(unclosed").fullmatch("(unclosed") is not None
    assert compile_pattern("(unclosed") is compile_pattern("(unclosed")  # cached
    assert _texts(resolve(_sel(**_a(textRegex="Forgot password\\?")), login)) == ["Forgot password?"]


def test_android_maestro_text_matches_text_description_or_hint(login: Hierarchy) -> None:
    assert _texts(resolve(_sel(androidMaestro={"textRegex": "Compose"}), login)) == ["Compose"]
    assert _texts(resolve(_sel(androidMaestro={"textRegex": "Email"}), login)) == ["Email"]
    assert _texts(resolve(_sel(androidMaestro={"idRegex": "email"}), login)) == ["Email"]


def test_relations(login: Hierarchy) -> None:
    edit = {"classNameRegex": "EditText"}
    assert _texts(resolve(_sel(**_a(**edit), below=_a(hintTextRegex="Email")), login)) == ["Password"]
    assert _texts(resolve(_sel(**_a(**edit), above=_a(textRegex="Sign in")), login)) == ["Email", "Password"]
    assert _texts(resolve(_sel(**_a(**edit), above=_a(hintTextRegex="Password")), login)) == ["Email"]
    # Like Maestro, left/right compare horizontal positions only (centre beyond the anchor's edge).
    right = _sel(**_a(classNameRegex="ImageButton|Switch"), rightOf=_a(textRegex="Message 3"))
    assert _texts(resolve(right, login)) == ["dark_mode", "Compose"]
    left = _sel(**_a(textRegex="Message.*"), leftOf=_a(resourceIdRegex="dark_mode"))
    assert _texts(resolve(left, login)) == ["Message 3", "Message 30"]
    assert resolve(_sel(**_a(textRegex="Message.*"), rightOf=_a(resourceIdRegex="dark_mode")), login) == []
    row = _sel(**_a(classNameRegex="LinearLayout"), containsChild=_a(textRegex="Message 30"))
    assert [n.bounds.top for n in resolve(row, login)] == [1100]
    inside = _sel(**_a(resourceIdRegex="row_title"), childOf=_a(isEnabled=False))
    assert _texts(resolve(inside, login)) == ["Message 30"]
    deep = _sel(
        **_a(classNameRegex="FrameLayout"),
        containsDescendants=[_a(textRegex="Message 3"), _a(contentDescriptionRegex="Compose")],
    )
    assert len(resolve(deep, login)) == 1
    missing = _sel(**_a(classNameRegex="FrameLayout"), containsDescendants=[_a(textRegex="Nope")])
    assert resolve(missing, login) == []


def test_index_and_ordering(login: Hierarchy) -> None:
    rows = _sel(**_a(resourceIdRegex="row_title"))
    assert _texts(resolve(rows, login)) == ["Message 3", "Message 30"]
    assert _texts(resolve(_sel(**_a(resourceIdRegex="row_title"), index=1), login)) == ["Message 30"]
    assert resolve(_sel(**_a(resourceIdRegex="row_title"), index=2), login) == []


def test_branch_platform_mismatch_matches_nothing(login: Hierarchy) -> None:
    assert resolve(_sel(iosMaestro={"textRegex": "Sign in"}), login) == []


def test_ios_maestro_fields() -> None:
    h = load(next(p for p in FIXTURES if p.name == "keyboard.xml"))
    found = resolve(
        _sel(iosMaestro={"accessibilityTextRegex": "Auto-Correction", "classNameRegex": "Switch"}), h
    )
    assert [n.short_class for n in found] == ["Switch"]
    assert _texts(resolve(_sel(iosMaestro={"resourceIdRegex": "KeyboardAutocorrection"}), h)) == [
        "Auto-Correction"
    ]
    by_text = resolve(_sel(iosMaestro={"textRegex": "Auto-Correction"}), h)  # value or label
    assert {n.short_class for n in by_text} == {"Cell", "StaticText", "Switch"}
    assert resolve(_sel(iosMaestro={"textRegex": "Period shortcut"}), h) == []  # off screen


# --------------------------------------------------------------------------------------------------
# Generator


def test_literal_escapes_only_metacharacters() -> None:
    assert literal("Message 3") == "Message 3"
    assert literal("Forgot password?") == "Forgot password\\?"
    assert literal("a.b(c)") == "a\\.b\\(c\\)"
    assert literal("com.x:id/y", keep_dots=True) == "com.x:id/y"


def _node(h: Hierarchy, text: str) -> Node:
    return next(n for n in h.nodes if text in (n.text, n.label, n.hint))


def test_generation_prefers_resource_id_and_minimises(login: Hierarchy) -> None:
    sel = generate_selector(_node(login, "Sign in"), login)
    assert sel is not None and sel.to_yaml_dict() == _a(resourceIdRegex="dev.trailblaze.demo:id/sign_in")


def test_generation_hit_tests_to_the_clickable_container(login: Hierarchy) -> None:
    title = _node(login, "Message 3")
    row = title.parent
    assert row is not None and hit_test(login, *title.center) is row
    sel = generate_selector(title, login)
    assert sel is not None and resolve(sel, login) == [row]
    # class + state (the other row is disabled) comes before relations in the durability order
    assert sel.to_yaml_dict() == _a(classNameRegex="android.widget.LinearLayout", isEnabled=True)
    assert selector_for(title, login) == _sel(**_a(textRegex="Message 3"))


def test_list_rows_are_found_by_the_text_they_contain() -> None:
    row = (
        '<node class="android.widget.LinearLayout" clickable="true" bounds="[0,{t}][100,{b}]">'
        '<node class="android.widget.TextView" resource-id="p:id/title" text="{text}" bounds="[0,{t}][50,{b}]"/></node>'
    )
    rows = "".join(row.format(t=i * 100, b=i * 100 + 100, text=f"Message {i + 1}") for i in range(12))
    h = parse_hierarchy(
        f'<hierarchy><node class="F" scrollable="true" bounds="[0,0][100,1000]">{rows}</node></hierarchy>'
    )
    title = _node(h, "Message 3")
    sel = generate_selector(title, h)
    assert sel is not None and resolve(sel, h) == [title.parent]
    assert sel.to_yaml_dict() == {
        **_a(classNameRegex="android.widget.LinearLayout"),
        "containsChild": _a(textRegex="Message 3"),
    }


def test_hit_test_prefers_the_topmost_clickable(login: Hierarchy) -> None:
    switch = next(n for n in login.nodes if n.short_class == "Switch")
    assert hit_test(login, *switch.center) is switch
    assert hit_test(login, 5000, 5000) is None


def test_generated_text_is_escaped_and_does_not_match_longer_text() -> None:
    h = parse_hierarchy(
        '<hierarchy><node class="F" bounds="[0,0][100,300]">'
        '<node class="android.widget.TextView" text="Forgot password?" clickable="true" bounds="[0,0][100,100]"/>'
        '<node class="android.widget.TextView" text="Message 3" bounds="[0,100][100,200]"/>'
        '<node class="android.widget.TextView" text="Message 30" bounds="[0,200][100,300]"/>'
        "</node></hierarchy>"
    )
    forgot = _node(h, "Forgot password?")
    assert generate_selector(forgot, h) == _sel(**_a(textRegex="Forgot password\\?"))
    msg = _node(h, "Message 3")
    assert generate_selector(msg, h) == _sel(**_a(textRegex="Message 3"))


def test_identical_twins_fall_back_to_index() -> None:
    twin = '<node class="android.widget.Button" text="OK" clickable="true" bounds="[0,{t}][100,{b}]"/>'
    h = parse_hierarchy(
        f'<hierarchy><node class="F" bounds="[0,0][100,200]">{twin.format(t=0, b=100)}{twin.format(t=100, b=200)}'
        "</node></hierarchy>"
    )
    second = h.nodes[2]
    sel = selector_for(second, h)
    assert sel is not None and resolve(sel, h) == [second]
    assert sel.index == 1 or sel.below is not None


def test_invisible_node_has_no_selector(login: Hierarchy) -> None:
    assert selector_for(_node(login, "Hidden"), login) is None


@pytest.mark.parametrize("path", FIXTURES, ids=FIXTURE_IDS)
def test_selector_round_trip_on_real_fixtures(path: Any) -> None:
    checked, misses = round_trip(load(path))
    assert checked > 0
    print(f"{path.name}: {checked - len(misses)}/{checked} round trip")
    assert misses == []


def test_selector_round_trip_percentage(capsys: pytest.CaptureFixture[str]) -> None:
    total = ok = 0
    for path in FIXTURES:
        checked, misses = round_trip(load(path))
        total += checked
        ok += checked - len(misses)
    with capsys.disabled():
        print(f"\nselector round trip on {len(FIXTURES)} fixtures: {ok}/{total} = {100 * ok / total:.1f}%")
    assert ok == total
