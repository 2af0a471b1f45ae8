"""The device routes of appium-uiautomator2-server 10.x (`/session/:id/…`): the clipboard, the
notification shade, the window and display, the device's info, orientation and rotation, and the
system alert. What they read of the phone goes through the server (`uia2_gestures.Server`)."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from typing import Any

from trailblaze_sim.android.hierarchy import STATUS_BAR_PT
from trailblaze_sim.appium.uia2_errors import Uia2Error
from trailblaze_sim.appium.uia2_gestures import Route, Server
from trailblaze_sim.model import SimDevice

__all__ = ["device_routes"]


def device_routes(server: Server, properties: Callable[[], dict[str, str]]) -> list[tuple[str, str, Route]]:
    """(method, path under `/session/:sessionId/`, handler) for each device route."""
    r = _DeviceRoutes(server, properties)
    return [
        ("POST", "appium/device/get_clipboard", r.get_clipboard),
        ("POST", "appium/device/set_clipboard", r.set_clipboard),
        ("POST", "appium/device/open_notifications", r.open_notifications),
        ("GET", "window/:windowHandle/size", r.window_size),
        ("GET", "appium/device/info", r.device_info),
        ("GET", "appium/device/system_bars", r.system_bars),
        ("GET", "appium/device/pixel_ratio", lambda p, b: float(server.device.scale)),
        ("GET", "appium/device/display_density", lambda p, b: density(server.device)),
        ("GET", "appium/device/battery_info", lambda p, b: {"level": 1.0, "status": 5}),
        ("GET", "orientation", r.orientation),
        ("POST", "orientation", r.set_orientation),
        ("GET", "rotation", lambda p, b: {"x": 0, "y": 0, "z": server.u2.rotation * 90}),
        ("GET", "alert/text", r.alert_text),
        ("POST", "alert/accept", lambda p, b: r.alert(b, accept=True)),
        ("POST", "alert/dismiss", lambda p, b: r.alert(b, accept=False)),
    ]


def density(device: SimDevice) -> int:
    return int(round(160 * device.scale))


class _DeviceRoutes:
    def __init__(self, server: Server, properties: Callable[[], dict[str, str]]) -> None:
        self.server = server
        self.device = server.device
        self.u2 = server.u2
        self.properties = properties

    def get_clipboard(self, params: dict[str, str], body: dict[str, Any]) -> Any:
        kind = body.get("contentType") or "plaintext"
        if str(kind).upper() != "PLAINTEXT":
            raise Uia2Error.invalid_argument(
                f"Only '[PLAINTEXT]' content types are supported. '{kind}' is given instead"
            )
        return base64.b64encode(self.device.clipboard.encode("utf-8")).decode("ascii")

    def set_clipboard(self, params: dict[str, str], body: dict[str, Any]) -> Any:
        content = body.get("content")
        if not isinstance(content, str):
            raise Uia2Error.invalid_argument("'content' is mandatory")
        kind = body.get("contentType") or "plaintext"
        if str(kind).upper() != "PLAINTEXT":
            raise Uia2Error.invalid_argument(
                f"Only '[PLAINTEXT]' content types are supported. '{kind}' is given instead"
            )
        try:
            self.device.clipboard = base64.b64decode(content).decode("utf-8")
        except ValueError as exc:
            raise Uia2Error.invalid_argument(f"bad base-64: {exc}") from exc
        return None

    def open_notifications(self, params: dict[str, str], body: dict[str, Any]) -> Any:
        self.server.rpc("openNotification")
        return None

    def window_size(self, params: dict[str, str], body: dict[str, Any]) -> Any:
        display = self.server.screen().display
        return {"width": display.width, "height": display.height}

    def system_bars(self, params: dict[str, str], body: dict[str, Any]) -> Any:
        return {"statusBar": int(round(STATUS_BAR_PT * self.device.scale))}

    def device_info(self, params: dict[str, str], body: dict[str, Any]) -> Any:
        props = self.properties()
        d = self.device
        width, height = int(round(d.screen_width * d.scale)), int(round(d.screen_height * d.scale))
        return {
            "androidId": hashlib.sha1(d.serial.encode()).hexdigest()[:16],
            "manufacturer": props.get("ro.product.manufacturer", "Google"),
            "model": props.get("ro.product.model", d.model),
            "brand": props.get("ro.product.brand", "google"),
            "apiVersion": props.get("ro.build.version.sdk", "34"),
            "platformVersion": props.get("ro.build.version.release", "14"),
            "carrierName": props.get("gsm.operator.alpha", ""),
            "realDisplaySize": f"{width}x{height}",
            "displayDensity": density(d),
            "networks": [
                {
                    "type": 1,
                    "typeName": "WIFI",
                    "subtype": 0,
                    "subtypeName": "",
                    "isConnected": True,
                    "detailedState": "CONNECTED",
                    "state": "CONNECTED",
                    "extraInfo": None,
                    "isAvailable": True,
                    "isFailover": False,
                    "isRoaming": False,
                    "capabilities": {
                        "transportTypes": "TRANSPORT_WIFI",
                        "networkCapabilities": "NET_CAPABILITY_INTERNET,NET_CAPABILITY_VALIDATED",
                        "linkUpstreamBandwidthKbps": 1048576,
                        "linkDownBandwidthKbps": 1048576,
                        "signalStrength": -50,
                        "SSID": None,
                    },
                }
            ],
            "locale": props.get("ro.product.locale", "en-US").replace("-", "_"),
            "timeZone": props.get("persist.sys.timezone", "UTC"),
            "bluetooth": {"state": "OFF"},
        }

    def orientation(self, params: dict[str, str], body: dict[str, Any]) -> Any:
        return "LANDSCAPE" if self.u2.rotation % 2 else "PORTRAIT"

    def set_orientation(self, params: dict[str, str], body: dict[str, Any]) -> Any:
        wanted = str(body.get("orientation", "")).upper()
        if wanted not in ("PORTRAIT", "LANDSCAPE"):
            raise Uia2Error.invalid_argument(
                f"Orientation '{wanted}' is not supported. Use PORTRAIT or LANDSCAPE"
            )
        self.server.rpc("setOrientation", "natural" if wanted == "PORTRAIT" else "left")
        if self.orientation(params, body) != wanted:
            raise Uia2Error.invalid_element_state(
                f"Screen rotation cannot be changed to {wanted} after 2000ms. Is it locked programmatically?"
            )
        return wanted

    def alert_text(self, params: dict[str, str], body: dict[str, Any]) -> Any:
        alert = self.device.alert()
        if alert is None:
            raise Uia2Error.no_such_alert()
        return alert.text

    def alert(self, body: dict[str, Any], *, accept: bool) -> Any:
        alert = self.device.alert()
        if alert is None or not alert.buttons:
            raise Uia2Error.no_such_alert()
        wanted = body.get("buttonLabel")
        label = (
            wanted
            if isinstance(wanted, str) and wanted
            else (alert.buttons[-1] if accept else alert.buttons[0])
        )
        if label not in alert.buttons:
            raise Uia2Error.invalid_element_state(f"There is no alert button labeled '{label}'")
        self.device.alert_press(label)
        return None
