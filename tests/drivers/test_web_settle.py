"""Settling on a browser page waits for the page's own signals (requests in flight, DOM and input
quiet, timers and frame callbacks it scheduled), in the page, with the DOM walk in the same round
trip (docs/adr/0035-web-settle-in-the-page.md). Asserts on what the dump shows and on the counts the
driver reports, never on time."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.web_site import WEB_DATA as DATA
from tests.support.web_site import require_browser
from tests.support.web_site import serve_site as _serve
from trailblaze.device.devices import open_device
from trailblaze.device.session import DeviceSession
from trailblaze.screen.hierarchy import Hierarchy

require_browser()


@pytest.fixture(scope="module")
def browser() -> Iterator[tuple[DeviceSession, str]]:
    with _serve(DATA) as url, open_device("web") as opened:
        yield opened, f"{url}/settle.html"


@pytest.fixture
def session(browser: tuple[DeviceSession, str]) -> DeviceSession:
    opened, page = browser
    opened.act(lambda d: d.open_url(page))  # a fresh page: no timer of an earlier test still runs
    return opened


def _click(session: DeviceSession, label: str) -> Hierarchy:
    node = next(n for n in session.settle().nodes if n.label == label)
    after = session.act(lambda d: d.tap(*node.center))
    assert after is not None
    return after


def _stats(session: DeviceSession) -> dict[str, int]:
    from trailblaze_web.driver import WebDriver

    assert isinstance(session.driver, WebDriver)
    return session.driver.idle_stats


@pytest.mark.slow
def test_a_click_that_changes_nothing_waits_one_task_turn_not_a_frame(session: DeviceSession) -> None:
    _click(session, "Do nothing")
    assert _stats(session) == {"frames": 0, "busy": 0}  # nothing queued: the task-turn path
    assert session.last_settle is not None and session.last_settle.settled


def test_a_change_from_a_chain_of_posted_messages_is_in_the_first_dump(session: DeviceSession) -> None:
    after = _click(session, "Render by message")
    assert any(n.text == "Message rendered" for n in after.nodes)


def test_a_response_body_still_being_read_is_waited_for(session: DeviceSession) -> None:
    # The body's stream fills after a 300 ms timer (too long to count as queued work): only the
    # pending `text()` says the page is still busy.
    after = _click(session, "Read a slow body")
    assert any(n.text == "Body read" for n in after.nodes)


def test_a_hash_link_whose_hashchange_handler_renders_is_in_the_first_dump(session: DeviceSession) -> None:
    after = _click(session, "Hash link")
    assert any(n.text == "Hash section-two" for n in after.nodes)
    assert _stats(session)["frames"] > 0  # the URL changed: the frame path


def test_a_click_that_starts_a_css_transition_takes_the_frame_path(session: DeviceSession) -> None:
    _click(session, "Fade")
    assert _stats(session)["frames"] > 0
    assert session.last_settle is not None and session.last_settle.settled


def test_a_page_that_changes_for_320_ms_is_waited_for(session: DeviceSession) -> None:
    # Changes 40 ms apart: longer than a frame, so only the timer it scheduled says it is not done.
    after = _click(session, "Grow the list")
    assert [n.text for n in after.nodes if n.text.startswith("Item ")] == [f"Item {i}" for i in range(1, 9)]
    assert _stats(session)["busy"] > 0


def test_a_change_from_a_timer_after_a_click_is_waited_for(session: DeviceSession) -> None:
    # The click itself changes nothing: the 40 ms timer it scheduled does.
    after = _click(session, "Change later")
    assert any(n.text == "Later done" for n in after.nodes)


def test_an_xhr_in_flight_is_waited_for(session: DeviceSession) -> None:
    after = _click(session, "Load with XHR")  # the server answers after 0.4 s
    assert any(n.text == "XHR Data loaded" for n in after.nodes)
    assert _stats(session)["busy"] > 0


def test_a_loading_text_is_waited_out_like_a_spinner(session: DeviceSession) -> None:
    # The 300 ms timer is too long to count as pending work: the page looks idle with "Loading…"
    # on it, and the session's loading-indicator handling (trailblaze.device.settle) waits it out.
    after = _click(session, "Load slowly")
    assert any(n.text == "Loaded" for n in after.nodes)
    assert (
        session.last_settle is not None and session.last_settle.loading_seen and session.last_settle.dumps > 1
    )


def test_a_timer_that_never_ends_but_changes_nothing_settles_after_the_quiet_window(
    session: DeviceSession,
) -> None:
    _click(session, "Poll forever")
    assert session.last_settle is not None and session.last_settle.settled
    assert _stats(session)["busy"] > 0  # the pending timer kept it off the one-frame path


def test_a_page_that_changes_forever_is_acted_on_at_the_bound(session: DeviceSession) -> None:
    bound, session.settle_timeout = session.settle_timeout, 0.3
    try:
        after = _click(session, "Tick forever")
    finally:
        session.settle_timeout = bound
    assert session.last_settle is not None and session.last_settle.timed_out
    assert any(n.label == "Next page" for n in after.nodes)


def test_a_click_that_opens_another_page_settles_on_that_page(session: DeviceSession) -> None:
    after = _click(session, "Next page")
    assert any(n.label == "Delete account" for n in after.nodes)
    assert session.last_settle is not None and session.last_settle.settled
