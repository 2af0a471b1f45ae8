"""Device-side element queries (`trailblaze.device.query`) against the dump resolver.

The device says *when* an element is there, the dump says *which*: so a device query must never miss
a node the dump resolver finds (else a wait on the device would time out on a screen that shows the
element), and the query form the drivers send (a uiautomator2 UiSelector, a WDA predicate) must mean
on the device what `query_matches` means on a dump. Checked over every screen of the demo app and the
real-world dumps in tests/data/hierarchy/, and live through the unmodified clients on the simulators.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.demo_screens import SCREENS, _reach, demo_screen
from tests.support.hierarchy_fixtures import FIXTURE_IDS, FIXTURES, load
from trailblaze.device.devices import load_driver_plugin
from trailblaze.device.driver import SupportsElementWait
from trailblaze.device.query import (
    ElementQuery,
    element_query,
    is_simple,
    query_for_node,
    query_matches,
    u2_selector,
    wda_predicate,
)
from trailblaze.device.session import DeviceSession
from trailblaze.screen.hierarchy import Hierarchy, Node
from trailblaze.screen.resolve import resolve
from trailblaze.screen.selector import NodeSelector
from trailblaze_sim.faults import Conditions

_FEW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _fields(node: Node) -> dict[str, list[Any]]:
    """Selector fields (and the values that match `node`) a recorder could write for it."""
    out: dict[str, list[Any]] = {}
    if node.platform == "android":
        ids = [node.resource_id, node.short_id, ".*" + node.short_id] if node.resource_id else []
        out["resourceIdRegex"] = ids
        out["textRegex"] = [node.text]
        out["contentDescriptionRegex"] = [node.label]
        out["classNameRegex"] = [node.class_name, node.short_class]
        out["isClickable"] = [node.clickable]
        out["isEnabled"] = [node.enabled]
    else:
        out["resourceIdRegex"] = [node.resource_id]
        out["textRegex"] = [node.text, node.label, node.hint]
        out["accessibilityTextRegex"] = [node.label]
        out["classNameRegex"] = [node.class_name, node.short_class]
        out["enabled"] = [node.enabled]
    return {
        k: [v for v in vs if isinstance(v, bool) or (is_simple(v) and v.strip(".*"))] for k, vs in out.items()
    }


@st.composite
def _selector_for(draw: st.DrawFn, hierarchy: Hierarchy) -> tuple[Node, NodeSelector]:
    # WDA's `/elements` searches below the application element, never the element itself
    nodes = [
        n
        for n in hierarchy.visible_nodes()
        if (n.platform == "android" or n.parent is not None)
        and any(v for v in _fields(n).values() if v != [True])
    ]
    node = draw(st.sampled_from(nodes))
    fields = {k: v for k, v in _fields(node).items() if v}
    strings = [k for k in fields if not k.startswith(("is", "enabled"))]
    keys = draw(st.lists(st.sampled_from(sorted(fields)), min_size=1, max_size=3, unique=True))
    if not any(k in strings for k in keys):
        keys.append(draw(st.sampled_from(sorted(strings))))
    branch = {k: draw(st.sampled_from(fields[k])) for k in keys}
    name = "androidAccessibility" if node.platform == "android" else "iosMaestro"
    raw: dict[str, Any] = {name: branch}
    if draw(st.booleans()):
        raw["index"] = 0
    return node, NodeSelector.model_validate(raw)


def _check_superset(hierarchy: Hierarchy, data: st.DataObject) -> None:
    node, selector = data.draw(_selector_for(hierarchy))
    query = element_query(selector)
    assert query is not None, selector
    unindexed = selector.model_copy(update={"index": None})
    everything = resolve(unindexed, hierarchy)
    # the drawn node matches its own fields (unless a covered twin lost to an uncovered match)
    assert node in everything or any(n.covered_by is None for n in everything)
    found = [n for n in everything if n.platform == "android" or n.parent is not None]
    missed = [n for n in found if not query_matches(query, n)]
    assert not missed, f"{selector.to_yaml_dict()} -> {query}: the device query misses {missed}"


@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("platform", ["android", "ios"])
@_FEW
@given(data=st.data())
def test_a_device_query_never_misses_what_the_dump_resolver_finds_on_demo_screens(
    platform: str, screen: str, data: st.DataObject
) -> None:
    _check_superset(demo_screen(screen, platform), data)


@pytest.mark.parametrize("path", FIXTURES, ids=FIXTURE_IDS)
@_FEW
@given(data=st.data())
def test_a_device_query_never_misses_what_the_dump_resolver_finds_on_real_dumps(
    path: Any, data: st.DataObject
) -> None:
    _check_superset(load(path), data)


def test_only_literal_selectors_map_to_a_device_query() -> None:
    def q(raw: dict[str, Any]) -> ElementQuery | None:
        return element_query(NodeSelector.model_validate(raw))

    android = q({"androidAccessibility": {"resourceIdRegex": "dev.trailblaze.demo:id/email"}})
    assert android is not None and u2_selector(android) == {
        "resourceIdMatches": "(?:.*:id/)?dev.trailblaze.demo:id/email"
    }
    ios = q(
        {"iosMaestro": {"accessibilityTextRegex": "Inbox", "classNameRegex": "XCUIElementTypeStaticText"}}
    )
    assert ios is not None
    assert wda_predicate(ios) == "label == 'Inbox' AND type == 'XCUIElementTypeStaticText'"
    quoted = q({"iosMaestro": {"textRegex": "It's .*"}})
    assert quoted is not None and "value MATCHES 'It\\'s .*'" in wda_predicate(quoted)
    # relations, real regexes, hints and Maestro's text-or-description stay on the dump
    assert q({"androidAccessibility": {"textRegex": "Sign (in|up)"}}) is None
    assert q({"androidAccessibility": {"hintTextRegex": "Email"}}) is None
    assert q({"androidMaestro": {"textRegex": "Inbox"}}) is None
    assert (
        q(
            {
                "androidAccessibility": {"textRegex": "Inbox"},
                "below": {"androidAccessibility": {"textRegex": "A"}},
            }
        )
        is None
    )
    assert q({"androidAccessibility": {"isClickable": True}}) is None


# --- live: the drivers' query forms on the simulated devices --------------------------------------


@contextlib.contextmanager
def _driver_on(screen: str, platform: str) -> Iterator[Any]:
    device = _reach(screen, platform, "demo")
    if platform == "android":
        from trailblaze_sim.server.adb import AndroidSimServer

        server: Any = AndroidSimServer([device], conditions=Conditions())
        server.start()
        target, options = device.serial, {"adb_host": "127.0.0.1", "adb_port": str(server.port)}
    else:
        from trailblaze_sim.server.wda import WdaSimServer

        server = WdaSimServer(device).start()
        target, options = server.url, {}
    try:
        driver = load_driver_plugin(platform).open(target, options)
        try:
            yield driver
        finally:
            driver.close()
    finally:
        server.stop()


@pytest.mark.parametrize("screen", ["login", "inbox", "sign-out-dialog"])
@pytest.mark.parametrize("platform", ["android", "ios"])
def test_the_device_answers_the_query_as_query_matches_reads_the_dump(platform: str, screen: str) -> None:
    with _driver_on(screen, platform) as driver:
        assert isinstance(driver, SupportsElementWait)
        hierarchy = driver.hierarchy()

        @settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
        @given(data=st.data())
        def check(data: st.DataObject) -> None:
            _node, selector = data.draw(_selector_for(hierarchy))
            query = element_query(selector)
            assert query is not None
            on_dump = any(query_matches(query, n) for n in hierarchy.nodes)
            assert on_dump  # at least the node the selector was drawn from
            assert driver.wait_for(query, 0.0) is True, (selector.to_yaml_dict(), query)
            assert driver.wait_for(query, 0.0, gone=True) is False

        check()
        branch = "iosMaestro" if platform == "ios" else "androidAccessibility"
        missing = element_query(NodeSelector.model_validate({branch: {"textRegex": "Nope 42"}}))
        assert missing is not None and not any(query_matches(missing, n) for n in hierarchy.nodes)
        assert driver.wait_for(missing, 0.0) is False and driver.wait_for(missing, 0.0, gone=True) is True


@pytest.mark.parametrize("platform", ["android", "ios"])
@pytest.mark.slow
def test_waiting_for_an_element_that_appears_later_waits_on_the_device_not_on_dumps(platform: str) -> None:
    """The Inbox heading shows a second after Sign in: the wait is one device query and one dump
    (before: a dump every poll interval for the whole second)."""
    from tests.support.device import rig

    with rig(platform, resolve_timeout=5.0, loading_timeout=5.0) as r:
        s: DeviceSession = r.session
        for short, text in (("email", "ada@example.com"), ("password", "hunter2")):
            node = next(n for n in s.screen().visible_nodes() if n.short_id == short)
            s.act(lambda d, n=node: d.tap(*n.center))
            s.act(lambda d, t=text: d.input_text(t))
        sign_in = next(n for n in s.screen().visible_nodes() if n.short_id == "sign_in")
        s.act(lambda d: d.tap(*sign_in.center), settle=False)  # no settle: the spinner is still up
        dumps, waits = s.stats.dumps, s.stats.element_waits
        branch = "androidAccessibility" if platform == "android" else "iosMaestro"
        t0 = time.monotonic()
        res = s.resolve(NodeSelector.model_validate({branch: {"textRegex": "Message 1"}}))
        assert len(res.nodes) == 1 and time.monotonic() - t0 < 5.0
        assert s.stats.element_waits - waits == 1 and s.stats.dumps - dumps <= 2


def test_a_loading_indicator_is_waited_out_by_its_own_query() -> None:
    node = Node(platform="android", class_name="android.widget.TextView", text="Signing in…")
    query = query_for_node(node)
    assert query is not None and query.text == "Signing in…" and query_matches(query, node)
