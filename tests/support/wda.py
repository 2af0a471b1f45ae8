"""Raw WebDriverAgent requests for the simulator tests: routes and bodies the facebook-wda client
cannot send (or would retry), straight over HTTP."""

from __future__ import annotations

import http.client
import json
from typing import Any

from trailblaze_sim.server.wda import WdaSimServer


def raw_wda(server: WdaSimServer, method: str, path: str, body: Any = None) -> tuple[int, dict[str, Any]]:
    """`(HTTP status, decoded JSON body)` of one request to `server`."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        data = json.dumps(body) if body is not None else None
        conn.request(method, path, data, {"Content-Type": "application/json"} if data else {})
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read())
    finally:
        conn.close()
