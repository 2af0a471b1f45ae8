"""`trailblaze mcp`'s `screenshot` paints over what shows a secret (issue 31, item 5): a secret typed
into a plain field and the secure password field are black in the picture the client gets, on the
simulated phone drawn from the same hierarchy the mask is computed from."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from tests.support.device import Rig, rig
from trailblaze.common.redact import Redactor
from trailblaze.mcp.confine import Confinement
from trailblaze.mcp.server import call_tool
from trailblaze.mcp.session import McpSession
from trailblaze.mcp.surface import mcp_tools
from trailblaze.screen.hierarchy import Rect
from trailblaze.screen.mask import Unmaskable, secret_boxes
from trailblaze.tools.memory import Memory

PASSWORD = "hunter2-pixels"


@pytest.fixture(scope="module")
def android() -> Iterator[Rig]:
    with rig("android") as r:
        yield r


def _ref(screen: str, label: str) -> str:
    found = re.search(r"\[(\w+)\] \w+ \"" + re.escape(label) + '"', screen)
    assert found, screen
    return found.group(1)


def _dark(image: Image.Image, box: Rect, factor: float) -> float:
    """The share of near-black pixels inside `box` (hierarchy units times `factor`), its edges left out."""
    inset = 4
    crop = image.convert("L").crop(
        (
            round(box.left * factor) + inset,
            round(box.top * factor) + inset,
            round(box.right * factor) - inset,
            round(box.bottom * factor) - inset,
        )
    )
    histogram = crop.histogram()  # 256 counts of the grey levels
    return sum(histogram[:48]) / max(1, sum(histogram))


def test_screenshot_masks_a_secret_typed_into_a_plain_field_and_the_password_field(
    android: Rig, tmp_path: Path
) -> None:
    bench = McpSession(
        Memory(secrets={"password": PASSWORD}),
        session=android.session,
        secrets={"password": PASSWORD},
        confinement=Confinement(tmp_path),
    )
    tools = {t.name: t for t in mcp_tools(bench.tools)}

    def call(name: str, **args: object) -> str:
        reply = call_tool(bench, tools, name, args)
        assert reply.ok and PASSWORD not in reply.text, reply.text
        return reply.text

    try:
        screen = call("launchApp", appId="dev.trailblaze.demo", launchMode="CLEAR_STATE")
        hierarchy = android.session.settle()
        email = next(n for n in hierarchy.walk() if n.resource_id.endswith("email"))
        password = next(n for n in hierarchy.walk() if n.resource_id.endswith("password"))
        before = call_tool(bench, tools, "screenshot", {"setOfMark": False})
        assert before.image is not None
        for label in ("Email", "Password"):
            screen = call("tap", ref=_ref(screen, label))
            screen = call("inputText", text="{{password}}")
        call("hideKeyboard")
        hierarchy = android.session.settle()
        assert any(PASSWORD in n.text for n in hierarchy.walk())  # the plain field shows it
        reply = call_tool(bench, tools, "screenshot", {"setOfMark": False})
        assert reply.ok and reply.image is not None, reply.text
        image = Image.open(io.BytesIO(reply.image))
        factor = image.width / hierarchy.width
        assert _dark(image, email.visible_bounds, factor) > 0.95
        assert _dark(image, password.visible_bounds, factor) > 0.95
        unmasked = Image.open(io.BytesIO(before.image))
        assert _dark(unmasked, email.visible_bounds, factor) < 0.5  # the field itself is not black
    finally:
        bench.session = None  # the module's rig owns the device


def test_a_secret_with_no_bounds_on_screen_refuses_the_screenshot() -> None:
    from trailblaze.screen.hierarchy import parse_hierarchy

    xml = (
        '<?xml version="1.0"?><hierarchy rotation="0">'
        '<node index="0" text="" class="android.widget.FrameLayout" package="p" bounds="[0,0][100,200]" '
        'visible-to-user="true">'
        f'<node index="0" text="{PASSWORD}" class="android.widget.TextView" package="p" bounds="[0,0][0,0]" '
        'visible-to-user="true"/>'
        "</node></hierarchy>"
    )
    hierarchy = parse_hierarchy(xml, "android", width=100, height=200)
    with pytest.raises(Unmaskable, match="holds a secret"):
        secret_boxes(hierarchy, Redactor({"password": PASSWORD}).scrub)
    assert secret_boxes(hierarchy, Redactor({"other": "something else"}).scrub) == []
